// nn::functional cases of the ops issue, one thread and two: layer_norm over the last dim of
// 4096 x 1024 floats, and cross_entropy of 4096 x 1000 logits with class-index targets, each
// forward only and forward + backward. Twins: bench/libtorch/nn_bench.cpp.
#include <benchmark/benchmark.h>

#include <cstdint>

#include <tensorplay/tensorplay.hpp>

namespace tp = tensorplay;
namespace F = tensorplay::nn::functional;

namespace {

void threads(const benchmark::State& state) { tp::set_num_threads(int(state.range(1))); }

void layer_norm(benchmark::State& state) {
  threads(state);
  tp::manual_seed(0);
  const tp::Tensor x = tp::randn({4096, state.range(0)});
  for (auto _ : state) {
    tp::Tensor y = F::layer_norm(x, F::LayerNormFuncOptions({state.range(0)}));
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

void layer_norm_backward(benchmark::State& state) {
  threads(state);
  tp::manual_seed(0);
  const tp::Tensor x = tp::randn({4096, state.range(0)}).requires_grad_();
  for (auto _ : state) {
    F::layer_norm(x, F::LayerNormFuncOptions({state.range(0)})).sum().backward();
    benchmark::DoNotOptimize(x.grad().data_ptr());
  }
}

void cross_entropy(benchmark::State& state) {
  threads(state);
  tp::manual_seed(0);
  const tp::Tensor x = tp::randn({4096, state.range(0)});
  const tp::Tensor t = tp::randint(0, state.range(0), {4096}, tp::kLong);
  for (auto _ : state) {
    tp::Tensor l = F::cross_entropy(x, t);
    benchmark::DoNotOptimize(l.data_ptr());
  }
}

void cross_entropy_backward(benchmark::State& state) {
  threads(state);
  tp::manual_seed(0);
  const tp::Tensor x = tp::randn({4096, state.range(0)}).requires_grad_();
  const tp::Tensor t = tp::randint(0, state.range(0), {4096}, tp::kLong);
  for (auto _ : state) {
    F::cross_entropy(x, t).backward();
    benchmark::DoNotOptimize(x.grad().data_ptr());
  }
}

// conv2d of N = 32 images, 64 -> 64 channels, 56 x 56, 3 x 3 with padding 1 (range(0): 1 for
// channels-last input and weight), forward only and forward + backward (input and weight).
void conv2d(benchmark::State& state) {
  threads(state);
  tp::manual_seed(0);
  tp::Tensor x = tp::randn({32, 64, 56, 56}), w = tp::randn({64, 64, 3, 3});
  if (state.range(0) == 1) {
    x = x.contiguous(tp::MemoryFormat::ChannelsLast);
    w = w.contiguous(tp::MemoryFormat::ChannelsLast);
  }
  for (auto _ : state) {
    tp::Tensor y = tp::conv2d(x, w, {}, 1, 1);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

void conv2d_backward(benchmark::State& state) {
  threads(state);
  tp::manual_seed(0);
  tp::Tensor x = tp::randn({32, 64, 56, 56}), w = tp::randn({64, 64, 3, 3});
  if (state.range(0) == 1) {
    x = x.contiguous(tp::MemoryFormat::ChannelsLast);
    w = w.contiguous(tp::MemoryFormat::ChannelsLast);
  }
  x.requires_grad_();
  w.requires_grad_();
  for (auto _ : state) {
    tp::conv2d(x, w, {}, 1, 1).sum().backward();
    benchmark::DoNotOptimize(w.grad().data_ptr());
  }
}

#define TP_NN_BENCH(fn, name, size)                            \
  BENCHMARK(fn)->Name(name "_t1@tensorplay")->Args({size, 1}); \
  BENCHMARK(fn)->Name(name "_t2@tensorplay")->Args({size, 2})->UseRealTime()

TP_NN_BENCH(layer_norm, "layer_norm_4096x1024", 1024);
TP_NN_BENCH(layer_norm_backward, "layer_norm_bwd_4096x1024", 1024);
TP_NN_BENCH(cross_entropy, "cross_entropy_4096x1000", 1000);
TP_NN_BENCH(cross_entropy_backward, "cross_entropy_bwd_4096x1000", 1000);
TP_NN_BENCH(conv2d, "conv2d_32x64x56x56_3x3", 0);
TP_NN_BENCH(conv2d, "conv2d_channels_last_32x64x56x56_3x3", 1);
TP_NN_BENCH(conv2d_backward, "conv2d_bwd_32x64x56x56_3x3", 0);
TP_NN_BENCH(conv2d_backward, "conv2d_bwd_channels_last_32x64x56x56_3x3", 1);

}  // namespace
