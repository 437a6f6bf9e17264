// Backward formulas of the elementwise ops (PyTorch's derivatives.yaml, written out).
//
// Each node is a class template with a defaulted parameter (instantiated only by files that
// record it) and an alias with PyTorch's name. Formulas are written with Tensor methods, so they
// are differentiable themselves (create_graph gives second derivatives). Broadcasting and dtype
// are not handled here: the engine sums each gradient back to its input's shape and converts it
// to its dtype (autograd/engine.hpp, validate_grad).
#pragma once

#include <cmath>
#include <numbers>
#include <optional>
#include <string>

#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/autograd/saved_variable.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/ops/factories.hpp>

namespace tensorplay::autograd {

// ---- unary ------------------------------------------------------------------------------------
// A unary node saves the op's input (kNeedsSelf) and/or its result (kNeedsResult);
// record_unary (below) does the saving for the out-of-place and the in-place form alike. Ops
// with a Scalar second operand (x * 2, pow(x, 2.5), clamp(x, 0, 1)) are unary nodes too: a
// Scalar is no input of the graph, only a parameter of the formula.
struct UnaryNode : Node {
  static constexpr bool kNeedsSelf = false, kNeedsResult = false;
  SavedVariable self_, result_;
  void release_variables() override {
    self_.reset_data();
    result_.reset_data();
  }
  Tensor self() { return self_.unpack(shared_from_this()); }
  Tensor result() { return result_.unpack(shared_from_this()); }
};

// A unary node whose formula is one expression of `grad`, `self()` and `result()`.
#define TENSORPLAY_UNARY_NODE_(Name, needs_self, needs_result, ...)             \
  template <class = void>                                                       \
  struct Name##T final : UnaryNode {                                            \
    TENSORPLAY_NODE_NAME_(Name)                                                 \
    static constexpr bool kNeedsSelf = needs_self, kNeedsResult = needs_result; \
    variable_list apply(variable_list&& grads) override {                       \
      const Tensor& grad = grads[0];                                            \
      return {__VA_ARGS__};                                                     \
    }                                                                           \
  };                                                                            \
  using Name = Name##T<>;

TENSORPLAY_UNARY_NODE_(NegBackward0, false, false, grad.neg())
TENSORPLAY_UNARY_NODE_(AbsBackward0, true, false, grad.mul(self().sign()))
// Piecewise constant functions: the gradient is zero (not undefined: PyTorch returns zeros).
TENSORPLAY_UNARY_NODE_(SignBackward0, false, false, zeros_like(grad))
TENSORPLAY_UNARY_NODE_(FloorBackward0, false, false, zeros_like(grad))
TENSORPLAY_UNARY_NODE_(CeilBackward0, false, false, zeros_like(grad))
TENSORPLAY_UNARY_NODE_(TruncBackward0, false, false, zeros_like(grad))
TENSORPLAY_UNARY_NODE_(RoundBackward0, false, false, zeros_like(grad))
TENSORPLAY_UNARY_NODE_(RoundBackward1, false, false, zeros_like(grad))  // round(x, decimals)
TENSORPLAY_UNARY_NODE_(FracBackward0, false, false, grad)
TENSORPLAY_UNARY_NODE_(ExpBackward0, false, true, grad.mul(result()))
TENSORPLAY_UNARY_NODE_(Exp2Backward0, false, true, grad.mul(result().mul(std::numbers::ln2)))
TENSORPLAY_UNARY_NODE_(Expm1Backward0, false, true, grad.mul(result().add(1)))
TENSORPLAY_UNARY_NODE_(LogBackward0, true, false, grad.div(self()))
TENSORPLAY_UNARY_NODE_(Log2Backward0, true, false, grad.div(self().mul(std::numbers::ln2)))
TENSORPLAY_UNARY_NODE_(Log10Backward0, true, false, grad.div(self().mul(std::numbers::ln10)))
TENSORPLAY_UNARY_NODE_(Log1PBackward0, true, false, grad.div(self().add(1)))
TENSORPLAY_UNARY_NODE_(SqrtBackward0, false, true, grad.div(result().mul(2)))
TENSORPLAY_UNARY_NODE_(RsqrtBackward0, false, true, grad.mul(result().pow(3)).mul(-0.5))
TENSORPLAY_UNARY_NODE_(ReciprocalBackward0, false, true, grad.neg().mul(result().square()))
TENSORPLAY_UNARY_NODE_(SinBackward0, true, false, grad.mul(self().cos()))
TENSORPLAY_UNARY_NODE_(CosBackward0, true, false, grad.mul(self().sin().neg()))
TENSORPLAY_UNARY_NODE_(TanBackward0, false, true, grad.mul(result().square().add(1)))
TENSORPLAY_UNARY_NODE_(AsinBackward0, true, false, grad.mul(self().square().neg().add(1).rsqrt()))
TENSORPLAY_UNARY_NODE_(AcosBackward0, true, false,
                       grad.mul(self().square().neg().add(1).rsqrt().neg()))
