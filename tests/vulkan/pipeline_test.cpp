#include "test_util.hpp"

#include <vector>

namespace vulkan_pipeline_test {

using namespace tensorplay;

TEST_CASE("a shader's pipeline is created once and shared", "[vulkan][pipeline]") {
  TP_REQUIRE_VULKAN();
  const vulkan::Pipeline& a = vulkan::get_pipeline(vulkan::fill_shader);
  const vulkan::Pipeline& b = vulkan::get_pipeline(vulkan::fill_shader);
  CHECK(&a == &b);
  CHECK(a.pipeline != VK_NULL_HANDLE);
  CHECK(&vulkan::get_pipeline(vulkan::gather_shader) != &a);
}

TEST_CASE("dispatch checks bindings and push constants against the shader", "[vulkan][pipeline]") {
  TP_REQUIRE_VULKAN();
  DataPtr d = getAllocator(kVulkan)->allocate(1024);
  const vulkan::BufferRange r = vulkan::buffer_of(d);
  const std::uint32_t push[3] = {0, 1, 2};
  CHECK_THROWS_WITH(vulkan::dispatch_raw(vulkan::fill_shader, {r, r}, push, sizeof push, 1),
                    Catch::Contains("binds 1 buffers, got 2"));
  CHECK_THROWS_WITH(vulkan::dispatch_raw(vulkan::fill_shader, {r}, push, 8, 1),
                    Catch::Contains("12 bytes of push constants, got 8"));
  const VkDeviceSize align = vulkan::context().limits().minStorageBufferOffsetAlignment;
  if (align > 1) {
    CHECK_THROWS_WITH(
        vulkan::dispatch_raw(vulkan::fill_shader, {r.slice(1, 64)}, push, sizeof push, 1),
        Catch::Contains("minStorageBufferOffsetAlignment"));
  }
}

TEST_CASE("commands are batched into submissions and ordered", "[vulkan][stream]") {
  TP_REQUIRE_VULKAN();
  vulkan::synchronize();
  vulkan::Stream& stream = vulkan::Stream::get();
  const auto submissions0 = stream.num_submissions();
  const auto commands0 = stream.num_recorded_commands();
  // A chain of dependent commands: each fill overwrites the previous one's result, each copy
  // reads the fill before it. Only the order makes the final values right.
  const std::size_t n = 1000;
  DataPtr a = getAllocator(kVulkan)->allocate(n * 4);
  DataPtr b = getAllocator(kVulkan)->allocate(n * 4);
  const int steps = 3 * static_cast<int>(vulkan::Stream::kMaxCommandsPerSubmission);
  for (int i = 0; i < steps; ++i) {
    vulkan::fill_bits_(vulkan::buffer_of(a), static_cast<std::uint32_t>(i), n);
    vulkan::copy_device_to_device(a, b, n * 4 / 2, 0, (i % 2) * n * 4 / 2);
  }
  const auto recorded = stream.num_recorded_commands() - commands0;
  CHECK(recorded == static_cast<std::uint64_t>(2 * steps));
  // Batched: far fewer submissions than commands, but more than one (no wait in between).
  const auto submitted = stream.num_submissions() - submissions0;
  CHECK(submitted >= 5);
  CHECK(submitted <= 7);
  std::vector<std::uint32_t> out(n);
  vulkan::copy_device_to_host(b, out.data(), n * 4);
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(out[i] == static_cast<std::uint32_t>(i < n / 2 ? steps - 2 : steps - 1));
  }
}

}  // namespace vulkan_pipeline_test
