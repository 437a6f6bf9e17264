// Device policies: the compile-time choice of memory policy per device, and the runtime
// allocator table built from them.
//
// Each backend specialises DevicePolicy<D> (CPU here; CUDA and Vulkan in their opt-in headers,
// enabled by TENSORPLAY_USE_CUDA / TENSORPLAY_USE_VULKAN through the CMake targets so every
// translation unit sees the same table). A specialisation must satisfy AllocationPolicy. The
// runtime table starts from the compiled-in policies and can be overridden per device type with
// setAllocator; asking for a device whose policy is not compiled in throws an error naming the
// macro to define.
#pragma once

#include <array>
#include <atomic>
#include <utility>

#include <tensorplay/config.hpp>
#include <tensorplay/core/allocator.hpp>
#include <tensorplay/core/caching_allocator.hpp>

namespace tensorplay {

// Primary template: the device is not compiled in. It deliberately does not satisfy
// AllocationPolicy.
template <DeviceType D>
struct DevicePolicy {
  static constexpr bool compiled_in = false;
};

template <>
struct DevicePolicy<DeviceType::CPU> {
  static constexpr bool compiled_in = true;
  static constexpr DeviceType device_type = DeviceType::CPU;
  static constexpr bool supports_strided_views = true;
  using allocator_type = CachingAllocator;
  static Allocator* allocator() noexcept { return &CachingAllocator::instance(); }
};
static_assert(AllocationPolicy<DevicePolicy<DeviceType::CPU>>);

}  // namespace tensorplay

// Opt-in backends specialise DevicePolicy here, before anything below can instantiate it.
#if TENSORPLAY_USE_VULKAN
#include <tensorplay/backends/vulkan/device_policy.hpp>
#endif
#if TENSORPLAY_USE_CUDA
#include <tensorplay/backends/cuda/device_policy.hpp>
#endif

namespace tensorplay {

// The macro that compiles a device in (for error messages).
constexpr const char* device_feature_macro(DeviceType t) noexcept {
  switch (t) {
    case DeviceType::CPU: return "(always compiled in)";
    case DeviceType::CUDA: return "TENSORPLAY_USE_CUDA";
    case DeviceType::Vulkan: return "TENSORPLAY_USE_VULKAN";
  }
  return "?";
}

namespace detail {

template <DeviceType D>
constexpr Allocator* compiled_in_allocator() noexcept {
  if constexpr (AllocationPolicy<DevicePolicy<D>>) {
    return DevicePolicy<D>::allocator();
  } else {
    return nullptr;
  }
}

// The pinned-memory allocator of the compiled-in backend that has one (DevicePolicy's
// pinned_allocator(): CUDA), or none.
template <DeviceType D>
constexpr Allocator* compiled_in_pinned_allocator() noexcept {
  if constexpr (requires { DevicePolicy<D>::pinned_allocator(); }) {
    return DevicePolicy<D>::pinned_allocator();
  } else {
    return nullptr;
  }
}

// Thread safety: slots are atomics; setAllocator may race with getAllocator (the reader sees
// either the old or the new allocator, both of which stay alive forever).
struct AllocatorTable {
  std::array<std::atomic<Allocator*>, kNumDeviceTypes> slots;
  std::atomic<Allocator*> pinned;  // page-locked host memory: the CUDA backend's

  template <std::size_t... I>
  explicit AllocatorTable(std::index_sequence<I...>) noexcept
      : slots{compiled_in_allocator<static_cast<DeviceType>(I)>()...},
        pinned{compiled_in_pinned_allocator<DeviceType::CUDA>()} {}
};

// Never destroyed: tensors destroyed during static destruction still find their allocator.
inline AllocatorTable& allocator_table() noexcept {
  static AllocatorTable* table = new AllocatorTable(std::make_index_sequence<kNumDeviceTypes>{});
  return *table;
}

}  // namespace detail

inline Allocator* getAllocator(DeviceType t) {
  Allocator* a =
      detail::allocator_table().slots[static_cast<int>(t)].load(std::memory_order_acquire);
  TP_CHECK(a, "no allocator for device type ", t, ": TensorPlay was compiled without ", t,
           " support; define ", device_feature_macro(t),
           " (link the matching tensorplay:: target) to enable it");
  return a;
}

inline Allocator* getCPUAllocator() { return getAllocator(DeviceType::CPU); }

// Overrides the allocator of a device type (e.g. a tracking or arena allocator). The allocator
// must outlive every allocation made through it. Passing null restores the compiled-in one.
inline void setAllocator(DeviceType t, Allocator* allocator) {
  if (!allocator) {
    constexpr auto defaults = []<std::size_t... I>(std::index_sequence<I...>) {
      return std::array<Allocator* (*)() noexcept, kNumDeviceTypes>{
          &detail::compiled_in_allocator<static_cast<DeviceType>(I)>...};
    }
    (std::make_index_sequence<kNumDeviceTypes>{});
    allocator = defaults[static_cast<int>(t)]();
  }
  detail::allocator_table().slots[static_cast<int>(t)].store(allocator, std::memory_order_release);
}

// Page-locked host memory for fast host<->device copies; provided by the CUDA backend.
inline Allocator* getPinnedMemoryAllocator() {
  Allocator* a = detail::allocator_table().pinned.load(std::memory_order_acquire);
  TP_CHECK(a,
           "no pinned-memory allocator: pinned host memory comes with the CUDA backend; "
           "define TENSORPLAY_USE_CUDA to enable it");
  return a;
}
inline void setPinnedMemoryAllocator(Allocator* allocator) noexcept {
  detail::allocator_table().pinned.store(allocator, std::memory_order_release);
}

// Whether a device type's policy is compiled into this program.
template <DeviceType D>
inline constexpr bool is_compiled_in = AllocationPolicy<DevicePolicy<D>>;

}  // namespace tensorplay
