// Backward formulas of the index families (PyTorch's derivatives.yaml): gather and the scatters
// along a dim, index_select/index_add/index_copy, take/put_, masked_select/masked_scatter.
// Class templates with a defaulted parameter and PyTorch's names; see pointwise.hpp.
//
// Every formula is written with recorded ops (scatter_add and gather are each other's
// gradient, index_add and index_select, put_ and take, masked_scatter and masked_select), so
// gradients of gradients exist. The indices and masks are not differentiable: no edge.
// Gradients of broadcast operands (masked_select, masked_scatter) come back in the broadcast
// shape and the engine sums them to the operand's.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/autograd/saved_variable.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay::autograd {

namespace detail {
// Zeros of `sizes` in g's dtype and device: what a gradient is written into.
template <class = void>
Tensor zeros_for(IntArrayRef sizes, const Tensor& g) {
  NoGradGuard no_grad;
  return empty(sizes, g.options()).zero_();
}

// The part of a scatter's src that the index reads: its corner of the index's shape (src may
// be larger in any dimension).
template <class = void>
Tensor index_corner(const Tensor& src, const Tensor& index) {
  Tensor c = src;
  for (int64_t d = 0; d < index.dim(); ++d) {
    if (c.size(d) != index.size(d)) c = c.narrow(d, 0, index.size(d));
  }
  return c;
}

// A gradient for that corner, as the gradient of the whole src: zeros outside the corner
// (those elements were never read). PyTorch 1.13 returns the corner's shape and fails.
template <class = void>
Tensor corner_grad(const Tensor& g_corner, IntArrayRef src_sizes) {
  if (g_corner.sizes() == src_sizes) return g_corner;
  Tensor z = zeros_for(src_sizes, g_corner);
  Tensor view = z;
  for (int64_t d = 0; d < g_corner.dim(); ++d) view = view.narrow(d, 0, g_corner.size(d));
  view.copy_(g_corner);  // recorded when g_corner requires grad: differentiable
  return z;
}
}  // namespace detail

// PyTorch's NotImplemented node: an op with no derivative formula (scatter with reduce=) still
// records, and backward through it fails, naming the op.
template <class = void>
struct NotImplementedT final : Node {
  std::string op_;
  std::string name() const override { return "tensorplay::autograd::NotImplemented"; }
  variable_list apply(variable_list&&) override {
    throw Error(tensorplay::detail::str_cat("derivative for ", op_, " is not implemented"));
  }
};
using NotImplemented = NotImplementedT<>;

// ---- gather and the scatters along a dim -----------------------------------------------------

template <class = void>
struct GatherBackward0T final : DimIndexNode {  // gather(self, dim, index)
  TENSORPLAY_NODE_NAME_(GatherBackward0)
  std::vector<int64_t> self_sizes_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {detail::zeros_for(self_sizes_, g).scatter_add(dim_, index(), g)};
  }
};
using GatherBackward0 = GatherBackward0T<>;

template <class = void>
struct ScatterBackward0T final : DimIndexNode {  // scatter(self, dim, index, src)
  TENSORPLAY_NODE_NAME_(ScatterBackward0)
  std::vector<int64_t> src_sizes_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const Tensor idx = index();
    return {
        should_compute_output(0) ? g.scatter(dim_, idx, 0) : Tensor(),
        should_compute_output(1) ? detail::corner_grad(g.gather(dim_, idx), src_sizes_) : Tensor()};
  }
};
using ScatterBackward0 = ScatterBackward0T<>;

template <class = void>
struct ScatterBackward1T final : DimIndexNode {  // scatter(self, dim, index, value)
  TENSORPLAY_NODE_NAME_(ScatterBackward1)
  variable_list apply(variable_list&& grads) override {
    return {grads[0].scatter(dim_, index(), 0)};
  }
};
using ScatterBackward1 = ScatterBackward1T<>;

template <class = void>
struct ScatterAddBackward0T final : DimIndexNode {  // scatter_add(self, dim, index, src)
  TENSORPLAY_NODE_NAME_(ScatterAddBackward0)
  std::vector<int64_t> src_sizes_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {should_compute_output(0) ? g : Tensor(),
            should_compute_output(1) ? detail::corner_grad(g.gather(dim_, index()), src_sizes_)
                                     : Tensor()};
  }
};
using ScatterAddBackward0 = ScatterAddBackward0T<>;

