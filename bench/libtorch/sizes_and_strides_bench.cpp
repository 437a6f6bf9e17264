// libtorch twin of bench/sizes_and_strides_bench.cpp: the same cases on
// c10::impl::SizesAndStrides, named "...@libtorch" so results line up side by side.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include <c10/core/impl/SizesAndStrides.h>

namespace {

c10::impl::SizesAndStrides make_contiguous(std::size_t rank) {
  std::vector<int64_t> sizes(rank), strides(rank);
  int64_t running = 1;
  for (std::size_t d = rank; d-- > 0;) {
    sizes[d] = static_cast<int64_t>(d) + 2;
    strides[d] = running;
    running *= sizes[d];
  }
  c10::impl::SizesAndStrides s;
  s.set_sizes(sizes);
  s.set_strides(strides);
  return s;
}

void copy_rank(benchmark::State& state, std::size_t rank) {
  c10::impl::SizesAndStrides src = make_contiguous(rank);
  for (auto _ : state) {
    benchmark::DoNotOptimize(src);
    c10::impl::SizesAndStrides copy(src);
    benchmark::DoNotOptimize(copy);
  }
}

void BM_sizes_strides_copy_rank4(benchmark::State& state) { copy_rank(state, 4); }
void BM_sizes_strides_copy_rank6(benchmark::State& state) { copy_rank(state, 6); }

}  // namespace

BENCHMARK(BM_sizes_strides_copy_rank4)->Name("sizes_strides_copy_rank4@libtorch");
BENCHMARK(BM_sizes_strides_copy_rank6)->Name("sizes_strides_copy_rank6@libtorch");
