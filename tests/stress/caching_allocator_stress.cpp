// Stress tests for include/tensorplay/core/caching_allocator.hpp: many threads allocating and
// freeing mixed sizes, blocks crossing threads, empty_cache()/stats()/set_max_cached_bytes()
// racing with all of it, and threads exiting while others still free their blocks.
// Built and run under -fsanitize=thread (and ASan); sized to finish in seconds under TSan.
#include <tensorplay/core/caching_allocator.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

namespace stress_caching_allocator_stress {

using tensorplay::CachingAllocator;
using tensorplay::DataPtr;

namespace {

CachingAllocator& alloc() { return CachingAllocator::instance(); }

// A block stamped at both ends with its owner's tag: if the allocator ever handed one block to
// two owners, one of them finds the other's stamp when it checks before freeing.
struct Stamped {
  DataPtr ptr;
  std::size_t size = 0;
  std::uint64_t tag = 0;
};

// Catch2 assertions are not thread-safe, so worker threads count failures here instead.
std::atomic<int> g_misaligned{0};

Stamped make_stamped(std::size_t size, std::uint64_t tag) {
  Stamped s{alloc().allocate(size), size, tag};
  if (reinterpret_cast<std::uintptr_t>(s.ptr.get()) % 64 != 0) g_misaligned.fetch_add(1);
  auto* bytes = static_cast<unsigned char*>(s.ptr.get());
  std::memcpy(bytes, &tag, sizeof(tag));
  std::memcpy(bytes + size - sizeof(tag), &tag, sizeof(tag));
  return s;
}

bool stamp_intact(const Stamped& s) {
  std::uint64_t head = 0;
  std::uint64_t tail = 0;
  const auto* bytes = static_cast<const unsigned char*>(s.ptr.get());
  std::memcpy(&head, bytes, sizeof(head));
  std::memcpy(&tail, bytes + s.size - sizeof(tail), sizeof(tail));
  return head == s.tag && tail == s.tag;
}

// Mostly small sizes (the fast array), some large (the hash map), a few big ones.
std::size_t random_size(std::mt19937_64& rng) {
  const auto r = rng() % 100;
  if (r < 70) return 16 + rng() % 2000;  // >= 16: the two stamps must not overlap
  if (r < 97) return 32 * 1024 + rng() % (200 * 1024);
  return (1 + rng() % 4) << 20;
}

// Unbounded MPMC queue; close() wakes every waiting consumer.
template <class T>
class Channel {
 public:
  void push(T v) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      q_.push_back(std::move(v));
    }
    cv_.notify_one();
  }
  std::optional<T> pop() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !q_.empty() || closed_; });
    if (q_.empty()) return std::nullopt;
    T v = std::move(q_.front());
    q_.pop_front();
    return v;
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<T> q_;
  bool closed_ = false;
};

