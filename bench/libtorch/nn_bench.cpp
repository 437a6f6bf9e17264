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

// conv2d of N = 32 images, 64 -> 64 channels, 56 x 56, 3 x 3 with padding 1 (range(0): 1 for
// channels-last input and weight), forward only and forward + backward (input and weight).
void conv2d(benchmark::State& state) {
  threads(state);
  at::manual_seed(0);
  at::Tensor x = at::randn({32, 64, 56, 56}), w = at::randn({64, 64, 3, 3});
  if (state.range(0) == 1) {
    x = x.contiguous(at::MemoryFormat::ChannelsLast);
    w = w.contiguous(at::MemoryFormat::ChannelsLast);
  }
  for (auto _ : state) {
    at::Tensor y = at::conv2d(x, w, {}, 1, 1);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

void conv2d_backward(benchmark::State& state) {
  threads(state);
  at::manual_seed(0);
  at::Tensor x = at::randn({32, 64, 56, 56}), w = at::randn({64, 64, 3, 3});
  if (state.range(0) == 1) {
    x = x.contiguous(at::MemoryFormat::ChannelsLast);
    w = w.contiguous(at::MemoryFormat::ChannelsLast);
  }
  x.requires_grad_();
  w.requires_grad_();
  for (auto _ : state) {
    at::conv2d(x, w, {}, 1, 1).sum().backward();
    benchmark::DoNotOptimize(w.grad().data_ptr());
  }
}

#define TP_NN_BENCH_LT(fn, name, size)                       \
  BENCHMARK(fn)->Name(name "_t1@libtorch")->Args({size, 1}); \
  BENCHMARK(fn)->Name(name "_t2@libtorch")->Args({size, 2})->UseRealTime()

TP_NN_BENCH_LT(layer_norm, "layer_norm_4096x1024", 1024);
TP_NN_BENCH_LT(layer_norm_backward, "layer_norm_bwd_4096x1024", 1024);
TP_NN_BENCH_LT(cross_entropy, "cross_entropy_4096x1000", 1000);
TP_NN_BENCH_LT(cross_entropy_backward, "cross_entropy_bwd_4096x1000", 1000);
TP_NN_BENCH_LT(conv2d, "conv2d_32x64x56x56_3x3", 0);
TP_NN_BENCH_LT(conv2d, "conv2d_channels_last_32x64x56x56_3x3", 1);
TP_NN_BENCH_LT(conv2d_backward, "conv2d_bwd_32x64x56x56_3x3", 0);
TP_NN_BENCH_LT(conv2d_backward, "conv2d_bwd_channels_last_32x64x56x56_3x3", 1);

}  // namespace
