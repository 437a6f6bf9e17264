// Multi-threaded autograd under TSan: independent graphs built and run backward on several
// threads at once, all reaching one shared leaf (its AccumulateGrad serialises accumulation),
// with grad modes toggled per thread and graphs dropped without backward.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <thread>
#include <vector>

namespace stress_autograd_stress {

using namespace tensorplay;

TEST_CASE("independent graphs backpropagate concurrently into a shared leaf",
          "[stress][autograd]") {
  constexpr int kThreads = 4, kIters = 200;
  Tensor shared = ones({8}, dtype(kDouble).requires_grad(true));
  std::vector<double> own(kThreads, 0.0);
  std::vector<int> recorded_under_no_grad(kThreads, 0);  // Catch's CHECK is not thread-safe
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Tensor x = full({8}, double(t + 1), dtype(kDouble).requires_grad(true));
      for (int i = 0; i < kIters; ++i) {
        Tensor y = x.mul(shared).exp().mul(0.0).add(x).sum();  // dy/dx = 1, dy/dshared = 0
        if (i % 3 == 0) {
          NoGradGuard no_grad;
          recorded_under_no_grad[static_cast<std::size_t>(t)] += x.mul(2.0).requires_grad();
        }
        if (i % 5 == 0) continue;  // a graph dropped without backward
        y.backward();
      }
      own[static_cast<std::size_t>(t)] = x.grad().sum().item<double>();
    });
  }
  for (auto& th : threads) th.join();
  const double expected = 8.0 * (kIters - kIters / 5);
  for (double v : own) CHECK(v == expected);
  for (int n : recorded_under_no_grad) CHECK(n == 0);
  CHECK(shared.grad().defined());
}

}  // namespace stress_autograd_stress
