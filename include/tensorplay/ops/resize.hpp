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
#include <tensorplay/core/safe_math.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay {
namespace detail {

// PyTorch's resize_impl_cpu_ followed, when a format is given, by empty_tensor_restride. Sizes
// equal to the current ones change nothing (a transposed tensor keeps its strides), unless a
// format asks for a restride. Everything is checked before anything changes: PyTorch sets the
// new sizes first and then fails computing the bytes, leaving a tensor that claims more
// elements than its storage holds.
inline void resize_impl(TensorImpl& self, IntArrayRef sizes,
                        std::optional<MemoryFormat> format = std::nullopt) {
  for (int64_t s : sizes) {
    TP_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", sizes);
  }
  const bool same = self.sizes() == sizes;
  if (same && !format) return;
  // The layout of a fresh tensor of `sizes` in either format is dense from the storage offset
  // on, so the bytes it needs are contiguous_nbytes's.
  safe_compute_numel(sizes);
  const std::size_t needed = contiguous_nbytes(sizes, self.itemsize(), self.storage_offset());
  if (format == MemoryFormat::ChannelsLast) {
    const std::vector<int64_t> strides = strides_for(sizes, *format);
    self.set_sizes_and_strides(sizes, strides);
  } else {
    self.set_sizes_contiguous(sizes);
  }
  // A same-size restride grows the storage too when it must (an expanded tensor made
  // contiguous reaches more bytes); PyTorch's empty_tensor_restride does not look.
  if (self.numel() == 0) return;
  StorageImpl* storage = self.storage().unsafeGetStorageImpl();
  TP_CHECK(storage != nullptr, "resize_: the tensor has no storage");
  if (needed > storage->nbytes()) storage->resize_bytes(needed);
}

// The dtype check of PyTorch's structured out= kernels (their resize_out): an out= tensor must
// already have the result's dtype.
template <class = void>
void check_out_dtype(const Tensor& out, DType expected) {
  TP_CHECK(out.dtype() == expected, "Expected out tensor to have dtype ", typemeta_name(expected),
           ", but got ", typemeta_name(out.dtype()), " instead");
}

// PyTorch's at::native::resize_output: leaves `out` alone when it already has `shape`,
// otherwise resizes it (PyTorch also warns when a non-empty tensor is resized; the behaviour
// is the same). Returns whether it resized, so that the caller can restride the result.
inline bool resize_output(const Tensor& out, IntArrayRef shape) {
  if (out.sizes() == shape) return false;
  resize_impl(*out.unsafeGetTensorImpl(), shape);
  return true;
}

}  // namespace detail

inline const Tensor& Tensor::resize_(IntArrayRef size,
                                     std::optional<MemoryFormat> memory_format) const {
  TP_CHECK(memory_format != MemoryFormat::Preserve, "Unsupported memory format Preserve");
  detail::resize_impl(*impl("resize_"), size, memory_format);
  return *this;
}

// Preserve means the template's own layout (its suggest_memory_format).
inline const Tensor& Tensor::resize_as_(const Tensor& the_template,
                                        std::optional<MemoryFormat> memory_format) const {
  if (memory_format == MemoryFormat::Preserve) {
    memory_format = the_template.unsafeGetTensorImpl()->suggest_memory_format();
  }
  return resize_(the_template.sizes(), memory_format);
}

}  // namespace tensorplay
