// The factories of the memory stack: empty, empty_strided and from_blob (libtorch's signatures).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <utility>

#include <tensorplay/core/autograd_meta.hpp>
#include <tensorplay/core/device_policy.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay {
namespace detail {

// Bytes a strided geometry reaches: itemsize * (1 + sum((size-1)*stride)), 0 if any size is 0
// (c10's computeStorageNbytes). Negative sizes/strides and overflow are rejected.
inline std::size_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, std::size_t itemsize,
                                  int64_t storage_offset = 0) {
  TP_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape: sizes ",
           sizes, " strides ", strides);
  uint64_t last = 0;
  bool overflow = false;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    TP_CHECK(sizes[i] >= 0, "Trying to create tensor with negative dimension ", sizes[i], ": ",
             sizes);
    TP_CHECK(strides[i] >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ", strides);
    if (sizes[i] == 0) return 0;
    uint64_t term = 0;
    overflow |= __builtin_mul_overflow(static_cast<uint64_t>(sizes[i] - 1),
                                       static_cast<uint64_t>(strides[i]), &term);
    overflow |= __builtin_add_overflow(last, term, &last);
  }
  uint64_t n = 0;
  overflow |= __builtin_add_overflow(last, static_cast<uint64_t>(storage_offset) + 1, &n);
  overflow |= __builtin_mul_overflow(n, static_cast<uint64_t>(itemsize), &n);
  TP_CHECK(!overflow && n <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
           "Storage size calculation overflowed with sizes=", sizes, " and strides=", strides);
  return static_cast<std::size_t>(n);
}

// Contiguous bytes for `sizes`, with the same checks.
inline std::size_t contiguous_nbytes(IntArrayRef sizes, std::size_t itemsize) {
  uint64_t n = itemsize;
  bool overflow = false;
  for (int64_t s : sizes) {
    TP_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", sizes);
    overflow |= __builtin_mul_overflow(n, static_cast<uint64_t>(s), &n);
  }
  TP_CHECK(!overflow && n <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
           "Storage size calculation overflowed with sizes=", sizes);
  return static_cast<std::size_t>(n);
}

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

inline Tensor make_tensor(Storage storage, DType dtype, IntArrayRef sizes, IntArrayRef strides,
                          int64_t storage_offset = 0) {
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, strides,
                                           storage_offset));
}

}  // namespace detail

// Uninitialised tensor. The storage is resizable, as PyTorch's is.
inline Tensor empty(IntArrayRef sizes, const TensorOptions& options = {},
                    std::optional<MemoryFormat> memory_format = std::nullopt) {
  TP_CHECK(!(options.has_memory_format() && memory_format.has_value()),
           "Cannot set memory_format both in TensorOptions and explicit argument; please "
           "delete the redundant setter.");
  const MemoryFormat format = memory_format.value_or(options.memory_format());
  TP_CHECK(format != MemoryFormat::Preserve, "Preserve memory format is unsupported by empty");
  const DType dt = options.dtype();
  const Device dev = options.device();
  const std::size_t nbytes = detail::contiguous_nbytes(sizes, itemsize(dt));
  Allocator* allocator = getAllocator(dev.type());
  Storage storage(use_byte_size, nbytes, allocator->allocate(nbytes, dev), allocator,
                  /*resizable=*/true);
  auto impl = make_intrusive<TensorImpl>(std::move(storage), dt);
  if (format == MemoryFormat::Contiguous) {
    impl->set_sizes_contiguous(sizes);
  } else {
    const auto strides = strides_for(sizes, format);
    impl->set_sizes_and_strides(sizes, strides);
  }
  return detail::finish_factory(Tensor(std::move(impl)), options);
}

inline Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides,
                            const TensorOptions& options = {}) {
  const DType dt = options.dtype();
  const Device dev = options.device();
  const std::size_t nbytes = detail::storage_nbytes(sizes, strides, itemsize(dt));
  Allocator* allocator = getAllocator(dev.type());
  Storage storage(use_byte_size, nbytes, allocator->allocate(nbytes, dev), allocator,
                  /*resizable=*/true);
  return detail::finish_factory(detail::make_tensor(std::move(storage), dt, sizes, strides),
                                options);
}

// Wraps memory the caller owns; it is never freed by TensorPlay.
inline Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                        const TensorOptions& options = {}) {
  const DType dt = options.dtype();
  const std::size_t nbytes = detail::storage_nbytes(sizes, strides, itemsize(dt));
  Storage storage(use_byte_size, nbytes, DataPtr(data, options.device()));
  return detail::finish_factory(detail::make_tensor(std::move(storage), dt, sizes, strides),
                                options);
}
inline Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {}) {
  const auto strides = SizesAndStrides::compute_contiguous_strides(sizes);
  return from_blob(data, sizes, strides, options);
}

// Takes ownership: `deleter(data)` runs once, when the last tensor or view of it dies.
inline Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                        std::function<void(void*)> deleter, const TensorOptions& options = {}) {
  const DType dt = options.dtype();
  // Checked before adopting the blob: on bad geometry the caller still owns it.
  const std::size_t nbytes = detail::storage_nbytes(sizes, strides, itemsize(dt));
  auto* ctx = new detail::FunctionDeleterContext{data, std::move(deleter)};
  Storage storage(use_byte_size, nbytes,
                  DataPtr(data, ctx, &detail::FunctionDeleterContext::call, options.device()));
  return detail::finish_factory(detail::make_tensor(std::move(storage), dt, sizes, strides),
                                options);
}
inline Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter,
                        const TensorOptions& options = {}) {
  const auto strides = SizesAndStrides::compute_contiguous_strides(sizes);
  return from_blob(data, sizes, strides, std::move(deleter), options);
}

}  // namespace tensorplay
