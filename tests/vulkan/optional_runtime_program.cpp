// Built against tensorplay::vulkan: starts and does CPU work whether or not the machine has a
// Vulkan loader (libvulkan is opened at run time, never linked); the vulkan_no_link_dependency
// test runs it with TENSORPLAY_VULKAN_LOADER pointing nowhere.
#include <tensorplay/core/device_policy.hpp>

#include <cstdio>

static_assert(TENSORPLAY_USE_VULKAN);
static_assert(tensorplay::is_compiled_in<tensorplay::kVulkan>);

int main() {
  tensorplay::DataPtr p = tensorplay::getCPUAllocator()->allocate(64);
  if (!p) return 1;
  static_cast<char*>(p.get())[63] = 1;
  const bool available = tensorplay::is_vulkan_available();
  std::printf("vulkan-optional ok: CPU works; Vulkan %s%s\n",
              available ? "available" : "unavailable: ",
              available ? "" : tensorplay::vulkan::unavailable_reason().c_str());
  if (!available) {
    try {
      (void)tensorplay::getAllocator(tensorplay::kVulkan)->allocate(16);
      return 3;
    } catch (const tensorplay::vulkan::VulkanUnavailableError&) {
    }
  }
  return 0;
}
