// The factories of the memory stack: empty, empty_strided and from_blob (libtorch's signatures).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

#include <tensorplay/core/autograd_meta.hpp>
#include <tensorplay/core/device_policy.hpp>
#include <tensorplay/core/safe_math.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay {
namespace detail {

// The context of a from_blob storage with a std::function deleter (c10's
// InefficientStdFunctionContext): the plain-function deleter calls it, then frees the context.
struct FunctionDeleterContext {
  void* data;
  std::function<void(void*)> deleter;
  static void call(void* ctx) {
    auto* self = static_cast<FunctionDeleterContext*>(ctx);
    self->deleter(self->data);
    delete self;
  }
};

// The caller has sized `storage` with storage_nbytes; stride-0 dims reach few bytes however
// many elements they repeat, so numel is checked too (PyTorch's set_sizes_and_strides does).
inline Tensor make_tensor(Storage storage, DType dtype, IntArrayRef sizes, IntArrayRef strides,
                          int64_t storage_offset = 0) {
  safe_compute_numel(sizes);
  return Tensor(
      make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, strides, storage_offset));
}

// The allocator a factory draws from: its device's, or page-locked host memory when the
// options ask for pinned memory (PyTorch's pin_memory=True), which only a CPU tensor can be.
inline Allocator* factory_allocator(const TensorOptions& options, Device dev) {
  if (!options.pinned_memory()) return getAllocator(dev.type());
  TP_CHECK(dev.is_cpu(), "Only dense CPU tensors can be pinned");
  return getPinnedMemoryAllocator();
}

}  // namespace detail

// Uninitialised tensor. The storage is resizable, as PyTorch's is.
template <class = void>
Tensor empty(IntArrayRef sizes, const TensorOptions& options = {},
             std::optional<MemoryFormat> memory_format = std::nullopt) {
  TP_CHECK(!(options.has_memory_format() && memory_format.has_value()),
           "Cannot set memory_format both in TensorOptions and explicit argument; please "
           "delete the redundant setter.");
  const MemoryFormat format = memory_format.value_or(options.memory_format());
  TP_CHECK(format != MemoryFormat::Preserve, "Preserve memory format is unsupported by empty");
  const DType dt = options.dtype();
  const Device dev = options.device();
  const std::size_t nbytes = detail::contiguous_nbytes(sizes, itemsize(dt));
  Allocator* allocator = detail::factory_allocator(options, dev);
  Storage storage(use_byte_size, nbytes, allocator->allocate(nbytes, dev), allocator,
                  /*resizable=*/true);
  if (format == MemoryFormat::Contiguous) {
    return detail::finish_factory(Tensor(make_intrusive<TensorImpl>(std::move(storage), dt, sizes)),
                                  options);
  }
  auto impl = make_intrusive<TensorImpl>(std::move(storage), dt);
  const auto strides = strides_for(sizes, format);
  impl->set_sizes_and_strides(sizes, strides);
  return detail::finish_factory(Tensor(std::move(impl)), options);
}

template <class = void>
Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {}) {
  const DType dt = options.dtype();
  const Device dev = options.device();
  const std::size_t nbytes = detail::storage_nbytes(sizes, strides, itemsize(dt));
  Allocator* allocator = detail::factory_allocator(options, dev);
  Storage storage(use_byte_size, nbytes, allocator->allocate(nbytes, dev), allocator,
                  /*resizable=*/true);
  return detail::finish_factory(detail::make_tensor(std::move(storage), dt, sizes, strides),
                                options);
}

// Wraps memory the caller owns; it is never freed by TensorPlay.
template <class = void>
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 const TensorOptions& options = {}) {
  const DType dt = options.dtype();
  const std::size_t nbytes = detail::storage_nbytes(sizes, strides, itemsize(dt));
  Storage storage(use_byte_size, nbytes, DataPtr(data, options.device()));
  return detail::finish_factory(detail::make_tensor(std::move(storage), dt, sizes, strides),
                                options);
}
// The contiguous forms check numel first, as PyTorch's does (and the strides of sizes whose
// product overflows would overflow too).
template <class = void>
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {}) {
  detail::safe_compute_numel(sizes);
  const auto strides = SizesAndStrides::compute_contiguous_strides(sizes);
  return from_blob(data, sizes, strides, options);
}

// Takes ownership: `deleter(data)` runs once, when the last tensor or view of it dies.
template <class = void>
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 std::function<void(void*)> deleter, const TensorOptions& options = {}) {
  const DType dt = options.dtype();
  // Checked before adopting the blob: on bad geometry the caller still owns it.
  const std::size_t nbytes = detail::storage_nbytes(sizes, strides, itemsize(dt));
  detail::safe_compute_numel(sizes);
  auto* ctx = new detail::FunctionDeleterContext{data, std::move(deleter)};
  Storage storage(use_byte_size, nbytes,
                  DataPtr(data, ctx, &detail::FunctionDeleterContext::call, options.device()));
  return detail::finish_factory(detail::make_tensor(std::move(storage), dt, sizes, strides),
                                options);
}
template <class = void>
Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter,
                 const TensorOptions& options = {}) {
  detail::safe_compute_numel(sizes);
  const auto strides = SizesAndStrides::compute_contiguous_strides(sizes);
  return from_blob(data, sizes, strides, std::move(deleter), options);
}

}  // namespace tensorplay
