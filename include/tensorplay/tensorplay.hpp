// TensorPlay: the umbrella header. Includes every layer of the library, and no backend
// (CUDA and Vulkan are opt-in: define TENSORPLAY_USE_CUDA / TENSORPLAY_USE_VULKAN).
#pragma once

#include <tensorplay/config.hpp>

// Separately compiled mode (tensorplay::compiled): a file sees the core layer and declarations of
// the ops and autograd templates, which the library defines once (compiled/public_api.hpp says
// what is parsed in full). A file that included an ops header before this one, or defines
// TENSORPLAY_FULL_HEADERS=1, parses every definition, as in header-only mode.
#ifndef TENSORPLAY_FULL_HEADERS
#define TENSORPLAY_FULL_HEADERS 0
#endif
#if TENSORPLAY_SEPARATE_COMPILATION && !TENSORPLAY_FULL_HEADERS && \
    !defined(TENSORPLAY_DEFINITIONS_INCLUDED_)
#define TENSORPLAY_DECLARATIONS_ONLY_ 1
#include <tensorplay/compiled/declarations.hpp>
#else
#include <tensorplay/core/allocator.hpp>
#include <tensorplay/core/array_ref.hpp>
#include <tensorplay/core/autograd_meta.hpp>
#include <tensorplay/core/caching_allocator.hpp>
#include <tensorplay/core/data_ptr.hpp>
#include <tensorplay/core/device.hpp>
#include <tensorplay/core/device_policy.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/function_ref.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/half.hpp>
#include <tensorplay/core/inference_mode.hpp>
#include <tensorplay/core/intrusive_ptr.hpp>
#include <tensorplay/core/memory_format.hpp>
#include <tensorplay/core/object_pool.hpp>
#include <tensorplay/core/quantizer.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/core/sizes_and_strides.hpp>
#include <tensorplay/core/small_vector.hpp>
#include <tensorplay/core/storage.hpp>
#include <tensorplay/core/storage_impl.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/core/tensor_impl.hpp>
#include <tensorplay/core/tensor_options.hpp>
#include <tensorplay/core/version_counter.hpp>
#include <tensorplay/core/wrap_dim.hpp>

#include <tensorplay/ops/as_strided.hpp>
#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/bucketize.hpp>
#include <tensorplay/ops/compare.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/cpu_capability.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/cdist.hpp>
#include <tensorplay/ops/einsum.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/generator.hpp>
#include <tensorplay/ops/histogram.hpp>
#include <tensorplay/ops/indexing.hpp>
#include <tensorplay/ops/join.hpp>
#include <tensorplay/ops/linalg.hpp>
#include <tensorplay/ops/loops.hpp>
#include <tensorplay/ops/masked.hpp>
#include <tensorplay/ops/nan_reduce.hpp>
#include <tensorplay/ops/order_stats.hpp>
#include <tensorplay/ops/parallel.hpp>
#include <tensorplay/ops/print.hpp>
#include <tensorplay/ops/print_options.hpp>
#include <tensorplay/ops/quantize_kernel.hpp>
#include <tensorplay/ops/quantized.hpp>
#include <tensorplay/ops/random.hpp>
#include <tensorplay/ops/reduce.hpp>
#include <tensorplay/ops/resize.hpp>
#include <tensorplay/ops/result_type.hpp>
#include <tensorplay/ops/scatter_gather.hpp>
#include <tensorplay/ops/shape_join.hpp>
#include <tensorplay/ops/shape_ops.hpp>
#include <tensorplay/ops/softmax.hpp>
#include <tensorplay/ops/sort.hpp>
#include <tensorplay/ops/tensor_index.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>
#include <tensorplay/ops/unary.hpp>
#include <tensorplay/ops/unique.hpp>
#include <tensorplay/ops/views.hpp>

#include <tensorplay/autograd/engine.hpp>
#include <tensorplay/autograd/functions/basic.hpp>
#include <tensorplay/autograd/functions/cdist.hpp>
#include <tensorplay/autograd/functions/indexing.hpp>
#include <tensorplay/autograd/functions/linalg.hpp>
#include <tensorplay/autograd/functions/pointwise.hpp>
#include <tensorplay/autograd/functions/reduce.hpp>
#include <tensorplay/autograd/functions/shape.hpp>
#include <tensorplay/autograd/functions/views.hpp>
#include <tensorplay/autograd/gradcheck.hpp>
#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/autograd/saved_variable.hpp>
#include <tensorplay/autograd/variable.hpp>

#include <tensorplay/nn/functional.hpp>
#endif

// The opt-in backends (their CMake targets define the macro): DevicePolicy and kernels, so that
// every translation unit of a program sees the same device table and device kernels.
// (Declarations-only files get the device layer through core/device_policy.hpp and the kernels'
// declarations through ops/device_dispatch.hpp; the library has the kernels.)
#if TENSORPLAY_USE_VULKAN && !defined(TENSORPLAY_DECLARATIONS_ONLY_)
#include <tensorplay/backends/vulkan/vulkan.hpp>
#endif
#if TENSORPLAY_USE_CUDA && !defined(TENSORPLAY_DECLARATIONS_ONLY_)
#include <tensorplay/backends/cuda/cuda.hpp>
#endif

// Last, after every definition: in separately compiled mode, the declarations that keep this
// translation unit from instantiating what tensorplay::compiled already has.
#include <tensorplay/compiled/extern_templates.hpp>
