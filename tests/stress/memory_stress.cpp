// Stress tests for include/tensorplay/memory/: threads allocate and free (blocks crossing
// threads, caches overflowing to the pool, threads exiting) while another takes snapshots,
// reads the stats, resets the peaks and switches memory history on and off. Under TSan this is
// the check that the segment registry, the per-block state and the history ring are
// race-free; the quiescent identities are checked once the workers have joined.
#include <tensorplay/memory/history.hpp>
#include <tensorplay/memory/snapshot.hpp>
#include <tensorplay/memory/stats.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

TEST_CASE("memory: snapshots, stats and history while threads allocate", "[memory][stress]") {
  namespace mem = tensorplay::memory;
  auto& allocator = tensorplay::CachingAllocator::instance();
  std::atomic<bool> stop{false};
  std::mutex handoff_mutex;
  std::vector<tensorplay::DataPtr> handoff;  // guarded by handoff_mutex: blocks other threads free

  auto worker = [&](unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<tensorplay::DataPtr> held;
    for (int i = 0; i < 4000; ++i) {
      const std::size_t size = 64u << (rng() % 12);  // 64 B .. 128 KiB
      held.push_back(allocator.allocate(size));
      if (held.size() > 16) {
        if (rng() % 4 == 0) {
          std::lock_guard<std::mutex> lock(handoff_mutex);
          handoff.push_back(std::move(held.front()));
        }
        held.erase(held.begin());
      }
      if (rng() % 64 == 0) {
        std::lock_guard<std::mutex> lock(handoff_mutex);
        handoff.clear();  // frees blocks another thread allocated
      }
    }
  };

  std::thread observer([&] {
    int round = 0;
    while (!stop.load()) {
      const std::vector<mem::Segment> segments = mem::memory_snapshot();
      for (const mem::Segment& s : segments) {
        if (s.blocks.size() != 1 || s.blocks[0].size != s.total_size) std::abort();
      }
      (void)mem::memory_stats();
      if (round % 3 == 0) mem::reset_peak_memory_stats();
      if (round % 4 == 0) mem::_record_memory_history(true, 256);
      if (round % 4 == 2) mem::_record_memory_history(false);
      if (round % 5 == 0) (void)mem::_snapshot();
      ++round;
    }
    mem::_record_memory_history(false);
  });

  const auto before = mem::memory_stats();
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < 4; ++t) workers.emplace_back(worker, 1234 + t);
  for (std::thread& w : workers) w.join();
  stop.store(true);
  observer.join();
  handoff.clear();

  const auto after = mem::memory_stats();
  CHECK(!allocator.recording());
  CHECK(after.at("allocated_bytes.all.current") == before.at("allocated_bytes.all.current"));
  CHECK(after.at("allocation.all.allocated") - before.at("allocation.all.allocated") == 4 * 4000);
  CHECK(after.at("allocation.all.freed") - before.at("allocation.all.freed") == 4 * 4000);
  CHECK(after.at("allocated_bytes.all.allocated") - before.at("allocated_bytes.all.allocated") ==
        after.at("allocated_bytes.all.freed") - before.at("allocated_bytes.all.freed"));
  CHECK(after.at("allocated_bytes.all.peak") <= after.at("reserved_bytes.all.peak"));
  std::int64_t reserved = 0;
  std::int64_t active = 0;
  for (const mem::Segment& s : mem::memory_snapshot()) {
    reserved += static_cast<std::int64_t>(s.total_size);
    active += static_cast<std::int64_t>(s.allocated_size);
  }
  CHECK(reserved == after.at("reserved_bytes.all.current"));
  CHECK(active == after.at("allocated_bytes.all.current"));
}
