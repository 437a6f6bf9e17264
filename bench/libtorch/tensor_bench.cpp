// libtorch twin of bench/tensor_bench.cpp.
#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

static void empty_2x3(benchmark::State& state) {
  for (auto _ : state) {
    at::Tensor t = at::empty({2, 3});
    benchmark::DoNotOptimize(t.unsafeGetTensorImpl());
  }
}
BENCHMARK(empty_2x3)->Name("empty_2x3@libtorch");

static void empty_64B(benchmark::State& state) {
  for (auto _ : state) {
    at::Tensor t = at::empty({16});
    benchmark::DoNotOptimize(t.data_ptr());
  }
}
BENCHMARK(empty_64B)->Name("empty_64B@libtorch");
BENCHMARK(empty_2x3)->Name("empty_2x3@libtorch")->Threads(2);
