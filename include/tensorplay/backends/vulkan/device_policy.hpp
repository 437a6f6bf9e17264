// DevicePolicy<DeviceType::Vulkan>: plugs the Vulkan caching allocator into the core's
// allocator table (core/device_policy.hpp includes this header when TENSORPLAY_USE_VULKAN is
// 1, so getAllocator(kVulkan) works in every translation unit of a program built with
// tensorplay::vulkan). Vulkan buffers have no strided addressing: views of Vulkan tensors are
// materialised (gather.hpp), never aliased.
#pragma once

#include <tensorplay/backends/vulkan/allocator.hpp>
#include <tensorplay/core/allocator.hpp>
#include <tensorplay/core/device.hpp>

namespace tensorplay {

// Declared (not defined) here so that this header also works on its own; core defines it.
template <DeviceType D>
struct DevicePolicy;

template <>
struct DevicePolicy<DeviceType::Vulkan> {
  static constexpr bool compiled_in = true;
  static constexpr DeviceType device_type = DeviceType::Vulkan;
  static constexpr bool supports_strided_views = false;
  using allocator_type = vulkan::VulkanCachingAllocator;
  // Touches no Vulkan: the device is opened by the first allocation.
  static Allocator* allocator() noexcept { return &vulkan::VulkanCachingAllocator::instance(); }
};
static_assert(AllocationPolicy<DevicePolicy<DeviceType::Vulkan>>);

}  // namespace tensorplay
