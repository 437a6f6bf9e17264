// Backward formulas of the view ops, the copies and indexing (PyTorch's derivatives.yaml).
//
// A view op records a ViewBackward (autograd/functions/basic.hpp) named after it; what it
// needs from here is the function mapping the view's gradient to its input's:
//  - scatter_backward: zeros of the input's shape with the gradient written through a replay of
//    the view op (select, slice, diagonal, unfold, expand...; aliases accumulate), so any view
//    whose geometry a replay reproduces is covered by one formula;
//  - reshape_backward and permute_backward: direct inverses (no zeros, no scatter);
//  - as_strided_grad: in storage space, for as_strided itself.
// Multi-output views (split, unbind) share one node, as in PyTorch. The copies and indexing
// nodes follow. Every formula is written with view ops and other recorded ops, so gradients of
// gradients exist. Only ops whose definitions every includer of ops/as_strided.hpp already has
// (views, copies, empty) are used here: ops/as_strided.hpp includes this file, and anything
// else (sum, add, div) would drag the reduction or binary kernels into every translation unit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <tensorplay/autograd/functions/basic.hpp>
#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/aliasing_views.hpp>
#include <tensorplay/core/autograd_meta.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay::autograd {

namespace detail {

// The input's gradient of a view that `replay` reproduces on a tensor of the input's shape.
template <class>
ViewFn scatter_backward(IntArrayRef input_sizes, const char* name, ViewFn replay) {
  return [sizes = input_sizes.vec(), name, replay = std::move(replay)](const Tensor& g) {
    return view_scatter(g, sizes, replay, name);
  };
}

// Views that only regroup the elements (view, reshape, squeeze, unsqueeze, flatten): the
// gradient regrouped back.
template <class>
ViewFn reshape_backward(IntArrayRef input_sizes) {
  return [sizes = input_sizes.vec()](const Tensor& g) { return g.reshape(sizes); };
}

// permute(dims): the gradient permuted by the inverse permutation.
template <class>
ViewFn permute_backward(IntArrayRef dims) {
  std::vector<int64_t> inverse(dims.size());
  const auto n = static_cast<int64_t>(dims.size());
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = dims[static_cast<std::size_t>(i)];
    inverse[static_cast<std::size_t>(d < 0 ? d + n : d)] = i;
  }
  return [inverse = std::move(inverse)](const Tensor& g) { return g.permute(inverse); };
}

template <class>
ViewFn transpose_backward(int64_t dim0, int64_t dim1) {
  return [dim0, dim1](const Tensor& g) { return g.transpose(dim0, dim1); };
}

// One past the last storage element a geometry reaches, relative to its offset (0: none).
inline int64_t storage_extent(IntArrayRef sizes, IntArrayRef strides) {
  int64_t extent = 1;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    extent += (sizes[d] - 1) * strides[d];
  }
  return extent;
}

// as_strided's gradient in storage space: the storage range both geometries touch receives the
// output's gradient at the output's positions (accumulating where it overlaps itself), and the
// input's gradient is that range read through the input's geometry. The output may reach
// storage outside the input (as_strided addresses the whole storage); those elements belong to
// no input element and are dropped. Offsets are absolute, as as_strided's are. Also the node of
// a view whose base was modified in place since (record.hpp's grad_fn).
template <class>
ViewFn as_strided_grad(const Tensor& input, IntArrayRef sizes, IntArrayRef strides,
                       int64_t offset) {
  const int64_t in_offset = input.storage_offset();
  const int64_t in_end = in_offset + storage_extent(input.sizes(), input.strides());
  const int64_t out_end = offset + storage_extent(sizes, strides);
  const int64_t lo = std::min(in_offset, offset), hi = std::max(in_end, out_end);
  auto replay = [sizes = sizes.vec(), strides = strides.vec(), rel = offset - lo](const Tensor& t) {
    const Tensor s = t.contiguous();
    return s.as_strided(sizes, strides, s.storage_offset() + rel);
  };
  // An input whose elements share memory (an expanded tensor) would need its gradient divided
  // among the aliases; that is not implemented, and a wrong gradient is worse than an error.
  const bool input_overlaps = !is_non_overlapping(input.sizes(), input.strides());
  return
      [span = hi - lo, replay = std::move(replay), in_sizes = input.sizes().vec(),
       in_strides = input.strides().vec(), rel = in_offset - lo, input_overlaps](const Tensor& g) {
        TP_CHECK_NOT_IMPLEMENTED(!input_overlaps,
                                 "the derivative of as_strided for an input whose elements overlap "
                                 "in memory (e.g. an expanded tensor) is not implemented; call "
                                 ".contiguous() on the input first");
        Tensor flat = view_scatter(g, {span}, replay, "AsStridedBackward0");
        return flat.as_strided(in_sizes, in_strides, flat.storage_offset() + rel);
      };
}

