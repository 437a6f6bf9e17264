// Separately compiled mode: the headers a user translation unit parses in full. The core layer
// (tensors, storage, allocators, options, grad mode), the autograd graph a caller inspects
// (Node, .grad, hooks) and the small headers of public types and settings (Generator, the index
// types, print options, thread and CPU-capability settings, factories from values, result_type,
// nn::functional's option structs).
// Everything else of the ops and autograd layers is declared by declarations.hpp (generated) and
// defined once in tensorplay::compiled. The generator excludes these headers, and what they
// include, from the declarations, since their definitions are already seen here.
#pragma once

#include <iosfwd>

#include <tensorplay/config.hpp>

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

#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/variable.hpp>

#include <tensorplay/ops/cpu_capability.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/generator.hpp>
#include <tensorplay/ops/print_options.hpp>
#include <tensorplay/ops/resize.hpp>
#include <tensorplay/ops/result_type.hpp>
#include <tensorplay/ops/tensor_index.hpp>

#include <tensorplay/nn/functional/options.hpp>
