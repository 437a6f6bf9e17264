// AutogradMeta: the autograd state behind TensorImpl::autograd_meta_, created only for tensors
// that need it (a tensor that never requires grad pays one null shared_ptr).
//
// Today it holds whether a leaf requires grad, which factories (TensorOptions::requires_grad)
// and requires_grad_() set and the printer reports; the autograd layer extends it with the
// gradient, grad_fn, output number and view tracking. It sits in core, not autograd/, because
// every factory must be able to create it: core and ops headers then work without the
// autograd layer (no hook to register). Copying a TensorImpl never carries it.
#pragma once

#include <memory>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay {

struct AutogradMeta final : AutogradMetaInterface {
  bool requires_grad_ = false;
  bool requires_grad() const override { return requires_grad_; }
};

inline const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  TensorImpl* self = impl("requires_grad_");
  TP_CHECK(!requires_grad || tensorplay::is_floating_point(self->dtype()),
           "only Tensors of floating point dtype can require gradients");
  if (!self->autograd_meta()) {
    if (!requires_grad) return *this;
    self->set_autograd_meta(std::make_shared<AutogradMeta>());
  }
  static_cast<AutogradMeta&>(*self->autograd_meta()).requires_grad_ = requires_grad;
  return *this;
}

namespace detail {
// The last step of the allocating factories (empty, empty_strided, from_blob), which every other
// factory goes through: options.requires_grad() makes the new tensor a leaf that requires grad
// (PyTorch's message for other dtypes). Factories that fill after allocating do so before the
// tensor escapes; once autograd refuses in-place writes to such leaves, they fill under a
// no-grad guard as PyTorch's do.
inline Tensor finish_factory(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) {
    TP_CHECK(tensorplay::is_floating_point(t.dtype()),
             "Only Tensors of floating point and complex dtype can require gradients");
    t.requires_grad_(true);
  }
  return t;
}
}  // namespace detail

}  // namespace tensorplay
