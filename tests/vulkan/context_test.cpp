#include "test_util.hpp"

#include <tensorplay/core/device_policy.hpp>

#include <cstdlib>
#include <string>

namespace vulkan_context_test {

using namespace tensorplay;
using tp_vk_test::run_self;

TEST_CASE("the Vulkan context opens a device with a compute queue", "[vulkan][context]") {
  TP_REQUIRE_VULKAN();
  const vulkan::Context& ctx = vulkan::context();
  CHECK(&ctx == &vulkan::context());  // created once
  CHECK(ctx.device() != VK_NULL_HANDLE);
  CHECK(ctx.queue() != VK_NULL_HANDLE);
  CHECK(ctx.pipeline_cache() != VK_NULL_HANDLE);
  CHECK(ctx.device_index() >= 0);
  CHECK_FALSE(ctx.device_name().empty());
  CHECK(ctx.properties().apiVersion >= VK_API_VERSION_1_1);
  CHECK(vulkan::unavailable_reason().empty());
  // The validation layer is on exactly when asked for.
  CHECK(ctx.validation_enabled() == vulkan::detail::env_flag("TENSORPLAY_VULKAN_VALIDATION"));
  WARN("Vulkan device " << ctx.device_index() << ": " << ctx.device_name());
}

// ---- a machine without Vulkan, simulated in a subprocess ------------------------------------
// The hidden ([.]) cases run only inside the children started below.

TEST_CASE("child: no loader library", "[.][vulkan_child_no_loader]") {
  REQUIRE(std::getenv("TENSORPLAY_VULKAN_LOADER") != nullptr);
  CHECK_FALSE(is_vulkan_available());
  CHECK_FALSE(is_vulkan_available());  // the outcome is remembered, never thrown
  CHECK_THAT(
      vulkan::unavailable_reason(),
      Catch::Contains("cannot open the Vulkan loader library '/nonexistent/libvulkan.so.1'"));
  CHECK_THROWS_AS(vulkan::context(), vulkan::VulkanUnavailableError);
  CHECK_THROWS_WITH(vulkan::context(), Catch::Contains("/nonexistent/libvulkan.so.1"));
  // The backend is compiled in, but using it raises the typed error...
  STATIC_REQUIRE(is_compiled_in<kVulkan>);
  Allocator* a = getAllocator(kVulkan);
  CHECK(a == &vulkan::VulkanCachingAllocator::instance());
  CHECK_THROWS_AS(a->allocate(16), vulkan::VulkanUnavailableError);
  CHECK_THROWS_AS(vulkan::synchronize(), vulkan::VulkanUnavailableError);
  CHECK_FALSE(a->allocate(0));  // nothing to allocate, nothing to fail
  // ...while CPU work goes on.
  DataPtr cpu = getCPUAllocator()->allocate(1024);
  REQUIRE(cpu);
  static_cast<char*>(cpu.get())[1023] = 1;
}

TEST_CASE("child: no Vulkan driver", "[.][vulkan_child_no_driver]") {
  CHECK_FALSE(is_vulkan_available());
  CHECK_THAT(vulkan::unavailable_reason(), Catch::Contains("no Vulkan device found"));
  CHECK_THROWS_AS(getAllocator(kVulkan)->allocate(16), vulkan::VulkanUnavailableError);
}

TEST_CASE("child: bad TENSORPLAY_VULKAN_DEVICE", "[.][vulkan_child_bad_device]") {
  CHECK_FALSE(is_vulkan_available());
  CHECK_THROWS_AS(vulkan::context(), ValueError);
  CHECK_THROWS_WITH(vulkan::context(),
                    Catch::Contains("TENSORPLAY_VULKAN_DEVICE=99 is not a valid Vulkan device "
                                    "index"));
}

TEST_CASE("child: TENSORPLAY_VULKAN_DEVICE=0 selects device 0", "[.][vulkan_child_device_0]") {
  REQUIRE(is_vulkan_available());
  CHECK(vulkan::context().device_index() == 0);
}

namespace {
void expect_child_passes(const std::string& spec, std::vector<std::string> env) {
  env.push_back("TP_VK_TEST_CHILD=1");
  const tp_vk_test::ChildResult r = run_self(spec, env);
  INFO("child output:\n" << r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("All tests passed"));
}
}  // namespace

TEST_CASE("without a loader library is_vulkan_available() is false and use is a typed error",
          "[vulkan][context]") {
  expect_child_passes("[vulkan_child_no_loader]",
                      {"TENSORPLAY_VULKAN_LOADER=/nonexistent/libvulkan.so.1"});
}

TEST_CASE("without a driver is_vulkan_available() is false and says no device was found",
          "[vulkan][context]") {
  // The loader finds no ICD manifest (both its old and new variable names).
  expect_child_passes("[vulkan_child_no_driver]",
                      {"VK_ICD_FILENAMES=/nonexistent/icd.json",
                       "VK_DRIVER_FILES=/nonexistent/icd.json", "TENSORPLAY_VULKAN_LOADER="});
}

TEST_CASE("TENSORPLAY_VULKAN_DEVICE selects a device; a bad index is a ValueError",
          "[vulkan][context]") {
  TP_REQUIRE_VULKAN();
  expect_child_passes("[vulkan_child_bad_device]", {"TENSORPLAY_VULKAN_DEVICE=99"});
  expect_child_passes("[vulkan_child_device_0]", {"TENSORPLAY_VULKAN_DEVICE=0"});
}

}  // namespace vulkan_context_test
