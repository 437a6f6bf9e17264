// The compute issue's benchmark list, one thread and two: add at 2^10, 2^20, 2^24 floats
// (out-of-place, out=, in-place), add with a transposed operand and mul with a row broadcast at
// 1024 x 1024, exp and sin at 2^20, sum at 2^20 and 2^24, matmul at 128, 512, 1024, and memcpy of
// the bytes one operand occupies (the bandwidth ceiling). Twins: bench/libtorch/ops_bench.cpp.
// Cases are `<op>_<size>_t<threads>@<impl>`; the two-thread ones are timed in real time (the
// workers' CPU time is not the caller's), which bench/compare.py reads from the /real_time
// suffix. Run, e.g.:
//   OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 tensorplay_bench --benchmark_filter='_t[12]@'
//   --benchmark_enable_random_interleaving=true --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <tensorplay/tensorplay.hpp>

namespace tp = tensorplay;

namespace {

tp::Tensor filled(std::vector<int64_t> shape, double v) { return tp::full(shape, v, tp::kFloat); }

// Sets the thread count from the case's second argument and restores nothing: every case
// sets its own.
void threads(const benchmark::State& state) { tp::set_num_threads(int(state.range(1))); }

void add(benchmark::State& state) {
  threads(state);
  const tp::Tensor a = filled({state.range(0)}, 1.5), b = filled({state.range(0)}, 2.5);
  for (auto _ : state) {
    tp::Tensor c = tp::add(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void add_out(benchmark::State& state) {
  threads(state);
  const tp::Tensor a = filled({state.range(0)}, 1.5), b = filled({state.range(0)}, 2.5);
  tp::Tensor out = tp::empty({state.range(0)});
  for (auto _ : state) {
    tp::add_out(out, a, b);
    benchmark::DoNotOptimize(out.data_ptr());
  }
}

void add_inplace(benchmark::State& state) {
  threads(state);
  const tp::Tensor a = filled({state.range(0)}, 1.5), b = filled({state.range(0)}, 0.0);
  for (auto _ : state) {
    a.add_(b);
    benchmark::DoNotOptimize(a.data_ptr());
  }
}

void add_transposed(benchmark::State& state) {
  threads(state);
  const int64_t n = state.range(0);
  const tp::Tensor a = filled({n, n}, 1.5), b = filled({n, n}, 2.5);
  for (auto _ : state) {
    tp::Tensor c = a + b.t();
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

// The mirror image of add_transposed: the transposed operand first, so the result takes its
// (column-major) layout and the other input is the one read across.
void add_transposed_left(benchmark::State& state) {
  threads(state);
  const int64_t n = state.range(0);
  const tp::Tensor a = filled({n, n}, 1.5), b = filled({n, n}, 2.5);
  for (auto _ : state) {
    tp::Tensor c = a.t() + b;
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void mul_row(benchmark::State& state) {
  threads(state);
  const int64_t n = state.range(0);
  const tp::Tensor a = filled({n, n}, 1.5), row = filled({n}, 2.5);
  for (auto _ : state) {
    tp::Tensor c = a * row;
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void exp_(benchmark::State& state) {
  threads(state);
  const tp::Tensor a = tp::linspace(-10, 10, state.range(0));
  for (auto _ : state) {
    tp::Tensor c = tp::exp(a);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void sin_(benchmark::State& state) {
  threads(state);
  const tp::Tensor a = tp::linspace(-10, 10, state.range(0));
  for (auto _ : state) {
    tp::Tensor c = tp::sin(a);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void sum(benchmark::State& state) {
  threads(state);
  const tp::Tensor a = filled({state.range(0)}, 0.5);
  for (auto _ : state) {
    tp::Tensor c = a.sum();
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void matmul(benchmark::State& state) {
  threads(state);
  const int64_t n = state.range(0);
  const tp::Tensor a = tp::rand({n, n}), b = tp::rand({n, n});
  for (auto _ : state) {
    tp::Tensor c = tp::matmul(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void memcpy_(benchmark::State& state) {
  const std::vector<float> src(std::size_t(state.range(0)), 1.5f);
  std::vector<float> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size() * sizeof(float));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
}

// One registration per (case, threads); two threads in real time.
#define TP_OPS_BENCH(fn, name, size)                           \
  BENCHMARK(fn)->Name(name "_t1@tensorplay")->Args({size, 1}); \
  BENCHMARK(fn)->Name(name "_t2@tensorplay")->Args({size, 2})->UseRealTime()

TP_OPS_BENCH(add, "add_2p10", 1 << 10);
TP_OPS_BENCH(add, "add_2p20", 1 << 20);
TP_OPS_BENCH(add, "add_2p24", 1 << 24);
TP_OPS_BENCH(add_out, "add_out_2p10", 1 << 10);
TP_OPS_BENCH(add_out, "add_out_2p20", 1 << 20);
TP_OPS_BENCH(add_out, "add_out_2p24", 1 << 24);
TP_OPS_BENCH(add_inplace, "add__2p10", 1 << 10);
TP_OPS_BENCH(add_inplace, "add__2p20", 1 << 20);
TP_OPS_BENCH(add_inplace, "add__2p24", 1 << 24);
TP_OPS_BENCH(add_transposed, "add_t1024", 1024);
TP_OPS_BENCH(add_transposed_left, "add_tleft1024", 1024);
TP_OPS_BENCH(mul_row, "mul_row1024", 1024);
TP_OPS_BENCH(exp_, "exp_2p20", 1 << 20);
TP_OPS_BENCH(sin_, "sin_2p20", 1 << 20);
TP_OPS_BENCH(sum, "sum_2p20", 1 << 20);
TP_OPS_BENCH(sum, "sum_2p24", 1 << 24);
TP_OPS_BENCH(matmul, "matmul_128", 128);
TP_OPS_BENCH(matmul, "matmul_512", 512);
TP_OPS_BENCH(matmul, "matmul_1024", 1024);
BENCHMARK(memcpy_)->Name("memcpy_2p20_t1@memcpy")->Args({1 << 20, 1});
BENCHMARK(memcpy_)->Name("memcpy_2p24_t1@memcpy")->Args({1 << 24, 1});

}  // namespace