// Runs empty_cache(), stats() and cap changes in a loop until stopped, checking what must hold
// even in a racy snapshot.
class Meddler {
 public:
  explicit Meddler(bool change_cap) {
    thread_ = std::thread([this, change_cap] {
      std::uint64_t last_system_allocs = 0;
      for (int i = 0; !stop_.load(std::memory_order_acquire); ++i) {
        const auto s = alloc().stats();
        // The system counters are exact at all times, so they never go backwards.
        if (s.num_system_allocs < last_system_allocs) ok_.store(false);
        last_system_allocs = s.num_system_allocs;
        if (i % 3 == 0) alloc().empty_cache();
        if (change_cap && i % 5 == 0) {
          alloc().set_max_cached_bytes(i % 10 == 0 ? (512 << 10) : TENSORPLAY_CPU_MAX_CACHED_BYTES);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  }
  ~Meddler() { stop(); }
  bool stop() {
    stop_.store(true, std::memory_order_release);
    if (thread_.joinable()) thread_.join();
    alloc().set_max_cached_bytes(TENSORPLAY_CPU_MAX_CACHED_BYTES);
    return ok_.load();
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<bool> ok_{true};
  std::thread thread_;
};

// After every thread has joined and freed everything: the books balance exactly.
void check_balanced(const CachingAllocator::Stats& before) {
  CHECK(g_misaligned.load() == 0);
  const auto after = alloc().stats();
  CHECK(after.allocated_bytes == before.allocated_bytes);
  CHECK(after.num_allocs - after.num_frees == before.num_allocs - before.num_frees);
  CHECK(after.reserved_bytes == after.allocated_bytes + after.cached_bytes);
  CHECK(after.num_allocs == after.cache_hits + after.cache_misses);
  CHECK(after.peak_reserved_bytes >= after.reserved_bytes);
  // Every worker thread has exited (its cache flushed into the pool), so empty_cache() now
  // leaves nothing cached anywhere.
  alloc().empty_cache();
  const auto empty = alloc().stats();
  CHECK(empty.cached_bytes == 0);
  CHECK(empty.reserved_bytes == before.allocated_bytes);
}

}  // namespace

TEST_CASE("CachingAllocator: threads allocating and freeing mixed sizes", "[stress]") {
  for (int nthreads : {2, 4, 8}) {
    DYNAMIC_SECTION(nthreads << " threads") {
      const auto before = alloc().stats();
      std::atomic<int> corrupt{0};
      {
        Meddler meddler(/*change_cap=*/true);
        std::vector<std::thread> threads;
        const int ops = 16000 / nthreads;
        for (int t = 0; t < nthreads; ++t) {
          threads.emplace_back([t, ops, &corrupt] {
            std::mt19937_64 rng(1234 + t);
            std::vector<Stamped> live(16);
            for (int i = 0; i < ops; ++i) {
              Stamped& slot = live[rng() % live.size()];
              if (slot.ptr && !stamp_intact(slot)) corrupt.fetch_add(1);
              slot = make_stamped(random_size(rng), (std::uint64_t(t) << 32) | unsigned(i));
            }
            for (auto& s : live) {
              if (s.ptr && !stamp_intact(s)) corrupt.fetch_add(1);
            }
          });
        }
        for (auto& th : threads) th.join();
        CHECK(meddler.stop());
      }
      CHECK(corrupt.load() == 0);
      check_balanced(before);
    }
  }
}

TEST_CASE("CachingAllocator: producers hand blocks to consumers", "[stress]") {
  for (int pairs : {1, 2, 4}) {
    DYNAMIC_SECTION(pairs << " producer/consumer pairs") {
      const auto before = alloc().stats();
      std::atomic<int> corrupt{0};
      {
        Meddler meddler(/*change_cap=*/true);
        Channel<Stamped> channel;
        std::vector<std::thread> producers;
        std::vector<std::thread> consumers;
        const int items = 6000 / pairs;
        for (int p = 0; p < pairs; ++p) {
          producers.emplace_back([p, items, &channel] {
            std::mt19937_64 rng(99 + p);
            for (int i = 0; i < items; ++i) {
              channel.push(make_stamped(random_size(rng), (std::uint64_t(p) << 32) | unsigned(i)));
            }
          });
          consumers.emplace_back([&channel, &corrupt] {
            std::mt19937_64 rng(7);
            // Consumers allocate too, so they reuse the blocks that crossed over.
            std::vector<Stamped> own(4);
            while (auto s = channel.pop()) {
              if (!stamp_intact(*s)) corrupt.fetch_add(1);
              s->ptr.clear();
              Stamped& slot = own[rng() % own.size()];
              if (slot.ptr && !stamp_intact(slot)) corrupt.fetch_add(1);
              slot = make_stamped(random_size(rng), rng());
            }
          });
        }
        for (auto& th : producers) th.join();
        channel.close();
        for (auto& th : consumers) th.join();
        CHECK(meddler.stop());
      }
      CHECK(corrupt.load() == 0);
      check_balanced(before);
    }
  }
}

TEST_CASE("CachingAllocator: threads exit while others still free their blocks", "[stress]") {
  const auto before = alloc().stats();
  std::atomic<int> corrupt{0};
  {
    Meddler meddler(/*change_cap=*/false);
    Channel<Stamped> to_freer;
    // Long-lived threads that free what short-lived threads allocated, often after the
    // allocating thread has exited and its cache has been retired.
    std::vector<std::thread> freers;
    for (int f = 0; f < 2; ++f) {
      freers.emplace_back([&] {
        while (auto s = to_freer.pop()) {
          if (!stamp_intact(*s)) corrupt.fetch_add(1);
        }
      });
    }
    for (int wave = 0; wave < 12; ++wave) {
      std::vector<std::thread> shortlived;
      // Blocks freed by short-lived threads (into caches that die right after).
      auto handed_back = std::make_shared<Channel<Stamped>>();
      for (int t = 0; t < 4; ++t) {
        shortlived.emplace_back([wave, t, &to_freer, handed_back, &corrupt] {
          std::mt19937_64 rng(wave * 16 + t);
          for (int i = 0; i < 150; ++i) {
            Stamped s = make_stamped(random_size(rng), rng());
            if (i % 3 == 0) {
              to_freer.push(std::move(s));
            } else if (i % 3 == 1) {
              handed_back->push(std::move(s));
            } else {
              if (!stamp_intact(s)) corrupt.fetch_add(1);  // freed here, now
            }
          }
          // Free some blocks another short-lived thread allocated, then exit.
          for (int i = 0; i < 25; ++i) {
            auto s = handed_back->pop();
            if (s && !stamp_intact(*s)) corrupt.fetch_add(1);
          }
        });
      }
      for (auto& th : shortlived) th.join();
      handed_back->close();
      while (auto s = handed_back->pop()) {
        if (!stamp_intact(*s)) corrupt.fetch_add(1);
      }
    }
    to_freer.close();
    for (auto& th : freers) th.join();
    CHECK(meddler.stop());
  }
  CHECK(corrupt.load() == 0);
  check_balanced(before);
}

}  // namespace stress_caching_allocator_stress