TENSORPLAY_UNARY_NODE_(AtanBackward0, true, false, grad.div(self().square().add(1)))
TENSORPLAY_UNARY_NODE_(SinhBackward0, true, false, grad.mul(self().cosh()))
TENSORPLAY_UNARY_NODE_(CoshBackward0, true, false, grad.mul(self().sinh()))
TENSORPLAY_UNARY_NODE_(TanhBackward0, false, true, grad.mul(result().square().neg().add(1)))
TENSORPLAY_UNARY_NODE_(SigmoidBackward0, false, true, grad.mul(result().mul(result().neg().add(1))))
// 2 / sqrt(pi) * exp(-x^2)
TENSORPLAY_UNARY_NODE_(ErfBackward0, true, false,
                       grad.mul(self().square().neg().exp().mul(2 * std::numbers::inv_sqrtpi)))
// threshold_backward(grad, result, 0): zero where the result is <= 0 (a NaN result passes grad).
TENSORPLAY_UNARY_NODE_(ReluBackward0, false, true, grad.masked_fill(result().le(0), 0))
// sigmoid(x) * (1 + x * (1 - sigmoid(x)))
TENSORPLAY_UNARY_NODE_(SiluBackward0, true, false, [&] {
  const Tensor x = self(), s = x.sigmoid();
  return grad.mul(s.mul(x.mul(s.neg().add(1)).add(1)));
}())
#undef TENSORPLAY_UNARY_NODE_

// pow(self, exponent) with a Scalar exponent, and square (pow(self, 2) in PyTorch).
template <class = void>
struct PowBackward0T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(PowBackward0)
  static constexpr bool kNeedsSelf = true;
  Scalar exponent_;
  variable_list apply(variable_list&& grads) override {
    if (exponent_.equal(0)) return {zeros_like(grads[0])};
    const double e = exponent_.toDouble();
    return {grads[0].mul(self().pow(e - 1).mul(e))};
  }
};
using PowBackward0 = PowBackward0T<>;

// gelu(self, approximate): d/dx of x * Phi(x), exact or with the tanh approximation.
template <class = void>
struct GeluBackward0T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(GeluBackward0)
  static constexpr bool kNeedsSelf = true;
  bool tanh_ = false;
  variable_list apply(variable_list&& grads) override {
    const Tensor x = self();
    if (!tanh_) {
      // Phi(x) + x * phi(x)
      const Tensor cdf = x.mul(1 / std::numbers::sqrt2).erf().add(1).mul(0.5);
      const Tensor pdf =
          x.square().mul(-0.5).exp().mul(std::numbers::inv_sqrtpi / std::numbers::sqrt2);
      return {grads[0].mul(cdf.add(x.mul(pdf)))};
    }
    const double beta = std::numbers::sqrt2 * std::numbers::inv_sqrtpi, kappa = 0.044715;
    const Tensor x_sq = x.square();
    const Tensor t = x.add(x_sq.mul(x).mul(kappa)).mul(beta).tanh();
    const Tensor left = t.add(1).mul(0.5);
    const Tensor right =
        x.mul(0.5).mul(t.square().neg().add(1)).mul(x_sq.mul(3 * kappa).add(1).mul(beta));
    return {grads[0].mul(left.add(right))};
  }
};
using GeluBackward0 = GeluBackward0T<>;

