// AutogradMeta: the autograd state behind TensorImpl::autograd_meta_, created only for tensors
// that need it (a tensor that never requires grad pays one null shared_ptr).
//
// It holds what PyTorch's AutogradMeta and DifferentiableViewMeta hold: whether a leaf requires
// grad, its accumulated gradient, the node that produced the tensor (grad_fn) and which of that
// node's outputs it is, whether a non-leaf retains its gradient, hooks on a leaf, and for a view
// of a tensor that requires grad, the base it aliases. It sits in core because every factory
// must be able to create it; the graph types it points to (autograd/node.hpp) are only declared
// here. Copying a TensorImpl never carries it (the spec's copy constructor).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay {

namespace autograd {
struct Node;
}  // namespace autograd

struct AutogradMeta final : AutogradMetaInterface {
  Tensor grad_;                                     // the accumulated gradient (.grad)
  std::shared_ptr<autograd::Node> grad_fn_;         // null for leaves
  std::weak_ptr<autograd::Node> grad_accumulator_;  // a leaf's AccumulateGrad, made lazily
  std::vector<std::function<Tensor(const Tensor&)>> leaf_hooks_;  // run before accumulation
  uint32_t output_nr_ = 0;
  bool requires_grad_ = false;  // a leaf's flag; a non-leaf requires grad through grad_fn_
  bool retains_grad_ = false;
  // For a view (TensorImpl::view_base() holds its root base): the version when grad_fn_ was
  // last computed. An in-place op through another view of the same base moves the shared
  // version; grad_fn() then regenerates this view's node from the base's history.
  uint32_t attr_version_ = 0;

  bool requires_grad() const override { return requires_grad_ || grad_fn_ != nullptr; }
};

namespace detail {
inline AutogradMeta* autograd_meta(const TensorImpl* impl) noexcept {
  return static_cast<AutogradMeta*>(impl->autograd_meta().get());
}
// A view's metadata starts from the version the view was made at: its (absent) history was
// current then.
inline AutogradMeta& materialize_autograd_meta(TensorImpl* impl) {
  if (!impl->autograd_meta()) {
    auto meta = std::make_shared<AutogradMeta>();
    if (impl->is_view()) meta->attr_version_ = impl->view_version();
    impl->set_autograd_meta(std::move(meta));
  }
  return *autograd_meta(impl);
}
}  // namespace detail

inline const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  TensorImpl* self = impl("requires_grad_");
  TP_CHECK(!requires_grad || tensorplay::is_floating_point(self->dtype()),
           "Only Tensors of floating point and complex dtype can require gradients");
  AutogradMeta* meta = detail::autograd_meta(self);
  if (meta && meta->grad_fn_) {
    TP_CHECK(requires_grad,
             "you can only change requires_grad flags of leaf variables. If you want to use a "
             "computed variable in a subgraph that doesn't require differentiation use "
             "var_no_grad = var.detach().");
    return *this;  // a non-leaf already requires grad
  }
  if (!meta) {
    if (!requires_grad) return *this;
    meta = &detail::materialize_autograd_meta(self);
  }
  meta->requires_grad_ = requires_grad;
  return *this;
}

namespace detail {
// The last step of the allocating factories (empty, empty_strided, from_blob), which every other
// factory goes through: options.requires_grad() makes the new tensor a leaf that requires grad
// (PyTorch's message for other dtypes). Factories that fill after allocating do so before the
// tensor escapes, so the leaf rule for in-place writes never sees them.
inline Tensor finish_factory(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) {
    TP_CHECK(tensorplay::is_floating_point(t.dtype()),
             "Only Tensors of floating point and complex dtype can require gradients");
    t.requires_grad_(true);
  }
  return t;
}
}  // namespace detail

// Not a view in PyTorch's sense (_is_view() is false): a new TensorImpl on the same bytes and
// version counter, with no autograd history.
inline Tensor Tensor::detach() const { return Tensor(impl("detach")->shallow_copy_and_detach()); }

// Drops the autograd history of this very tensor: no grad_fn, no longer requiring grad; an
// accumulated .grad stays, as in PyTorch. A view's history is tied to its base, so PyTorch
// refuses to cut it in place.
inline Tensor& Tensor::detach_() {
  TensorImpl* self = impl("detach_");
  TP_CHECK(!self->is_view(),
           "Can't detach views in-place. Use detach() instead. If you are using "
           "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
           "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
           "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
           "function in torch/optim/optimizer.py as the solution.");
  if (AutogradMeta* m = detail::autograd_meta(self)) {
    m->grad_fn_.reset();
    m->requires_grad_ = false;
    m->output_nr_ = 0;
  }
  return *this;
}

}  // namespace tensorplay
