// Backward formulas of tensorplay::nn::functional's ops (PyTorch 1.13's derivatives.yaml and
// its *_backward kernels, written out): the parameterised activations, the three native
// normalisations, and the losses that have nodes of their own in PyTorch.
//
// As in pointwise.hpp, formulas are Tensor expressions (so create_graph gives second
// derivatives) and the engine sums each gradient back to its input's shape. The normalisation
// nodes are closed-form backward passes over the saved statistics (PyTorch's
// layer_norm_backward & co.), not autograd through the forward's decomposition. Under
// create_graph they recompute the statistics from the saved input with differentiable ops, so
// that second derivatives see how mean and 1 / std depend on the input.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <tensorplay/autograd/functions/pointwise.hpp>
#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/saved_variable.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/layer_norm_kernel.hpp>

namespace tensorplay::autograd {

// ---- activations (unary nodes: record_unary saves self and/or the result) -----------------------

// leaky_relu(self, negative_slope): self > 0 ? grad : grad * slope.
template <class = void>
struct LeakyReluBackward0T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(LeakyReluBackward0)
  static constexpr bool kNeedsSelf = true;
  Scalar negative_slope_ = 0.01;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {g.where(self().gt(0), g.mul(negative_slope_))};
  }
};
using LeakyReluBackward0 = LeakyReluBackward0T<>;

// leaky_relu_(self, negative_slope): from the result, which has self's sign when the slope is
// not negative (PyTorch refuses the backward otherwise).
template <class = void>
struct LeakyReluBackward1T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(LeakyReluBackward1)
  static constexpr bool kNeedsResult = true;
  Scalar negative_slope_ = 0.01;
  variable_list apply(variable_list&& grads) override {
    TP_CHECK(negative_slope_.toDouble() >= 0.0,
             "In-place leakyReLu backward calculation is triggered with a negative slope which "
             "is not supported. This is caused by calling in-place forward function with a "
             "negative slope, please call out-of-place version instead. File an issue at "
             "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
             "backward calculation with negative slope");
    const Tensor& g = grads[0];
    return {g.where(result().gt(0), g.mul(negative_slope_))};
  }
};
using LeakyReluBackward1 = LeakyReluBackward1T<>;

// elu(self, alpha, scale, input_scale) (and selu, celu): x <= 0 ? grad * input_scale * scale *
// alpha * exp(x * input_scale) : grad * scale. EluBackward1 (elu_) works from the result:
// result <= 0 ? grad * input_scale * (result + alpha * scale) : grad * scale.
template <class = void>
struct EluBackward0T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(EluBackward0)
  static constexpr bool kNeedsSelf = true;
  double alpha_ = 1, scale_ = 1, input_scale_ = 1;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const Tensor x = self();
    const Tensor neg = g.mul(x.mul(input_scale_).exp().mul(input_scale_ * scale_ * alpha_));
    return {g.mul(scale_).where(x.gt(0), neg)};
  }
};
using EluBackward0 = EluBackward0T<>;

template <class = void>
struct EluBackward1T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(EluBackward1)
  static constexpr bool kNeedsResult = true;
  double alpha_ = 1, scale_ = 1, input_scale_ = 1;
  variable_list apply(variable_list&& grads) override {
    TP_CHECK(alpha_ >= 0.0,
             "In-place elu backward calculation is triggered with a negative slope which is not "
             "supported. This is caused by calling in-place forward function with a negative "
             "slope, please call out-of-place version instead.");
    const Tensor& g = grads[0];
    const Tensor r = result();
    const Tensor neg = g.mul(r.add(alpha_ * scale_).mul(input_scale_));
    return {g.mul(scale_).where(r.gt(0), neg)};
  }
};
using EluBackward1 = EluBackward1T<>;

