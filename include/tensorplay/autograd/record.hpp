// Recording: what a differentiable op calls to join the graph (PyTorch's VariableType glue).
//
//   Tensor r = kernel(...);
//   if (auto fn = autograd::detail::make_node<ExpBackward0>(self)) {  // null unless recording
//     autograd::detail::set_history(r, fn);
//     fn->result_ = SavedVariable(r, /*is_output=*/true);
//   }
//
// In-place ops call check_inplace(self) before writing (read-only storages, inference tensors,
// leaves that require grad) and rebase_history(self, fn) after: on a view, that rewrites the
// base's history with a CopySlices node. View ops call record_view. out= variants call
// check_out_no_grad.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include <tensorplay/autograd/functions/basic.hpp>
#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/saved_variable.hpp>
#include <tensorplay/core/aliasing_views.hpp>
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

// PyTorch's handle_view_on_rebase: a view made in no-grad or inference mode, or by a multi-view
// op, cannot have its history rewritten. `indirect`: its base or a sibling view was modified
// (found when grad_fn() regenerates), rather than the view itself.
template <class = void>
void handle_view_on_rebase(const TensorImpl* impl, bool indirect) {
  const CreationMeta creation = impl->creation_meta();
  if (creation == CreationMeta::DEFAULT) return;
  const AutogradMeta* m = autograd_meta(impl);
  const char* modified = indirect ? "its base or another view of its base has been" : "is being";
  std::string msg;
  if (m && m->grad_fn_) {
    msg = tensorplay::detail::str_cat("Output ", m->output_nr_, " of ", m->grad_fn_->name(), " is a view and ", modified,
              " modified inplace.");
  } else if (creation == CreationMeta::INFERENCE_MODE) {
    msg = tensorplay::detail::str_cat("A view was created in inference mode and ", modified, " modified inplace in normal mode.");
  } else {
    msg = tensorplay::detail::str_cat("A view was created in no_grad mode and ", modified,
              " modified inplace with grad mode enabled.");
  }
  if (creation == CreationMeta::MULTI_OUTPUT_NODE) {
    msg += " This view is the output of a function that returns multiple views. Such functions do "
           "not allow the output views to be modified inplace. You should replace the inplace "
           "operation by an out-of-place one.";
  } else {
    const char* block = creation == CreationMeta::NO_GRAD_MODE ? "no_grad" : "inference_mode";
    msg += tensorplay::detail::str_cat(" Given that this use case is ambiguous and error-prone, it is forbidden. You can "
               "clarify your code by moving both the view and the inplace either both inside the ",
               block, " block (if you don't want the inplace to be tracked) or both outside (if you "
               "want the inplace to be tracked).");
  }
  throw Error(msg);
}

// retain_grad() follows a tensor to its new node after an in-place op (PyTorch's
// update_tensor_hooks_on_new_gradfn): .grad is the gradient of the newest value.
inline void move_retained_grad(TensorImpl* impl, AutogradMeta& m, const std::shared_ptr<Node>& fn,
                               uint32_t nr) {
  if (!m.retains_grad_ || !m.grad_fn_ || m.grad_fn_ == fn) return;
  m.grad_fn_->remove_retain_grad(&m);
  fn->add_retain_grad(nr, std::weak_ptr<AutogradMetaInterface>(impl->autograd_meta()));
}

