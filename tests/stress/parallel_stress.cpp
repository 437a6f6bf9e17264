// The shared intra-op pool under several user threads at once: concurrent parallel_for and
// parallel_reduce calls, thread-count changes between and during calls, and exceptions under
// load. Run under TSan in CI; sized to finish in a few seconds there.
#include <tensorplay/ops/parallel.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace stress_parallel_stress {

using namespace tensorplay;

namespace {

struct NumThreadsGuard {
  int saved = get_num_threads();
  ~NumThreadsGuard() { set_num_threads(saved); }
};

// One user's loop: out[i] = 3 * i + seed over [0, n), then checks every element.
bool fill_and_check(std::vector<int64_t>& out, int64_t seed, int64_t grain) {
  const auto n = static_cast<int64_t>(out.size());
  parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[static_cast<std::size_t>(i)] = 3 * i + seed;
  });
  for (int64_t i = 0; i < n; ++i) {
    if (out[static_cast<std::size_t>(i)] != 3 * i + seed) return false;
  }
  return true;
}

int64_t reduce_sum(int64_t n, int64_t grain) {
  return parallel_reduce(
      int64_t{0}, n, grain, int64_t{0},
      [](int64_t b, int64_t e, int64_t acc) {
        for (int64_t i = b; i < e; ++i) acc += i;
        return acc;
      },
      [](int64_t x, int64_t y) { return x + y; });
}

}  // namespace

TEST_CASE("user threads share the pool", "[stress]") {
  NumThreadsGuard restore;
  for (int threads : {2, 4}) {
    set_num_threads(threads);
    const int users = 4, calls = 150;
    std::atomic<int> wrong{0};
    std::vector<std::thread> pool;
    for (int u = 0; u < users; ++u) {
      pool.emplace_back([&, u] {
        std::vector<int64_t> out(4096 + static_cast<std::size_t>(u) * 123);
        for (int c = 0; c < calls; ++c) {
          if (!fill_and_check(out, u * 1000 + c, 256)) ++wrong;
          const int64_t n = 2000 + c;
          if (reduce_sum(n, 64) != n * (n - 1) / 2) ++wrong;
          if (in_parallel_region() || get_thread_num() != 0) ++wrong;
        }
      });
    }
    for (auto& t : pool) t.join();
    CHECK(wrong == 0);
  }
}

TEST_CASE("thread-count changes while idle and while others run", "[stress]") {
  NumThreadsGuard restore;
  SECTION("between calls") {
    std::vector<int64_t> out(5000);
    for (int round = 0; round < 200; ++round) {
      set_num_threads(1 + round % 6);
      REQUIRE(fill_and_check(out, round, 100));
    }
  }
  SECTION("from another thread, during calls") {
    std::atomic<bool> stop{false};
    std::atomic<int> wrong{0};
    std::thread changer([&] {
      for (int k = 0; !stop; ++k) {
        set_num_threads(1 + k % 5);
        std::this_thread::yield();
      }
    });
    std::vector<std::thread> users;
    for (int u = 0; u < 3; ++u) {
      users.emplace_back([&, u] {
        std::vector<int64_t> out(3000);
        for (int c = 0; c < 150; ++c) {
          if (!fill_and_check(out, u + c, 50)) ++wrong;
        }
      });
    }
    for (auto& t : users) t.join();
    stop = true;
    changer.join();
    CHECK(wrong == 0);
  }
}

TEST_CASE("exceptions under load", "[stress]") {
  NumThreadsGuard restore;
  set_num_threads(4);
  std::atomic<int> wrong{0};
  std::vector<std::thread> users;
  for (int u = 0; u < 4; ++u) {
    users.emplace_back([&, u] {
      for (int c = 0; c < 150; ++c) {
        const int64_t bad = (u + c) % 5;  // 4 means "no chunk throws"
        std::atomic<int> ran{0};
        try {
          parallel_for(0, 4000, 1000, [&](int64_t b, int64_t) {
            ++ran;
            if (b / 1000 == bad)
              throw std::runtime_error(std::to_string(u) + ":" + std::to_string(c));
          });
          if (bad != 4) ++wrong;
        } catch (const std::runtime_error& e) {
          if (bad == 4 || e.what() != std::to_string(u) + ":" + std::to_string(c)) ++wrong;
        }
        if (ran != 4) ++wrong;  // every chunk had finished when the call returned
      }
    });
  }
  for (auto& t : users) t.join();
  CHECK(wrong == 0);
}

}  // namespace stress_parallel_stress
