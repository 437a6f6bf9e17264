// The nodes every graph uses, whatever the ops: AccumulateGrad (a leaf's sink), GraphRoot (the
// gradients backward() starts from), ViewBackward (one class for every view op, named after
// it), its own derivative ViewScatterBackward, and CopySlices (an in-place op through a view,
// rewritten as an op on the base).
//
// Class templates with a defaulted parameter: their bodies use ops, and a file instantiates them
// only if it records a graph.
#pragma once

#include <algorithm>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/saved_variable.hpp>
#include <tensorplay/core/aliasing_views.hpp>
#include <tensorplay/core/autograd_meta.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/ops/dispatch.hpp>

namespace tensorplay::autograd {

// ---- AccumulateGrad ---------------------------------------------------------------------------
// Holds its leaf strongly (the leaf holds it weakly: no cycle). Runs the leaf's hooks, then
// stores or adds the gradient into .grad: a fresh, dense gradient nobody else holds is stolen,
// anything else is cloned; later gradients are added in place (out of place under create_graph,
// so the sum keeps its history).
template <class = void>
struct AccumulateGradT final : Node {
  explicit AccumulateGradT(Tensor variable) : variable_(std::move(variable)) {
    add_input_metadata(variable_);
  }
  std::string name() const override { return "AccumulateGrad"; }

  variable_list apply(variable_list&& grads) override {
    Tensor g = std::move(grads.at(0));
    if (!g.defined()) return {};
    AutogradMeta& m =
        tensorplay::detail::materialize_autograd_meta(variable_.unsafeGetTensorImpl());
    for (const auto& hook : m.leaf_hooks_) {
      Tensor r = hook(g);
      if (r.defined()) g = std::move(r);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!m.grad_.defined()) {
      const bool stealable = !GradMode::is_enabled() && g.use_count() == 1 &&
                             g.storage().use_count() == 1 && !g.requires_grad() &&
                             obeys_layout_contract(g);
      m.grad_ = stealable ? std::move(g) : clone_obey_contract(g);
    } else if (!GradMode::is_enabled()) {
      m.grad_.add_(g);
    } else {
      m.grad_ = m.grad_.add(g);
    }
    return {};
  }

  const Tensor& variable() const noexcept { return variable_; }

  // PyTorch's gradient layout contract: a leaf that is non-overlapping and dense gets a .grad
  // with its own strides (a transposed leaf, a transposed gradient; size-1 dims may differ);
  // any other leaf gets a contiguous one.
  // A leaf whose shape changed in place (under no_grad) since its graph was made takes the
  // gradient in the graph's shape, as it comes (PyTorch compares the gradient's dims only).
  bool obeys_layout_contract(const Tensor& g) const {
    if (g.sizes() != variable_.sizes()) return g.is_non_overlapping_and_dense();
    if (!variable_.is_non_overlapping_and_dense()) return g.is_contiguous();
    const IntArrayRef sizes = g.sizes(), strides = g.strides(), want = variable_.strides();
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] != 1 ? strides[d] != want[d] : strides[d] == 0) return false;
    }
    return true;
  }
  Tensor clone_obey_contract(const Tensor& g) const {
    if (g.sizes() != variable_.sizes()) return g.clone();
    if (!variable_.is_non_overlapping_and_dense()) return g.clone(MemoryFormat::Contiguous);
    Tensor out = empty_strided(variable_.sizes(), variable_.strides(), g.options());
    out.copy_(g);  // recorded under create_graph, as PyTorch's new_empty_strided().copy_()
    return out;
  }

 private:
  Tensor variable_;
  std::mutex mutex_;
};
using AccumulateGrad = AccumulateGradT<>;

// ---- GraphRoot: returns the gradients backward() was given ------------------------------------
struct GraphRoot final : Node {
  GraphRoot(edge_list edges, variable_list grads) : grads_(std::move(grads)) {
    next_edges_ = std::move(edges);
  }
  std::string name() const override { return "GraphRoot"; }
  variable_list apply(variable_list&&) override { return grads_; }

 private:
  variable_list grads_;
};

namespace detail {

using ViewFn = std::function<Tensor(const Tensor&)>;

// Whether no two elements of a geometry share a storage position.
inline bool is_non_overlapping(IntArrayRef sizes, IntArrayRef strides) {
  struct Dim {
    int64_t stride, size;
  };
  SmallVector<Dim, 6> dims;  // the non-trivial dims
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return true;
    if (sizes[d] != 1) dims.push_back({strides[d] < 0 ? -strides[d] : strides[d], sizes[d]});
  }
  std::sort(dims.begin(), dims.end(),
            [](const Dim& a, const Dim& b) { return a.stride < b.stride; });
  int64_t extent = 1;  // one past the largest offset the inner dims reach
  for (const Dim& d : dims) {
    if (d.stride < extent) return false;
    extent = d.stride * (d.size - 1) + extent;
  }
  return true;
}

