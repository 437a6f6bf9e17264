// TensorPlay example: train a small convolutional network on a synthetic image task.
//
// Written as a libtorch user writes it (alias tp to torch and it builds against libtorch): the
// images are generated here (no downloads): 16x16 grey images of one stroke -- horizontal,
// vertical, diagonal or anti-diagonal -- at a random place, with noise. The network is
// conv(1->8, 3x3) -> batch_norm -> relu -> max_pool(2) -> conv(8->16, 3x3) -> relu -> max_pool(2)
// -> dropout -> linear(256->4), trained with cross_entropy and SGD with momentum written by hand.
// Exits non-zero when the accuracy on held-out images is under 95% (CTest:
// `example_train_cnn`).
#include <tensorplay/tensorplay.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <vector>

namespace tp = tensorplay;

namespace {

// n images [n, 1, 16, 16] and their labels [n] (0 horizontal, 1 vertical, 2 diagonal, 3 anti).
std::pair<tp::Tensor, tp::Tensor> make_images(int64_t n) {
  const int64_t side = 16, length = 8;
  tp::Tensor images = tp::randn({n, 1, side, side}).mul(0.3);
  const tp::Tensor labels = tp::randint(0, 4, {n}, tp::kLong);
  const tp::Tensor origin = tp::randint(0, side - length, {n, 2}, tp::kLong);
  float* px = images.data_ptr<float>();
  const int64_t* lab = labels.data_ptr<int64_t>();
  const int64_t* org = origin.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r0 = org[2 * i], c0 = org[2 * i + 1];
    for (int64_t t = 0; t < length; ++t) {
      int64_t r = r0, c = c0;
      switch (lab[i]) {
        case 0: c += t; break;
        case 1: r += t; break;
        case 2: r += t, c += t; break;
        default: r += t, c += length - 1 - t; break;
      }
      px[(i * side + r) * side + c] += 1.0f;
    }
  }
  return {images, labels};
}

}  // namespace

int main() {
  tp::manual_seed(0);
  const auto start = std::chrono::steady_clock::now();
  const auto [train_x, train_y] = make_images(2048);
  const auto [test_x, test_y] = make_images(512);

  // Parameters: He initialisation for the convolutions and the linear layer.
  auto param = [](std::vector<int64_t> shape, double fan_in) {
    return tp::randn(shape).mul(std::sqrt(2.0 / fan_in)).requires_grad_();
  };
  tp::Tensor w1 = param({8, 1, 3, 3}, 9), b1 = tp::zeros({8}).requires_grad_();
  tp::Tensor gamma = tp::ones({8}).requires_grad_(), beta = tp::zeros({8}).requires_grad_();
  tp::Tensor w2 = param({16, 8, 3, 3}, 72), b2 = tp::zeros({16}).requires_grad_();
  tp::Tensor w3 = param({4, 256}, 256), b3 = tp::zeros({4}).requires_grad_();
  const std::vector<tp::Tensor> params{w1, b1, gamma, beta, w2, b2, w3, b3};
  tp::Tensor running_mean = tp::zeros({8}), running_var = tp::ones({8});

  auto forward = [&](const tp::Tensor& x, bool training) {
    tp::Tensor h = tp::conv2d(x, w1, b1, 1, 1);
    h = tp::batch_norm(h, gamma, beta, running_mean, running_var, training, 0.1, 1e-5);
    h = tp::max_pool2d(tp::relu(h), 2);
    h = tp::max_pool2d(tp::relu(tp::conv2d(h, w2, b2, 1, 1)), 2);
    h = tp::dropout(h.flatten(1), 0.2, training);
    return tp::linear(h, w3, b3);
  };

  // Mini-batch SGD with momentum.
  std::vector<tp::Tensor> velocity;
  for (const tp::Tensor& p : params) velocity.push_back(tp::zeros_like(p));
  const int64_t batch = 64, n = train_x.size(0);
  const double lr = 0.01, momentum = 0.9;
  const int epochs = 10;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    const tp::Tensor order = tp::rand({n}).argsort();  // a random permutation
    double total = 0;
    for (int64_t b = 0; b < n; b += batch) {
      const tp::Tensor idx = order.slice(0, b, b + batch);
      const tp::Tensor loss = tp::cross_entropy(forward(train_x.index_select(0, idx), true),
                                                train_y.index_select(0, idx));
      loss.backward();
      tp::NoGradGuard no_grad;
      for (std::size_t i = 0; i < params.size(); ++i) {
        velocity[i].mul_(momentum).add_(params[i].grad());
        params[i].sub_(velocity[i] * lr);
        params[i].mutable_grad().zero_();
      }
      total += loss.item<double>();
    }
    std::cout << "epoch " << epoch << "  loss " << total / double(n / batch) << "\n";
  }

  tp::NoGradGuard no_grad;
  const double accuracy =
      forward(test_x, false).argmax(1).eq(test_y).to(tp::kDouble).mean().item<double>();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "test accuracy: " << accuracy * 100 << "%  (" << seconds << " s)\n";
  return accuracy >= 0.95 ? 0 : 1;
}
