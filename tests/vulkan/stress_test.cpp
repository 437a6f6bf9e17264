#include "test_util.hpp"

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

namespace vulkan_stress_test {

using namespace tensorplay;

TEST_CASE("threads allocate, copy, fill and free concurrently", "[vulkan][stress]") {
  TP_REQUIRE_VULKAN();
  auto& a = vulkan::VulkanCachingAllocator::instance();
  vulkan::synchronize();
  const std::size_t allocated0 = a.stats().allocated_bytes;
  constexpr int kThreads = 6;
  constexpr int kIterations = 60;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      std::mt19937_64 gen(1234 + t);
      std::vector<DataPtr> kept;  // some blocks live across iterations
      for (int it = 0; it < kIterations; ++it) {
        // Sizes across both pools, word multiples so the fill kernel applies.
        const std::size_t words = 1 + gen() % (gen() % 4 == 0 ? 300000 : 3000);
        const std::size_t n = words * 4;
        const std::vector<std::uint8_t> data = tp_vk_test::random_bytes(n, gen);
        DataPtr src = getAllocator(kVulkan)->allocate(n);
        DataPtr dst = getAllocator(kVulkan)->allocate(n);
        vulkan::copy_host_to_device(data.data(), src, n);
        vulkan::copy_device_to_device(src, dst, n);
        const std::size_t filled = words / 2;
        const auto pattern = static_cast<std::uint32_t>(gen());
        vulkan::fill_bits_(vulkan::buffer_of(dst), pattern, filled);
        std::vector<std::uint8_t> expect = data;
        for (std::size_t i = 0; i < filled; ++i) std::memcpy(&expect[i * 4], &pattern, 4);
        std::vector<std::uint8_t> out(n);
        vulkan::copy_device_to_host(dst, out.data(), n);
        if (out != expect) failures.fetch_add(1);
        if (gen() % 3 == 0) kept.push_back(std::move(src));
        if (kept.size() > 4) kept.erase(kept.begin());
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
  vulkan::synchronize();
  const CachingAllocatorStats s = a.stats();
  CHECK(s.allocated_bytes == allocated0);  // every block came back
  CHECK(s.cached_bytes == s.reserved_bytes - s.allocated_bytes);
  CHECK(s.num_allocs == s.cache_hits + s.cache_misses);
}

}  // namespace vulkan_stress_test