// hardtanh(self, min_val, max_val) and relu6: the gradient passes strictly inside the bounds.
// Tested on the result, which lies strictly inside exactly when self does, so that hardtanh_
// needs no copy of its input.
template <class = void>
struct HardtanhBackward0T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(HardtanhBackward0)
  static constexpr bool kNeedsResult = true;
  Scalar min_val_ = -1, max_val_ = 1;
  variable_list apply(variable_list&& grads) override {
    const Tensor r = result();
    return {grads[0].where(r.gt(min_val_).logical_and(r.lt(max_val_)), 0.0)};
  }
};
using HardtanhBackward0 = HardtanhBackward0T<>;

// hardsigmoid: grad / 6 on (-3, 3), else 0.
template <class = void>
struct HardsigmoidBackward0T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(HardsigmoidBackward0)
  static constexpr bool kNeedsSelf = true;
  variable_list apply(variable_list&& grads) override {
    const Tensor x = self();
    return {grads[0].div(6).where(x.gt(-3).logical_and(x.lt(3)), 0.0)};
  }
};
using HardsigmoidBackward0 = HardsigmoidBackward0T<>;

// hardswish: 0 below -3, grad * (x / 3 + 1/2) on [-3, 3], grad above.
template <class = void>
struct HardswishBackward0T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(HardswishBackward0)
  static constexpr bool kNeedsSelf = true;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const Tensor x = self();
    const Tensor mid = g.mul(x.div(3).add(0.5)).where(x.le(3), g);
    return {mid.where(x.ge(-3), 0.0)};
  }
};
using HardswishBackward0 = HardswishBackward0T<>;

// mish = x tanh(softplus(x)): tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2).
template <class = void>
struct MishBackward0T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(MishBackward0)
  static constexpr bool kNeedsSelf = true;
  variable_list apply(variable_list&& grads) override {
    const Tensor x = self();
    const Tensor t = x.softplus().tanh();
    return {grads[0].mul(t.add(x.mul(x.sigmoid()).mul(t.square().neg().add(1))))};
  }
};
using MishBackward0 = MishBackward0T<>;

// ---- normalisation ------------------------------------------------------------------------------

namespace detail {
// The dims 0..n-1 but `skip` (-1: none), and the dims from..n-1.
inline std::vector<int64_t> dims_except(int64_t n, int64_t skip) {
  std::vector<int64_t> d;
  for (int64_t i = 0; i < n; ++i) {
    if (i != skip) d.push_back(i);
  }
  return d;
}
inline std::vector<int64_t> dims_from(int64_t from, int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = from; i < n; ++i) d.push_back(i);
  return d;
}

// The input gradient of a normalisation with batch statistics over `axes`:
// rstd * (g - mean(g) - xhat * mean(g * xhat)), g the gradient already scaled by the weight.
template <class = void>
Tensor norm_input_grad(const Tensor& g, const Tensor& xhat, const Tensor& rstd, IntArrayRef axes) {
  return g.sub(g.mean(axes, true)).sub(xhat.mul(g.mul(xhat).mean(axes, true))).mul(rstd);
}
// 1 / sqrt(biased variance + eps) over `axes`.
template <class = void>
Tensor rstd_of(const Tensor& x, IntArrayRef axes, bool keepdim, double eps) {
  return x.var(axes, std::optional<int64_t>(0), keepdim).add(eps).rsqrt();
}
// A sum over `axes`, which may be none (a sum over an empty list would reduce every dim).
template <class = void>
Tensor sum_over(const Tensor& t, IntArrayRef axes) {
  return axes.empty() ? t : t.sum(axes);
}
}  // namespace detail

// What the three normalisation nodes save: the input, the weight, the statistics (the mean and
// 1 / std, shaped to broadcast or reshaped by the node) and eps (to recompute the statistics
// differentiably under create_graph).
struct NormNode : Node {
  SavedVariable input_, weight_, mean_, rstd_;
  double eps_ = 1e-5;
  void save(const Tensor& input, const Tensor& weight, const Tensor& mean, const Tensor& rstd,
            double eps) {
    input_ = SavedVariable(input, false);
    weight_ = SavedVariable(weight, false);
    mean_ = SavedVariable(mean, false);
    rstd_ = SavedVariable(rstd, false);
    eps_ = eps;
  }
  void release_variables() override {
    input_.reset_data();
    weight_.reset_data();
    mean_.reset_data();
    rstd_.reset_data();
  }
};

