// Stress tests for include/tensorplay/backends/cuda/caching_allocator.hpp on a simulated device:
// threads allocating and freeing random sizes on a few streams, recording uses on other streams,
// handing blocks to each other, running into the memory cap, while one thread completes events
// and another reads stats and empties the cache. Built and run under -fsanitize=thread (and
// ASan); sized to finish in seconds under TSan on two cores.
#include <tensorplay/backends/cuda/caching_allocator.hpp>

#include "../cuda/simulated_device.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace stress_cuda_caching_allocator_stress {

using tensorplay::DataPtr;

namespace {

constexpr std::size_t KiB = std::size_t{1} << 10;
constexpr std::size_t MiB = std::size_t{1} << 20;

using cuda_simulated_device::SimulatedDevice;

using Alloc = tensorplay::cuda::CachingAllocatorT<SimulatedDevice>;

// A block stamped at both ends with its owner's tag: if the allocator ever handed one range to
// two owners, one of them finds the other's stamp before it frees the block.
struct Stamped {
  DataPtr ptr;
  std::size_t size = 0;
  std::uint64_t tag = 0;
};

void stamp(Stamped& s) {
  auto* bytes = static_cast<unsigned char*>(s.ptr.get());
  std::memcpy(bytes, &s.tag, sizeof s.tag);
  std::memcpy(bytes + s.size - sizeof s.tag, &s.tag, sizeof s.tag);
}
bool stamp_intact(const Stamped& s) {
  std::uint64_t head = 0;
  std::uint64_t tail = 0;
  const auto* bytes = static_cast<const unsigned char*>(s.ptr.get());
  std::memcpy(&head, bytes, sizeof head);
  std::memcpy(&tail, bytes + s.size - sizeof tail, sizeof tail);
  return head == s.tag && tail == s.tag;
}

// Mostly small-pool sizes, some from shared 20 MiB segments, a few with segments of their own.
std::size_t random_size(std::mt19937_64& rng) {
  const auto r = rng() % 100;
  if (r < 70) return 16 + rng() % (64 * KiB);
  if (r < 95) return MiB + 1 + rng() % (8 * MiB);
  return 10 * MiB + rng() % (14 * MiB);
}

// What a consistent snapshot of the stats must satisfy at any moment.
bool consistent(const tensorplay::cuda::DeviceStats& s) {
  using tensorplay::cuda::StatArray;
  bool ok = true;
  for (const StatArray* a :
       {&s.allocation, &s.segment, &s.active, &s.inactive_split, &s.allocated_bytes,
        &s.reserved_bytes, &s.active_bytes, &s.inactive_split_bytes, &s.requested_bytes}) {
    for (const auto& stat : *a) ok = ok && stat.current >= 0 && stat.peak >= stat.current;
    ok = ok && (*a)[0].current == (*a)[1].current + (*a)[2].current;
  }
  const auto all = static_cast<std::size_t>(tensorplay::cuda::StatType::AGGREGATE);
  ok = ok && s.allocated_bytes[all].current <= s.active_bytes[all].current;
  ok = ok && s.requested_bytes[all].current <= s.active_bytes[all].current;
  ok = ok && s.active_bytes[all].current + s.inactive_split_bytes[all].current <=
                 s.reserved_bytes[all].current;
  ok = ok && s.num_device_alloc - s.num_device_free == s.segment[all].current;
  return ok;
}

}  // namespace

