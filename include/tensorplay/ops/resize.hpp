// resize_ and resize_as_ (libtorch's), and resize_output: how every `out=` variant fits its
// destination to the result.
//
// resize_(sizes) gives the tensor contiguous strides for `sizes` (or channels-last ones when
// asked) and grows its storage when the new geometry needs more bytes; it never shrinks it, so
// the old elements stay where they were, and a view keeps its storage offset. As in PyTorch,
// a resize that changes the geometry is refused on a tensor whose storage cannot grow when it
// needs to ("Trying to resize storage that is not resizable").
#pragma once

#include <optional>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/memory_format.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay {
namespace detail {

inline void resize_impl(TensorImpl& self, IntArrayRef sizes, MemoryFormat format) {
  for (int64_t s : sizes) {
    TP_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", sizes);
  }
  if (format == MemoryFormat::ChannelsLast) {
    const std::vector<int64_t> strides = strides_for(sizes, format);
    self.set_sizes_and_strides(sizes, strides);
  } else {
    self.set_sizes_contiguous(sizes);
  }
  int64_t extent = 0;  // elements from element 0 to one past the last
  if (self.numel() > 0) {
    extent = 1;
    for (int64_t d = 0; d < self.dim(); ++d) extent += (self.sizes()[d] - 1) * self.strides()[d];
  }
  const std::size_t needed = std::size_t(self.storage_offset() + extent) * self.itemsize();
  if (self.numel() == 0) return;
  StorageImpl* storage = self.storage().unsafeGetStorageImpl();
  TP_CHECK(storage != nullptr, "resize_: the tensor has no storage");
  if (needed > storage->nbytes()) storage->resize_bytes(needed);
}

// PyTorch's at::native::resize_output: leaves `out` alone when it already has `shape`,
// otherwise resizes it (PyTorch also warns when a non-empty tensor is resized; the behaviour
// is the same). Returns whether it resized, so that the caller can restride the result.
inline bool resize_output(const Tensor& out, IntArrayRef shape) {
  if (out.sizes() == shape) return false;
  resize_impl(*out.unsafeGetTensorImpl(), shape, MemoryFormat::Contiguous);
  return true;
}

}  // namespace detail

inline const Tensor& Tensor::resize_(IntArrayRef size,
                                     std::optional<MemoryFormat> memory_format) const {
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Contiguous);
  TP_CHECK(format != MemoryFormat::Preserve, "Unsupported memory format Preserve");
  detail::resize_impl(*impl("resize_"), size, format);
  return *this;
}

inline const Tensor& Tensor::resize_as_(const Tensor& the_template,
                                        std::optional<MemoryFormat> memory_format) const {
  return resize_(the_template.sizes(), memory_format);
}

}  // namespace tensorplay
