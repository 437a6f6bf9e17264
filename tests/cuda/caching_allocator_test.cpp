// Tests for include/tensorplay/backends/cuda/caching_allocator.hpp on a simulated device: the
// pool logic needs no GPU and no CUDA toolkit, so every build runs these (the unit binary).
//
// SimulatedDevice models DeviceMemory with host memory, a capacity so that out of memory can be
// provoked, integer streams, events that stay incomplete until the test completes them, and
// counters of what the allocator asked the device to do. Each test owns its allocator; the test
// keeps a copy of the device handle to drive it.
#include <tensorplay/backends/cuda/caching_allocator.hpp>

#include "simulated_device.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

namespace cuda_caching_allocator_test {

using tensorplay::DataPtr;
using tensorplay::Device;
using tensorplay::DeviceType;
using tensorplay::OutOfMemoryError;
using tensorplay::ValueError;

constexpr std::size_t KiB = std::size_t{1} << 10;
constexpr std::size_t MiB = std::size_t{1} << 20;

using cuda_simulated_device::SimulatedDevice;

static_assert(!tensorplay::cuda::DeviceMemory<int>);

using Alloc = tensorplay::cuda::CachingAllocatorT<SimulatedDevice>;

std::int64_t stat(const Alloc& a, const std::string& key) { return a.memory_stats().at(key); }
std::int64_t bytes(std::size_t n) { return static_cast<std::int64_t>(n); }

// Every gauge of "all" is the sum of the two pools'.
void check_pools_add_up(const Alloc& a) {
  const auto s = a.memory_stats();
  for (const char* name :
       {"allocation", "segment", "active", "inactive_split", "allocated_bytes", "reserved_bytes",
        "active_bytes", "inactive_split_bytes", "requested_bytes"}) {
    const std::string n = name;
    CHECK(s.at(n + ".all.current") ==
          s.at(n + ".small_pool.current") + s.at(n + ".large_pool.current"));
  }
}

TEST_CASE("cuda::CachingAllocatorT: writable blocks on the CUDA device, freed by their DataPtr",
          "[cuda][allocator]") {
  SimulatedDevice dev(1024 * MiB, /*index=*/3);
  {
    Alloc alloc(dev);
    const tensorplay::Allocator& base = alloc;
    DataPtr p = base.allocate(1000);
    REQUIRE(p);
    CHECK(p.device() == Device(DeviceType::CUDA, 3));
    CHECK(reinterpret_cast<std::uintptr_t>(p.get()) % 512 == 0);
    std::memset(p.get(), 0xab, 1000);
    CHECK(alloc.memory_allocated() == 1024);
    CHECK(alloc.memory_reserved() == bytes(2 * MiB));
    p.clear();
    CHECK(alloc.memory_allocated() == 0);
    CHECK(alloc.memory_reserved() == bytes(2 * MiB));  // cached, not returned
    CHECK(dev.frees() == 0);
  }
  // The allocator returns its cache when it goes.
  CHECK(dev.live_allocations() == 0);
  CHECK(dev.frees() == 1);
}

TEST_CASE("cuda::CachingAllocatorT: zero bytes give a null DataPtr and count nothing",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  DataPtr p = alloc.allocate(0);
  CHECK(!p);
  CHECK(p.device() == Device(DeviceType::CUDA, 0));
  alloc.record_stream(p, 1);  // an empty tensor's storage: nothing to record
  CHECK(dev.mallocs() == 0);
  CHECK(stat(alloc, "allocation.all.allocated") == 0);
}

TEST_CASE("cuda::CachingAllocatorT: sizes round up to multiples of 512 bytes",
          "[cuda][allocator]") {
  static_assert(Alloc::round_size(1) == 512);
  static_assert(Alloc::round_size(512) == 512);
  static_assert(Alloc::round_size(513) == 1024);
  SimulatedDevice dev;
  Alloc alloc(dev);
  DataPtr a = alloc.allocate(1);
  CHECK(alloc.memory_allocated() == 512);
  DataPtr b = alloc.allocate(513);
  CHECK(alloc.memory_allocated() == 512 + 1024);
  CHECK(stat(alloc, "requested_bytes.all.current") == 1 + 513);
  CHECK(static_cast<char*>(b.get()) - static_cast<char*>(a.get()) == 512);  // carved in order
}

TEST_CASE("cuda::CachingAllocatorT: small and large pools and their segment sizes",
          "[cuda][allocator]") {
  // {request, segment, small pool?}
  const struct {
    std::size_t request;
    std::size_t segment;
    bool small;
  } cases[] = {
      {1, 2 * MiB, true},
      {MiB, 2 * MiB, true},               // the largest small request
      {MiB + 1, 20 * MiB, false},         // large pool, shared 20 MiB segment
      {10 * MiB - 512, 20 * MiB, false},  // still below 10 MiB
      {10 * MiB, 10 * MiB, false},        // a segment of its own
      {11 * MiB + 1, 12 * MiB, false},    // rounded up to 2 MiB
      {64 * MiB + 512, 66 * MiB, false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.request);
    SimulatedDevice dev;
    Alloc alloc(dev);
    DataPtr p = alloc.allocate(c.request);
    CHECK(stat(alloc, "num_device_alloc") == 1);
    CHECK(alloc.memory_reserved() == bytes(c.segment));
    CHECK(stat(alloc, "segment.small_pool.current") == (c.small ? 1 : 0));
    CHECK(stat(alloc, "segment.large_pool.current") == (c.small ? 0 : 1));
    CHECK(stat(alloc, c.small ? "reserved_bytes.small_pool.current"
                              : "reserved_bytes.large_pool.current") == bytes(c.segment));
    check_pools_add_up(alloc);
  }
}

TEST_CASE("cuda::CachingAllocatorT: blocks split only when the rest is worth keeping",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  SECTION("small pool: a rest of 512 bytes is kept") {
    DataPtr a = alloc.allocate(MiB);
    DataPtr b = alloc.allocate(MiB - 512);
    CHECK(stat(alloc, "inactive_split.small_pool.current") == 1);
    CHECK(stat(alloc, "inactive_split_bytes.small_pool.current") == 512);
    DataPtr c = alloc.allocate(512);  // the rest, exactly: nothing left to split off
    CHECK(static_cast<char*>(c.get()) == static_cast<char*>(a.get()) + 2 * MiB - 512);
    CHECK(stat(alloc, "inactive_split.small_pool.current") == 0);
    CHECK(stat(alloc, "num_device_alloc") == 1);
  }
  SECTION("large pool: a rest of 1 MiB is not kept") {
    DataPtr a = alloc.allocate(19 * MiB);  // own segment of 20 MiB, rest 1 MiB
    CHECK(alloc.memory_reserved() == bytes(20 * MiB));
    CHECK(alloc.memory_allocated() == bytes(20 * MiB));  // the block is the whole segment
    CHECK(stat(alloc, "requested_bytes.all.current") == bytes(19 * MiB));
    CHECK(stat(alloc, "inactive_split.large_pool.current") == 0);
  }
  SECTION("large pool: a rest just over 1 MiB is kept") {
    DataPtr a = alloc.allocate(19 * MiB - 512);
    CHECK(alloc.memory_allocated() == bytes(19 * MiB - 512));
    CHECK(stat(alloc, "inactive_split.large_pool.current") == 1);
    CHECK(stat(alloc, "inactive_split_bytes.large_pool.current") == bytes(MiB + 512));
  }
  check_pools_add_up(alloc);
}

TEST_CASE("cuda::CachingAllocatorT: a freed block is reused with no device allocation",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  DataPtr p = alloc.allocate(4 * MiB);
  void* first = p.get();
  p.clear();
  p = alloc.allocate(4 * MiB);
  CHECK(p.get() == first);
  CHECK(dev.mallocs() == 1);
  CHECK(alloc.stats().cache_hits == 1);
  CHECK(alloc.stats().cache_misses == 1);
}

TEST_CASE("cuda::CachingAllocatorT: a freed block merges with both free neighbours",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  DataPtr a = alloc.allocate(512 * KiB);
  DataPtr b = alloc.allocate(512 * KiB);
  DataPtr c = alloc.allocate(512 * KiB);  // the segment's last 512 KiB stay free
  char* base = static_cast<char*>(a.get());
  CHECK(stat(alloc, "inactive_split.all.current") == 1);
  a.clear();
  CHECK(stat(alloc, "inactive_split.all.current") == 2);  // a, and the tail
  c.clear();                                              // merges with the tail
  CHECK(stat(alloc, "inactive_split.all.current") == 2);
  CHECK(stat(alloc, "inactive_split_bytes.all.current") == bytes(512 * KiB + MiB));
  b.clear();  // merges with a and with c + tail: one free block, the whole segment
  CHECK(stat(alloc, "inactive_split.all.current") == 0);
  CHECK(stat(alloc, "inactive_split_bytes.all.current") == 0);
  CHECK(stat(alloc, "active_bytes.all.current") == 0);
  DataPtr whole = alloc.allocate(MiB);
  DataPtr rest = alloc.allocate(MiB);
  CHECK(static_cast<char*>(whole.get()) == base);
  CHECK(static_cast<char*>(rest.get()) == base + MiB);
  CHECK(dev.mallocs() == 1);
  check_pools_add_up(alloc);
}

TEST_CASE("cuda::CachingAllocatorT: best fit takes the smallest block that fits",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  // One 20 MiB segment: [big 4 MiB][spacer][mid 2 MiB][spacer][rest 10 MiB]
  DataPtr big = alloc.allocate(4 * MiB);
  DataPtr s1 = alloc.allocate(2 * MiB);
  DataPtr mid = alloc.allocate(2 * MiB);
  DataPtr s2 = alloc.allocate(2 * MiB);
  void* big_at = big.get();
  void* mid_at = mid.get();
  big.clear();
  mid.clear();
  REQUIRE(dev.mallocs() == 1);
  DataPtr p = alloc.allocate(MiB + MiB / 2);  // fits all three free blocks; mid is smallest
  CHECK(p.get() == mid_at);
  DataPtr q = alloc.allocate(3 * MiB);  // big and the rest fit; big is smaller
  CHECK(q.get() == big_at);
  CHECK(dev.mallocs() == 1);
}

TEST_CASE("cuda::CachingAllocatorT: a stream's free blocks are not reused by another stream",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  DataPtr p = alloc.allocate(4 * MiB, 1);
  void* on_stream1 = p.get();
  p.clear();
  DataPtr q = alloc.allocate(4 * MiB, 2);
  CHECK(q.get() != on_stream1);
  CHECK(dev.mallocs() == 2);
  DataPtr r = alloc.allocate(4 * MiB, 1);
  CHECK(r.get() == on_stream1);
  CHECK(dev.mallocs() == 2);
}

TEST_CASE("cuda::CachingAllocatorT: the current stream serves allocate(nbytes) and copy_data",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  CHECK(alloc.current_stream() == 0);
  alloc.set_current_stream(2);
  DataPtr src = alloc.allocate(4 * MiB);
  DataPtr dst = alloc.allocate(4 * MiB);
  std::memset(src.get(), 7, 100);
  alloc.copy_data(dst, src, 100);
  CHECK(static_cast<unsigned char*>(dst.get())[99] == 7);
  CHECK(dev.last_copy_stream() == 2);
  void* at = src.get();
  src.clear();
  CHECK(alloc.allocate(4 * MiB, 0).get() != at);  // the block belongs to stream 2
  CHECK(alloc.allocate(4 * MiB, 2).get() == at);
}

TEST_CASE("cuda::CachingAllocatorT: record_stream holds a freed block until its event completes",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  DataPtr p = alloc.allocate(12 * MiB, 0);  // a segment of its own
  void* first = p.get();
  alloc.record_stream(p, 1);
  alloc.record_stream(p, 1);  // once per stream
  alloc.record_stream(p, 0);  // the owning stream needs no event
  p.clear();
  CHECK(dev.pending_events() == 1);
  // Freed for the caller, still in use by stream 1.
  CHECK(alloc.memory_allocated() == 0);
  CHECK(stat(alloc, "active_bytes.all.current") == bytes(12 * MiB));
  CHECK(stat(alloc, "active.all.current") == 1);
  CHECK(stat(alloc, "requested_bytes.all.current") == bytes(12 * MiB));

  DataPtr q = alloc.allocate(12 * MiB, 0);
  CHECK(q.get() != first);
  CHECK(dev.mallocs() == 2);

  dev.complete_all_events();  // seen at the next allocation
  CHECK(stat(alloc, "active_bytes.all.current") == bytes(24 * MiB));
  DataPtr small = alloc.allocate(512);
  CHECK(stat(alloc, "active_bytes.all.current") == bytes(12 * MiB + 512));
  CHECK(dev.live_events() == 0);
  DataPtr r = alloc.allocate(12 * MiB, 0);
  CHECK(r.get() == first);
  CHECK(dev.mallocs() == 3);  // q's segment and the small one
  check_pools_add_up(alloc);
}

TEST_CASE("cuda::CachingAllocatorT: a block waiting for events is no free neighbour",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  DataPtr a = alloc.allocate(512 * KiB);
  DataPtr b = alloc.allocate(512 * KiB);
  alloc.record_stream(a, 1);
  a.clear();
  b.clear();  // merges with the tail only
  CHECK(stat(alloc, "inactive_split.all.current") == 1);
  CHECK(stat(alloc, "inactive_split_bytes.all.current") == bytes(MiB + 512 * KiB));
  // empty_cache waits for the event, merges a back and returns the now whole segment.
  alloc.empty_cache();
  CHECK(stat(alloc, "num_sync_all_streams") == 1);
  CHECK(alloc.memory_reserved() == 0);
  CHECK(stat(alloc, "inactive_split.all.current") == 0);
  CHECK(stat(alloc, "active.all.current") == 0);
  CHECK(dev.live_allocations() == 0);
  CHECK(dev.live_events() == 0);
}

TEST_CASE("cuda::CachingAllocatorT: a failed event record falls back to a device sync",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  DataPtr p = alloc.allocate(4 * MiB);
  void* at = p.get();
  alloc.record_stream(p, 1);
  dev.fail_next_event_records(1);
  p.clear();  // the deleter does not throw
  CHECK(dev.device_syncs() == 1);
  CHECK(dev.live_events() == 0);
  CHECK(stat(alloc, "active.all.current") == 0);
  CHECK(alloc.allocate(4 * MiB).get() == at);  // back in the pool at once
}

TEST_CASE("cuda::CachingAllocatorT: out of memory frees cached segments and retries",
          "[cuda][allocator]") {
  SECTION("the request's own stream and pool first, largest first, only as many as needed") {
    SimulatedDevice dev(50 * MiB);
    Alloc alloc(dev);
    alloc.allocate(12 * MiB);
    alloc.allocate(14 * MiB);
    alloc.allocate(16 * MiB);  // three cached segments, 42 MiB
    REQUIRE(alloc.memory_reserved() == bytes(42 * MiB));
    DataPtr p = alloc.allocate(20 * MiB);  // 42 + 20 > 50: frees 16 and 14, keeps 12
    CHECK(alloc.memory_reserved() == bytes(32 * MiB));
    CHECK(stat(alloc, "num_device_free") == 2);
    CHECK(stat(alloc, "num_alloc_retries") == 0);
    CHECK(stat(alloc, "num_sync_all_streams") == 0);
    CHECK(dev.failed_mallocs() == 1);
  }
  SECTION("then everything cached, after waiting for every event (a counted retry)") {
    SimulatedDevice dev(64 * MiB);
    Alloc alloc(dev);
    alloc.allocate(40 * MiB, /*stream=*/1);  // cached on another stream
    DataPtr p = alloc.allocate(30 * MiB, 0);
    CHECK(p);
    CHECK(alloc.memory_reserved() == bytes(30 * MiB));
    CHECK(stat(alloc, "num_alloc_retries") == 1);
    CHECK(stat(alloc, "num_sync_all_streams") == 1);
    CHECK(stat(alloc, "num_device_free") == 1);
    CHECK(stat(alloc, "num_ooms") == 0);
    CHECK(dev.failed_mallocs() == 1);
  }
}

TEST_CASE("cuda::CachingAllocatorT: a true out of memory throws PyTorch's message",
          "[cuda][allocator]") {
  SimulatedDevice dev(64 * MiB, /*index=*/1);
  Alloc alloc(dev);
  DataPtr held = alloc.allocate(50 * MiB);
  REQUIRE_THROWS_AS(alloc.allocate(30 * MiB), OutOfMemoryError);
  CHECK(stat(alloc, "num_ooms") == 1);
  CHECK(stat(alloc, "num_alloc_retries") == 1);
  try {
    alloc.allocate(30 * MiB);
    FAIL("no OutOfMemoryError");
  } catch (const OutOfMemoryError& e) {
    const std::string msg = e.what();
    CHECK(msg ==
          "CUDA out of memory. Tried to allocate 30.00 MiB (GPU 1; 64.00 MiB total capacity; "
          "50.00 MiB already allocated; 14.00 MiB free; 50.00 MiB reserved in total by "
          "TensorPlay)");
  }
  CHECK(stat(alloc, "num_ooms") == 2);
  // "Tried to allocate" names the segment asked for, as c10 does: 20 MiB for a 5 MiB request.
  REQUIRE_THROWS_WITH(alloc.allocate(5 * MiB),
                      Catch::Contains("Tried to allocate 20.00 MiB (GPU 1;"));
  // Sizes in bytes and KiB, with c10's boundaries.
  CHECK(tensorplay::cuda::detail::format_size(1024) == "1024 bytes");
  CHECK(tensorplay::cuda::detail::format_size(1536) == "1.50 KiB");
  CHECK(tensorplay::cuda::detail::format_size(std::uint64_t{3} << 30) == "3.00 GiB");
  CHECK(alloc.memory_allocated() == bytes(50 * MiB));  // nothing leaked by the failures
}

TEST_CASE("cuda::CachingAllocatorT: requests too large to round fail as out of memory",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  REQUIRE_THROWS_AS(alloc.allocate(Alloc::kMaxRequestBytes + 1), OutOfMemoryError);
  REQUIRE_THROWS_WITH(
      alloc.allocate(std::numeric_limits<std::size_t>::max()),
      Catch::StartsWith("CUDA out of memory. Tried to allocate 17179869184.00 GiB (GPU 0;"));
  CHECK(stat(alloc, "num_ooms") == 2);
  CHECK(dev.mallocs() + dev.failed_mallocs() == 0);
}

TEST_CASE("cuda::CachingAllocatorT: other device failures propagate and leave it usable",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  dev.fail_next_mallocs(1);
  REQUIRE_THROWS_AS(alloc.allocate(MiB), std::runtime_error);
  CHECK(stat(alloc, "num_ooms") == 0);
  CHECK(alloc.memory_reserved() == 0);
  DataPtr p = alloc.allocate(MiB);
  CHECK(p);
  CHECK(alloc.memory_allocated() == bytes(MiB));
}

TEST_CASE("cuda::CachingAllocatorT: set_memory_fraction caps reserved bytes", "[cuda][allocator]") {
  SimulatedDevice dev(100 * MiB);
  Alloc alloc(dev);
  alloc.set_memory_fraction(0.5);
  DataPtr a = alloc.allocate(40 * MiB);
  // 40 + 20 > 50: out of memory although the device has room; the device is not even asked.
  REQUIRE_THROWS_WITH(alloc.allocate(20 * MiB),
                      Catch::Contains("60.00 MiB free; 50.00 MiB allowed; 40.00 MiB reserved"));
  CHECK(dev.failed_mallocs() == 0);
  CHECK(dev.mallocs() == 1);
  alloc.set_memory_fraction(1.0);
  CHECK(alloc.allocate(20 * MiB));
  alloc.set_memory_fraction(0.0);
  CHECK_THROWS_AS(alloc.allocate(30 * MiB), OutOfMemoryError);
}

TEST_CASE("cuda::CachingAllocatorT: set_memory_fraction rejects values outside [0, 1]",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  // torch.cuda.set_per_process_memory_fraction raises ValueError with this message.
  CHECK_THROWS_MATCHES(alloc.set_memory_fraction(1.5), ValueError,
                       Catch::Message("Invalid fraction value: 1.5. Allowed range: 0~1"));
  CHECK_THROWS_MATCHES(alloc.set_memory_fraction(-0.25), ValueError,
                       Catch::Message("Invalid fraction value: -0.25. Allowed range: 0~1"));
  CHECK_THROWS_AS(alloc.set_memory_fraction(std::nan("")), ValueError);
  CHECK(alloc.allocate(20 * MiB));  // no cap was set
}

TEST_CASE("cuda::CachingAllocatorT: empty_cache returns whole free segments only",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  DataPtr live = alloc.allocate(512 * KiB);  // small segment, split
  DataPtr gone = alloc.allocate(512 * KiB);
  alloc.allocate(30 * MiB);  // a whole cached segment
  gone.clear();
  alloc.empty_cache();
  CHECK(alloc.memory_reserved() == bytes(2 * MiB));
  CHECK(stat(alloc, "num_device_free") == 1);
  CHECK(stat(alloc, "inactive_split_bytes.small_pool.current") == bytes(MiB + 512 * KiB));
  CHECK(dev.live_allocations() == 1);
  live.clear();
  alloc.empty_cache();
  CHECK(alloc.memory_reserved() == 0);
  CHECK(dev.live_allocations() == 0);
  CHECK(stat(alloc, "num_device_free") == 2);
  check_pools_add_up(alloc);
}

TEST_CASE("cuda::CachingAllocatorT: memory_stats spells torch.cuda.memory_stats' keys",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  DataPtr small = alloc.allocate(1000);
  DataPtr large = alloc.allocate(12 * MiB);
  const auto s = alloc.memory_stats();
  // 9 stats x 3 pools x 4 fields, torch's two oversize stats (always 0: no max_split_size), and
  // 5 counters.
  CHECK(s.size() == 9 * 3 * 4 + 2 * 4 + 5);
  for (const char* name : {"oversize_allocations", "oversize_segments"}) {
    for (const char* field : {"current", "peak", "allocated", "freed"}) {
      const std::string key = std::string(name) + "." + field;
      CAPTURE(key);
      CHECK(s.at(key) == 0);
    }
  }
  for (const char* name :
       {"allocation", "segment", "active", "inactive_split", "allocated_bytes", "reserved_bytes",
        "active_bytes", "inactive_split_bytes", "requested_bytes"}) {
    for (const char* pool : {"all", "small_pool", "large_pool"}) {
      for (const char* field : {"current", "peak", "allocated", "freed"}) {
        const std::string key = std::string(name) + "." + pool + "." + field;
        CAPTURE(key);
        CHECK(s.count(key) == 1);
      }
    }
  }
  for (const char* key : {"num_alloc_retries", "num_ooms", "num_sync_all_streams",
                          "num_device_alloc", "num_device_free"}) {
    CAPTURE(key);
    CHECK(s.count(key) == 1);
  }
  CHECK(s.at("allocated_bytes.all.current") == 1024 + bytes(12 * MiB));
  CHECK(s.at("allocated_bytes.small_pool.peak") == 1024);
  CHECK(s.at("allocated_bytes.large_pool.current") == bytes(12 * MiB));
  CHECK(s.at("reserved_bytes.all.current") == bytes(14 * MiB));
  CHECK(s.at("segment.all.current") == 2);
  CHECK(s.at("allocation.all.allocated") == 2);
  CHECK(s.at("num_device_alloc") == 2);
  // The fields every TensorPlay caching allocator reports.
  const tensorplay::CachingAllocatorStats c = alloc.stats();
  CHECK(c.allocated_bytes == 1024 + 12 * MiB);
  CHECK(c.reserved_bytes == 14 * MiB);
  CHECK(c.cached_bytes == 2 * MiB - 1024);
  CHECK(c.num_allocs == 2);
  CHECK(c.num_system_allocs == 2);
}

TEST_CASE("cuda::CachingAllocatorT: peaks and accumulated counts reset on request",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  DataPtr a = alloc.allocate(4 * MiB);
  DataPtr b = alloc.allocate(8 * MiB);
  b.clear();
  CHECK(alloc.max_memory_allocated() == bytes(12 * MiB));
  CHECK(alloc.max_memory_reserved() == bytes(20 * MiB));
  alloc.reset_peak_memory_stats();
  CHECK(alloc.max_memory_allocated() == bytes(4 * MiB));
  CHECK(alloc.max_memory_reserved() == bytes(20 * MiB));  // still reserved
  CHECK(stat(alloc, "allocation.all.peak") == 1);
  CHECK(stat(alloc, "allocation.all.allocated") == 2);
  CHECK(stat(alloc, "allocation.all.freed") == 1);
  alloc.reset_accumulated_memory_stats();
  CHECK(stat(alloc, "allocation.all.allocated") == 0);
  CHECK(stat(alloc, "allocation.all.freed") == 0);
  CHECK(stat(alloc, "num_device_alloc") == 0);
  CHECK(stat(alloc, "allocation.all.current") == 1);  // gauges keep their value
  CHECK(alloc.memory_allocated() == bytes(4 * MiB));
}

TEST_CASE("cuda::CachingAllocatorT: record_stream rejects a DataPtr it did not allocate",
          "[cuda][allocator]") {
  SimulatedDevice dev;
  Alloc alloc(dev);
  Alloc other(dev);
  DataPtr foreign = other.allocate(1000);
  CHECK_THROWS_MATCHES(alloc.record_stream(foreign, 1), ValueError,
                       Catch::Message("record_stream: the DataPtr (device cuda:0) was not "
                                      "allocated by this CUDA caching allocator"));
  DataPtr cpu = tensorplay::CachingAllocator::instance().allocate(64);
  CHECK_THROWS_AS(alloc.record_stream(cpu, 1), ValueError);
}

}  // namespace cuda_caching_allocator_test
