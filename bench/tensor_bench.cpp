// Tensor creation through the whole memory stack: allocator -> Storage -> TensorImpl -> Tensor.
#include <benchmark/benchmark.h>

#include <tensorplay/tensorplay.hpp>

namespace tp = tensorplay;

// empty({2,3}) create + destroy: two small objects, one cached block, one version counter.
static void empty_2x3(benchmark::State& state) {
  for (auto _ : state) {
    tp::Tensor t = tp::empty({2, 3});
    benchmark::DoNotOptimize(t.unsafeGetTensorImpl());
  }
}
BENCHMARK(empty_2x3)->Name("empty_2x3@tensorplay");

// empty of 64 bytes (16 floats).
static void empty_64B(benchmark::State& state) {
  for (auto _ : state) {
    tp::Tensor t = tp::empty({16});
    benchmark::DoNotOptimize(t.data_ptr());
  }
}
BENCHMARK(empty_64B)->Name("empty_64B@tensorplay");
BENCHMARK(empty_2x3)->Name("empty_2x3@tensorplay")->Threads(2);