// softplus(self, beta, threshold): sigmoid(beta x), and 1 where the op is linear.
template <class = void>
struct SoftplusBackward0T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(SoftplusBackward0)
  static constexpr bool kNeedsSelf = true;
  Scalar beta_ = 1, threshold_ = 20;
  variable_list apply(variable_list&& grads) override {
    const Tensor bx = self().mul(beta_);
    return {grads[0].mul(bx.sigmoid().masked_fill(bx.gt(threshold_), 1))};
  }
};
using SoftplusBackward0 = SoftplusBackward0T<>;

// ---- binary with a Scalar operand (one edge: self) ---------------------------------------------

template <class = void>
struct AddBackward1T final : UnaryNode {  // add(Tensor, Scalar, alpha)
  TENSORPLAY_NODE_NAME_(AddBackward1)
  variable_list apply(variable_list&& grads) override { return {grads[0]}; }
};
using AddBackward1 = AddBackward1T<>;

template <class = void>
struct SubBackward1T final : UnaryNode {  // sub(Tensor, Scalar, alpha)
  TENSORPLAY_NODE_NAME_(SubBackward1)
  variable_list apply(variable_list&& grads) override { return {grads[0]}; }
};
using SubBackward1 = SubBackward1T<>;

template <class = void>
struct RsubBackward1T final : UnaryNode {  // rsub(Tensor, Scalar, alpha) = other - alpha * self
  TENSORPLAY_NODE_NAME_(RsubBackward1)
  Scalar alpha_ = 1;
  variable_list apply(variable_list&& grads) override { return {grads[0].mul(-alpha_)}; }
};
using RsubBackward1 = RsubBackward1T<>;

template <class = void>
struct MulBackward1T final : UnaryNode {  // mul(Tensor, Scalar)
  TENSORPLAY_NODE_NAME_(MulBackward1)
  Scalar other_;
  variable_list apply(variable_list&& grads) override { return {grads[0].mul(other_)}; }
};
using MulBackward1 = MulBackward1T<>;

template <class = void>
struct DivBackward1T final : UnaryNode {  // div(Tensor, Scalar)
  TENSORPLAY_NODE_NAME_(DivBackward1)
  Scalar other_;
  variable_list apply(variable_list&& grads) override { return {grads[0].div(other_)}; }
};
using DivBackward1 = DivBackward1T<>;

template <class = void>
struct DivBackward3T final : UnaryNode {  // div(Tensor, Scalar, rounding_mode): a step function
  TENSORPLAY_NODE_NAME_(DivBackward3)
  variable_list apply(variable_list&& grads) override { return {zeros_like(grads[0])}; }
};
using DivBackward3 = DivBackward3T<>;

template <class = void>
struct FmodBackward0T final : UnaryNode {  // fmod(Tensor, Scalar)
  TENSORPLAY_NODE_NAME_(FmodBackward0)
  variable_list apply(variable_list&& grads) override { return {grads[0]}; }
};
using FmodBackward0 = FmodBackward0T<>;

template <class = void>
struct RemainderBackward0T final : UnaryNode {  // remainder(Tensor, Scalar)
  TENSORPLAY_NODE_NAME_(RemainderBackward0)
  variable_list apply(variable_list&& grads) override { return {grads[0]}; }
};
using RemainderBackward0 = RemainderBackward0T<>;

