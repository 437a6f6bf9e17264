// libtorch twin of bench/ops_bench.cpp (same cases, same names with @libtorch).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace {

at::Tensor filled(std::vector<int64_t> shape, double v) { return at::full(shape, v, at::kFloat); }

void threads(const benchmark::State& state) { at::set_num_threads(int(state.range(1))); }

void add(benchmark::State& state) {
  threads(state);
  const at::Tensor a = filled({state.range(0)}, 1.5), b = filled({state.range(0)}, 2.5);
  for (auto _ : state) {
    at::Tensor c = at::add(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void add_out(benchmark::State& state) {
  threads(state);
  const at::Tensor a = filled({state.range(0)}, 1.5), b = filled({state.range(0)}, 2.5);
  at::Tensor out = at::empty({state.range(0)});
  for (auto _ : state) {
    at::add_out(out, a, b);
    benchmark::DoNotOptimize(out.data_ptr());
  }
}

void add_inplace(benchmark::State& state) {
  threads(state);
  at::Tensor a = filled({state.range(0)}, 1.5);
  const at::Tensor b = filled({state.range(0)}, 0.0);
  for (auto _ : state) {
    a.add_(b);
    benchmark::DoNotOptimize(a.data_ptr());
  }
}

void add_transposed(benchmark::State& state) {
  threads(state);
  const int64_t n = state.range(0);
  const at::Tensor a = filled({n, n}, 1.5), b = filled({n, n}, 2.5);
  for (auto _ : state) {
    at::Tensor c = a + b.t();
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

// The mirror image of add_transposed: the transposed operand first, so the result takes its
// (column-major) layout and the other input is the one read across.
void add_transposed_left(benchmark::State& state) {
  threads(state);
  const int64_t n = state.range(0);
  const at::Tensor a = filled({n, n}, 1.5), b = filled({n, n}, 2.5);
  for (auto _ : state) {
    at::Tensor c = a.t() + b;
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void mul_row(benchmark::State& state) {
  threads(state);
  const int64_t n = state.range(0);
  const at::Tensor a = filled({n, n}, 1.5), row = filled({n}, 2.5);
  for (auto _ : state) {
    at::Tensor c = a * row;
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void exp_(benchmark::State& state) {
  threads(state);
  const at::Tensor a = at::linspace(-10, 10, state.range(0));
  for (auto _ : state) {
    at::Tensor c = at::exp(a);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void sin_(benchmark::State& state) {
  threads(state);
  const at::Tensor a = at::linspace(-10, 10, state.range(0));
  for (auto _ : state) {
    at::Tensor c = at::sin(a);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void sum(benchmark::State& state) {
  threads(state);
  const at::Tensor a = filled({state.range(0)}, 0.5);
  for (auto _ : state) {
    at::Tensor c = a.sum();
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void matmul(benchmark::State& state) {
  threads(state);
  const int64_t n = state.range(0);
  const at::Tensor a = at::rand({n, n}), b = at::rand({n, n});
  for (auto _ : state) {
    at::Tensor c = at::matmul(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

#define TP_OPS_BENCH(fn, name, size)                         \
  BENCHMARK(fn)->Name(name "_t1@libtorch")->Args({size, 1}); \
  BENCHMARK(fn)->Name(name "_t2@libtorch")->Args({size, 2})->UseRealTime()

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

}  // namespace
