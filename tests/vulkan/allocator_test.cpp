#include "test_util.hpp"

#include <tensorplay/core/device_policy.hpp>
#include <tensorplay/core/storage_impl.hpp>

#include <limits>
#include <vector>

namespace vulkan_allocator_test {

using namespace tensorplay;
using vulkan::VulkanCachingAllocator;

namespace {
constexpr std::size_t KiB = std::size_t{1} << 10;
constexpr std::size_t MiB = std::size_t{1} << 20;

// Starts a test from an empty cache and no cap, and leaves it so.
struct FreshAllocator {
  VulkanCachingAllocator& a = VulkanCachingAllocator::instance();
  FreshAllocator() {
    a.set_max_reserved_bytes(std::numeric_limits<std::size_t>::max());
    a.empty_cache();
  }
  ~FreshAllocator() {
    a.set_max_reserved_bytes(std::numeric_limits<std::size_t>::max());
    a.empty_cache();
  }
};
}  // namespace

TEST_CASE("DevicePolicy<kVulkan> puts the Vulkan caching allocator in the table",
          "[vulkan][allocator]") {
  STATIC_REQUIRE(AllocationPolicy<DevicePolicy<kVulkan>>);
  STATIC_REQUIRE(is_compiled_in<kVulkan>);
  STATIC_REQUIRE_FALSE(DevicePolicy<kVulkan>::supports_strided_views);
  STATIC_REQUIRE(std::is_same_v<DevicePolicy<kVulkan>::allocator_type, VulkanCachingAllocator>);
  CHECK(getAllocator(kVulkan) == &VulkanCachingAllocator::instance());
  DataPtr empty = getAllocator(kVulkan)->allocate(0);
  CHECK_FALSE(empty);
  CHECK(empty.device().type() == kVulkan);
}

TEST_CASE("a Vulkan DataPtr points at a buffer record, never at device memory",
          "[vulkan][allocator]") {
  TP_REQUIRE_VULKAN();
  FreshAllocator fresh;
  DataPtr p = getAllocator(kVulkan)->allocate(1000);
  REQUIRE(p);
  CHECK(p.device() == Device(kVulkan, 0));
  CHECK(p.get() == p.get_context());
  const vulkan::BufferRange r = vulkan::buffer_of(p);
  CHECK(r.buffer != VK_NULL_HANDLE);
  CHECK(r.size == 1000);
  CHECK(r.offset % vulkan::context().limits().minStorageBufferOffsetAlignment == 0);
  CHECK(r.offset % fresh.a.alignment() == 0);
  CHECK(vulkan::mapped_ptr(p) == nullptr);  // device memory is never mapped
  // A StorageImpl owns such a block like any other.
  StorageImpl storage(use_byte_size, 4096, getAllocator(kVulkan), /*resizable=*/false);
  CHECK(storage.device() == Device(kVulkan, 0));
  CHECK(vulkan::buffer_of(storage).size == 4096);
  // Something else is not a Vulkan block.
  DataPtr cpu = getCPUAllocator()->allocate(16);
  CHECK_THROWS_WITH(vulkan::buffer_of(cpu),
                    Catch::Contains("not allocated by the Vulkan caching allocator"));
}

TEST_CASE("blocks are split from a segment, coalesced on free and reused best-fit",
          "[vulkan][allocator]") {
  TP_REQUIRE_VULKAN();
  FreshAllocator fresh;
  VulkanCachingAllocator& a = fresh.a;
  const CachingAllocatorStats s0 = a.stats();
  CHECK(s0.allocated_bytes == 0);
  CHECK(s0.cached_bytes == 0);
  CHECK(s0.reserved_bytes == 0);

  std::vector<DataPtr> p;
  for (int i = 0; i < 4; ++i) p.push_back(a.allocate(64 * KiB));
  const CachingAllocatorStats s1 = a.stats();
  CHECK(s1.num_system_allocs == s0.num_system_allocs + 1);  // one small segment for all four
  CHECK(s1.reserved_bytes == VulkanCachingAllocator::kSmallSegmentBytes);
  CHECK(s1.allocated_bytes == 4 * 64 * KiB);
  CHECK(s1.cached_bytes == s1.reserved_bytes - s1.allocated_bytes);
  CHECK(s1.num_allocs == s0.num_allocs + 4);
  CHECK(s1.cache_misses == s0.cache_misses + 1);
  CHECK(s1.cache_hits == s0.cache_hits + 3);
  std::vector<vulkan::BufferRange> r;
  for (auto& d : p) r.push_back(vulkan::buffer_of(d));
  for (int i = 1; i < 4; ++i) {
    CHECK(r[i].buffer == r[0].buffer);
    CHECK(r[i].offset == r[i - 1].offset + 64 * KiB);  // split off one after the other
  }

  // Free the two middle blocks: they merge into one 128 KiB hole...
  p[1].clear();
  p[2].clear();
  const CachingAllocatorStats s2 = a.stats();
  CHECK(s2.num_frees == s1.num_frees + 2);
  CHECK(s2.allocated_bytes == 2 * 64 * KiB);
  CHECK(s2.reserved_bytes == s1.reserved_bytes);  // nothing went back to Vulkan
  CHECK(s2.cached_bytes == s1.cached_bytes + 2 * 64 * KiB);
  // ...which is the best fit for 128 KiB (the segment's tail is larger).
  DataPtr big = a.allocate(128 * KiB);
  CHECK(vulkan::buffer_of(big).buffer == r[0].buffer);
  CHECK(vulkan::buffer_of(big).offset == r[1].offset);
  CHECK(a.stats().num_system_allocs == s1.num_system_allocs);
  // A smaller request takes the front of a hole: free the 128 KiB, ask for 64 KiB twice.
  big.clear();
  DataPtr x = a.allocate(64 * KiB);
  DataPtr y = a.allocate(64 * KiB);
  CHECK(vulkan::buffer_of(x).offset == r[1].offset);
  CHECK(vulkan::buffer_of(y).offset == r[2].offset);
  x.clear();
  y.clear();

  // Everything freed: the segment is one free block again, and empty_cache returns it.
  p.clear();
  const CachingAllocatorStats s3 = a.stats();
  CHECK(s3.allocated_bytes == 0);
  CHECK(s3.cached_bytes == s3.reserved_bytes);
  a.empty_cache();
  const CachingAllocatorStats s4 = a.stats();
  CHECK(s4.reserved_bytes == 0);
  CHECK(s4.cached_bytes == 0);
  CHECK(s4.num_system_frees == s3.num_system_frees + 1);
  CHECK(s4.peak_reserved_bytes >= VulkanCachingAllocator::kSmallSegmentBytes);
  a.reset_peak_stats();
  CHECK(a.stats().peak_reserved_bytes == 0);
}

TEST_CASE("requests pick the small pool, the large pool or a dedicated segment",
          "[vulkan][allocator]") {
  TP_REQUIRE_VULKAN();
  FreshAllocator fresh;
  VulkanCachingAllocator& a = fresh.a;
  DataPtr small = a.allocate(1 * MiB);  // the small pool's largest request
  CHECK(a.stats().reserved_bytes == VulkanCachingAllocator::kSmallSegmentBytes);
  DataPtr large = a.allocate(1 * MiB + 1);  // a 64 MiB segment
  CHECK(a.stats().reserved_bytes ==
        VulkanCachingAllocator::kSmallSegmentBytes + VulkanCachingAllocator::kLargeSegmentBytes);
  CHECK(vulkan::buffer_of(large).buffer != vulkan::buffer_of(small).buffer);
  DataPtr large2 = a.allocate(8 * MiB);  // fits the same large segment
  CHECK(vulkan::buffer_of(large2).buffer == vulkan::buffer_of(large).buffer);
  const std::size_t before = a.stats().reserved_bytes;
  // More than the ~55 MiB left in the large segment, and more than half a large segment: a
  // segment of its own, rounded up to 2 MiB.
  DataPtr huge = a.allocate(56 * MiB + 5);
  CHECK(a.stats().reserved_bytes == before + 58 * MiB);
  CHECK(vulkan::buffer_of(huge).offset == 0);
  // Odd sizes are rounded to the alignment, so the next block stays aligned.
  DataPtr odd1 = a.allocate(3);
  DataPtr odd2 = a.allocate(5);
  CHECK(vulkan::buffer_of(odd2).offset % a.alignment() == 0);
  CHECK(vulkan::buffer_of(odd1).size == 3);
}

TEST_CASE("a memory cap raises OutOfMemoryError with PyTorch's message shape",
          "[vulkan][allocator]") {
  TP_REQUIRE_VULKAN();
  FreshAllocator fresh;
  VulkanCachingAllocator& a = fresh.a;
  DataPtr held = a.allocate(2 * MiB);  // cut from a 64 MiB large-pool segment
  const std::size_t reserved = a.stats().reserved_bytes;
  a.set_max_reserved_bytes(reserved + 4 * MiB);
  CHECK(a.max_reserved_bytes() == reserved + 4 * MiB);
  try {
    (void)a.allocate(80 * MiB);
    FAIL("expected OutOfMemoryError");
  } catch (const OutOfMemoryError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK_THAT(msg, Catch::StartsWith("Vulkan out of memory. Tried to allocate 80.00 MiB "
                                      "(Vulkan device "));
    CHECK_THAT(msg, Catch::Contains(" total capacity; "));
    CHECK_THAT(msg, Catch::Contains("; 2.00 MiB already allocated; "));
    CHECK_THAT(msg, Catch::Contains(" reserved in total by TensorPlay; "));
    CHECK_THAT(msg, Catch::Contains("memory cap"));
  }
  // A typed error: also a tensorplay::Error.
  CHECK_THROWS_AS(a.allocate(80 * MiB), Error);
  // What the cached part of a segment can serve needs no new segment.
  DataPtr fits = a.allocate(3 * MiB);
  CHECK(a.stats().reserved_bytes == reserved);
  // Fractions of the device-local heap.
  CHECK_THROWS_AS(a.set_memory_fraction(1.5), ValueError);
  a.set_memory_fraction(0.5);
  CHECK(a.max_reserved_bytes() == a.capacity() / 2);
}

TEST_CASE("out of memory frees the cache and retries once before failing", "[vulkan][allocator]") {
  TP_REQUIRE_VULKAN();
  FreshAllocator fresh;
  VulkanCachingAllocator& a = fresh.a;
  a.set_max_reserved_bytes(8 * MiB);
  DataPtr six = a.allocate(6 * MiB);
  CHECK(a.stats().reserved_bytes == 6 * MiB);  // the cap made it a segment of its own size
  six.clear();
  const CachingAllocatorStats before = a.stats();
  CHECK(before.cached_bytes == 6 * MiB);
  // 7 MiB does not fit the cached 6 MiB, and 6 + 7 is over the cap: only freeing the cache
  // makes room.
  DataPtr seven = a.allocate(7 * MiB);
  const CachingAllocatorStats after = a.stats();
  CHECK(after.num_system_frees == before.num_system_frees + 1);
  CHECK(after.reserved_bytes == 7 * MiB);
  CHECK(after.allocated_bytes == 7 * MiB);
  // Still over the cap after the retry: the error.
  CHECK_THROWS_AS(a.allocate(2 * MiB), OutOfMemoryError);
  CHECK(a.stats().allocated_bytes == 7 * MiB);  // the failure left nothing behind
}

TEST_CASE("child: a Vulkan block freed during static destruction", "[.][vulkan_child_static]") {
  REQUIRE(is_vulkan_available());
  // Destroyed after main returns, after the Catch2 session: the allocator and the device are
  // never destroyed, so the deleter still finds them.
  static DataPtr kept = getAllocator(kVulkan)->allocate(12345);
  static std::vector<std::uint8_t> data = tp_vk_test::random_bytes(12345);
  vulkan::copy_host_to_device(data.data(), kept, data.size());
  REQUIRE(kept);
}

TEST_CASE("tensors freed at exit do not crash", "[vulkan][allocator]") {
  TP_REQUIRE_VULKAN();
  const tp_vk_test::ChildResult r =
      tp_vk_test::run_self("[vulkan_child_static]", {"TP_VK_TEST_CHILD=1"});
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("All tests passed"));
}

}  // namespace vulkan_allocator_test
