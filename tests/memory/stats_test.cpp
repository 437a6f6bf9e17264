// Tests for include/tensorplay/memory/stats.hpp (and the CPU allocator counters behind it):
// torch's keys, the identities between them under single-threaded use, the exact peaks, the
// totals after threads have come and gone, and the errors for devices we have no stats for.
#include <tensorplay/memory/stats.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace memory_stats_test {

using Stats = std::map<std::string, std::int64_t>;

inline std::int64_t block(std::size_t nbytes) {
  return static_cast<std::int64_t>(tensorplay::detail::block_total(nbytes));
}

// The identities every quiescent snapshot of the CPU stats satisfies.
inline void check_identities(const Stats& s) {
  for (const char* name : {"allocation", "segment", "active", "allocated_bytes", "reserved_bytes",
                           "active_bytes", "inactive_split", "inactive_split_bytes"}) {
    const std::string p = std::string(name) + ".all.";
    CAPTURE(p);
    CHECK(s.at(p + "current") == s.at(p + "allocated") - s.at(p + "freed"));
    CHECK(s.at(p + "peak") >= s.at(p + "current"));
  }
  CHECK(s.at("active_bytes.all.current") == s.at("allocated_bytes.all.current"));
  CHECK(s.at("allocated_bytes.all.current") <= s.at("reserved_bytes.all.current"));
  CHECK(s.at("allocated_bytes.all.peak") <= s.at("reserved_bytes.all.peak"));
  CHECK(s.at("inactive_split_bytes.all.current") == 0);
  CHECK(s.at("segment.all.current") == s.at("num_device_alloc") - s.at("num_device_free"));
}

}  // namespace memory_stats_test

TEST_CASE("memory_stats: torch's keys for the CPU allocator", "[memory][stats]") {
  const auto s = tensorplay::memory::memory_stats();
  CHECK(s == tensorplay::memory::memory_stats("cpu"));
  // 8 stats x "all" x 4 fields, torch's two oversize stats, 5 counters; no pools, no
  // requested_bytes.
  CHECK(s.size() == 8 * 4 + 2 * 4 + 5);
  for (const char* key : {"allocation.all.current", "segment.all.peak", "active.all.allocated",
                          "inactive_split.all.freed", "allocated_bytes.all.current",
                          "reserved_bytes.all.peak", "active_bytes.all.freed",
                          "inactive_split_bytes.all.current", "oversize_allocations.current",
                          "oversize_segments.peak", "num_alloc_retries", "num_ooms"}) {
    CAPTURE(key);
    CHECK(s.count(key) == 1);
  }
  CHECK(s.count("allocation.small_pool.current") == 0);
  CHECK(s.count("requested_bytes.all.current") == 0);
  memory_stats_test::check_identities(s);
}

TEST_CASE("memory_stats: counters follow allocations exactly (one thread)", "[memory][stats]") {
  namespace mem = tensorplay::memory;
  using memory_stats_test::block;
  auto& allocator = tensorplay::CachingAllocator::instance();
  allocator.empty_cache();
  const auto s0 = mem::memory_stats();
  tensorplay::DataPtr a = allocator.allocate(100 * 1024);
  tensorplay::DataPtr b = allocator.allocate(1000);
  const auto s1 = mem::memory_stats();
  memory_stats_test::check_identities(s1);
  CHECK(s1.at("allocated_bytes.all.current") - s0.at("allocated_bytes.all.current") ==
        block(100 * 1024) + block(1000));
  CHECK(s1.at("allocated_bytes.all.allocated") - s0.at("allocated_bytes.all.allocated") ==
        block(100 * 1024) + block(1000));
  CHECK(s1.at("allocation.all.allocated") - s0.at("allocation.all.allocated") == 2);
  CHECK(s1.at("segment.all.allocated") - s0.at("segment.all.allocated") == 2);
  CHECK(s1.at("reserved_bytes.all.allocated") - s0.at("reserved_bytes.all.allocated") ==
        block(100 * 1024) + block(1000));
  CHECK(mem::memory_allocated() == s1.at("allocated_bytes.all.current"));
  CHECK(mem::memory_reserved() == s1.at("reserved_bytes.all.current"));

  b = tensorplay::DataPtr();  // cached: allocated drops, reserved stays
  const auto s2 = mem::memory_stats();
  memory_stats_test::check_identities(s2);
  CHECK(s2.at("allocated_bytes.all.current") == s1.at("allocated_bytes.all.current") - block(1000));
  CHECK(s2.at("allocated_bytes.all.freed") - s1.at("allocated_bytes.all.freed") == block(1000));
  CHECK(s2.at("reserved_bytes.all.current") == s1.at("reserved_bytes.all.current"));
  CHECK(s2.at("allocation.all.freed") - s1.at("allocation.all.freed") == 1);

  allocator.empty_cache();  // the cached block goes back to the system
  const auto s3 = mem::memory_stats();
  memory_stats_test::check_identities(s3);
  CHECK(s3.at("reserved_bytes.all.current") == s2.at("reserved_bytes.all.current") - block(1000));
  CHECK(s3.at("reserved_bytes.all.freed") - s2.at("reserved_bytes.all.freed") == block(1000));
  CHECK(s3.at("segment.all.freed") - s2.at("segment.all.freed") == 1);
  CHECK(s3.at("num_device_free") - s2.at("num_device_free") == 1);
}