// ---- the funnel's recording side -----------------------------------------------------------

// Whether a view of `self` joins the graph (PyTorch tracks views of tensors that require grad).
inline bool records_view(const Tensor& self) {
  return GradMode::is_enabled() && self.requires_grad();
}

// Multi-output views (split, unbind): one node, output i is piece i.
template <class = void>
struct MultiViewBackwardT;

// The derivative of MultiViewBackward: each piece's gradient is the replay of its view on the
// incoming gradient of the whole (one edge per piece that had a gradient).
template <class = void>
struct PiecesBackwardT final : Node {
  PiecesBackwardT(const char* name, std::vector<ViewFn> replays)
      : name_(name), replays_(std::move(replays)) {}
  std::string name() const override {
    std::string n(name_);
    if (!n.empty() && n.back() == '0') n.pop_back();
    return n + "Backward0";
  }
  variable_list apply(variable_list&& grads) override {
    variable_list out(replays_.size());
    if (!grads.at(0).defined()) return out;
    for (std::size_t i = 0; i < replays_.size(); ++i) {
      if (should_compute_output(i)) out[i] = replays_[i](grads[0]);
    }
    return out;
  }

 private:
  const char* name_;
  std::vector<ViewFn> replays_;  // one per edge
};

template <class>
struct MultiViewBackwardT final : Node {
  MultiViewBackwardT(const char* name, IntArrayRef input_sizes, std::vector<ViewFn> replays)
      : name_(name), sizes_(input_sizes.vec()), replays_(std::move(replays)) {}
  std::string name() const override { return name_; }
  // Zeros of the input's shape, each defined piece gradient written through its replay
  // (undefined ones are zero). Pieces of split and unbind never overlap.
  variable_list apply(variable_list&& grads) override {
    const Tensor* any = nullptr;
    bool differentiable = false;
    for (const Tensor& g : grads) {
      if (!g.defined()) continue;
      if (!any) any = &g;
      differentiable = differentiable || g.requires_grad();
    }
    if (!any) return {Tensor()};
    Tensor z;
    {
      NoGradGuard no_grad;
      tensorplay::detail::AliasingViewsGuard write_through;
      z = empty(sizes_, any->options()).zero_();
      for (std::size_t i = 0; i < grads.size(); ++i) {
        if (grads[i].defined()) replays_[i](z).copy_(grads[i]);
      }
    }
    if (differentiable && GradMode::is_enabled()) {
      std::vector<ViewFn> used;
      for (std::size_t i = 0; i < grads.size(); ++i) {
        if (grads[i].defined()) used.push_back(replays_[i]);
      }
      auto node = std::make_shared<PiecesBackwardT<>>(name_, std::move(used));
      for (const Tensor& g : grads) {
        if (g.defined()) node->add_next_edge(gradient_edge(g));
      }
      set_history(z, node);
    }
    return {z};
  }

 private:
  const char* name_;
  std::vector<int64_t> sizes_;
  std::vector<ViewFn> replays_;  // one per output
};

// `pieces` alias `self`, piece i being replays[i](self): one node for all of them.
template <class = void>
void record_multi_view(const std::vector<Tensor>& pieces, const Tensor& self, const char* name,
                       std::vector<ViewFn> replays) {
  if (!records_view(self)) return;
  auto node = std::make_shared<MultiViewBackwardT<>>(name, self.sizes(), std::move(replays));
  node->add_next_edge(gradient_edge(self));
  for (const Tensor& piece : pieces) {
    TensorImpl* vi = piece.unsafeGetTensorImpl();
    AutogradMeta& vm = materialize_autograd_meta(vi);
    vm.attr_version_ = vi->version_counter().current_version();
    vm.output_nr_ = node->add_input_metadata(piece);
    vm.grad_fn_ = node;
  }
}