// dst[i] += src[i] for every element of an overlapping view `dst` (aliases accumulate).
template <class = void>
void accumulate_into(const Tensor& dst, const Tensor& src) {
  const Tensor s = src.to(dst.dtype()).contiguous();
  const int64_t n = dst.numel(), nd = dst.dim();
  const IntArrayRef sizes = dst.sizes(), strides = dst.strides();
  dispatch_dtype(dst.dtype(), [&]<class T>() {
    T* base = static_cast<T*>(dst.data_ptr());
    const T* in = static_cast<const T*>(s.data_ptr());
    SmallVector<int64_t, 6> idx(static_cast<std::size_t>(nd), 0);
    int64_t off = 0;
    for (int64_t i = 0; i < n; ++i) {
      base[off] = static_cast<T>(base[off] + in[i]);
      for (int64_t d = nd - 1; d >= 0; --d) {
        if (++idx[d] < sizes[d]) {
          off += strides[d];
          break;
        }
        off -= strides[d] * (sizes[d] - 1);
        idx[d] = 0;
      }
    }
  });
}

template <class = void>
Tensor view_scatter(const Tensor& grad, IntArrayRef base_sizes, const ViewFn& view_fn,
                    const char* name);

}  // namespace detail

// ---- ViewBackward ----------------------------------------------------------------------------
// The node of a view op (SelectBackward0, TransposeBackward0, ...): `backward_` maps the view's
// gradient to the base's. Most views scatter into zeros through a replay of the view op
// (detail::view_scatter); reshapes, permutations and expand have direct inverses.
template <class = void>
struct ViewBackwardT final : Node {
  ViewBackwardT(const char* name, detail::ViewFn backward)
      : name_(name), backward_(std::move(backward)) {}
  std::string name() const override { return name_; }
  variable_list apply(variable_list&& grads) override {
    if (!grads.at(0).defined()) return {Tensor()};
    return {backward_(grads[0])};
  }

 private:
  const char* name_;
  detail::ViewFn backward_;
};
using ViewBackward = ViewBackwardT<>;

// The derivative of a scatter through a view: the view itself (gather), so gradients of
// gradients through views exist to any order.
template <class = void>
struct ViewScatterBackwardT final : Node {
  ViewScatterBackwardT(const char* view_name, detail::ViewFn view_fn)
      : view_name_(view_name), view_fn_(std::move(view_fn)) {}
  std::string name() const override {
    std::string n(view_name_);
    if (!n.empty() && n.back() == '0') n.pop_back();
    return n + "Backward0";  // SelectBackward0 -> SelectBackwardBackward0, as PyTorch names it
  }
  variable_list apply(variable_list&& grads) override {
    if (!grads.at(0).defined()) return {Tensor()};
    return {view_fn_(grads[0])};
  }

 private:
  const char* view_name_;
  detail::ViewFn view_fn_;
};

// ---- CopySlices ------------------------------------------------------------------------------
// base.grad_fn after an in-place op `fn` wrote through a view of it: the gradient of the base is
// the incoming one, except at the view's elements, where fn's gradient for its first input
// replaces it. Geometry is kept in storage space, relative to the base.
template <class = void>
struct CopySlicesT final : Node {
  CopySlicesT(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn)
      : base_sizes_(base.sizes().vec()),
        base_strides_(base.strides().vec()),
        view_sizes_(view.sizes().vec()),
        view_strides_(view.strides().vec()),
        view_offset_(view.storage_offset() - base.storage_offset()),
        options_(base.options()),
        fn_(std::move(fn)) {}
  std::string name() const override { return "CopySlices"; }

  variable_list apply(variable_list&& grads) override {
    variable_list out(num_outputs());
    const Tensor& g = grads.at(0);
    if (!g.defined()) return out;
    Tensor result = empty_strided(base_sizes_, base_strides_, g.options());
    result.copy_(g);
    // The slice is part of result on every device (an alias that stays in this function).
    auto slice = [&] {
      tensorplay::detail::AliasingViewsGuard write_through;
      return result.as_strided(view_sizes_, view_strides_, view_offset_);
    };
    variable_list res = (*fn_)({slice().clone(MemoryFormat::Contiguous)});
    if (!res.empty() && res[0].defined()) {
      slice().copy_(res[0]);
    } else {
      slice().zero_();
    }
    out[0] = std::move(result);
    for (std::size_t i = 1; i < res.size() && i < out.size(); ++i) out[i] = std::move(res[i]);
    return out;
  }
  void release_variables() override { fn_->release_variables(); }
  const std::shared_ptr<Node>& fn() const noexcept { return fn_; }

 private:
  std::vector<int64_t> base_sizes_, base_strides_, view_sizes_, view_strides_;
  int64_t view_offset_;
  TensorOptions options_;
  std::shared_ptr<Node> fn_;
};

}  // namespace tensorplay::autograd
