// libtorch twin of bench/nn_bench.cpp (same cases, same names with @libtorch).
#include <benchmark/benchmark.h>

#include <cstdint>

#include <torch/torch.h>  // the autograd engine for the backward cases

namespace {

void threads(const benchmark::State& state) { at::set_num_threads(int(state.range(1))); }

void layer_norm(benchmark::State& state) {
  threads(state);
  at::manual_seed(0);
  const at::Tensor x = at::randn({4096, state.range(0)});
  for (auto _ : state) {
    at::Tensor y = at::layer_norm(x, {state.range(0)});
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

void layer_norm_backward(benchmark::State& state) {
  threads(state);
  at::manual_seed(0);
  const at::Tensor x = at::randn({4096, state.range(0)}).requires_grad_();
  for (auto _ : state) {
    at::layer_norm(x, {state.range(0)}).sum().backward();
    benchmark::DoNotOptimize(x.grad().data_ptr());
  }
}

void cross_entropy(benchmark::State& state) {
  threads(state);
  at::manual_seed(0);
  const at::Tensor x = at::randn({4096, state.range(0)});
  const at::Tensor t = at::randint(0, state.range(0), {4096}, at::kLong);
  for (auto _ : state) {
    at::Tensor l = at::cross_entropy_loss(x, t);
    benchmark::DoNotOptimize(l.data_ptr());
  }
}

void cross_entropy_backward(benchmark::State& state) {
  threads(state);
  at::manual_seed(0);
  const at::Tensor x = at::randn({4096, state.range(0)}).requires_grad_();
  const at::Tensor t = at::randint(0, state.range(0), {4096}, at::kLong);
  for (auto _ : state) {
    at::cross_entropy_loss(x, t).backward();
    benchmark::DoNotOptimize(x.grad().data_ptr());
  }
}

#define TP_NN_BENCH_LT(fn, name, size)                       \
  BENCHMARK(fn)->Name(name "_t1@libtorch")->Args({size, 1}); \
  BENCHMARK(fn)->Name(name "_t2@libtorch")->Args({size, 2})->UseRealTime()

TP_NN_BENCH_LT(layer_norm, "layer_norm_4096x1024", 1024);
TP_NN_BENCH_LT(layer_norm_backward, "layer_norm_bwd_4096x1024", 1024);
TP_NN_BENCH_LT(cross_entropy, "cross_entropy_4096x1000", 1000);
TP_NN_BENCH_LT(cross_entropy_backward, "cross_entropy_bwd_4096x1000", 1000);

}  // namespace
