// Backward formulas of the matrix products, cat / stack and sort / topk (PyTorch's
// derivatives.yaml). Class templates with a defaulted parameter and PyTorch's names; see
// pointwise.hpp. The products' formulas are products themselves, so gradients of gradients work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tensorplay/autograd/functions/reduce.hpp>
#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/autograd/saved_variable.hpp>
#include <tensorplay/core/scalar.hpp>

namespace tensorplay::autograd {

namespace detail {
// g * s, skipping the multiplication by one.
template <class = void>
Tensor scaled(const Tensor& g, const Scalar& s) {
  return s.equal(1) ? g : g.mul(s);
}

struct SortTag {
  static std::string name() { return "SortBackward0"; }
};
struct TopkTag {
  static std::string name() { return "TopkBackward0"; }
};
}  // namespace detail

using SortBackward0 = IndexSelectingBackwardT<detail::SortTag>;
using TopkBackward0 = IndexSelectingBackwardT<detail::TopkTag>;

// A node with two saved operands (self_, other_: the first and second factor).
struct ProductNode : Node {
  SavedVariable self_, other_;
  void release_variables() override {
    self_.reset_data();
    other_.reset_data();
  }
};

template <class = void>
struct MmBackward0T final : ProductNode {  // mm(self, mat2)
  TENSORPLAY_NODE_NAME_(MmBackward0)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    auto me = shared_from_this();
    return {should_compute_output(0) ? g.mm(other_.unpack(me).t()) : Tensor(),
            should_compute_output(1) ? self_.unpack(me).t().mm(g) : Tensor()};
  }
};
using MmBackward0 = MmBackward0T<>;

template <class = void>
struct BmmBackward0T final : ProductNode {  // bmm(self, mat2)
  TENSORPLAY_NODE_NAME_(BmmBackward0)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    auto me = shared_from_this();
    return {should_compute_output(0) ? g.bmm(other_.unpack(me).transpose(1, 2)) : Tensor(),
            should_compute_output(1) ? self_.unpack(me).transpose(1, 2).bmm(g) : Tensor()};
  }
};
using BmmBackward0 = BmmBackward0T<>;

template <class = void>
struct MvBackward0T final : ProductNode {  // mv(self, vec)
  TENSORPLAY_NODE_NAME_(MvBackward0)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    auto me = shared_from_this();
    return {should_compute_output(0) ? g.unsqueeze(1).mul(other_.unpack(me)) : Tensor(),
            should_compute_output(1) ? self_.unpack(me).t().mv(g) : Tensor()};
  }
};
using MvBackward0 = MvBackward0T<>;

template <class = void>
struct DotBackward0T final : ProductNode {  // dot(self, tensor)
  TENSORPLAY_NODE_NAME_(DotBackward0)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    auto me = shared_from_this();
    return {should_compute_output(0) ? g.mul(other_.unpack(me)) : Tensor(),
            should_compute_output(1) ? g.mul(self_.unpack(me)) : Tensor()};
  }
};
using DotBackward0 = DotBackward0T<>;

// outer(self, vec2) is self.reshape({n, 1}) * vec2 in PyTorch, hence the name.
template <class = void>
struct OuterBackwardT final : ProductNode {
  TENSORPLAY_NODE_NAME_(MulBackward0)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    auto me = shared_from_this();
    // The factors may be of other dtypes than the (promoted) gradient.
    auto as_g = [&](const Tensor& t) { return t.dtype() == g.dtype() ? t : t.to(g.dtype()); };
    return {should_compute_output(0) ? g.mv(as_g(other_.unpack(me))) : Tensor(),
            should_compute_output(1) ? g.t().mv(as_g(self_.unpack(me))) : Tensor()};
  }
};
using OuterBackward = OuterBackwardT<>;

// beta * self + alpha * (a @ b) for the four add-products; self's gradient is beta * g (the
// engine sums it back to self's broadcast shape).
template <class = void>
struct AddmmBackward0T final : ProductNode {  // addmm(self, mat1, mat2, beta, alpha)
  TENSORPLAY_NODE_NAME_(AddmmBackward0)
  Scalar beta_ = 1, alpha_ = 1;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    auto me = shared_from_this();
    return {
        should_compute_output(0) ? detail::scaled(g, beta_) : Tensor(),
        should_compute_output(1) ? detail::scaled(g.mm(other_.unpack(me).t()), alpha_) : Tensor(),
        should_compute_output(2) ? detail::scaled(self_.unpack(me).t().mm(g), alpha_) : Tensor()};
  }
};
using AddmmBackward0 = AddmmBackward0T<>;