// native_layer_norm(input, normalized_shape, weight, bias, eps): saved input, weight, and the
// per-row mean and 1 / std (shaped [outer..., 1, ...], so they broadcast over the row).
template <class = void>
struct NativeLayerNormBackward0T final : NormNode {
  TENSORPLAY_NODE_NAME_(NativeLayerNormBackward0)
  int64_t normalized_ndim_ = 1;
  variable_list apply(variable_list&& grads) override {
    auto me = shared_from_this();
    const Tensor x = input_.unpack(me), w = weight_.unpack(me);
    const Tensor& g = grads[0];
    const int64_t n = x.dim(), outer = n - normalized_ndim_;
    const std::vector<int64_t> row = detail::dims_from(outer, n);
    const std::vector<int64_t> rows = detail::dims_from(0, outer);
    const bool create_graph = GradMode::is_enabled();
    variable_list out(3);
    if (!create_graph && x.is_cpu()) {
      // The fused kernel (ops/layer_norm_kernel.hpp), in the compute dtype; each gradient
      // returned in its input's dtype and shape.
      int64_t rows = 1, cols = 1;
      for (int64_t d = 0; d < n; ++d) (d < outer ? rows : cols) *= x.size(d);
      const Tensor xc = x.to(tensorplay::detail::reduce_impl::float_compute_dtype(x.dtype()));
      auto [dx, dw, db] = tensorplay::detail::layer_norm_impl::backward(
          g, xc, mean_.unpack(me), rstd_.unpack(me), w, rows, cols,
          {should_compute_output(0), should_compute_output(1) && w.defined(),
           should_compute_output(2)});
      if (dx.defined()) out[0] = dx.view(x.sizes()).to(x.dtype());
      const IntArrayRef param_shape = x.sizes().slice(std::size_t(outer));
      if (dw.defined()) out[1] = dw.view(param_shape).to(w.dtype());
      if (db.defined()) out[2] = db.view(param_shape).to(x.dtype());
      return out;
    }
    const Tensor mean = create_graph ? x.mean(row, true) : mean_.unpack(me);
    const Tensor rstd = create_graph ? detail::rstd_of(x, row, true, eps_) : rstd_.unpack(me);
    const Tensor xhat = x.sub(mean).mul(rstd);
    if (should_compute_output(0)) {
      out[0] = detail::norm_input_grad(w.defined() ? g.mul(w) : g, xhat, rstd, row);
    }
    if (should_compute_output(1)) out[1] = detail::sum_over(g.mul(xhat), rows);
    if (should_compute_output(2)) out[2] = detail::sum_over(g, rows);
    return out;
  }
};
using NativeLayerNormBackward0 = NativeLayerNormBackward0T<>;

// native_group_norm(input, weight, bias, N, C, HxW, group, eps): statistics of shape [N, group]
// over each group's C / group channels and all spatial positions.
template <class = void>
struct NativeGroupNormBackward0T final : NormNode {
  TENSORPLAY_NODE_NAME_(NativeGroupNormBackward0)
  int64_t group_ = 1;
  variable_list apply(variable_list&& grads) override {
    auto me = shared_from_this();
    const Tensor x = input_.unpack(me), w = weight_.unpack(me);
    const Tensor& g = grads[0];
    const int64_t n = x.size(0), c = x.size(1);
    const std::vector<int64_t> grouped{n, group_, n * group_ == 0 ? 0 : x.numel() / (n * group_)};
    const std::vector<int64_t> last{2};
    const bool create_graph = GradMode::is_enabled();
    const Tensor xg = x.reshape(grouped);
    const Tensor mean = create_graph ? xg.mean(last, true) : mean_.unpack(me).unsqueeze(2);
    const Tensor rstd =
        create_graph ? detail::rstd_of(xg, last, true, eps_) : rstd_.unpack(me).unsqueeze(2);
    std::vector<int64_t> channel(static_cast<std::size_t>(x.dim()), 1);
    channel[1] = c;
    const Tensor xhat = xg.sub(mean).mul(rstd).reshape(x.sizes());
    const std::vector<int64_t> axes = detail::dims_except(x.dim(), 1);
    variable_list out(3);
    if (should_compute_output(0)) {
      const Tensor gw = w.defined() ? g.mul(w.reshape(channel)) : g;
      out[0] = detail::norm_input_grad(gw.reshape(grouped), xhat.reshape(grouped), rstd, last)
                   .reshape(x.sizes());
    }
    if (should_compute_output(1)) out[1] = g.mul(xhat).sum(axes);
    if (should_compute_output(2)) out[2] = g.sum(axes);
    return out;
  }
};
using NativeGroupNormBackward0 = NativeGroupNormBackward0T<>;

