#include "test_util.hpp"

#include <cstring>
#include <vector>

namespace vulkan_copy_test {

using namespace tensorplay;
using tp_vk_test::random_bytes;

namespace {
std::vector<std::uint8_t> download(const DataPtr& p, std::size_t n) {
  std::vector<std::uint8_t> out(n, 0xCD);
  vulkan::copy_device_to_host(p, out.data(), n);
  return out;
}
}  // namespace

TEST_CASE("host -> device -> host round trips bytes at any size and offset", "[vulkan][copy]") {
  TP_REQUIRE_VULKAN();
  const std::size_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 255, 256, 257, 4095, 4097, 65537,
                               (1u << 20) + 3,
                               // over one staging chunk: several copies per call
                               vulkan::kStagingChunkBytes + 4099};
  const std::size_t offsets[] = {0, 1, 2, 3, 5, 255, 4096 + 7};
  for (std::size_t n : sizes) {
    for (std::size_t off : offsets) {
      if (n > (1u << 20) && off % 2 == 1 && off != 1) continue;  // keep the run short
      CAPTURE(n, off);
      const std::size_t total = off + n + 9;
      DataPtr d = getAllocator(kVulkan)->allocate(total);
      // A known background, so bytes outside [off, off + n) can be checked untouched.
      const std::vector<std::uint8_t> background = random_bytes(total);
      vulkan::copy_host_to_device(background.data(), d, total);
      const std::vector<std::uint8_t> data = random_bytes(n);
      vulkan::copy_host_to_device(data.data(), d, n, off);
      std::vector<std::uint8_t> expect = background;
      std::memcpy(expect.data() + off, data.data(), n);
      CHECK(download(d, total) == expect);
      // And back out of the middle, into a host buffer of exactly n bytes.
      std::vector<std::uint8_t> part(n);
      vulkan::copy_device_to_host(d, part.data(), n, off);
      CHECK(part == data);
    }
  }
}

TEST_CASE("device -> device copies between and within allocations", "[vulkan][copy]") {
  TP_REQUIRE_VULKAN();
  const std::size_t sizes[] = {1, 3, 4, 17, 1000, 65536 + 3};
  const std::size_t offsets[] = {0, 1, 3, 64, 333};
  for (std::size_t n : sizes) {
    for (std::size_t so : offsets) {
      for (std::size_t dof : offsets) {
        CAPTURE(n, so, dof);
        const std::vector<std::uint8_t> a = random_bytes(so + n);
        const std::vector<std::uint8_t> b = random_bytes(dof + n + 5);
        DataPtr da = getAllocator(kVulkan)->allocate(a.size());
        DataPtr db = getAllocator(kVulkan)->allocate(b.size());
        vulkan::copy_host_to_device(a.data(), da, a.size());
        vulkan::copy_host_to_device(b.data(), db, b.size());
        vulkan::copy_device_to_device(da, db, n, so, dof);
        std::vector<std::uint8_t> expect = b;
        std::memcpy(expect.data() + dof, a.data() + so, n);
        CHECK(download(db, b.size()) == expect);
        CHECK(download(da, a.size()) == a);  // the source is untouched
      }
    }
  }
}

TEST_CASE("overlapping device copies inside one buffer behave like memmove", "[vulkan][copy]") {
  TP_REQUIRE_VULKAN();
  const std::size_t total = 10000;
  const std::vector<std::uint8_t> init = random_bytes(total);
  DataPtr d = getAllocator(kVulkan)->allocate(total);
  const vulkan::BufferRange r = vulkan::buffer_of(d);
  struct Case {
    std::size_t src, dst, n;
  };
  for (Case c : {Case{0, 1, 5000}, Case{1, 0, 5000}, Case{100, 37, 9000}, Case{37, 100, 9000},
                 Case{0, 4, 4}, Case{4, 0, 8}, Case{5, 5, 100}}) {
    CAPTURE(c.src, c.dst, c.n);
    vulkan::copy_host_to_device(init.data(), d, total);
    vulkan::copy_device_to_device(r.slice(c.src, c.n), r.slice(c.dst, c.n), c.n);
    std::vector<std::uint8_t> expect = init;
    std::memmove(expect.data() + c.dst, expect.data() + c.src, c.n);
    CHECK(download(d, total) == expect);
  }
}