// The tensor's grad_fn. A view whose version moved since its node was made (an in-place write
// through it, its base or a sibling view) gets a new one, AsStridedBackward0 from the base's
// current history, as PyTorch regenerates it; a view that has none and whose base does not
// require grad has none.
template <class = void>
const std::shared_ptr<Node>& grad_fn(const TensorImpl* impl) {
  static const std::shared_ptr<Node> none;
  AutogradMeta* m = autograd_meta(impl);
  if (!impl->is_view()) return m ? m->grad_fn_ : none;
  const TensorImpl* bi = impl->view_base().get();
  if ((!m || !m->grad_fn_) && !bi->requires_grad()) return m ? m->grad_fn_ : none;
  const uint32_t version = impl->version_counter().current_version();
  if (version == (m ? m->attr_version_ : impl->view_version())) return m ? m->grad_fn_ : none;
  handle_view_on_rebase(impl, /*indirect=*/true);
  AutogradMeta& vm = materialize_autograd_meta(const_cast<TensorImpl*>(impl));
  const Tensor base(impl->view_base());
  auto node = std::make_shared<ViewBackward>(
      "AsStridedBackward0",
      as_strided_grad(base, impl->sizes(), impl->strides(), impl->storage_offset()));
  const AutogradMeta* bm = autograd_meta(bi);
  if (bm && bm->grad_fn_) {
    node->add_next_edge(Edge(bm->grad_fn_, bm->output_nr_));
  } else if (bm && bm->requires_grad_) {
    node->add_next_edge(Edge(grad_accumulator(base), 0));
  } else {
    node->add_next_edge(Edge());
  }
  const uint32_t nr = node->add_input_metadata(impl->sizes(), impl->dtype(), impl->device());
  move_retained_grad(const_cast<TensorImpl*>(impl), vm, node, nr);
  vm.output_nr_ = nr;
  vm.grad_fn_ = std::move(node);
  vm.attr_version_ = version;
  return vm.grad_fn_;
}

// Where a gradient for `t` goes: its grad_fn (and which output of it `t` is), a leaf's
// AccumulateGrad, or nowhere.
template <class = void>
Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return Edge();
  const TensorImpl* impl = t.unsafeGetTensorImpl();
  // A view without metadata may still have a node to regenerate (its base was modified).
  if (!autograd_meta(impl) && !impl->is_view()) return Edge();
  if (const std::shared_ptr<Node>& fn = grad_fn(impl)) return Edge(fn, autograd_meta(impl)->output_nr_);
  const AutogradMeta* m = autograd_meta(impl);
  if (m && m->requires_grad_) return Edge(grad_accumulator(t), 0);
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
// `move_retained`: false only for a base given CopySlices, whose retained gradient stays with
// its previous node, as PyTorch 1.13's set_gradient_edge leaves it.
template <class = void>
void set_history(const Tensor& out, const std::shared_ptr<Node>& fn, bool move_retained = true) {
  if (!out.defined()) return;
  TensorImpl* impl = out.unsafeGetTensorImpl();
  const uint32_t nr = fn->add_input_metadata(out);
  if (!tensorplay::is_floating_point(impl->dtype())) return;
  AutogradMeta& m = materialize_autograd_meta(impl);
  if (move_retained) move_retained_grad(impl, m, fn, nr);
  m.grad_fn_ = fn;
  m.output_nr_ = nr;
  if (impl->is_view()) m.attr_version_ = impl->version_counter().current_version();
}

// The refusal of a write into a read-only storage (cold, out of line).
[[noreturn]] __attribute__((noinline, cold)) inline void refuse_read_only_write() {
  throw Error(
      "cannot write to a read-only tensor: its storage is a read-only memory mapping (load it "
      "writable, or clone() it)");
}

