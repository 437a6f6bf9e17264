// libtorch twin of bench/views_bench.cpp.
#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

static void select_64x64(benchmark::State& state) {
  const at::Tensor t = at::empty({64, 64});
  for (auto _ : state) {
    at::Tensor v = t.select(0, 7);
    benchmark::DoNotOptimize(v.unsafeGetTensorImpl());
  }
}
BENCHMARK(select_64x64)->Name("select_64x64@libtorch");

static void slice_64x64(benchmark::State& state) {
  const at::Tensor t = at::empty({64, 64});
  for (auto _ : state) {
    at::Tensor v = t.slice(1, 8, 40, 2);
    benchmark::DoNotOptimize(v.unsafeGetTensorImpl());
  }
}
BENCHMARK(slice_64x64)->Name("slice_64x64@libtorch");

static void transpose_64x64(benchmark::State& state) {
  const at::Tensor t = at::empty({64, 64});
  for (auto _ : state) {
    at::Tensor v = t.transpose(0, 1);
    benchmark::DoNotOptimize(v.unsafeGetTensorImpl());
  }
}
BENCHMARK(transpose_64x64)->Name("transpose_64x64@libtorch");

static void view_64x64(benchmark::State& state) {
  const at::Tensor t = at::empty({64, 64});
  for (auto _ : state) {
    at::Tensor v = t.view({32, -1});
    benchmark::DoNotOptimize(v.unsafeGetTensorImpl());
  }
}
BENCHMARK(view_64x64)->Name("view_64x64@libtorch");

static void as_strided_64x64(benchmark::State& state) {
  const at::Tensor t = at::empty({64, 64});
  for (auto _ : state) {
    at::Tensor v = t.as_strided({32, 64}, {64, 1}, 64);
    benchmark::DoNotOptimize(v.unsafeGetTensorImpl());
  }
}
BENCHMARK(as_strided_64x64)->Name("as_strided_64x64@libtorch");
