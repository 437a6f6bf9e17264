// Matrix multiply on the raw-pointer kernel (detail::gemm, the blocked GotoBLAS-style path, or
// CBLAS when built with TENSORPLAY_USE_BLAS=1): square float32 C = A * B at 128, 512 and 1024,
// and A transposed (a_rs = 1, a_cs = n: the strides of a.t(), nothing copied) at 1024. The
// counter GFLOP/s is 2 n^3 per iteration over the measured time. Twins in
// bench/libtorch/gemm_bench.cpp (at::mm). Compare single-threaded, e.g.
//   OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 tensorplay_bench --benchmark_filter=gemm_
//   --benchmark_enable_random_interleaving=true
#include <benchmark/benchmark.h>

#include <cstdint>

#include <tensorplay/core/empty.hpp>
#include <tensorplay/ops/gemm.hpp>

namespace tp = tensorplay;

namespace {

// Deterministic values in [-1, 1) (a small LCG), so every run multiplies the same matrices.
void fill_uniform(float* p, int64_t count, uint32_t seed) {
  uint32_t s = seed;
  for (int64_t i = 0; i < count; ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<float>(s >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
}

void gemm_square(benchmark::State& state) {
  const int64_t n = state.range(0);
  const bool transpose_a = state.range(1) != 0;
  const tp::Tensor a = tp::empty({n, n});
  const tp::Tensor b = tp::empty({n, n});
  const tp::Tensor c = tp::empty({n, n});
  fill_uniform(a.data_ptr<float>(), n * n, 1);
  fill_uniform(b.data_ptr<float>(), n * n, 2);
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  float* pc = c.data_ptr<float>();
  // Transposed A: A(i, p) = a[p * n + i], the strides a.t() has.
  const int64_t a_rs = transpose_a ? 1 : n;
  const int64_t a_cs = transpose_a ? n : 1;
  for (auto _ : state) {
    tp::detail::gemm<float>(n, n, n, 1.0f, pa, a_rs, a_cs, pb, n, 1, 0.0f, pc, n, 1);
    benchmark::DoNotOptimize(pc);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2e-9 * double(n) * double(n) * double(n),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(gemm_square)->Name("gemm_128@tensorplay")->Args({128, 0});
BENCHMARK(gemm_square)->Name("gemm_512@tensorplay")->Args({512, 0});
BENCHMARK(gemm_square)->Name("gemm_1024@tensorplay")->Args({1024, 0});
BENCHMARK(gemm_square)->Name("gemm_t1024@tensorplay")->Args({1024, 1});
