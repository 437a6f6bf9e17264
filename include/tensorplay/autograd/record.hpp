// Recording: what a differentiable op calls to join the graph (PyTorch's VariableType glue).
//
//   Tensor r = kernel(...);
//   if (auto fn = autograd::detail::make_node<ExpBackward0>(self)) {  // null unless recording
//     autograd::detail::set_history(r, fn);
//     fn->result_ = SavedVariable(r, /*is_output=*/true);
//   }
//
// In-place ops call check_inplace(self) before writing (inference tensors, leaves that require
// grad) and rebase_history(self, fn) after: on a view, that rewrites the base's history with a
// CopySlices node. View ops call record_view. out= variants call check_out_no_grad.
#pragma once

#include <memory>
#include <mutex>
#include <utility>

#include <tensorplay/autograd/functions/basic.hpp>
#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/saved_variable.hpp>
#include <tensorplay/core/autograd_meta.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay::autograd::detail {

using tensorplay::detail::autograd_meta;
using tensorplay::detail::materialize_autograd_meta;

// Whether an op with these inputs records a node: grad mode on and some input requires grad.
template <class... Ts>
bool any_requires_grad(const Ts&... inputs) {
  return GradMode::is_enabled() && ((inputs.defined() && inputs.requires_grad()) || ...);
}
inline bool any_requires_grad_list(ArrayRef<Tensor> inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs) {
    if (t.defined() && t.requires_grad()) return true;
  }
  return false;
}

inline std::mutex& accumulator_mutex() {
  static std::mutex m;
  return m;
}

// A leaf's AccumulateGrad, created on first use and shared by every graph that reaches the leaf.
template <class = void>
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  AutogradMeta& m = materialize_autograd_meta(leaf.unsafeGetTensorImpl());
  std::lock_guard<std::mutex> lock(accumulator_mutex());
  if (std::shared_ptr<Node> acc = m.grad_accumulator_.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(leaf);
  m.grad_accumulator_ = acc;
  return acc;
}
// The existing accumulator, or null (autograd::grad: a leaf no graph reached is unused).
inline std::shared_ptr<Node> try_get_grad_accumulator(const Tensor& leaf) {
  AutogradMeta* m = autograd_meta(leaf.unsafeGetTensorImpl());
  if (!m) return nullptr;
  std::lock_guard<std::mutex> lock(accumulator_mutex());
  return m->grad_accumulator_.lock();
}

// The view formulas (autograd/functions/views.hpp, included at the end of this file).
template <class = void>
ViewFn as_strided_grad(const Tensor& input, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
template <class = void>
ViewFn scatter_backward(IntArrayRef input_sizes, const char* name, ViewFn replay);
template <class = void>
ViewFn reshape_backward(IntArrayRef input_sizes);
template <class = void>
ViewFn permute_backward(IntArrayRef dims);
template <class = void>
ViewFn transpose_backward(int64_t dim0, int64_t dim1);
template <class = void>
Tensor zero_grad_like(const Tensor& g);

// The tensor's grad_fn. A view whose base was modified in place since its node was made gets a
// new one (AsStridedBackward0 from the base's current history), as PyTorch regenerates it.
template <class = void>
const std::shared_ptr<Node>& grad_fn(const TensorImpl* impl) {
  static const std::shared_ptr<Node> none;
  AutogradMeta* m = autograd_meta(impl);
  if (!m) return none;
  if (m->is_view_) {
    const uint32_t version = impl->version_counter().current_version();
    if (version != m->attr_version_) {
      m->attr_version_ = version;
      const Tensor& base = m->base_;
      if (base.requires_grad()) {
        auto node = std::make_shared<ViewBackward>(
            "AsStridedBackward0",
            as_strided_grad(base, impl->sizes(), impl->strides(), impl->storage_offset()));
        const TensorImpl* bi = base.unsafeGetTensorImpl();
        AutogradMeta* bm = autograd_meta(bi);
        node->add_next_edge(bm->grad_fn_ ? Edge(grad_fn(bi), bm->output_nr_)
                                         : Edge(grad_accumulator(base), 0));
        m->output_nr_ = node->add_input_metadata(impl->sizes(), impl->dtype());
        m->grad_fn_ = std::move(node);
      }
    }
  }
  return m->grad_fn_;
}

// Where a gradient for `t` goes: its grad_fn (and which output of it `t` is), a leaf's
// AccumulateGrad, or nowhere.
template <class = void>
Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return Edge();
  const TensorImpl* impl = t.unsafeGetTensorImpl();
  AutogradMeta* m = autograd_meta(impl);
  if (!m) return Edge();
  if (const std::shared_ptr<Node>& fn = grad_fn(impl)) return Edge(fn, m->output_nr_);
  if (m->requires_grad_) return Edge(grad_accumulator(t), 0);
  return Edge();
}

