// DevicePolicy<DeviceType::CUDA>: plugs the CUDA caching allocator into the core's allocator
// table (core/device_policy.hpp includes this header when TENSORPLAY_USE_CUDA is 1, so
// getAllocator(kCUDA) works in every translation unit of a program built with tensorplay::cuda).
// CUDA kernels address memory through strides, so views alias as on the CPU.
#pragma once

#include <tensorplay/backends/cuda/allocator.hpp>
#include <tensorplay/core/allocator.hpp>
#include <tensorplay/core/device.hpp>

namespace tensorplay {

// Declared (not defined) here so that this header also works on its own; core defines it.
template <DeviceType D>
struct DevicePolicy;

template <>
struct DevicePolicy<DeviceType::CUDA> {
  static constexpr bool compiled_in = true;
  static constexpr DeviceType device_type = DeviceType::CUDA;
  static constexpr bool supports_strided_views = true;
  using allocator_type = cuda::CUDACachingAllocator;
  // Touches no device: the runtime is probed by the first allocation.
  static Allocator* allocator() noexcept { return &cuda::CUDACachingAllocator::instance(); }
  // Page-locked host memory (getPinnedMemoryAllocator()), also probed on first use.
  static Allocator* pinned_allocator() noexcept { return &cuda::PinnedMemoryAllocator::instance(); }
};
static_assert(AllocationPolicy<DevicePolicy<DeviceType::CUDA>>);

}  // namespace tensorplay
