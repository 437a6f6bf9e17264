// The autograd side of Tensor: grad(), grad_fn(), is_leaf(), output_nr(), _base(),
// retain_grad(), register_hook() (libtorch's names and rules).
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/autograd_meta.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay {

namespace detail {
inline const Tensor& undefined_tensor() {
  static const Tensor t;
  return t;
}
}  // namespace detail

inline const Tensor& Tensor::grad() const {
  const AutogradMeta* m = detail::autograd_meta(impl("grad"));
  return m ? m->grad_ : detail::undefined_tensor();
}

inline Tensor& Tensor::mutable_grad() const {
  return detail::materialize_autograd_meta(impl("mutable_grad")).grad_;
}

template <class>
const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const {
  return autograd::detail::grad_fn(impl("grad_fn"));
}

// A view's node may need regenerating first (its base was modified in place since).
template <class>
bool Tensor::is_leaf() const {
  const TensorImpl* self = impl("is_leaf");
  if (self->is_view()) return autograd::detail::grad_fn(self) == nullptr;
  const AutogradMeta* m = detail::autograd_meta(self);
  return !m || !m->grad_fn_;
}

inline void Tensor::set_data(const Tensor& new_data) const {
  TensorImpl* self = impl("set_data");
  TP_CHECK(new_data.defined(), "set_data(): the new data is an undefined tensor");
  TP_CHECK(!requires_grad() || tensorplay::is_floating_point(new_data.dtype()),
           "data set to a tensor that requires gradients must be floating point or complex dtype");
  // A leaf's AccumulateGrad checks gradients against the old dtype and device: drop it when they
  // change, so the next graph makes one for the new data (PyTorch does the same).
  if (self->autograd_meta() &&
      (new_data.dtype() != dtype() || new_data.device() != device())) {
    detail::materialize_autograd_meta(self).grad_accumulator_.reset();
  }
  self->shallow_copy_from(*new_data.unsafeGetTensorImpl());
}

inline int64_t Tensor::output_nr() const {
  const AutogradMeta* m = detail::autograd_meta(impl("output_nr"));
  return m ? m->output_nr_ : 0;
}

inline Tensor Tensor::_base() const {
  const TensorImpl* self = impl("_base");
  return self->is_view() ? Tensor(self->view_base()) : Tensor();
}

// A non-leaf keeps the gradient that reaches it in .grad (a leaf always does).
template <class>
void Tensor::retain_grad() const {
  TensorImpl* self = impl("retain_grad");
  TP_CHECK(requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  AutogradMeta& m = detail::materialize_autograd_meta(self);
  if (!m.grad_fn_ || m.retains_grad_) return;
  m.retains_grad_ = true;
  autograd::detail::grad_fn(self)->add_retain_grad(
      static_cast<uint32_t>(m.output_nr_),
      std::static_pointer_cast<AutogradMetaInterface>(self->autograd_meta()));
}

inline bool Tensor::retains_grad() const {
  const AutogradMeta* m = detail::autograd_meta(impl("retains_grad"));
  return m && m->retains_grad_;
}

template <class F>
unsigned Tensor::register_hook(F&& hook) const {
  TensorImpl* self = impl("register_hook");
  TP_CHECK(requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  autograd::hook_fn fn;
  if constexpr (std::is_void_v<std::invoke_result_t<F&, const Tensor&>>) {
    fn = [h = std::forward<F>(hook)](const Tensor& g) mutable {
      h(g);
      return Tensor();
    };
  } else {
    fn = [h = std::forward<F>(hook)](const Tensor& g) mutable { return Tensor(h(g)); };
  }
  AutogradMeta& m = detail::materialize_autograd_meta(self);
  if (const std::shared_ptr<autograd::Node>& node = autograd::detail::grad_fn(self)) {
    node->add_tensor_pre_hook(static_cast<uint32_t>(m.output_nr_), std::move(fn));
    return static_cast<unsigned>(node->tensor_pre_hooks().size() - 1);
  }
  m.leaf_hooks_.push_back(std::move(fn));
  return static_cast<unsigned>(m.leaf_hooks_.size() - 1);
}

}  // namespace tensorplay
