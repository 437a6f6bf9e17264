// Copies: copy_, clone, contiguous, to, fill_, zero_, item (declared in core/tensor.hpp), on
// the kernel in ops/copy_kernel.hpp.
//
// Autograd: clone and contiguous record CloneBackward0, to ToCopyBackward0, and the in-place
// writes copy_ (CopyBackwards), fill_ (FillBackward2) and zero_ (ZeroBackward0) go through
// differentiable_inplace: the leaf rules first, and a write through a view rewrites its base's
// history (CopySlices). Formulas in autograd/functions/views.hpp.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <optional>

#include <tensorplay/autograd/functions/views.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/ops/copy_kernel.hpp>

namespace tensorplay {

template <class>
const Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) const {
  TP_CHECK(src.defined(), "copy_: the source tensor is undefined");
  // An undefined destination fails where the device check always caught it.
  TensorImpl* self = impl("device");
  return autograd::detail::differentiable_inplace<autograd::CopyBackwards>(
      *this,
      [&] {
        if (non_blocking) {
          detail::copy_impl_non_blocking(*this, src);
        } else {
          detail::copy_impl(*this, src);
        }
        self->bump_version();  // once, whatever path the copy took
      },
      autograd::detail::kSaveNothing, autograd::detail::kSaveNothing, src);
}

template <class>
Tensor Tensor::clone(std::optional<MemoryFormat> memory_format) const {
  impl("clone");
  return autograd::detail::differentiable<autograd::CloneBackward0>(
      [&] {
        return detail::copy_to_new(*this, options(),
                                   memory_format.value_or(MemoryFormat::Preserve));
      },
      autograd::detail::kSaveNothing, *this);
}

template <class>
Tensor Tensor::contiguous(MemoryFormat memory_format) const {
  if (is_contiguous(memory_format)) return *this;
  TP_CHECK(memory_format != MemoryFormat::Preserve,
           "preserve memory format is unsupported by the contiguous operator");
  return clone(memory_format);
}

namespace detail {

// libtorch's to_impl: self when nothing would change and no copy is asked for, else a copy.
template <class = void>
Tensor to_impl(const Tensor& self, std::optional<DType> dtype, std::optional<Device> device,
               bool copy, std::optional<MemoryFormat> memory_format, bool non_blocking = false) {
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  const DType dt = dtype.value_or(self.dtype());
  const Device dev = device.value_or(self.device());
  if (dt == self.dtype() && dev == self.device() && !copy &&
      (format == MemoryFormat::Preserve || self.suggest_memory_format() == format)) {
    return self;
  }
  // To an integral or bool dtype there is no gradient, so no node (nor the edge to self).
  const TensorOptions options = TensorOptions().dtype(dt).device(dev);
  if (!is_floating_point(dt)) return copy_to_new(self, options, format, non_blocking);
  return autograd::detail::differentiable<autograd::ToCopyBackward0>(
      [&] { return copy_to_new(self, options, format, non_blocking); },
      autograd::detail::kSaveNothing, self);
}

}  // namespace detail

template <class>
Tensor Tensor::to(DType dtype, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  return detail::to_impl(*this, dtype, std::nullopt, copy, memory_format, non_blocking);
}

template <class>
Tensor Tensor::to(Device device, DType dtype, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  return detail::to_impl(*this, dtype, device, copy, memory_format, non_blocking);
}

template <class>
Tensor Tensor::cpu() const {
  return to(TensorOptions().device(kCPU));
}

template <class>
Tensor Tensor::cuda() const {
  return to(TensorOptions().device(kCUDA));
}

template <class>
bool Tensor::is_pinned() const {
  const Allocator* pinned = detail::allocator_table().pinned.load(std::memory_order_acquire);
  return pinned != nullptr && impl("is_pinned")->device().is_cpu() &&
         storage().allocator() == pinned;
}

// A pinned copy (PyTorch's _pin_memory): dense strides in self's dimension order, the same
// values; its gradient flows back to self as a copy's does.
template <class>
Tensor Tensor::pin_memory() const {
  TP_CHECK(impl("pin_memory")->device().is_cpu(), "cannot pin a tensor on ", device(),
           ": only dense CPU tensors can be pinned");
  if (is_pinned()) return *this;
  return autograd::detail::differentiable<autograd::CloneBackward0>(
      [&] {
        return detail::copy_to_new(*this, TensorOptions().pinned_memory(true),
                                   MemoryFormat::Preserve);
      },
      autograd::detail::kSaveNothing, *this);
}

template <class>
Tensor Tensor::vulkan() const {
  return to(TensorOptions().device(kVulkan));
}