// clamp(self, min, max) with Scalar bounds (ClampBackward1), clamp_min(self, Scalar)
// (ClampMinBackward0), clamp_max(self, Scalar) (ClampMaxBackward0): the gradient passes where
// self lies within the bounds, ends included (PyTorch's subgradient 1 there).
template <class = void>
struct ClampBackward1T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(ClampBackward1)
  static constexpr bool kNeedsSelf = true;
  std::optional<Scalar> min_, max_;
  variable_list apply(variable_list&& grads) override {
    const Tensor x = self();
    Tensor pred;
    if (min_) pred = x.ge(*min_);
    if (max_) pred = pred.defined() ? pred.logical_and(x.le(*max_)) : x.le(*max_);
    return {pred.defined() ? grads[0].where(pred, 0.0) : grads[0]};
  }
};
using ClampBackward1 = ClampBackward1T<>;

template <class = void>
struct ClampMinBackward0T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(ClampMinBackward0)
  static constexpr bool kNeedsSelf = true;
  Scalar min_;
  variable_list apply(variable_list&& grads) override {
    return {grads[0].where(self().ge(min_), 0.0)};
  }
};
using ClampMinBackward0 = ClampMinBackward0T<>;

template <class = void>
struct ClampMaxBackward0T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(ClampMaxBackward0)
  static constexpr bool kNeedsSelf = true;
  Scalar max_;
  variable_list apply(variable_list&& grads) override {
    return {grads[0].where(self().le(max_), 0.0)};
  }
};
using ClampMaxBackward0 = ClampMaxBackward0T<>;

// masked_fill(self, mask, Scalar): filled elements no longer depend on self. The mask is saved
// (it is an input, but bool: no edge).
template <class = void>
struct MaskedFillBackward0T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(MaskedFillBackward0)
  SavedVariable mask_;
  variable_list apply(variable_list&& grads) override {
    return {grads[0].masked_fill(mask_.unpack(shared_from_this()), 0)};
  }
  void release_variables() override { mask_.reset_data(); }
};
using MaskedFillBackward0 = MaskedFillBackward0T<>;

// ---- binary: two tensor inputs ----------------------------------------------------------------
// Edges in argument order. A node saves a tensor only when the formula of an edge that needs a
// gradient uses it (should_compute_output), as PyTorch does: an in-place write to a tensor that
// was not saved is no error.

// A node with saved tensors self_ and other_ (which of them depends on the op).
struct BinaryNode : Node {
  SavedVariable self_, other_;
  void release_variables() override {
    self_.reset_data();
    other_.reset_data();
  }
  Tensor self() { return self_.unpack(shared_from_this()); }
  Tensor other() { return other_.unpack(shared_from_this()); }
};

template <class = void>
struct AddBackward0T final : Node {  // add(Tensor, Tensor, alpha)
  TENSORPLAY_NODE_NAME_(AddBackward0)
  Scalar alpha_ = 1;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {should_compute_output(0) ? g : Tensor(),
            should_compute_output(1) ? (alpha_.equal(1) ? g : g.mul(alpha_)) : Tensor()};
  }
};
using AddBackward0 = AddBackward0T<>;

template <class = void>
struct SubBackward0T final : Node {  // sub(Tensor, Tensor, alpha)
  TENSORPLAY_NODE_NAME_(SubBackward0)
  Scalar alpha_ = 1;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {should_compute_output(0) ? g : Tensor(),
            should_compute_output(1) ? g.mul(-alpha_) : Tensor()};
  }
};
using SubBackward0 = SubBackward0T<>;

template <class = void>
struct RsubBackward0T final : Node {  // rsub(self, other, alpha) = other - alpha * self
  TENSORPLAY_NODE_NAME_(RsubBackward0)
  Scalar alpha_ = 1;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {should_compute_output(0) ? g.mul(-alpha_) : Tensor(),
            should_compute_output(1) ? g : Tensor()};
  }
};
using RsubBackward0 = RsubBackward0T<>;