// The rules for an in-place change of `impl` that writes no element (the in-place view ops:
// transpose_, t_, squeeze_, unsqueeze_, as_strided_ change only its geometry): check_inplace's,
// except the read-only storage refusal.
template <class = void>
void check_inplace_metadata(const TensorImpl* impl, bool records) {
  TP_CHECK(!impl->is_inference() || InferenceMode::is_enabled(),
           "Inplace update to inference tensor outside InferenceMode is not allowed.You can make "
           "a clone to get a normal tensor before doing inplace update.See "
           "https://github.com/pytorch/rfcs/pull/17 for more details.");
  if (!records || !GradMode::is_enabled()) return;
  if (impl->is_view()) handle_view_on_rebase(impl, /*indirect=*/false);
  if (!impl->requires_grad()) return;
  if (impl->is_view()) {
    // A view of a base with history is not a leaf (its node is the base's, regenerated), so
    // only the base decides here; the root base is never itself a view.
    const AutogradMeta* bm = autograd_meta(impl->view_base().get());
    TP_CHECK(bm && bm->grad_fn_,
             "a view of a leaf Variable that requires grad is being used in an in-place "
             "operation.");
    return;
  }
  const AutogradMeta* m = autograd_meta(impl);
  TP_CHECK(m && m->grad_fn_,
           "a leaf Variable that requires grad is being used in an in-place operation.");
}
// Before an in-place write into `self` (or an out= write): PyTorch's refusals. `records`: the
// op will record a node (grad mode on and some operand requires grad); only then do the leaf
// and view rules apply, as in PyTorch's check_inplace. Every element write into a caller's
// tensor passes here (in-place ops, the iterator's given outputs, the out= forms).
template <class = void>
void check_inplace(const TensorImpl* impl, bool records) {
  // First, for every write: a read-only storage (a read-only mapping) refuses, whatever view of
  // it is written. The storage's header is on the line the write reads its data pointer from.
  const StorageImpl* storage = impl->storage().unsafeGetStorageImpl();
  if (__builtin_expect(storage != nullptr && storage->read_only(), 0)) refuse_read_only_write();
  check_inplace_metadata(impl, records);
}
// A write into a caller's tensor by the iteration engine (in-place and out= ops): it records
// when the tensor itself requires grad (other operands are checked by the recording wrapper).
template <class = void>
void check_inplace(const Tensor& self) {
  check_inplace(self.unsafeGetTensorImpl(), self.requires_grad());
}

// out= variants do not record: refuse inputs that require grad, as PyTorch does.
template <class... Ts>
void check_out_no_grad(const char* op, const Ts&... inputs) {
  TP_CHECK(!any_requires_grad(inputs...), op,
           "(): functions with out=... arguments don't support automatic differentiation, but "
           "one of the arguments requires grad.");
}

// After an in-place op recorded `fn` (whose first edge is self's previous history): self's new
// history. Through a view, the base takes a CopySlices node (whether or not it required grad
// before: an in-place op with a grad-requiring operand gives the base history) and the view's
// node is remade from the base's.
template <class = void>
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn) {
  TensorImpl* impl = self.unsafeGetTensorImpl();
  if (!impl->is_view()) return set_history(self, fn);
  const Tensor base(impl->view_base());
  auto copy_slices = std::make_shared<CopySlicesT<>>(base, self, fn);
  copy_slices->add_next_edge(gradient_edge(base));
  for (std::size_t i = 1; i < fn->num_outputs(); ++i) copy_slices->add_next_edge(fn->next_edge(i));
  set_history(base, copy_slices, /*move_retained=*/false);
  AutogradMeta& m = materialize_autograd_meta(impl);
  m.attr_version_ = impl->version_counter().current_version() - 1;  // stale: remade now
  (void)grad_fn(impl);
}

// A view op's history when `self` requires grad: `backward` maps the view's gradient to
// self's. (Every view knows its base already; see make_alias.)
template <class = void>
void record_view(const Tensor& view, const Tensor& self, const char* name, ViewFn backward) {
  if (!GradMode::is_enabled() || !self.requires_grad()) return;
  auto node = std::make_shared<ViewBackward>(name, std::move(backward));
  node->add_next_edge(gradient_edge(self));
  TensorImpl* vi = view.unsafeGetTensorImpl();
  AutogradMeta& vm = materialize_autograd_meta(vi);
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
    tensorplay::detail::AliasingViewsGuard write_through;
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
  // An integral or bool self cannot carry a gradient: such a write neither records nor is
  // refused by the autograd rules (PyTorch's copy_: requires_grad &= isDifferentiableType).
  const bool records = any_requires_grad(self, others...) && is_floating_point(self.dtype());
  check_inplace(self.unsafeGetTensorImpl(), records);
  std::shared_ptr<NodeT> fn = records ? make_node<NodeT>(self, others...) : nullptr;
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
