#include "test_util.hpp"

#include <bit>
#include <cstring>
#include <limits>
#include <vector>

namespace vulkan_fill_test {

using namespace tensorplay;

namespace {
std::vector<std::uint32_t> download_words(const DataPtr& p, std::size_t n) {
  std::vector<std::uint32_t> out(n);
  vulkan::copy_device_to_host(p, out.data(), n * 4);
  return out;
}
}  // namespace

TEST_CASE("fill_ writes a 32-bit pattern to a range of elements", "[vulkan][fill]") {
  TP_REQUIRE_VULKAN();
  auto& gen = tp_vk_test::rng();
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t total = 1 + gen() % 5000;
    const std::size_t first = gen() % total;
    const std::size_t numel = gen() % (total - first + 1);
    const auto pattern = static_cast<std::uint32_t>(gen());
    CAPTURE(total, first, numel, pattern);
    std::vector<std::uint32_t> expect(total);
    for (auto& w : expect) w = static_cast<std::uint32_t>(gen());
    DataPtr d = getAllocator(kVulkan)->allocate(total * 4);
    vulkan::copy_host_to_device(expect.data(), d, total * 4);
    vulkan::fill_bits_(vulkan::buffer_of(d), pattern, numel, first);
    for (std::size_t i = first; i < first + numel; ++i) expect[i] = pattern;
    CHECK(download_words(d, total) == expect);
  }
}

TEST_CASE("fill_ with float values matches the CPU bit patterns", "[vulkan][fill]") {
  TP_REQUIRE_VULKAN();
  for (float v :
       {0.0f, -0.0f, 1.5f, -3.25e-20f, 1e30f, std::numeric_limits<float>::infinity(),
        std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min()}) {
    DataPtr d = getAllocator(kVulkan)->allocate(257 * 4);
    vulkan::fill_(vulkan::buffer_of(d), v, 257);
    std::vector<float> out(257);
    vulkan::copy_device_to_host(d, out.data(), out.size() * 4);
    for (float o : out) CHECK(std::bit_cast<std::uint32_t>(o) == std::bit_cast<std::uint32_t>(v));
  }
}

TEST_CASE("fill_ covers more workgroups than one dispatch dimension allows", "[vulkan][fill]") {
  TP_REQUIRE_VULKAN();
  const std::uint64_t max_x = vulkan::context().limits().maxComputeWorkGroupCount[0];
  // Just past what maxComputeWorkGroupCount[0] workgroups of 256 cover, so y > 1.
  const std::size_t n =
      static_cast<std::size_t>(std::min<std::uint64_t>(max_x * 256 + 1000, (1u << 26)));
  DataPtr d = getAllocator(kVulkan)->allocate(n * 4);
  vulkan::memset(vulkan::buffer_of(d), 0, n * 4);
  vulkan::fill_bits_(vulkan::buffer_of(d), 0xDEADBEEFu, n - 7, 3);
  const std::vector<std::uint32_t> out = download_words(d, n);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t want = i >= 3 && i < n - 4 ? 0xDEADBEEFu : 0u;
    bad += out[i] != want;
  }
  CHECK(bad == 0);
}

TEST_CASE("fill_ checks its range", "[vulkan][fill]") {
  TP_REQUIRE_VULKAN();
  DataPtr d = getAllocator(kVulkan)->allocate(40);
  const vulkan::BufferRange r = vulkan::buffer_of(d);
  CHECK_THROWS_AS(vulkan::fill_bits_(r, 1u, 11), IndexError);
  CHECK_THROWS_AS(vulkan::fill_bits_(r, 1u, 2, 9), IndexError);
  vulkan::fill_bits_(r, 1u, 0, 10);  // nothing to do
}

}  // namespace vulkan_fill_test