TEST_CASE("memset sets any byte range, aligned or not", "[vulkan][copy]") {
  TP_REQUIRE_VULKAN();
  const std::size_t total = 300;
  const std::vector<std::uint8_t> init = random_bytes(total);
  DataPtr d = getAllocator(kVulkan)->allocate(total);
  const vulkan::BufferRange r = vulkan::buffer_of(d);
  for (std::size_t off : {0, 1, 2, 3, 4, 5, 7, 8}) {
    for (std::size_t n : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 100, 250}) {
      CAPTURE(off, n);
      vulkan::copy_host_to_device(init.data(), d, total);
      const auto value = static_cast<std::uint8_t>(0xA0 + n);
      vulkan::memset(r.slice(off, n), value, n);
      std::vector<std::uint8_t> expect = init;
      std::memset(expect.data() + off, value, n);
      CHECK(download(d, total) == expect);
    }
  }
}

TEST_CASE("transfers check their ranges", "[vulkan][copy]") {
  TP_REQUIRE_VULKAN();
  DataPtr d = getAllocator(kVulkan)->allocate(100);
  std::vector<std::uint8_t> host(200);
  CHECK_THROWS_AS(vulkan::copy_host_to_device(host.data(), d, 101), IndexError);
  CHECK_THROWS_AS(vulkan::copy_host_to_device(host.data(), d, 10, 95), IndexError);
  CHECK_THROWS_AS(vulkan::copy_device_to_host(d, host.data(), 10, 101), IndexError);
  CHECK_THROWS_AS(vulkan::buffer_of(d).slice(50, 51), IndexError);
  DataPtr cpu = getCPUAllocator()->allocate(100);
  CHECK_THROWS_AS(vulkan::copy_host_to_device(host.data(), cpu, 10), Error);
  // Zero bytes are a no-op, even from a null pointer.
  vulkan::copy_host_to_device(nullptr, d, 0);
  vulkan::copy_device_to_host(d, nullptr, 0);
}

TEST_CASE("staging memory is host-visible and cached for reuse", "[vulkan][copy]") {
  TP_REQUIRE_VULKAN();
  auto& upload = vulkan::VulkanCachingAllocator::get(vulkan::MemoryKind::Upload);
  auto& readback = vulkan::VulkanCachingAllocator::get(vulkan::MemoryKind::Readback);
  DataPtr u = upload.allocate(1000);
  CHECK(vulkan::mapped_ptr(u) != nullptr);
  DataPtr rb = readback.allocate(1000);
  CHECK(vulkan::mapped_ptr(rb) != nullptr);
  u.clear();
  rb.clear();
  // Transfers reuse staging blocks: many small copies need no new segment.
  vulkan::synchronize();
  DataPtr d = getAllocator(kVulkan)->allocate(64);
  std::vector<std::uint8_t> host(64, 1);
  vulkan::copy_host_to_device(host.data(), d, 64);
  vulkan::copy_device_to_host(d, host.data(), 64);
  const auto up0 = upload.stats().num_system_allocs;
  const auto rb0 = readback.stats().num_system_allocs;
  for (int i = 0; i < 200; ++i) {
    vulkan::copy_host_to_device(host.data(), d, 64);
    vulkan::copy_device_to_host(d, host.data(), 64);
  }
  CHECK(upload.stats().num_system_allocs == up0);
  CHECK(readback.stats().num_system_allocs == rb0);
  CHECK(upload.stats().allocated_bytes == 0);  // every staging block went back
}

TEST_CASE("a large host-to-device copy holds a bounded amount of staging memory",
          "[vulkan][copy]") {
  TP_REQUIRE_VULKAN();
  auto& upload = vulkan::VulkanCachingAllocator::get(vulkan::MemoryKind::Upload);
  vulkan::synchronize();
  upload.empty_cache();
  upload.reset_peak_stats();
  const std::size_t group = vulkan::kStagingChunksInFlight * vulkan::kStagingChunkBytes;
  const std::size_t n = group + vulkan::kStagingChunkBytes + 5;  // more than one group
  const std::vector<std::uint8_t> data = random_bytes(n);
  DataPtr d = getAllocator(kVulkan)->allocate(n);
  vulkan::copy_host_to_device(data.data(), d, n);
  // One group's chunks at a time (in one large segment), never all of them; the 5-byte tail
  // chunk comes from a small segment.
  CHECK(upload.stats().peak_reserved_bytes <=
        std::max(group, vulkan::VulkanCachingAllocator::kLargeSegmentBytes) +
            vulkan::VulkanCachingAllocator::kSmallSegmentBytes);
  CHECK(download(d, n) == data);
}

}  // namespace vulkan_copy_test
