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
//   reduce.hpp         row reductions: sum, mean, amax, amin, argmax, argmin
//   softmax.hpp        row softmax and log_softmax
//   matmul.hpp         batched, strided matrix product with bias (bmm)
//   pointwise.hpp      every elementwise op, one strided shader (PointwiseOp)
//   kernels.hpp        reductions, softmax, matrix products over the row shaders above
//   ops.hpp            the kernels behind the device dispatch point: copy_ (every cross-device
//                      copy, and the materialisation of views), fill_, and the two above
#pragma once

#include <tensorplay/backends/vulkan/allocator.hpp>
#include <tensorplay/backends/vulkan/context.hpp>
#include <tensorplay/backends/vulkan/copy.hpp>
#include <tensorplay/backends/vulkan/device_policy.hpp>
#include <tensorplay/backends/vulkan/error.hpp>
#include <tensorplay/backends/vulkan/fill.hpp>
#include <tensorplay/backends/vulkan/gather.hpp>
#include <tensorplay/backends/vulkan/kernels.hpp>
#include <tensorplay/backends/vulkan/loader.hpp>
#include <tensorplay/backends/vulkan/matmul.hpp>
#include <tensorplay/backends/vulkan/ops.hpp>
#include <tensorplay/backends/vulkan/pipeline.hpp>
#include <tensorplay/backends/vulkan/pointwise.hpp>
#include <tensorplay/backends/vulkan/reduce.hpp>
#include <tensorplay/backends/vulkan/softmax.hpp>
#include <tensorplay/backends/vulkan/stream.hpp>