// native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
// per channel (dim 1). Training: the batch's mean and 1 / std (save_mean, save_invstd), which
// depend on the input; evaluation: the running statistics, constants.
template <class = void>
struct NativeBatchNormBackward0T final : NormNode {  // statistics: batch or running
  TENSORPLAY_NODE_NAME_(NativeBatchNormBackward0)
  bool training_ = true;
  variable_list apply(variable_list&& grads) override {
    auto me = shared_from_this();
    const Tensor x = input_.unpack(me), w = weight_.unpack(me);
    std::vector<int64_t> channel(static_cast<std::size_t>(x.dim()), 1);
    channel[1] = x.size(1);
    const Tensor& g = grads[0];
    const std::vector<int64_t> axes = detail::dims_except(x.dim(), 1);
    const bool recompute = training_ && GradMode::is_enabled();
    const Tensor mean = recompute ? x.mean(axes, true) : mean_.unpack(me).reshape(channel);
    const Tensor invstd =
        recompute ? detail::rstd_of(x, axes, true, eps_) : rstd_.unpack(me).reshape(channel);
    const Tensor xhat = x.sub(mean).mul(invstd);
    variable_list out(3);
    if (should_compute_output(0)) {
      const Tensor gw = w.defined() ? g.mul(w.reshape(channel)) : g;
      out[0] = training_ ? detail::norm_input_grad(gw, xhat, invstd, axes) : gw.mul(invstd);
    }
    if (should_compute_output(1)) out[1] = g.mul(xhat).sum(axes);
    if (should_compute_output(2)) out[2] = g.sum(axes);
    return out;
  }
};
using NativeBatchNormBackward0 = NativeBatchNormBackward0T<>;

// ---- losses (inputs self and target; reduction 0 none, 1 mean, 2 sum) ---------------------------

// A loss node over (self, target): `scale` is 1 / numel for a mean (the gradient of a reduced
// loss is 0-d and broadcasts over the elementwise terms).
struct LossNode : Node {
  SavedVariable self_, target_;
  int64_t reduction_ = 1;
  std::vector<int64_t> shape_;  // the elementwise loss's (self and target broadcast together)
  void release_variables() override {
    self_.reset_data();
    target_.reset_data();
  }
  // grad * d(loss)/d(input) for the elementwise derivative `local` (which may depend on one
  // operand only: it is expanded to the loss's shape), reduced as the loss was.
  Tensor reduced(const Tensor& grad, const Tensor& local) const {
    Tensor r = local.mul(grad);
    if (r.sizes() != IntArrayRef(shape_)) r = r.expand(shape_);
    int64_t n = 1;
    for (int64_t s : shape_) n *= s;
    return reduction_ == 1 && n > 0 ? r.div(double(n)) : r;
  }
};

// mse_loss: 2 (self - target).
template <class = void>
struct MseLossBackward0T final : LossNode {
  TENSORPLAY_NODE_NAME_(MseLossBackward0)
  variable_list apply(variable_list&& grads) override {
    auto me = shared_from_this();
    const Tensor gs = reduced(grads[0], self_.unpack(me).sub(target_.unpack(me)).mul(2));
    return {should_compute_output(0) ? gs : Tensor(),
            should_compute_output(1) ? gs.neg() : Tensor()};
  }
};
using MseLossBackward0 = MseLossBackward0T<>;

