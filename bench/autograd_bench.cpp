// Autograd overhead and a small training step, single-threaded. Twins:
// bench/libtorch/autograd_bench.cpp (same cases, same names with @libtorch).
//   autograd_chain100_t1       x: 16 floats requiring grad; 100 ops cycling *1.0001, +0.0001,
//                              exp, log; sum(); backward(). Tiny tensors, so this measures the
//                              graph: node creation, saved tensors, the engine's walk.
//   mlp_step_64x784x256x10_t1  batch 64, 784 -> 256 (relu) -> 10, cross entropy from
//                              log_softmax, backward, SGD update by hand: the matrix products
//                              and their gradients dominate.
// One iteration is forward + backward (+ update); x.grad is reset the same way in both twins.
// Run, e.g.:
//   OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 tensorplay_bench --benchmark_filter='^(autograd|mlp)_'
//   --benchmark_enable_random_interleaving=true --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include <tensorplay/tensorplay.hpp>

namespace tp = tensorplay;

namespace {

void autograd_chain100(benchmark::State& state) {
  tp::set_num_threads(1);
  const tp::Tensor x = tp::full({16}, 0.5, tp::kFloat).requires_grad_();
  for (auto _ : state) {
    x.mutable_grad().reset();  // Python's x.grad = None: backward allocates a fresh grad
    tp::Tensor y = x;
    for (int i = 0; i < 100; ++i) {
      switch (i % 4) {
        case 0: y = y * 1.0001; break;
        case 1: y = y + 0.0001; break;
        case 2: y = y.exp(); break;
        default: y = y.log(); break;
      }
    }
    y.sum().backward();
    benchmark::DoNotOptimize(x.grad().data_ptr());
  }
}

void mlp_step(benchmark::State& state) {
  tp::set_num_threads(1);
  tp::manual_seed(0);
  const int64_t batch = 64, in = 784, hidden = 256, classes = 10;
  const tp::Tensor x = tp::randn({batch, in});
  const tp::Tensor labels = tp::randint(classes, {batch});
  const tp::Tensor onehot = labels.unsqueeze(1).eq(tp::arange(classes)).to(tp::kFloat);
  const tp::Tensor w1 = (tp::randn({in, hidden}) * 0.05).requires_grad_();
  const tp::Tensor b1 = tp::zeros({hidden}, tp::requires_grad());
  const tp::Tensor w2 = (tp::randn({hidden, classes}) * 0.06).requires_grad_();
  const tp::Tensor b2 = tp::zeros({classes}, tp::requires_grad());
  const std::vector<tp::Tensor> params = {w1, b1, w2, b2};
  const double lr = 0.01;
  for (auto _ : state) {
    const tp::Tensor logits = tp::relu(x.mm(w1) + b1).mm(w2) + b2;
    const tp::Tensor loss = -(tp::log_softmax(logits, 1) * onehot).sum(1).mean();
    loss.backward();
    tp::NoGradGuard no_grad;
    for (const tp::Tensor& p : params) {
      p.sub_(p.grad() * lr);
      p.mutable_grad().zero_();
    }
    benchmark::DoNotOptimize(w1.data_ptr());
  }
}

}  // namespace

BENCHMARK(autograd_chain100)->Name("autograd_chain100_t1@tensorplay");
BENCHMARK(mlp_step)->Name("mlp_step_64x784x256x10_t1@tensorplay");
