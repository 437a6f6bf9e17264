// Multi-threaded stress tests for intrusive_ptr / weak_intrusive_ptr; the TSan target.
//
// What must hold under contention:
//   - copies and destruction of shared strong and weak pointers from 2, 4 and 8 threads leave
//     the counts exact;
//   - weak lock() racing with the last strong release yields a live object or null, never a
//     released or destroyed one;
//   - each object is destroyed exactly once, and release_resources() runs exactly once when a
//     weak reference outlives the strong ones (never, when none does).
// Catch2 v2 assertions are not thread-safe, so worker threads only count failures in atomics;
// the main thread checks them.
#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <barrier>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include <tensorplay/core/intrusive_ptr.hpp>

namespace stress_intrusive_ptr_stress {

using tensorplay::intrusive_ptr;
using tensorplay::intrusive_ptr_target;
using tensorplay::make_intrusive;
using tensorplay::weak_intrusive_ptr;

namespace {

#if defined(__SANITIZE_THREAD__)
constexpr bool kUnderTsan = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kUnderTsan = true;
#else
constexpr bool kUnderTsan = false;
#endif
#else
constexpr bool kUnderTsan = false;
#endif

// Shared by all threads of one test. Thread safety: every member is atomic.
struct Counters {
  std::atomic<int> constructed{0};
  std::atomic<int> released{0};
  std::atomic<int> destroyed{0};
  std::atomic<int> errors{0};      // a state transition that must not happen
  std::atomic<int> dead_locks{0};  // lock() handed out a released/destroyed object
  std::atomic<long> lock_successes{0};
  std::atomic<long> lock_failures{0};
};

enum State : int { kAlive = 0x51A7E, kReleased = 0x0DEAD, kDestroyed = 0x0BEEF };

// An object that records its life cycle; state_ is atomic so that reading it from a racing
// thread is not itself a data race (reading it after the memory is freed still is, and the
// sanitizers would report that).
class Tracked final : public intrusive_ptr_target {
 public:
  explicit Tracked(Counters* counters) : counters_(counters) { counters_->constructed++; }
  ~Tracked() override {
    if (state_.exchange(kDestroyed) == kDestroyed) counters_->errors++;  // destroyed twice
    counters_->destroyed++;
  }
  void release_resources() override {
    if (state_.exchange(kReleased) != kAlive) counters_->errors++;  // twice, or after death
    counters_->released++;
  }
  bool alive() const { return state_.load(std::memory_order_relaxed) == kAlive; }

  const int payload = 42;  // plain data: written before sharing, read by every thread

 private:
  Counters* counters_;
  std::atomic<int> state_{kAlive};
};

// A small deterministic per-thread generator (no shared state, no locks).
struct Rng {
  std::uint64_t s;
  std::uint32_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<std::uint32_t>(s);
  }
};

int scaled(int normal, int tsan) { return kUnderTsan ? tsan : normal; }

}  // namespace