TEST_CASE("memory_stats: peaks are exact under single-threaded use", "[memory][stats]") {
  namespace mem = tensorplay::memory;
  using memory_stats_test::block;
  auto& allocator = tensorplay::CachingAllocator::instance();
  allocator.empty_cache();
  mem::reset_peak_memory_stats();
  const std::int64_t base = mem::memory_allocated();
  CHECK(mem::max_memory_allocated() == base);
  CHECK(mem::max_memory_reserved() == mem::memory_reserved());

  // A peak reached on the fast path: the cached block is reused while a new one is live, so
  // allocated exceeds every value it had at a system allocation.
  tensorplay::DataPtr a = allocator.allocate(100 * 1024);
  a = tensorplay::DataPtr();
  tensorplay::DataPtr b = allocator.allocate(200 * 1024);
  const std::int64_t reserved = mem::memory_reserved();
  a = allocator.allocate(100 * 1024);  // a thread-cache hit
  CHECK(mem::memory_reserved() == reserved);
  const std::int64_t top = base + block(100 * 1024) + block(200 * 1024);
  CHECK(mem::memory_allocated() == top);
  a = tensorplay::DataPtr();
  b = tensorplay::DataPtr();
  CHECK(mem::memory_allocated() == base);
  CHECK(mem::max_memory_allocated() == top);
  CHECK(mem::max_memory_reserved() == mem::memory_reserved());

  // The live-block count peaks with the bytes here (every block is a cache hit): exact.
  {
    std::vector<tensorplay::DataPtr> blocks;
    for (int i = 0; i < 5; ++i) blocks.push_back(allocator.allocate(3000));
    blocks.clear();  // all five cached in this thread
    mem::reset_peak_memory_stats();
    const std::int64_t live = mem::memory_stats().at("allocation.all.current");
    for (int i = 0; i < 5; ++i) blocks.push_back(allocator.allocate(3000));
    blocks.clear();
    const auto s = mem::memory_stats();
    CHECK(s.at("allocation.all.current") == live);
    CHECK(s.at("allocation.all.peak") == live + 5);
    CHECK(s.at("active.all.peak") == live + 5);
    CHECK(mem::max_memory_allocated() == base + 5 * block(3000));
  }

  // After a reset the peaks restart from the current values.
  allocator.empty_cache();
  mem::reset_peak_memory_stats();
  CHECK(mem::max_memory_allocated() == base);
  CHECK(mem::max_memory_reserved() == mem::memory_reserved());
  const auto s = mem::memory_stats();
  CHECK(s.at("allocation.all.peak") == s.at("allocation.all.current"));
  CHECK(s.at("segment.all.peak") == s.at("segment.all.current"));
}

TEST_CASE("memory_stats: totals stay exact across threads once they are quiescent",
          "[memory][stats]") {
  namespace mem = tensorplay::memory;
  auto& allocator = tensorplay::CachingAllocator::instance();
  const auto s0 = mem::memory_stats();
  constexpr int kThreads = 3;
  constexpr int kIters = 200;
  std::vector<tensorplay::DataPtr> kept(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIters; ++i) {
        tensorplay::DataPtr p = allocator.allocate(64 + 64 * static_cast<std::size_t>(i % 7));
      }
      kept[t] = allocator.allocate(4096);  // outlives the thread: freed on the main thread
    });
  }
  for (std::thread& th : threads) th.join();
  const auto s1 = mem::memory_stats();
  memory_stats_test::check_identities(s1);
  CHECK(s1.at("allocation.all.allocated") - s0.at("allocation.all.allocated") ==
        kThreads * (kIters + 1));
  CHECK(s1.at("allocation.all.freed") - s0.at("allocation.all.freed") == kThreads * kIters);
  CHECK(s1.at("allocated_bytes.all.current") - s0.at("allocated_bytes.all.current") ==
        kThreads * memory_stats_test::block(4096));
  // The peak is an upper bound when threads interleave, never above the reserved peak.
  CHECK(s1.at("allocated_bytes.all.peak") >= s1.at("allocated_bytes.all.current"));
  CHECK(s1.at("allocated_bytes.all.peak") <= s1.at("reserved_bytes.all.peak"));
  kept.clear();
  const auto s2 = mem::memory_stats();
  memory_stats_test::check_identities(s2);
  CHECK(s2.at("allocated_bytes.all.current") == s0.at("allocated_bytes.all.current"));
}

TEST_CASE("memory_stats: devices without our stats are refused", "[memory][stats]") {
  namespace mem = tensorplay::memory;
  CHECK_THROWS_WITH(mem::memory_stats("tpu"),
                    "Expected one of cpu, cuda, vulkan device type at start of device string: tpu");
  CHECK_THROWS_AS(mem::memory_allocated("cpu:x"), tensorplay::Error);
  CHECK_THROWS_AS(mem::memory_stats("vulkan"), tensorplay::NotImplementedError);
  CHECK_THROWS_WITH(mem::reset_peak_memory_stats("vulkan"),
                    Catch::Contains("has no caching allocator that reports memory statistics"));
#if !TENSORPLAY_USE_CUDA
  CHECK_THROWS_WITH(mem::max_memory_reserved("cuda"), Catch::Contains("TENSORPLAY_USE_CUDA"));
  CHECK_THROWS_AS(mem::max_memory_allocated("cuda:0"), tensorplay::NotImplementedError);
#endif
}
