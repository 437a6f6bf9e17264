// The index families of the ops issue, one thread and two: gather and scatter_add_ along the
// last dim of 1024 x 1024 floats with a random index of the same shape, index_select of 4096
// random rows of a 4096 x 256 table (2^20 elements moved each). Twins:
// bench/libtorch/index_bench.cpp. Cases are `<op>_<size>_t<threads>@<impl>`, as in ops_bench.cpp.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include <tensorplay/tensorplay.hpp>

namespace tp = tensorplay;

namespace {

void threads(const benchmark::State& state) { tp::set_num_threads(int(state.range(1))); }

// The same index on every run: a fixed seed.
tp::Tensor random_index(int64_t high, std::vector<int64_t> shape) {
  tp::manual_seed(0);
  return tp::randint(0, high, shape, tp::kLong);
}

void gather(benchmark::State& state) {
  threads(state);
  const int64_t n = state.range(0);
  const tp::Tensor self = tp::rand({n, n}), index = random_index(n, {n, n});
  for (auto _ : state) {
    tp::Tensor r = self.gather(1, index);
    benchmark::DoNotOptimize(r.data_ptr());
  }
}

void scatter_add_(benchmark::State& state) {
  threads(state);
  const int64_t n = state.range(0);
  const tp::Tensor self = tp::zeros({n, n}), src = tp::rand({n, n});
  const tp::Tensor index = random_index(n, {n, n});
  for (auto _ : state) {
    self.scatter_add_(1, index, src);
    benchmark::DoNotOptimize(self.data_ptr());
  }
}

void index_select(benchmark::State& state) {
  threads(state);
  const int64_t rows = state.range(0);
  const tp::Tensor table = tp::rand({rows, 256}), index = random_index(rows, {rows});
  for (auto _ : state) {
    tp::Tensor r = table.index_select(0, index);
    benchmark::DoNotOptimize(r.data_ptr());
  }
}

#define TP_INDEX_BENCH(fn, name, size)                         \
  BENCHMARK(fn)->Name(name "_t1@tensorplay")->Args({size, 1}); \
  BENCHMARK(fn)->Name(name "_t2@tensorplay")->Args({size, 2})->UseRealTime()

TP_INDEX_BENCH(gather, "gather_2p20", 1024);
TP_INDEX_BENCH(scatter_add_, "scatter_add_2p20", 1024);
TP_INDEX_BENCH(index_select, "index_select_2p20", 4096);

}  // namespace