TEST_CASE("intrusive_ptr stress: concurrent copies and destruction of shared pointers",
          "[stress][intrusive_ptr]") {
  const int threads = GENERATE(2, 4, 8);
  const int iterations = scaled(2000000, 200000) / threads;
  Counters counters;
  {
    // Threads copy from these two concurrently (reads of the handles, writes to the count).
    const intrusive_ptr<Tracked> shared = make_intrusive<Tracked>(&counters);
    const weak_intrusive_ptr<Tracked> shared_weak(shared);

    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        Rng rng{0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(t + 1)};
        // Held references are dropped in a random order, so releases interleave with copies.
        std::array<intrusive_ptr<Tracked>, 8> strong;
        std::array<weak_intrusive_ptr<Tracked>, 8> weak;
        for (int i = 0; i < iterations; ++i) {
          const std::uint32_t r = rng.next();
          switch (r % 6) {
            case 0: strong[(r >> 8) % 8] = shared; break;
            case 1: weak[(r >> 8) % 8] = shared_weak; break;
            case 2: weak[(r >> 8) % 8] = shared; break;
            case 3: {
              auto locked = shared_weak.lock();  // the object is alive throughout: must succeed
              if (!locked || !locked->alive() || locked->payload != 42) counters.dead_locks++;
              strong[(r >> 8) % 8] = std::move(locked);
              break;
            }
            case 4: strong[(r >> 8) % 8].reset(); break;
            default: {
              auto copy = strong[(r >> 8) % 8];
              auto moved = std::move(copy);
              if (moved && !moved->alive()) counters.errors++;
              weak[(r >> 16) % 8].reset();
              break;
            }
          }
        }
      });
    }
    for (auto& w : workers) w.join();

    // Every copy is gone: exactly the main thread's references remain.
    CHECK(shared.use_count() == 1u);
    CHECK(shared.weak_use_count() == 2u);  // shared_weak + the strong side's +1
    CHECK(counters.destroyed == 0);
    CHECK(counters.released == 0);
  }
  // shared_weak died first (reverse declaration order), so the last strong release found no
  // weak reference: destroyed without release_resources (c10's rule).
  CHECK(counters.constructed == 1);
  CHECK(counters.destroyed == 1);
  CHECK(counters.released == 0);
  CHECK(counters.errors == 0);
  CHECK(counters.dead_locks == 0);
}

TEST_CASE("intrusive_ptr stress: weak lock() racing with the last strong release",
          "[stress][intrusive_ptr]") {
  const int threads = GENERATE(2, 4, 8);
  const int rounds = scaled(40000, 6000) / threads * 2;
  const int owners = threads / 2;        // drop strong references
  const int lockers = threads - owners;  // hammer lock() until it fails
  Counters counters;

  // Per round, the main thread fills these before the start barrier; each worker reads only
  // its own slot after it. The barrier orders the hand-over.
  std::vector<intrusive_ptr<Tracked>> strong_slots(static_cast<std::size_t>(owners));
  std::vector<weak_intrusive_ptr<Tracked>> weak_slots(static_cast<std::size_t>(lockers));
  std::barrier sync(threads + 1);
  std::atomic<int> round_errors{0};

  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      Rng rng{0xD1B54A32D192ED03ull * static_cast<std::uint64_t>(t + 1)};
      for (int round = 0; round < rounds; ++round) {
        sync.arrive_and_wait();  // start
        if (t < owners) {
          intrusive_ptr<Tracked> mine = std::move(strong_slots[static_cast<std::size_t>(t)]);
          // Churn the count a little so the final decrement lands at varying moments.
          const std::uint32_t spins = rng.next() % 8;
          for (std::uint32_t i = 0; i < spins; ++i) {
            auto copy = mine;
            if (!copy || !copy->alive()) counters.errors++;
          }
          mine.reset();  // one of these is the last strong release
        } else {
          weak_intrusive_ptr<Tracked> mine =
              std::move(weak_slots[static_cast<std::size_t>(t - owners)]);
          // Lock until the object is gone. A successful lock briefly holds a strong reference,
          // so a locker may itself perform the last strong release. Bounded, and yielding now
          // and then, because lockers can keep passing the object between them and, with more
          // threads than cores, the owners may not have run yet.
          for (int attempt = 0; attempt < 256; ++attempt) {
            auto locked = mine.lock();
            if (!locked) {
              counters.lock_failures++;
              if (!mine.expired()) counters.errors++;  // null lock, yet not expired
              break;
            }
            counters.lock_successes++;
            if (!locked->alive() || locked->payload != 42) counters.dead_locks++;
            locked.reset();
            if (attempt % 16 == 15) std::this_thread::yield();
          }
        }
        sync.arrive_and_wait();  // end
      }
    });
  }

  for (int round = 0; round < rounds; ++round) {
    const int released_before = counters.released.load();
    const int destroyed_before = counters.destroyed.load();
    // The main thread keeps one weak reference, so the memory outlives the last strong release
    // and release_resources() must run (exactly once) in whichever thread performs it.
    weak_intrusive_ptr<Tracked> sentinel;
    {
      auto obj = make_intrusive<Tracked>(&counters);
      sentinel = obj;
      for (auto& slot : strong_slots) slot = obj;
      for (auto& slot : weak_slots) slot = obj;
    }                        // obj dropped: the owners now hold every strong reference
    sync.arrive_and_wait();  // start
    sync.arrive_and_wait();  // end
    if (counters.released.load() != released_before + 1) round_errors++;
    if (counters.destroyed.load() != destroyed_before) round_errors++;  // sentinel pins it
    if (!sentinel.expired() || sentinel.lock()) round_errors++;
    if (sentinel.weak_use_count() != 1u) round_errors++;  // only the sentinel is left
    sentinel.reset();  // last weak reference: the memory goes now
    if (counters.destroyed.load() != destroyed_before + 1) round_errors++;
  }
  for (auto& w : workers) w.join();

  INFO("threads=" << threads << " rounds=" << rounds << " lock successes="
                  << counters.lock_successes << " failures=" << counters.lock_failures);
  CHECK(round_errors == 0);
  CHECK(counters.constructed == rounds);
  CHECK(counters.released == rounds);
  CHECK(counters.destroyed == rounds);
  CHECK(counters.errors == 0);
  CHECK(counters.dead_locks == 0);
  // Both outcomes of the race must have occurred, or the test proved nothing.
  CHECK(counters.lock_successes > 0);
  CHECK(counters.lock_failures > 0);
}

