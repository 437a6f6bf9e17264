// Catch2 main of the Vulkan tests. On a machine without a usable Vulkan device the device tests
// return early (TP_REQUIRE_VULKAN) and this main exits with 77, which CTest reports as skipped
// (SKIP_RETURN_CODE): a run without a device is never counted as passed. With
// TENSORPLAY_VULKAN_VALIDATION=1 the run fails if the validation layer was not active or
// reported any warning or error.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <tensorplay/backends/vulkan/context.hpp>

#include <cstdio>
#include <cstdlib>

int main(int argc, char* argv[]) {
  const int failed = Catch::Session().run(argc, argv);
  if (failed != 0) return failed;
  const bool available = tensorplay::is_vulkan_available();
  if (!available) {
    // Subprocess tests run with a simulated missing runtime and must pass there.
    if (std::getenv("TP_VK_TEST_CHILD") != nullptr) return 0;
    std::printf(
        "SKIPPED: Vulkan not available (%s): the Vulkan device tests were skipped, "
        "not passed\n",
        tensorplay::vulkan::unavailable_reason().c_str());
    return 77;
  }
  if (tensorplay::vulkan::detail::env_flag("TENSORPLAY_VULKAN_VALIDATION")) {
    if (!tensorplay::vulkan::context().validation_enabled()) {
      std::printf("FAILED: TENSORPLAY_VULKAN_VALIDATION=1 but validation is not active\n");
      return 1;
    }
    const auto n = tensorplay::vulkan::validation_message_count();
    if (n > 0) {
      std::printf("FAILED: the Vulkan validation layer reported %llu message(s) (above)\n",
                  static_cast<unsigned long long>(n));
      return 1;
    }
    std::printf("Vulkan validation: no messages\n");
  }
  return 0;
}
