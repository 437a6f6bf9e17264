// einsum and cdist cases of the ops issue, one thread and two: einsum('bij,bjk->bik') on 64
// batches of 64 x 64 float matrices (the permute/reshape/bmm lowering against ATen's), forward
// and forward + backward; cdist of 1024 x 64 against 1024 x 64 floats with p = 2 (the
// matrix-product path) and p = 1 (the direct kernel). Twins: bench/libtorch/einsum_bench.cpp.
#include <benchmark/benchmark.h>

#include <cstdint>

#include <tensorplay/tensorplay.hpp>

namespace tp = tensorplay;

namespace {

void threads(const benchmark::State& state) { tp::set_num_threads(int(state.range(1))); }

void einsum_bmm(benchmark::State& state) {
  threads(state);
  tp::manual_seed(0);
  const int64_t n = state.range(0);
  const tp::Tensor a = tp::randn({64, n, n}), b = tp::randn({64, n, n});
  for (auto _ : state) {
    tp::Tensor y = tp::einsum("bij,bjk->bik", {a, b});
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

void einsum_bmm_backward(benchmark::State& state) {
  threads(state);
  tp::manual_seed(0);
  const int64_t n = state.range(0);
  const tp::Tensor a = tp::randn({64, n, n}).requires_grad_(), b = tp::randn({64, n, n});
  for (auto _ : state) {
    tp::einsum("bij,bjk->bik", {a, b}).sum().backward();
    benchmark::DoNotOptimize(a.grad().data_ptr());
  }
}

template <int P>
void cdist(benchmark::State& state) {
  threads(state);
  tp::manual_seed(0);
  const tp::Tensor a = tp::randn({state.range(0), 64}), b = tp::randn({state.range(0), 64});
  for (auto _ : state) {
    tp::Tensor y = tp::cdist(a, b, P);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

#define TP_EINSUM_BENCH(fn, name, size)                        \
  BENCHMARK(fn)->Name(name "_t1@tensorplay")->Args({size, 1}); \
  BENCHMARK(fn)->Name(name "_t2@tensorplay")->Args({size, 2})->UseRealTime()

TP_EINSUM_BENCH(einsum_bmm, "einsum_bij_bjk_64x64x64", 64);
TP_EINSUM_BENCH(einsum_bmm_backward, "einsum_bij_bjk_bwd_64x64x64", 64);
TP_EINSUM_BENCH(cdist<2>, "cdist_p2_1024x1024x64", 1024);
TP_EINSUM_BENCH(cdist<1>, "cdist_p1_1024x1024x64", 1024);

}  // namespace
