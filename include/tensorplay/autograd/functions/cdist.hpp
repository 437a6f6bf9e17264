// Gradient formulas of the distance kernels (ops/cdist.hpp), under PyTorch 1.13's node names:
// CdistBackward0 (_cdist_forward: a kernel, _cdist_backward, run once per operand with the other
// as the fixed set) and EuclideanDistBackward0 (_euclidean_dist, cdist's matrix-product path for
// p = 2, whose formula is written with differentiable ops as in derivatives.yaml).
#pragma once

#include <tensorplay/autograd/functions/indexing.hpp>
#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/autograd/saved_variable.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay::detail {
// Defined in ops/cdist.hpp: d cdist(x1, x2) / d x1 applied to grad, summed to x1's shape.
template <class = void>
Tensor cdist_backward(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p,
                      const Tensor& cdist);
}  // namespace tensorplay::detail

namespace tensorplay::autograd {

// What both formulas keep: the two operands and the distances.
struct DistanceNode : Node {
  SavedVariable x1_, x2_, result_;
  void release_variables() override {
    x1_.reset_data();
    x2_.reset_data();
    result_.reset_data();
  }
};

template <class = void>
struct CdistBackward0T final : DistanceNode {
  TENSORPLAY_NODE_NAME_(CdistBackward0)
  double p_ = 2.0;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    if (!g.defined()) return {Tensor(), Tensor()};
    const Tensor x1 = x1_.unpack(), x2 = x2_.unpack();
    const Tensor result = result_.unpack(shared_from_this());
    Tensor g1, g2;
    if (should_compute_output(0)) {
      g1 = tensorplay::detail::cdist_backward(g.contiguous(), x1, x2, p_, result);
    }
    if (should_compute_output(1)) {
      g2 = tensorplay::detail::cdist_backward(g.mT().contiguous(), x2, x1, p_,
                                              result.mT().contiguous());
    }
    // The kernel has no derivative (PyTorch's _cdist_backward neither): under create_graph the
    // gradients record NotImplemented, so a second derivative fails instead of being lost.
    if (GradMode::is_enabled()) {
      if (auto fn = detail::make_node<NotImplemented>(g, x1, x2)) {
        fn->op_ = "aten::_cdist_backward";
        for (const Tensor& r : {g1, g2}) detail::set_history(r, fn);
      }
    }
    return {g1, g2};
  }
};
using CdistBackward0 = CdistBackward0T<>;

// ratio = grad / dist (0 where dist is 0: the subgradient there); then
// d/dx1 = x1 * rowsum(ratio) - ratio @ x2 and d/dx2 = x2 * colsum(ratio) - ratio^T @ x1.
template <class = void>
struct EuclideanDistBackward0T final : DistanceNode {
  TENSORPLAY_NODE_NAME_(EuclideanDistBackward0)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    if (!g.defined()) return {Tensor(), Tensor()};
    const Tensor x1 = x1_.unpack(), x2 = x2_.unpack();
    const Tensor res = result_.unpack(shared_from_this());
    const Tensor ratio = g.div(res).masked_fill(res.eq(0), 0);
    Tensor g1, g2;
    if (should_compute_output(0)) {
      g1 = x1.mul(ratio.sum({-1}, true)).sub(ratio.matmul(x2));
    }
    if (should_compute_output(1)) {
      g2 = x2.mul(ratio.sum({-2}, false).unsqueeze(-1)).sub(ratio.mT().matmul(x1));
    }
    return {g1, g2};
  }
};
using EuclideanDistBackward0 = EuclideanDistBackward0T<>;

}  // namespace tensorplay::autograd