template <class = void>
struct AddmvBackward0T final : ProductNode {  // addmv(self, mat, vec, beta, alpha)
  TENSORPLAY_NODE_NAME_(AddmvBackward0)
  Scalar beta_ = 1, alpha_ = 1;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    auto me = shared_from_this();
    return {
        should_compute_output(0) ? detail::scaled(g, beta_) : Tensor(),
        should_compute_output(1) ? detail::scaled(g.unsqueeze(1).mul(other_.unpack(me)), alpha_)
                                 : Tensor(),
        should_compute_output(2) ? detail::scaled(self_.unpack(me).t().mv(g), alpha_) : Tensor()};
  }
};
using AddmvBackward0 = AddmvBackward0T<>;

template <class = void>
struct BaddbmmBackward0T final : ProductNode {  // baddbmm(self, batch1, batch2, beta, alpha)
  TENSORPLAY_NODE_NAME_(BaddbmmBackward0)
  Scalar beta_ = 1, alpha_ = 1;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    auto me = shared_from_this();
    return {
        should_compute_output(0) ? detail::scaled(g, beta_) : Tensor(),
        should_compute_output(1) ? detail::scaled(g.bmm(other_.unpack(me).transpose(1, 2)), alpha_)
                                 : Tensor(),
        should_compute_output(2) ? detail::scaled(self_.unpack(me).transpose(1, 2).bmm(g), alpha_)
                                 : Tensor()};
  }
};
using BaddbmmBackward0 = BaddbmmBackward0T<>;

// addbmm sums the batch: every batch gets the same g.
template <class = void>
struct AddbmmBackward0T final : ProductNode {  // addbmm(self, batch1, batch2, beta, alpha)
  TENSORPLAY_NODE_NAME_(AddbmmBackward0)
  Scalar beta_ = 1, alpha_ = 1;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    auto me = shared_from_this();
    Tensor gb;
    if (should_compute_output(1) || should_compute_output(2)) {
      const Tensor b1 = self_.unpack(me);
      gb = g.unsqueeze(0).expand({b1.size(0), g.size(0), g.size(1)});
    }
    return {
        should_compute_output(0) ? detail::scaled(g, beta_) : Tensor(),
        should_compute_output(1) ? detail::scaled(gb.bmm(other_.unpack(me).transpose(1, 2)), alpha_)
                                 : Tensor(),
        should_compute_output(2) ? detail::scaled(self_.unpack(me).transpose(1, 2).bmm(gb), alpha_)
                                 : Tensor()};
  }
};
using AddbmmBackward0 = AddbmmBackward0T<>;

// matmul's batched and vector-matrix cases: PyTorch's matmul is a composite whose result comes
// out of a view (UnsafeViewBackward0 for the batched products, SqueezeBackward3 for 1-D @ 2-D);
// here one node with that name carries the whole product's gradient. A 1-D operand is a row on
// the left, a column on the right; the engine sums broadcast batch dimensions away.
template <class = void>
struct MatmulBackwardT final : ProductNode {
  std::string name_;
  std::string name() const override { return name_; }
  variable_list apply(variable_list&& grads) override {
    auto me = shared_from_this();
    const Tensor a = self_.unpack(me), b = other_.unpack(me);
    const bool a_vec = a.dim() == 1, b_vec = b.dim() == 1;
    const Tensor a2 = a_vec ? a.unsqueeze(0) : a, b2 = b_vec ? b.unsqueeze(1) : b;
    Tensor g = grads[0];
    if (b_vec) g = g.unsqueeze(-1);
    if (a_vec) g = g.unsqueeze(-2);
    Tensor ga, gb;
    if (should_compute_output(0)) {
      ga = g.matmul(b2.mT());
      if (a_vec) ga = ga.squeeze(-2);
    }
    if (should_compute_output(1)) {
      gb = a2.mT().matmul(g);
      if (b_vec) gb = gb.squeeze(-1);
    }
    return {ga, gb};
  }
};
using MatmulBackward = MatmulBackwardT<>;

// cat: each input's slice of the gradient (inputs cat skipped, 1-D empty ones, get none).
template <class = void>
struct CatBackward0T final : Node {  // cat(tensors, dim)
  TENSORPLAY_NODE_NAME_(CatBackward0)
  int64_t dim_ = 0;
  std::vector<int64_t> sizes_;  // each input's size along dim_; -1: skipped
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    variable_list out(sizes_.size());
    int64_t offset = 0;
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      if (sizes_[i] < 0) continue;
      if (should_compute_output(i)) out[i] = g.narrow(dim_, offset, sizes_[i]);
      offset += sizes_[i];
    }
    return out;
  }
};
using CatBackward0 = CatBackward0T<>;

template <class = void>
struct StackBackward0T final : Node {  // stack(tensors, dim)
  TENSORPLAY_NODE_NAME_(StackBackward0)
  int64_t dim_ = 0;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    variable_list out(num_outputs());
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (should_compute_output(i)) out[i] = g.select(dim_, static_cast<int64_t>(i));
    }
    return out;
  }
};
using StackBackward0 = StackBackward0T<>;

}  // namespace tensorplay::autograd
