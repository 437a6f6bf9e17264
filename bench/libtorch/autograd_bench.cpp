// libtorch twin of bench/autograd_bench.cpp (same cases, same names with @libtorch), written with
// the C++ frontend (torch::) the way the TensorPlay side is: the two files differ only in the
// namespace and the header.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include <torch/torch.h>

namespace {

void autograd_chain100(benchmark::State& state) {
  torch::set_num_threads(1);
  const torch::Tensor x = torch::full({16}, 0.5, torch::kFloat).requires_grad_();
  for (auto _ : state) {
    x.mutable_grad().reset();  // Python's x.grad = None: backward allocates a fresh grad
    torch::Tensor y = x;
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
  torch::set_num_threads(1);
  torch::manual_seed(0);
  const int64_t batch = 64, in = 784, hidden = 256, classes = 10;
  const torch::Tensor x = torch::randn({batch, in});
  const torch::Tensor labels = torch::randint(classes, {batch});
  const torch::Tensor onehot = labels.unsqueeze(1).eq(torch::arange(classes)).to(torch::kFloat);
  const torch::Tensor w1 = (torch::randn({in, hidden}) * 0.05).requires_grad_();
  const torch::Tensor b1 = torch::zeros({hidden}, torch::requires_grad());
  const torch::Tensor w2 = (torch::randn({hidden, classes}) * 0.06).requires_grad_();
  const torch::Tensor b2 = torch::zeros({classes}, torch::requires_grad());
  const std::vector<torch::Tensor> params = {w1, b1, w2, b2};
  const double lr = 0.01;
  for (auto _ : state) {
    const torch::Tensor logits = torch::relu(x.mm(w1) + b1).mm(w2) + b2;
    const torch::Tensor loss = -(torch::log_softmax(logits, 1) * onehot).sum(1).mean();
    loss.backward();
    torch::NoGradGuard no_grad;
    for (const torch::Tensor& p : params) {
      p.sub_(p.grad() * lr);
      p.mutable_grad().zero_();
    }
    benchmark::DoNotOptimize(w1.data_ptr());
  }
}

}  // namespace

BENCHMARK(autograd_chain100)->Name("autograd_chain100_t1@libtorch");
BENCHMARK(mlp_step)->Name("mlp_step_64x784x256x10_t1@libtorch");