// smooth_l1_loss(beta > 0): |d| < beta ? d / beta : sign(d).
template <class = void>
struct SmoothL1LossBackward0T final : LossNode {
  TENSORPLAY_NODE_NAME_(SmoothL1LossBackward0)
  double beta_ = 1;
  variable_list apply(variable_list&& grads) override {
    auto me = shared_from_this();
    const Tensor d = self_.unpack(me).sub(target_.unpack(me));
    const Tensor gs = reduced(grads[0], d.div(beta_).where(d.abs().lt(beta_), d.sign()));
    return {should_compute_output(0) ? gs : Tensor(),
            should_compute_output(1) ? gs.neg() : Tensor()};
  }
};
using SmoothL1LossBackward0 = SmoothL1LossBackward0T<>;

// huber_loss(delta > 0): d clamped to [-delta, delta].
template <class = void>
struct HuberLossBackward0T final : LossNode {
  TENSORPLAY_NODE_NAME_(HuberLossBackward0)
  double delta_ = 1;
  variable_list apply(variable_list&& grads) override {
    auto me = shared_from_this();
    const Tensor d = self_.unpack(me).sub(target_.unpack(me));
    const Tensor gs = reduced(grads[0], d.clamp(-delta_, delta_));
    return {should_compute_output(0) ? gs : Tensor(),
            should_compute_output(1) ? gs.neg() : Tensor()};
  }
};
using HuberLossBackward0 = HuberLossBackward0T<>;

// binary_cross_entropy(self, target, weight): self: (x - t) / max(x (1 - x), 1e-12) * w;
// target: (log(1 - x) - log(x)) * w. The weight is no input of the graph (PyTorch refuses one
// that requires grad).
template <class = void>
struct BinaryCrossEntropyBackward0T final : LossNode {
  TENSORPLAY_NODE_NAME_(BinaryCrossEntropyBackward0)
  SavedVariable weight_;
  variable_list apply(variable_list&& grads) override {
    auto me = shared_from_this();
    const Tensor x = self_.unpack(me), t = target_.unpack(me), w = weight_.unpack(me);
    variable_list out(2);
    if (should_compute_output(0)) {
      Tensor local = x.sub(t).div(x.mul(x.neg().add(1)).clamp_min(1e-12));
      if (w.defined()) local = local.mul(w);
      out[0] = reduced(grads[0], local);
    }
    if (should_compute_output(1)) {
      Tensor local = x.neg().log1p().sub(x.log());
      if (w.defined()) local = local.mul(w);
      out[1] = reduced(grads[0], local);
    }
    return out;
  }
  void release_variables() override {
    LossNode::release_variables();
    weight_.reset_data();
  }
};
using BinaryCrossEntropyBackward0 = BinaryCrossEntropyBackward0T<>;

// binary_cross_entropy_with_logits(self, target, weight, pos_weight): the loss is
// (1 - t) x + l softplus(-x) with l = 1 + (pos_weight - 1) t. self: (l (sigmoid(x) - 1) + 1 - t),
// which is sigmoid(x) - t without pos_weight; target: (pos_weight - 1) softplus(-x) - x; both
// times the weight.
template <class = void>
struct BinaryCrossEntropyWithLogitsBackward0T final : LossNode {
  TENSORPLAY_NODE_NAME_(BinaryCrossEntropyWithLogitsBackward0)
  SavedVariable weight_, pos_weight_;
  variable_list apply(variable_list&& grads) override {
    auto me = shared_from_this();
    const Tensor x = self_.unpack(me), t = target_.unpack(me);
    const Tensor w = weight_.unpack(me), pw = pos_weight_.unpack(me);
    variable_list out(2);
    if (should_compute_output(0)) {
      Tensor local;
      if (pw.defined()) {
        const Tensor l = pw.sub(1).mul(t).add(1);
        local = l.mul(x.sigmoid().sub(1)).add(t.neg().add(1));
      } else {
        local = x.sigmoid().sub(t);
      }
      if (w.defined()) local = local.mul(w);
      out[0] = reduced(grads[0], local);
    }
    if (should_compute_output(1)) {
      Tensor local = pw.defined() ? pw.sub(1).mul(x.neg().softplus()).sub(x) : x.neg();
      if (w.defined()) local = local.mul(w);
      out[1] = reduced(grads[0], local);
    }
    return out;
  }
  void release_variables() override {
    LossNode::release_variables();
    weight_.reset_data();
    pos_weight_.reset_data();
  }
};
using BinaryCrossEntropyWithLogitsBackward0 = BinaryCrossEntropyWithLogitsBackward0T<>;

