// The view family, create + destroy: the cost of one view op (geometry arithmetic, the
// as_strided checks, one TensorImpl that shares storage and version counter) and of dropping
// it again. A 64x64 float base; twins in bench/libtorch/views_bench.cpp.
#include <benchmark/benchmark.h>

#include <tensorplay/core/empty.hpp>
#include <tensorplay/ops/views.hpp>

namespace tp = tensorplay;

static void select_64x64(benchmark::State& state) {
  const tp::Tensor t = tp::empty({64, 64});
  for (auto _ : state) {
    tp::Tensor v = t.select(0, 7);
    benchmark::DoNotOptimize(v.unsafeGetTensorImpl());
  }
}
BENCHMARK(select_64x64)->Name("select_64x64@tensorplay");

static void slice_64x64(benchmark::State& state) {
  const tp::Tensor t = tp::empty({64, 64});
  for (auto _ : state) {
    tp::Tensor v = t.slice(1, 8, 40, 2);
    benchmark::DoNotOptimize(v.unsafeGetTensorImpl());
  }
}
BENCHMARK(slice_64x64)->Name("slice_64x64@tensorplay");

static void transpose_64x64(benchmark::State& state) {
  const tp::Tensor t = tp::empty({64, 64});
  for (auto _ : state) {
    tp::Tensor v = t.transpose(0, 1);
    benchmark::DoNotOptimize(v.unsafeGetTensorImpl());
  }
}
BENCHMARK(transpose_64x64)->Name("transpose_64x64@tensorplay");

static void view_64x64(benchmark::State& state) {
  const tp::Tensor t = tp::empty({64, 64});
  for (auto _ : state) {
    tp::Tensor v = t.view({32, -1});
    benchmark::DoNotOptimize(v.unsafeGetTensorImpl());
  }
}
BENCHMARK(view_64x64)->Name("view_64x64@tensorplay");

static void as_strided_64x64(benchmark::State& state) {
  const tp::Tensor t = tp::empty({64, 64});
  for (auto _ : state) {
    tp::Tensor v = t.as_strided({32, 64}, {64, 1}, 64);
    benchmark::DoNotOptimize(v.unsafeGetTensorImpl());
  }
}
BENCHMARK(as_strided_64x64)->Name("as_strided_64x64@tensorplay");