template <class = void>
struct MulBackward0T final
    : BinaryNode {  // mul(Tensor, Tensor): saves other for self, self for other
  TENSORPLAY_NODE_NAME_(MulBackward0)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {should_compute_output(0) ? g.mul(other()) : Tensor(),
            should_compute_output(1) ? g.mul(self()) : Tensor()};
  }
};
using MulBackward0 = MulBackward0T<>;

// div(Tensor, Tensor): saves other always, self when other needs a gradient.
template <class = void>
struct DivBackward0T final : BinaryNode {
  TENSORPLAY_NODE_NAME_(DivBackward0)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const Tensor o = other();
    return {should_compute_output(0) ? g.div(o) : Tensor(),
            should_compute_output(1) ? g.neg().mul(self().div(o).div(o)) : Tensor()};
  }
};
using DivBackward0 = DivBackward0T<>;

template <class = void>
struct DivBackward2T final : Node {  // div(Tensor, Tensor, rounding_mode): a step function
  TENSORPLAY_NODE_NAME_(DivBackward2)
  variable_list apply(variable_list&& grads) override {
    return {should_compute_output(0) ? zeros_like(grads[0]) : Tensor(),
            should_compute_output(1) ? zeros_like(grads[0]) : Tensor()};
  }
};
using DivBackward2 = DivBackward2T<>;

// fmod / remainder (Tensor, Tensor): self - other * q with q = trunc or floor of self / other,
// so d/dother = -q (and saves self and other only for that edge).
template <class = void>
struct FmodBackward1T final : BinaryNode {
  TENSORPLAY_NODE_NAME_(FmodBackward1)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {should_compute_output(0) ? g : Tensor(),
            should_compute_output(1) ? g.neg().mul(self().div(other(), "trunc")) : Tensor()};
  }
};
using FmodBackward1 = FmodBackward1T<>;

template <class = void>
struct RemainderBackward1T final : BinaryNode {
  TENSORPLAY_NODE_NAME_(RemainderBackward1)
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {should_compute_output(0) ? g : Tensor(),
            should_compute_output(1) ? g.neg().mul(self().div(other(), "floor")) : Tensor()};
  }
};
using RemainderBackward1 = RemainderBackward1T<>;

// pow(Tensor self, Tensor exponent): self_ = self, other_ = exponent, result_ when the exponent
// needs a gradient. Zero where the exponent is 0 (for self) and where self is 0 with a
// non-negative exponent (for the exponent: log(0) is -inf there).
template <class = void>
struct PowBackward1T final : BinaryNode {
  TENSORPLAY_NODE_NAME_(PowBackward1)
  SavedVariable result_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const Tensor x = self(), e = other();
    Tensor gx, ge;
    if (should_compute_output(0)) {
      gx = g.mul(e.mul(x.pow(e.sub(1)))).masked_fill(e.eq(0), 0);
    }
    if (should_compute_output(1)) {
      const Tensor r = result_.unpack(shared_from_this());
      ge = g.mul(r.mul(x.log()).masked_fill(x.eq(0).logical_and(e.ge(0)), 0));
    }
    return {gx, ge};
  }
  void release_variables() override {
    BinaryNode::release_variables();
    result_.reset_data();
  }
};
using PowBackward1 = PowBackward1T<>;

// pow(Scalar self, Tensor exponent): d/de = result * log(self); 0 for self 0, exponent >= 0.
template <class = void>
struct PowBackward2T final : UnaryNode {
  TENSORPLAY_NODE_NAME_(PowBackward2)
  static constexpr bool kNeedsSelf = true, kNeedsResult = true;  // self_: the exponent
  Scalar base_;
  variable_list apply(variable_list&& grads) override {
    const double b = base_.toDouble();
    Tensor d = result().mul(std::log(b));
    if (b == 0) d = d.masked_fill(self().ge(0), 0);
    return {grads[0].mul(d)};
  }
};
using PowBackward2 = PowBackward2T<>;

