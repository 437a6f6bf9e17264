// libtorch twin of bench/einsum_bench.cpp (same cases, same names with @libtorch).
#include <benchmark/benchmark.h>

#include <cstdint>

#include <torch/torch.h>  // the autograd engine for the backward case

namespace {

void threads(const benchmark::State& state) { at::set_num_threads(int(state.range(1))); }

void einsum_bmm(benchmark::State& state) {
  threads(state);
  at::manual_seed(0);
  const int64_t n = state.range(0);
  const at::Tensor a = at::randn({64, n, n}), b = at::randn({64, n, n});
  for (auto _ : state) {
    at::Tensor y = at::einsum("bij,bjk->bik", {a, b});
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

void einsum_bmm_backward(benchmark::State& state) {
  threads(state);
  at::manual_seed(0);
  const int64_t n = state.range(0);
  const at::Tensor a = at::randn({64, n, n}).requires_grad_(), b = at::randn({64, n, n});
  for (auto _ : state) {
    at::einsum("bij,bjk->bik", {a, b}).sum().backward();
    benchmark::DoNotOptimize(a.grad().data_ptr());
  }
}

template <int P>
void cdist(benchmark::State& state) {
  threads(state);
  at::manual_seed(0);
  const at::Tensor a = at::randn({state.range(0), 64}), b = at::randn({state.range(0), 64});
  for (auto _ : state) {
    at::Tensor y = at::cdist(a, b, P);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

#define TP_EINSUM_BENCH_LT(fn, name, size)                   \
  BENCHMARK(fn)->Name(name "_t1@libtorch")->Args({size, 1}); \
  BENCHMARK(fn)->Name(name "_t2@libtorch")->Args({size, 2})->UseRealTime()

TP_EINSUM_BENCH_LT(einsum_bmm, "einsum_bij_bjk_64x64x64", 64);
TP_EINSUM_BENCH_LT(einsum_bmm_backward, "einsum_bij_bjk_bwd_64x64x64", 64);
TP_EINSUM_BENCH_LT(cdist<2>, "cdist_p2_1024x1024x64", 1024);
TP_EINSUM_BENCH_LT(cdist<1>, "cdist_p1_1024x1024x64", 1024);

}  // namespace