// In-place view ops (transpose_, t_, squeeze_, unsqueeze_, as_strided_) change self's geometry:
// an in-place op for the leaf rules, and a new node whose edge is self's history before the
// change (PyTorch's TransposeBackward1, ...). A view keeps its base; its base's history is not
// rewritten (no element changed). begin_ runs before the change, end_ after the version bump.
template <class MakeBackward>
std::shared_ptr<Node> begin_inplace_view(const Tensor& self, const char* name,
                                         MakeBackward&& make_backward) {
  const bool records = records_view(self);
  check_inplace_metadata(self.unsafeGetTensorImpl(), records);  // no element is written
  if (!records) return nullptr;
  auto node = std::make_shared<ViewBackward>(name, make_backward());
  node->add_next_edge(gradient_edge(self));
  return node;
}
template <class = void>
void end_inplace_view(const Tensor& self, const std::shared_ptr<Node>& node) {
  if (node) set_history(self, node);
}

// zeros(sizes) with `values` accumulated at the elements `indices` address: the gradient of
// index(). `scatter(z, g)` does the accumulation; its derivative is `gather(gg)`.
template <class = void>
struct IndexScatterBackwardT final : Node {
  explicit IndexScatterBackwardT(ViewFn gather) : gather_(std::move(gather)) {}
  TENSORPLAY_NODE_NAME_(IndexPutBackward0)
  variable_list apply(variable_list&& grads) override {
    if (!grads.at(0).defined()) return {Tensor()};
    return {gather_(grads[0])};
  }

 private:
  ViewFn gather_;
};

}  // namespace detail

// ---- copies ----------------------------------------------------------------------------------

template <class = void>
struct CloneBackward0T final : Node {  // clone, contiguous (when it copies)
  TENSORPLAY_NODE_NAME_(CloneBackward0)
  variable_list apply(variable_list&& grads) override { return {grads[0]}; }
};
using CloneBackward0 = CloneBackward0T<>;

template <class = void>
struct ToCopyBackward0T final : Node {  // to(): the engine converts the gradient back
  TENSORPLAY_NODE_NAME_(ToCopyBackward0)
  variable_list apply(variable_list&& grads) override { return {grads[0]}; }
};
using ToCopyBackward0 = ToCopyBackward0T<>;

// reshape's copying path: reshape of a clone; the node of the reshape step (not a view).
template <class = void>
struct UnsafeViewBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(UnsafeViewBackward0)
  std::vector<int64_t> self_sizes_;
  variable_list apply(variable_list&& grads) override { return {grads[0].reshape(self_sizes_)}; }
};
using UnsafeViewBackward0 = UnsafeViewBackward0T<>;

namespace detail {
// A zero gradient of the given shape (the overwritten self of copy_, fill_, zero_). Not
// grad.mul(0): that would turn an infinite gradient into NaN.
template <class>
Tensor zero_grad_like(const Tensor& g) {
  NoGradGuard no_grad;
  return empty(g.sizes(), g.options()).zero_();
}
}  // namespace detail

// self.copy_(src): self's old value is gone (zero gradient), src receives the gradient (the
// engine sums it back to src's shape and converts it to src's dtype). PyTorch's class is
// torch::autograd::CopyBackwards.
template <class = void>
struct CopyBackwardsT final : Node {
  TENSORPLAY_NODE_NAME_(CopyBackwards)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {should_compute_output(0) ? detail::zero_grad_like(g) : Tensor(),
            should_compute_output(1) ? g : Tensor()};
  }
};
using CopyBackwards = CopyBackwardsT<>;

template <class = void>
struct FillBackward2T final : Node {  // fill_(Scalar)
  TENSORPLAY_NODE_NAME_(FillBackward2)
  variable_list apply(variable_list&& grads) override { return {detail::zero_grad_like(grads[0])}; }
};
using FillBackward2 = FillBackward2T<>;

// fill_(Tensor value), fill(self, Scalar), fill(self, Tensor value): self's old value is gone;
// a 0-d value was written everywhere, so it receives the sum of the gradient.
template <class = void>
struct FillBackward3T final : Node {  // fill_(Tensor value)
  TENSORPLAY_NODE_NAME_(FillBackward3)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {should_compute_output(0) ? detail::zero_grad_like(g) : Tensor(),
            should_compute_output(1) ? g.sum() : Tensor()};
  }
};
using FillBackward3 = FillBackward3T<>;

