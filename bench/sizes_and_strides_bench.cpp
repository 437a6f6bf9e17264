// SizesAndStrides copy cost: construct a copy and destroy it, the work every view and every
// TensorImpl shallow copy does. Rank 4 exercises the inline path (no allocator), rank 6 the heap
// path (one new[] and one delete[]). bench/libtorch/sizes_and_strides_bench.cpp is the
// c10::impl::SizesAndStrides twin; the case names differ only after the '@'.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>

#include <tensorplay/core/sizes_and_strides.hpp>

namespace {

tensorplay::SizesAndStrides make_contiguous(std::size_t rank) {
  tensorplay::SizesAndStrides s;
  s.resize(rank);
  for (std::size_t d = 0; d < rank; ++d) s.size_at(d) = static_cast<int64_t>(d) + 2;
  s.set_strides(tensorplay::SizesAndStrides::compute_contiguous_strides(s.sizes_arrayref()));
  return s;
}

void copy_rank(benchmark::State& state, std::size_t rank) {
  tensorplay::SizesAndStrides src = make_contiguous(rank);
  for (auto _ : state) {
    benchmark::DoNotOptimize(src);  // the source is opaque: its values must be loaded each time
    tensorplay::SizesAndStrides copy(src);
    benchmark::DoNotOptimize(copy);  // the copy escapes: its stores and allocation are real
  }
}

void BM_sizes_strides_copy_rank4(benchmark::State& state) { copy_rank(state, 4); }
void BM_sizes_strides_copy_rank6(benchmark::State& state) { copy_rank(state, 6); }

}  // namespace

BENCHMARK(BM_sizes_strides_copy_rank4)->Name("sizes_strides_copy_rank4@tensorplay");
BENCHMARK(BM_sizes_strides_copy_rank6)->Name("sizes_strides_copy_rank6@tensorplay");
