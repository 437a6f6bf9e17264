// The Vulkan backend in one include (opt-in: link tensorplay::vulkan, which defines
// TENSORPLAY_USE_VULKAN=1; tensorplay/tensorplay.hpp then includes it, and never otherwise).
//
//   loader.hpp         dlopen of libvulkan.so.1 and the entry-point table
//   context.hpp        instance/device/queue, is_vulkan_available(), validation
//   stream.hpp         command recording, batched submission, synchronize()
//   allocator.hpp      caching sub-allocator of VkBuffer ranges, buffer_of(), stats
//   device_policy.hpp  DevicePolicy<kVulkan> for the core's allocator table
//   copy.hpp           host<->device and device<->device copies, memset
//   pipeline.hpp       per-shader pipeline cache and dispatch()
//   fill.hpp, gather.hpp  the first kernels (shaders/*.comp -> shaders/*.spv.hpp)
//   ops.hpp            the kernels behind the device dispatch point: copy_ (every cross-device
//                      copy, and the materialisation of views) and fill_
#pragma once

#include <tensorplay/backends/vulkan/allocator.hpp>
#include <tensorplay/backends/vulkan/context.hpp>
#include <tensorplay/backends/vulkan/copy.hpp>
#include <tensorplay/backends/vulkan/device_policy.hpp>
#include <tensorplay/backends/vulkan/error.hpp>
#include <tensorplay/backends/vulkan/fill.hpp>
#include <tensorplay/backends/vulkan/gather.hpp>
#include <tensorplay/backends/vulkan/loader.hpp>
#include <tensorplay/backends/vulkan/ops.hpp>
#include <tensorplay/backends/vulkan/pipeline.hpp>
#include <tensorplay/backends/vulkan/stream.hpp>