TEST_CASE("cuda::CachingAllocatorT stress: threads allocate, share and free on several streams",
          "[stress]") {
  constexpr int kWorkers = 4;
  constexpr int kOps = 8000;
  constexpr int kStreams = 3;
  SimulatedDevice dev(160 * MiB);  // tight enough that threads hit out of memory now and then
  Alloc alloc(dev);

  std::atomic<bool> done{false};
  std::atomic<int> corrupt{0};
  std::atomic<int> inconsistent{0};
  std::atomic<std::int64_t> allocations{0};
  std::atomic<std::int64_t> ooms{0};
  std::mutex handoff_mutex;      // guards handoff and shared
  std::vector<Stamped> handoff;  // blocks one worker leaves for another to free
  // A block several workers use at once: each records a use on a stream of its own while it
  // holds a reference, and whoever drops the last reference frees the block.
  std::shared_ptr<Stamped> shared;
  auto share = [&](Stamped s) {
    return std::shared_ptr<Stamped>(new Stamped(std::move(s)), [&](Stamped* p) {
      if (!stamp_intact(*p)) corrupt.fetch_add(1);
      delete p;
    });
  };

  std::thread completer([&] {
    while (!done.load(std::memory_order_acquire)) {
      dev.complete_all_events();
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  });
  std::thread meddler([&] {
    for (int i = 0; !done.load(std::memory_order_acquire); ++i) {
      if (!consistent(alloc.device_stats())) inconsistent.fetch_add(1);
      if (i % 8 == 0) alloc.empty_cache();
      std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
  });

  std::vector<std::thread> workers;
  for (int t = 0; t < kWorkers; ++t) {
    workers.emplace_back([&, t] {
      std::mt19937_64 rng(4242 + static_cast<std::uint64_t>(t));
      std::vector<Stamped> live;
      auto release = [&](Stamped& s) {
        if (!stamp_intact(s)) corrupt.fetch_add(1);
        s.ptr.clear();
      };
      for (int i = 0; i < kOps; ++i) {
        const auto r = rng() % 10;
        if (live.size() < 8 && r < 6) {
          Stamped s;
          s.size = random_size(rng);
          s.tag = (static_cast<std::uint64_t>(t) << 32) | static_cast<std::uint32_t>(i);
          const int stream = static_cast<int>(rng() % kStreams);
          try {
            s.ptr = alloc.allocate(s.size, stream);
          } catch (const tensorplay::OutOfMemoryError&) {
            ooms.fetch_add(1);
            continue;
          }
          allocations.fetch_add(1);
          stamp(s);
          if (rng() % 4 == 0) alloc.record_stream(s.ptr, static_cast<int>(rng() % kStreams));
          live.push_back(std::move(s));
        } else if (!live.empty() && r < 8) {
          const auto k = rng() % live.size();
          release(live[k]);
          live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
        } else if (!live.empty() && r == 8) {
          // Hand the newest block to whichever worker frees next; take an older one, if any.
          std::lock_guard<std::mutex> lock(handoff_mutex);
          if (!handoff.empty()) {
            release(handoff.back());
            handoff.pop_back();
          }
          handoff.push_back(std::move(live.back()));
          live.pop_back();
        } else if (!live.empty()) {
          std::shared_ptr<Stamped> used;
          {
            std::lock_guard<std::mutex> lock(handoff_mutex);
            used = shared;
            if (!used || rng() % 4 == 0) {
              shared = share(std::move(live.back()));
              live.pop_back();
            }
          }
          if (used) alloc.record_stream(used->ptr, static_cast<int>(rng() % kStreams));
        }
      }
      for (auto& s : live) release(s);
    });
  }
  for (auto& w : workers) w.join();
  for (auto& s : handoff) {
    if (!stamp_intact(s)) corrupt.fetch_add(1);
  }
  handoff.clear();
  shared.reset();
  done.store(true, std::memory_order_release);
  completer.join();
  meddler.join();

  CHECK(corrupt.load() == 0);
  CHECK(inconsistent.load() == 0);
  CHECK(allocations.load() > kWorkers * kOps / 4);  // the cap did not starve the test
  INFO("out-of-memory errors: " << ooms.load());

  // Everything is freed: nothing is allocated; blocks may still wait for their events.
  CHECK(alloc.memory_allocated() == 0);
  auto s = alloc.device_stats();
  CHECK(consistent(s));
  const auto all = static_cast<std::size_t>(tensorplay::cuda::StatType::AGGREGATE);
  CHECK(s.allocation[all].current == 0);
  CHECK(s.allocation[all].allocated == allocations.load());
  CHECK(s.allocation[all].freed == allocations.load());
  CHECK(s.num_ooms == ooms.load());

  // empty_cache waits for the events left, so every block and segment goes back.
  alloc.empty_cache();
  s = alloc.device_stats();
  CHECK(consistent(s));
  CHECK(alloc.memory_reserved() == 0);
  CHECK(s.active_bytes[all].current == 0);
  CHECK(s.requested_bytes[all].current == 0);
  CHECK(s.inactive_split[all].current == 0);
  CHECK(s.segment[all].current == 0);
  CHECK(s.num_device_alloc == dev.mallocs());
  CHECK(s.num_device_free == dev.frees());
  CHECK(dev.live_allocations() == 0);
  CHECK(dev.live_events() == 0);
}

}  // namespace stress_cuda_caching_allocator_stress