// A node of type NodeT (constructed from `args`) whose edges point at `inputs`, or null when
// nothing requires grad (or grad mode is off).
template <class NodeT, class... Ts>
std::shared_ptr<NodeT> make_node(const Ts&... inputs) {
  if (!any_requires_grad(inputs...)) return nullptr;
  auto fn = std::make_shared<NodeT>();
  fn->next_edges().reserve(sizeof...(Ts));
  (fn->add_next_edge(gradient_edge(inputs)), ...);
  return fn;
}
template <class NodeT>
std::shared_ptr<NodeT> make_node_list(ArrayRef<Tensor> inputs) {
  if (!any_requires_grad_list(inputs)) return nullptr;
  auto fn = std::make_shared<NodeT>();
  fn->next_edges().reserve(inputs.size());
  for (const Tensor& t : inputs) fn->add_next_edge(gradient_edge(t));
  return fn;
}

// `out` becomes the next output of `fn`. Non-floating outputs (indices, masks) get no history.
template <class = void>
void set_history(const Tensor& out, const std::shared_ptr<Node>& fn) {
  if (!out.defined()) return;
  TensorImpl* impl = out.unsafeGetTensorImpl();
  const uint32_t nr = fn->add_input_metadata(out);
  if (!tensorplay::is_floating_point(impl->dtype())) return;
  AutogradMeta& m = materialize_autograd_meta(impl);
  m.grad_fn_ = fn;
  m.output_nr_ = nr;
  if (m.is_view_) m.attr_version_ = impl->version_counter().current_version();
}

// Before an in-place write into `self` (or an out= write): PyTorch's refusals.
inline void check_inplace(const TensorImpl* impl) {
  TP_CHECK(!impl->is_inference() || InferenceMode::is_enabled(),
           "Inplace update to inference tensor outside InferenceMode is not allowed.You can make "
           "a clone to get a normal tensor before doing inplace update.See "
           "https://github.com/pytorch/rfcs/pull/17 for more details.");
  if (!GradMode::is_enabled()) return;
  const AutogradMeta* m = autograd_meta(impl);
  if (!m) return;
  if (m->is_view_) {
    const AutogradMeta* bm = autograd_meta(m->base_.unsafeGetTensorImpl());
    TP_CHECK(!(bm && bm->requires_grad_ && !bm->grad_fn_),
             "a view of a leaf Variable that requires grad is being used in an in-place "
             "operation.");
  } else {
    TP_CHECK(!(m->requires_grad_ && !m->grad_fn_),
             "a leaf Variable that requires grad is being used in an in-place operation.");
  }
}
inline void check_inplace(const Tensor& self) { check_inplace(self.unsafeGetTensorImpl()); }

// out= variants do not record: refuse inputs that require grad, as PyTorch does.
template <class... Ts>
void check_out_no_grad(const char* op, const Ts&... inputs) {
  TP_CHECK(!any_requires_grad(inputs...), op,
           "(): functions with out=... arguments don't support automatic differentiation, but "
           "one of the arguments requires grad.");
}

// After an in-place op recorded `fn` (whose first edge is self's previous history): self's new
// history. Through a view, the base takes a CopySlices node and the view's node is remade
// from the base's.
template <class = void>
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn) {
  TensorImpl* impl = self.unsafeGetTensorImpl();
  AutogradMeta* m = autograd_meta(impl);
  if (!m || !m->is_view_) return set_history(self, fn);
  const Tensor base = m->base_;
  auto copy_slices = std::make_shared<CopySlicesT<>>(base, self, fn);
  copy_slices->add_next_edge(gradient_edge(base));
  for (std::size_t i = 1; i < fn->num_outputs(); ++i) copy_slices->add_next_edge(fn->next_edge(i));
  set_history(base, copy_slices);
  m->attr_version_ = impl->version_counter().current_version() - 1;  // stale: remade on use
  m->grad_fn_.reset();
  (void)grad_fn(impl);
}