// scatter_reduce(self, dim, index, src, reduce, include_self): PyTorch's scatter_reduce_backward.
// amax/amin share the gradient evenly among the elements equal to the result. Without
// include_self, self's elements at written positions take no part: they get no gradient and,
// unlike PyTorch 1.13, are not counted among the ties (which gave src only part of its gradient).
template <class = void>
struct ScatterReduceBackward0T final : DimIndexNode {
  TENSORPLAY_NODE_NAME_(ScatterReduceBackward0)
  std::string reduce_;
  bool include_self_ = true;
  std::vector<int64_t> src_sizes_;
  SavedVariable self_, src_, result_;
  void release_variables() override {
    DimIndexNode::release_variables();
    self_.reset_data();
    src_.reset_data();
    result_.reset_data();
  }
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const auto me = shared_from_this();
    const Tensor idx = index(), self = self_.unpack(me);
    const Tensor src =
        src_.unpack(me).defined() ? detail::index_corner(src_.unpack(me), idx) : Tensor();
    const Tensor result = result_.unpack(me);
    const int64_t dim = dim_;
    Tensor gs, gsrc;
    if (reduce_ == "sum") {
      gs = g;
      gsrc = g.gather(dim, idx);
    } else if (reduce_ == "mean") {
      Tensor n = detail::zeros_for(g.sizes(), g);
      if (include_self_) n.fill_(1);
      n = n.scatter_add(dim, idx, detail::zeros_for(idx.sizes(), g).fill_(1));
      n.masked_fill_(n.eq(0), 1);
      gs = g.div(n);
      gsrc = gs.gather(dim, idx);
    } else if (reduce_ == "prod") {
      // Division by the input, with PyTorch's care for zeros: self's zeros are masked to one
      // (the product of the others), and a src element that is its position's only zero gets
      // the product of the others; two zeros give zero.
      const Tensor masked_self = self.masked_fill(self.eq(0), 1);
      const Tensor masked_self_result =
          masked_self.scatter_reduce(dim, idx, src, reduce_, include_self_);
      gs = g.mul(masked_self_result).div(masked_self);
      const Tensor src_zero = src.eq(0);
      const Tensor zeros_at =
          detail::zeros_for(self.sizes(), g).scatter_add(dim, idx, src_zero.to(g.dtype()));
      const Tensor single_zero = src_zero.logical_and(zeros_at.gather(dim, idx).eq(1));
      const Tensor masked_src = src.masked_fill(single_zero, 1);
      const Tensor masked_src_result =
          self.scatter_reduce(dim, idx, masked_src, reduce_, include_self_);
      gsrc =
          g.mul(masked_src_result)
              .gather(dim, idx)
              .where(single_zero, g.mul(result).gather(dim, idx).div(src.masked_fill(src_zero, 1)));
    } else {  // amax, amin
      const Tensor value = result.gather(dim, idx);
      Tensor self_is_result = self.eq(result).to(g.dtype());
      if (!include_self_) self_is_result = self_is_result.scatter(dim, idx, 0);
      const Tensor src_is_result = src.eq(value).to(g.dtype());
      const Tensor share = g.div(self_is_result.scatter_add(dim, idx, src_is_result));
      gs = self_is_result.mul(share);
      gsrc = src_is_result.mul(share.gather(dim, idx));
    }
    if (!include_self_ && should_compute_output(0)) gs = gs.scatter(dim, idx, 0);
    return {should_compute_output(0) ? gs : Tensor(),
            should_compute_output(1) ? detail::corner_grad(gsrc, src_sizes_) : Tensor()};
  }
};
using ScatterReduceBackward0 = ScatterReduceBackward0T<>;

// ---- index_select, index_add, index_copy ------------------------------------------------------

template <class = void>
struct IndexSelectBackward0T final : DimIndexNode {  // index_select(self, dim, index)
  TENSORPLAY_NODE_NAME_(IndexSelectBackward0)
  std::vector<int64_t> self_sizes_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {detail::zeros_for(self_sizes_, g).index_add(dim_, index(), g)};
  }
};
using IndexSelectBackward0 = IndexSelectBackward0T<>;