template <class = void>
struct FillBackward0T final : Node {  // fill(self, Scalar)
  TENSORPLAY_NODE_NAME_(FillBackward0)
  variable_list apply(variable_list&& grads) override { return {detail::zero_grad_like(grads[0])}; }
};
using FillBackward0 = FillBackward0T<>;

template <class = void>
struct FillBackward1T final : Node {  // fill(self, Tensor value)
  TENSORPLAY_NODE_NAME_(FillBackward1)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {should_compute_output(0) ? detail::zero_grad_like(g) : Tensor(),
            should_compute_output(1) ? g.sum() : Tensor()};
  }
};
using FillBackward1 = FillBackward1T<>;

template <class = void>
struct ZeroBackward0T final : Node {  // zero_
  TENSORPLAY_NODE_NAME_(ZeroBackward0)
  variable_list apply(variable_list&& grads) override { return {detail::zero_grad_like(grads[0])}; }
};
using ZeroBackward0 = ZeroBackward0T<>;

// ---- indexing --------------------------------------------------------------------------------
// Both save `gather` (the advanced indexing of a tensor shaped like the indexed view) and
// `scatter` (an accumulating index_put_ into zeros of that shape), written in ops/indexing.hpp.

template <class = void>
struct IndexBackward0T final : Node {  // index(Tensor?[] indices)
  TENSORPLAY_NODE_NAME_(IndexBackward0)
  std::function<Tensor(const Tensor&)> scatter_;  // grad -> zeros with grad accumulated
  variable_list apply(variable_list&& grads) override { return {scatter_(grads[0])}; }
};
using IndexBackward0 = IndexBackward0T<>;

template <class = void>
struct IndexPutBackward0T final : Node {  // index_put_(indices, values, accumulate=false)
  TENSORPLAY_NODE_NAME_(IndexPutBackward0)
  std::function<Tensor(const Tensor&)> gather_;        // grad -> grad[indices]
  std::function<Tensor(const Tensor&)> mask_written_;  // grad -> grad with grad[indices] = 0
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {should_compute_output(0) ? mask_written_(g) : Tensor(),
            should_compute_output(1) ? gather_(g) : Tensor()};
  }
};
using IndexPutBackward0 = IndexPutBackward0T<>;

// The dim and index every dim-indexed node saves (index_fill here; gather, the scatters,
// index_select/add/copy, take and put in autograd/functions/indexing.hpp).
struct DimIndexNode : Node {
  int64_t dim_ = 0;
  SavedVariable index_;
  void save(int64_t dim, const Tensor& index) {
    dim_ = dim;
    index_ = SavedVariable(index, false);
  }
  void release_variables() override { index_.reset_data(); }
  Tensor index() { return index_.unpack(shared_from_this()); }
};

// index_fill(dim, index, value): the filled positions no longer depend on self. Edges: self, and
// for IndexFillBackward1 the 0-d value, which receives the gradient summed over the filled
// positions (each counted once, however often the index repeats it).

template <class = void>
struct IndexFillBackward0T final : DimIndexNode {  // index_fill(self, dim, index, Scalar)
  TENSORPLAY_NODE_NAME_(IndexFillBackward0)
  variable_list apply(variable_list&& grads) override {
    return {grads[0].index_fill(dim_, index(), 0)};
  }
};
using IndexFillBackward0 = IndexFillBackward0T<>;

template <class = void>
struct IndexFillBackward1T final : DimIndexNode {  // index_fill(self, dim, index, Tensor)
  TENSORPLAY_NODE_NAME_(IndexFillBackward1)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const Tensor idx = index();
    Tensor self_grad, value_grad;
    if (should_compute_output(0)) self_grad = g.index_fill(dim_, idx, 0);
    if (should_compute_output(1)) {
      Tensor filled;
      {
        NoGradGuard no_grad;
        filled = empty(g.sizes(), g.options().dtype(kBool));
        filled.zero_();
        filled.index_fill_(dim_, idx, true);
      }
      value_grad = g.where(filled, 0).sum();
    }
    return {self_grad, value_grad};
  }
};
using IndexFillBackward1 = IndexFillBackward1T<>;

}  // namespace tensorplay::autograd