// A view op's history: `view` aliases `self`, `backward` maps the view's gradient to self's.
// Views are tracked only when `self` requires grad (views of tensors that do not are plain).
template <class = void>
void record_view(const Tensor& view, const Tensor& self, const char* name, ViewFn backward) {
  if (!GradMode::is_enabled() || !self.requires_grad()) return;
  auto node = std::make_shared<ViewBackward>(name, std::move(backward));
  node->add_next_edge(gradient_edge(self));
  TensorImpl* vi = view.unsafeGetTensorImpl();
  AutogradMeta& vm = materialize_autograd_meta(vi);
  const AutogradMeta* sm = autograd_meta(self.unsafeGetTensorImpl());
  vm.is_view_ = true;
  vm.base_ = sm->is_view_ ? sm->base_ : self;
  vm.attr_version_ = vi->version_counter().current_version();
  vm.output_nr_ = node->add_input_metadata(view);
  vm.grad_fn_ = std::move(node);
}

// zeros(base_sizes) with `grad` written through view_fn(zeros) (accumulating where the view
// overlaps itself): the gradient of a view's base. Differentiable (its node gathers through
// view_fn), so gradients of gradients through views exist to any order.
template <class>
Tensor view_scatter(const Tensor& grad, IntArrayRef base_sizes, const ViewFn& view_fn,
                    const char* name) {
  Tensor z;
  {
    NoGradGuard no_grad;
    z = empty(base_sizes, grad.options()).zero_();
    Tensor zv = view_fn(z);
    if (is_non_overlapping(zv.sizes(), zv.strides())) {
      zv.copy_(grad);
    } else {
      accumulate_into(zv, grad);
    }
  }
  if (GradMode::is_enabled() && grad.requires_grad()) {
    auto node = std::make_shared<ViewScatterBackwardT<>>(name, view_fn);
    node->add_next_edge(gradient_edge(grad));
    set_history(z, node);
  }
  return z;
}

// ---- the two shapes of a differentiable op ---------------------------------------------------
// Out of place: `compute()` returns the result; when recording, NodeT gets edges to `inputs`,
// the result's history, and `save(node, result)` stores what the formula needs. The kernel runs
// with recording off, so composite kernels built from other ops add no inner nodes.
template <class NodeT, class Compute, class Save>
Tensor run_recorded(const std::shared_ptr<NodeT>& fn, const Compute& compute, const Save& save) {
  if (!fn) return compute();
  Tensor result;
  {
    AutoGradMode off(false);
    result = compute();
  }
  set_history(result, fn);
  save(*fn, result);
  return result;
}
template <class NodeT, class Compute, class Save, class... Ts>
Tensor differentiable(const Compute& compute, const Save& save, const Ts&... inputs) {
  return run_recorded(make_node<NodeT>(inputs...), compute, save);
}
// The same for an op over a list of tensors (cat, stack): one edge per tensor.
template <class NodeT, class Compute, class Save>
Tensor differentiable_list(ArrayRef<Tensor> inputs, const Compute& compute, const Save& save) {
  return run_recorded(make_node_list<NodeT>(inputs), compute, save);
}

// In place on `self`: the refusals first; `save_before(node)` runs before the write (an
// original value the formula needs must be cloned there), `save_after(node)` after it.
template <class NodeT, class Compute, class SaveBefore, class SaveAfter, class... Ts>
const Tensor& differentiable_inplace(const Tensor& self, const Compute& compute,
                                     const SaveBefore& save_before, const SaveAfter& save_after,
                                     const Ts&... others) {
  check_inplace(self);
  std::shared_ptr<NodeT> fn = make_node<NodeT>(self, others...);
  if (!fn) {
    compute();
    return self;
  }
  save_before(*fn);
  {
    AutoGradMode off(false);
    compute();
  }
  save_after(*fn);
  rebase_history(self, fn);
  return self;
}

inline constexpr auto kSaveNothing = [](auto&&...) {};

}  // namespace tensorplay::autograd::detail

// as_strided_grad (declared above, for grad_fn's regenerated nodes) is defined with the other
// view formulas; that file includes this one, so it comes last.
#include <tensorplay/autograd/functions/views.hpp>