template <class = void>
struct IndexAddBackward0T final : DimIndexNode {  // index_add(self, dim, index, source, alpha)
  TENSORPLAY_NODE_NAME_(IndexAddBackward0)
  Scalar alpha_ = 1;
  std::vector<int64_t> source_sizes_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    Tensor gsrc;
    if (should_compute_output(1)) {
      gsrc = g.index_select(dim_, index()).reshape(source_sizes_);
      if (!(alpha_.isIntegral(true) && alpha_.toLong() == 1)) gsrc = gsrc.mul(alpha_);
    }
    return {should_compute_output(0) ? g : Tensor(), gsrc};
  }
};
using IndexAddBackward0 = IndexAddBackward0T<>;

template <class = void>
struct IndexCopyBackward0T final : DimIndexNode {  // index_copy(self, dim, index, source)
  TENSORPLAY_NODE_NAME_(IndexCopyBackward0)
  std::vector<int64_t> source_sizes_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const Tensor idx = index();
    return {should_compute_output(0) ? g.index_fill(dim_, idx, 0) : Tensor(),
            should_compute_output(1) ? g.index_select(dim_, idx).reshape(source_sizes_) : Tensor()};
  }
};
using IndexCopyBackward0 = IndexCopyBackward0T<>;

// ---- take, put --------------------------------------------------------------------------------

template <class = void>
struct TakeBackward0T final : DimIndexNode {  // take(self, index)
  TENSORPLAY_NODE_NAME_(TakeBackward0)
  std::vector<int64_t> self_sizes_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    Tensor z = detail::zeros_for(self_sizes_, g);
    z.put_(index(), g, /*accumulate=*/true);
    return {z};
  }
};
using TakeBackward0 = TakeBackward0T<>;

template <class = void>
struct PutBackward0T final : DimIndexNode {  // put(self, index, source, accumulate)
  TENSORPLAY_NODE_NAME_(PutBackward0)
  bool accumulate_ = false;
  std::vector<int64_t> source_sizes_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const Tensor idx = index();
    Tensor gs;
    if (should_compute_output(0)) {
      gs = accumulate_ ? g : g.put(idx, detail::zeros_for(source_sizes_, g), false);
    }
    return {gs, should_compute_output(1) ? g.take(idx).reshape(source_sizes_) : Tensor()};
  }
};
using PutBackward0 = PutBackward0T<>;

// ---- masked_select, masked_scatter -------------------------------------------------------------

struct MaskNode : Node {
  SavedVariable mask_;
  void release_variables() override { mask_.reset_data(); }
  Tensor mask() { return mask_.unpack(shared_from_this()); }
};

template <class = void>
struct MaskedSelectBackward0T final : MaskNode {  // masked_select(self, mask)
  TENSORPLAY_NODE_NAME_(MaskedSelectBackward0)
  std::vector<int64_t> broadcast_sizes_;  // self and mask broadcast together
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    Tensor z = detail::zeros_for(broadcast_sizes_, g);
    z.masked_scatter_(mask(), g);
    return {z};
  }
};
using MaskedSelectBackward0 = MaskedSelectBackward0T<>;

template <class = void>
struct MaskedScatterBackward0T final : MaskNode {  // masked_scatter(self, mask, source)
  TENSORPLAY_NODE_NAME_(MaskedScatterBackward0)
  std::vector<int64_t> source_sizes_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const Tensor m = mask();
    Tensor gsrc;
    if (should_compute_output(1)) {
      // The gradients of the source elements used, in order; the unused tail gets zeros.
      gsrc = g.masked_select(m);
      int64_t n = 1;
      for (int64_t s : source_sizes_) n *= s;
      if (gsrc.numel() < n) {
        Tensor padded = detail::zeros_for({n}, g);
        padded.narrow(0, 0, gsrc.numel()).copy_(gsrc);  // recorded: differentiable in gsrc
        gsrc = padded;
      }
      gsrc = gsrc.view(source_sizes_);
    }
    return {should_compute_output(0) ? g.masked_fill(m, 0) : Tensor(), gsrc};
  }
};
using MaskedScatterBackward0 = MaskedScatterBackward0T<>;

}  // namespace tensorplay::autograd
