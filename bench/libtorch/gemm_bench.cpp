// libtorch twin of bench/gemm_bench.cpp: at::mm on contiguous float tensors (the transposed case
// passes a.t(), which libtorch hands to BLAS as a transpose flag, nothing copied).
#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

namespace {

void gemm_square(benchmark::State& state) {
  const int64_t n = state.range(0);
  const bool transpose_a = state.range(1) != 0;
  const at::Tensor a = at::rand({n, n}) * 2 - 1;
  const at::Tensor b = at::rand({n, n}) * 2 - 1;
  const at::Tensor lhs = transpose_a ? a.t() : a;
  for (auto _ : state) {
    at::Tensor c = at::mm(lhs, b);
    benchmark::DoNotOptimize(c.data_ptr());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2e-9 * double(n) * double(n) * double(n),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(gemm_square)->Name("gemm_128@libtorch")->Args({128, 0});
BENCHMARK(gemm_square)->Name("gemm_512@libtorch")->Args({512, 0});
BENCHMARK(gemm_square)->Name("gemm_1024@libtorch")->Args({1024, 0});
BENCHMARK(gemm_square)->Name("gemm_t1024@libtorch")->Args({1024, 1});
