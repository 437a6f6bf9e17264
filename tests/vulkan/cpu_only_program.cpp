// Built against tensorplay::tensorplay only (no TENSORPLAY_USE_VULKAN): proves that the CPU
// target brings no Vulkan code, no Vulkan header and no link dependency (the vulkan_no_link_
// dependency test reads this program's NEEDED entries), and that using the device names the
// macro to define.
#include <tensorplay/core/device_policy.hpp>

#include <cstdio>

#ifdef VULKAN_CORE_H_
#error "a Vulkan header was included without TENSORPLAY_USE_VULKAN"
#endif
static_assert(!TENSORPLAY_USE_VULKAN);
static_assert(!tensorplay::is_compiled_in<tensorplay::kVulkan>);

int main() {
  tensorplay::DataPtr p = tensorplay::getCPUAllocator()->allocate(64);
  if (!p) return 1;
  try {
    (void)tensorplay::getAllocator(tensorplay::kVulkan);
    return 2;
  } catch (const tensorplay::Error& e) {
    std::printf("cpu-only ok: %s\n", e.what());
  }
  return 0;
}
