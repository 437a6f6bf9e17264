// libtorch twin of bench/index_bench.cpp (same cases, same names with @libtorch).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

namespace {

void threads(const benchmark::State& state) { at::set_num_threads(int(state.range(1))); }

// The same index on every run: a fixed seed.
at::Tensor random_index(int64_t high, std::vector<int64_t> shape) {
  at::manual_seed(0);
  return at::randint(0, high, shape, at::kLong);
}

void gather(benchmark::State& state) {
  threads(state);
  const int64_t n = state.range(0);
  const at::Tensor self = at::rand({n, n}), index = random_index(n, {n, n});
  for (auto _ : state) {
    at::Tensor r = self.gather(1, index);
    benchmark::DoNotOptimize(r.data_ptr());
  }
}

void scatter_add_(benchmark::State& state) {
  threads(state);
  const int64_t n = state.range(0);
  const at::Tensor self = at::zeros({n, n}), src = at::rand({n, n});
  const at::Tensor index = random_index(n, {n, n});
  for (auto _ : state) {
    self.scatter_add_(1, index, src);
    benchmark::DoNotOptimize(self.data_ptr());
  }
}

void index_select(benchmark::State& state) {
  threads(state);
  const int64_t rows = state.range(0);
  const at::Tensor table = at::rand({rows, 256}), index = random_index(rows, {rows});
  for (auto _ : state) {
    at::Tensor r = table.index_select(0, index);
    benchmark::DoNotOptimize(r.data_ptr());
  }
}

#define TP_INDEX_BENCH_LT(fn, name, size)                    \
  BENCHMARK(fn)->Name(name "_t1@libtorch")->Args({size, 1}); \
  BENCHMARK(fn)->Name(name "_t2@libtorch")->Args({size, 2})->UseRealTime()

TP_INDEX_BENCH_LT(gather, "gather_2p20", 1024);
TP_INDEX_BENCH_LT(scatter_add_, "scatter_add_2p20", 1024);
TP_INDEX_BENCH_LT(index_select, "index_select_2p20", 4096);

}  // namespace