// ---- losses over class indices, embedding
// --------------------------------------------------------

// nll_loss(self, target, weight, reduction, ignore_index): -w[t] at each target class, scaled as
// the loss was reduced; a scatter into zeros of self's shape (differentiable in the gradient).
// One class for NllLossBackward0 (1-d and 2-d inputs) and NllLoss2DBackward0 (the rest).
template <bool TwoD>
struct NllLossBackwardT final : Node {
  std::string name() const override { return TwoD ? "NllLoss2DBackward0" : "NllLossBackward0"; }
  std::vector<int64_t> self_sizes_;
  int64_t class_dim_ = 1;
  int64_t reduction_ = 1;
  SavedVariable target_;   // ignored positions replaced by class 0 (their weight is 0)
  SavedVariable weights_;  // the weight of each target (0 where ignored), the target's shape
  SavedVariable total_weight_;
  void release_variables() override {
    target_.reset_data();
    weights_.reset_data();
    total_weight_.reset_data();
  }
  variable_list apply(variable_list&& grads) override {
    const auto me = shared_from_this();
    Tensor gw = grads[0].mul(weights_.unpack(me)).neg();
    if (reduction_ == 1) gw = gw.div(total_weight_.unpack(me));
    Tensor z;
    {
      NoGradGuard no_grad;
      z = empty(self_sizes_, grads[0].options()).zero_();
    }
    return {
        z.scatter(class_dim_, target_.unpack(me).unsqueeze(class_dim_), gw.unsqueeze(class_dim_))};
  }
};
using NllLossBackward0 = NllLossBackwardT<false>;
using NllLoss2DBackward0 = NllLossBackwardT<true>;

// embedding(weight, indices, padding_idx, scale_grad_by_freq): each looked-up row's gradient
// added back to its row (in index order), none to padding_idx, divided by the row's count with
// scale_grad_by_freq. index_add keeps it differentiable in the gradient.
template <class = void>
struct EmbeddingBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(EmbeddingBackward0)
  int64_t num_weights_ = 0;
  int64_t padding_idx_ = -1;
  bool scale_grad_by_freq_ = false;
  SavedVariable indices_;
  void release_variables() override { indices_.reset_data(); }
  variable_list apply(variable_list&& grads) override {
    const Tensor idx = indices_.unpack(shared_from_this()).reshape({-1});
    const Tensor& g = grads[0];
    const int64_t dim = g.size(-1);
    Tensor rows = g.reshape({-1, dim});
    Tensor scale;  // per looked-up row: 0 at padding_idx, 1 / count with scale_grad_by_freq
    {
      NoGradGuard no_grad;
      scale = empty({idx.numel()}, g.options()).fill_(1);
      if (scale_grad_by_freq_) {
        Tensor counts = empty({num_weights_}, g.options()).zero_();
        counts.index_add_(0, idx, scale);
        scale = scale.div(counts.index_select(0, idx));
      }
      if (padding_idx_ >= 0) scale.masked_fill_(idx.eq(padding_idx_), 0);
    }
    if (scale_grad_by_freq_ || padding_idx_ >= 0) rows = rows.mul(scale.unsqueeze(1));
    Tensor z;
    {
      NoGradGuard no_grad;
      z = empty({num_weights_, dim}, g.options()).zero_();
    }
    return {z.index_add(0, idx, rows)};
  }
};
using EmbeddingBackward0 = EmbeddingBackward0T<>;

}  // namespace tensorplay::autograd