TEST_CASE("intrusive_ptr stress: last strong and last weak references dropped concurrently",
          "[stress][intrusive_ptr]") {
  // Every thread holds one strong and one weak reference and drops them in its own order; no
  // one else holds any. Exactly one thread performs the last strong release and exactly one
  // the last weak release; whether release_resources() runs depends on whether a weak
  // reference was still there at that moment, so it runs at most once.
  const int threads = GENERATE(2, 4, 8);
  const int rounds = scaled(40000, 6000) / threads * 2;
  Counters counters;
  std::vector<intrusive_ptr<Tracked>> strong_slots(static_cast<std::size_t>(threads));
  std::vector<weak_intrusive_ptr<Tracked>> weak_slots(static_cast<std::size_t>(threads));
  std::barrier sync(threads + 1);

  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      Rng rng{0xA0761D6478BD642Full * static_cast<std::uint64_t>(t + 1)};
      for (int round = 0; round < rounds; ++round) {
        sync.arrive_and_wait();
        auto strong = std::move(strong_slots[static_cast<std::size_t>(t)]);
        auto weak = std::move(weak_slots[static_cast<std::size_t>(t)]);
        if (rng.next() % 2) {
          strong.reset();
          if (auto again = weak.lock(); again && !again->alive()) counters.dead_locks++;
          weak.reset();
        } else {
          weak.reset();
          strong.reset();
        }
        sync.arrive_and_wait();
      }
    });
  }
  int round_errors = 0;
  for (int round = 0; round < rounds; ++round) {
    const int destroyed_before = counters.destroyed.load();
    const int released_before = counters.released.load();
    {
      auto obj = make_intrusive<Tracked>(&counters);
      for (auto& slot : strong_slots) slot = obj;
      for (auto& slot : weak_slots) slot = obj;
    }
    sync.arrive_and_wait();
    sync.arrive_and_wait();
    if (counters.destroyed.load() != destroyed_before + 1) round_errors++;
    if (counters.released.load() - released_before > 1) round_errors++;
  }
  for (auto& w : workers) w.join();

  CHECK(round_errors == 0);
  CHECK(counters.constructed == rounds);
  CHECK(counters.destroyed == rounds);
  CHECK(counters.released <= rounds);
  CHECK(counters.errors == 0);
  CHECK(counters.dead_locks == 0);
}

}  // namespace stress_intrusive_ptr_stress