template <class = void>
struct Atan2Backward0T final : BinaryNode {  // atan2(self, other): saves both
  TENSORPLAY_NODE_NAME_(Atan2Backward0)
  variable_list apply(variable_list&& grads) override {
    const Tensor x = self(), y = other();
    const Tensor g = grads[0].div(x.square().add(y.square()));
    return {should_compute_output(0) ? g.mul(y) : Tensor(),
            should_compute_output(1) ? g.mul(x.neg()) : Tensor()};
  }
};
using Atan2Backward0 = Atan2Backward0T<>;

// maximum / minimum: the gradient goes to the larger (smaller) operand, split in halves on ties
// (PyTorch 1.13). Saves both.
template <bool kMax>
struct MaxMinBackwardT : BinaryNode {
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const Tensor x = self(), y = other();
    const Tensor shared = g.div(2).where(x.eq(y), g);  // where(x == y, g / 2, g)
    return {should_compute_output(0) ? shared.masked_fill(kMax ? x.lt(y) : x.gt(y), 0) : Tensor(),
            should_compute_output(1) ? shared.masked_fill(kMax ? x.gt(y) : x.lt(y), 0) : Tensor()};
  }
};
template <class = void>
struct MaximumBackward0T final : MaxMinBackwardT<true> {
  TENSORPLAY_NODE_NAME_(MaximumBackward0)
};
using MaximumBackward0 = MaximumBackward0T<>;
template <class = void>
struct MinimumBackward0T final : MaxMinBackwardT<false> {
  TENSORPLAY_NODE_NAME_(MinimumBackward0)
};
using MinimumBackward0 = MinimumBackward0T<>;

// clamp_min(self, Tensor min) / clamp_max(self, Tensor max): self_ = self, other_ = the bound.
template <bool kMin>
struct ClampBoundBackwardT : BinaryNode {
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const Tensor x = self(), b = other();
    return {should_compute_output(0) ? g.where(kMin ? x.ge(b) : x.le(b), 0.0) : Tensor(),
            should_compute_output(1) ? g.where(kMin ? x.lt(b) : x.gt(b), 0.0) : Tensor()};
  }
};
template <class = void>
struct ClampMinBackward1T final : ClampBoundBackwardT<true> {
  TENSORPLAY_NODE_NAME_(ClampMinBackward1)
};
using ClampMinBackward1 = ClampMinBackward1T<>;
template <class = void>
struct ClampMaxBackward1T final : ClampBoundBackwardT<false> {
  TENSORPLAY_NODE_NAME_(ClampMaxBackward1)
};
using ClampMaxBackward1 = ClampMaxBackward1T<>;

// clamp(self, Tensor? min, Tensor? max): edges self, min, max (an absent bound has none).
// PyTorch's clamp_backward and clamp_backward_min_max: a bound gets the gradient where it is
// the value taken (max wins when min > max).
template <class = void>
struct ClampBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(ClampBackward0)
  SavedVariable self_, min_, max_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    auto me = shared_from_this();
    const Tensor x = self_.unpack(me), lo = min_.unpack(me), hi = max_.unpack(me);
    variable_list out(3);
    if (should_compute_output(0)) {
      Tensor pred;
      if (lo.defined()) pred = x.ge(lo);
      if (hi.defined()) pred = pred.defined() ? pred.logical_and(x.le(hi)) : x.le(hi);
      out[0] = g.where(pred, 0.0);
    }
    if (should_compute_output(1)) {
      out[1] = g.where(hi.defined() ? x.lt(lo).logical_and(lo.lt(hi)) : x.lt(lo), 0.0);
    }
    if (should_compute_output(2)) {
      out[2] = g.where(lo.defined() ? x.gt(hi).logical_or(hi.lt(lo)) : x.gt(hi), 0.0);
    }
    return out;
  }
  void release_variables() override {
    self_.reset_data();
    min_.reset_data();
    max_.reset_data();
  }
};
using ClampBackward0 = ClampBackward0T<>;

