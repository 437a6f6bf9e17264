// Tensors created on one thread and destroyed on another: the object pool, the caching
// allocator and the shared version counter crossing threads. Run under TSan in CI.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace stress_tensor_stress {

using namespace tensorplay;

TEST_CASE("tensors travel between threads and share version counters", "[stress]") {
  for (int threads : {2, 4, 8}) {
    std::mutex m;
    std::vector<Tensor> handoff;
    std::atomic<int> produced{0};
    std::atomic<bool> wrong{false};
    const int per_thread = 2000;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        for (int i = 0; i < per_thread; ++i) {
          Tensor a = empty({(t + i) % 7 + 1, 3});
          Tensor alias(a.unsafeGetTensorImpl()->shallow_copy_and_detach());
          alias.unsafeGetTensorImpl()->bump_version();  // atomic, visible through `a`
          if (a._version() < 1) wrong = true;
          {
            std::lock_guard<std::mutex> lock(m);
            handoff.push_back(std::move(a));
            if (handoff.size() > 64) handoff.erase(handoff.begin(), handoff.begin() + 32);
          }
          ++produced;
        }
      });
    }
    for (auto& th : pool) th.join();
    CHECK(produced == threads * per_thread);
    CHECK_FALSE(wrong);
  }
}

}  // namespace stress_tensor_stress