template <class>
Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  TP_CHECK(!(options.has_memory_format() && memory_format.has_value()),
           "Cannot set memory_format both in TensorOptions and explicit argument; please "
           "delete the redundant setter.");
  return detail::to_impl(*this, options.dtype_opt(), options.device_opt(), copy,
                         memory_format ? memory_format : options.memory_format_opt(), non_blocking);
}

namespace detail {
template <class = void>
void fill_impl(const Tensor& self, const Scalar& value) {
  if (self.is_quantized()) {  // the value quantized with self's parameters
    quantized_fill(self, value);
    self.unsafeGetTensorImpl()->bump_version();
    return;
  }
  if (!self.is_cpu()) {  // the device's kernel (ops/device_dispatch.hpp)
    call_device_kernel<FillOp>(self.device().type(), self, value);
    self.unsafeGetTensorImpl()->bump_version();
    return;
  }
  // Checked first: a value the dtype cannot hold fails before any element is written.
  dispatch_dtype(self.dtype(), [&]<class T>() { fill_kernel<T>(self, value.to<T>()); });
  self.unsafeGetTensorImpl()->bump_version();
}
}  // namespace detail

template <class>
const Tensor& Tensor::fill_(const Scalar& value) const {
  impl("fill_");
  return autograd::detail::differentiable_inplace<autograd::FillBackward2>(
      *this, [&] { detail::fill_impl(*this, value); }, autograd::detail::kSaveNothing,
      autograd::detail::kSaveNothing);
}

namespace detail {
inline void check_fill_value(const Tensor& value) {
  TP_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ",
           value.dim(), " dimensions.");
}
}  // namespace detail

// The value is read once (item()) before any element is written, so a value that aliases self
// is no hazard. Checked inside the write, after the in-place refusals, as PyTorch orders them.
template <class>
const Tensor& Tensor::fill_(const Tensor& value) const {
  impl("fill_");
  return autograd::detail::differentiable_inplace<autograd::FillBackward3>(
      *this,
      [&] {
        detail::check_fill_value(value);
        detail::fill_impl(*this, value.item());
      },
      autograd::detail::kSaveNothing, autograd::detail::kSaveNothing, value);
}

// libtorch's free forms. fill is a new tensor laid out like self (empty_like), filled.
template <class = void>
const Tensor& fill_(const Tensor& self, const Scalar& value) {
  return self.fill_(value);
}
template <class = void>
const Tensor& fill_(const Tensor& self, const Tensor& value) {
  return self.fill_(value);
}
template <class = void>
Tensor fill(const Tensor& self, const Scalar& value) {
  return autograd::detail::differentiable<autograd::FillBackward0>(
      [&] {
        Tensor result = empty_like(self);
        detail::fill_impl(result, value);
        result.unsafeGetTensorImpl()->reset_version();  // a new value, never modified
        return result;
      },
      autograd::detail::kSaveNothing, self);
}
template <class = void>
Tensor fill(const Tensor& self, const Tensor& value) {
  return autograd::detail::differentiable<autograd::FillBackward1>(
      [&] {
        detail::check_fill_value(value);
        Tensor result = empty_like(self);
        detail::fill_impl(result, value.item());
        result.unsafeGetTensorImpl()->reset_version();
        return result;
      },
      autograd::detail::kSaveNothing, self, value);
}

template <class>
const Tensor& Tensor::zero_() const {
  impl("zero_");
  return autograd::detail::differentiable_inplace<autograd::ZeroBackward0>(
      *this,
      [&] {
        // Every dtype's zero is all-zero bits, so a dense tensor is one memset.
        if (is_non_overlapping_and_dense() && is_cpu()) {
          if (numel() > 0) std::memset(data_ptr(), 0, nbytes());
          impl_->bump_version();
        } else {
          detail::fill_impl(*this, 0);
        }
      },
      autograd::detail::kSaveNothing, autograd::detail::kSaveNothing);
}

template <int>
Scalar Tensor::item() const {
  TP_CHECK_VALUE(numel() == 1, "a Tensor with ", numel(),
                 " elements cannot be converted to Scalar");
  if (!is_cpu()) {  // read on the host, as PyTorch does (a synchronising copy)
    const NoGradGuard no_grad;
    return cpu().item();
  }
  return dispatch_dtype(dtype(),
                        [&]<class T>() { return Scalar(*static_cast<const T*>(data_ptr())); });
}

template <class T>
T Tensor::item() const {
  return item().to<T>();
}

}  // namespace tensorplay

// A write through a view records CopySlices, whose formula takes views (as_strided); and every
// recorded graph ends in AccumulateGrad, which adds gradients (add, add_). Included last: both
// include this file.
#include <tensorplay/ops/as_strided.hpp>
#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/reduce.hpp>  // fill_(Tensor)'s formula sums the gradient