template <class = void>
struct LerpBackward0T final : Node {  // lerp(self, end, Scalar weight)
  TENSORPLAY_NODE_NAME_(LerpBackward0)
  Scalar weight_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const double w = weight_.toDouble();
    return {should_compute_output(0) ? g.mul(1 - w) : Tensor(),
            should_compute_output(1) ? g.mul(w) : Tensor()};
  }
};
using LerpBackward0 = LerpBackward0T<>;

// lerp(self, end, Tensor weight): weight saved for self and end, self and end for weight.
template <class = void>
struct LerpBackward1T final : Node {
  TENSORPLAY_NODE_NAME_(LerpBackward1)
  SavedVariable self_, end_, weight_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    auto me = shared_from_this();
    variable_list out(3);
    if (should_compute_output(0)) out[0] = g.mul(weight_.unpack(me).neg().add(1));
    if (should_compute_output(1)) out[1] = g.mul(weight_.unpack(me));
    if (should_compute_output(2)) out[2] = g.mul(end_.unpack(me).sub(self_.unpack(me)));
    return out;
  }
  void release_variables() override {
    self_.reset_data();
    end_.reset_data();
    weight_.reset_data();
  }
};
using LerpBackward1 = LerpBackward1T<>;

// where(condition, self, other): edges self and other (the bool condition has none).
template <class = void>
struct WhereBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(WhereBackward0)
  SavedVariable condition_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const Tensor c = condition_.unpack(shared_from_this());
    return {should_compute_output(0) ? g.where(c, 0.0) : Tensor(),
            should_compute_output(1) ? g.masked_fill(c, 0) : Tensor()};
  }
  void release_variables() override { condition_.reset_data(); }
};
using WhereBackward0 = WhereBackward0T<>;

// masked_fill(self, mask, Tensor value): edges self and value (0-d): the value receives the sum
// of the gradient over the filled elements.
template <class = void>
struct MaskedFillBackward1T final : Node {
  TENSORPLAY_NODE_NAME_(MaskedFillBackward1)
  SavedVariable mask_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    const Tensor m = mask_.unpack(shared_from_this());
    return {should_compute_output(0) ? g.masked_fill(m, 0) : Tensor(),
            should_compute_output(1) ? g.masked_fill(m.logical_not(), 0).sum() : Tensor()};
  }
  void release_variables() override { mask_.reset_data(); }
};
using MaskedFillBackward1 = MaskedFillBackward1T<>;

namespace detail {

// out = op(self) with NodeT recorded (`compute()` runs the kernel).
// `init(node)` sets the formula's parameters (exponent, bounds, ...).
template <class NodeT, class Compute, class Init = decltype(kSaveNothing)>
Tensor record_unary(const Tensor& self, const Compute& compute, const Init& init = kSaveNothing) {
  return differentiable<NodeT>(
      compute,
      [&](NodeT& fn, const Tensor& result) {
        init(fn);
        if constexpr (NodeT::kNeedsSelf) fn.self_ = SavedVariable(self, false);
        if constexpr (NodeT::kNeedsResult) fn.result_ = SavedVariable(result, true);
      },
      self);
}

// self = op(self) with NodeT recorded: an input the formula needs is cloned before the write.
template <class NodeT, class Compute, class Init = decltype(kSaveNothing)>
const Tensor& record_unary_inplace(const Tensor& self, const Compute& compute,
                                   const Init& init = kSaveNothing) {
  return differentiable_inplace<NodeT>(
      self, compute,
      [&](NodeT& fn) {
        init(fn);
        if constexpr (NodeT::kNeedsSelf) fn.self_ = SavedVariable(self.clone(), false);
      },
      [&](NodeT& fn) {
        if constexpr (NodeT::kNeedsResult) fn.result_ = SavedVariable(self, true);
      });
}

}  // namespace detail

}  // namespace tensorplay::autograd
