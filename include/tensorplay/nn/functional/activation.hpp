// Activations: the ATen-level ops PyTorch has (leaky_relu elu selu relu6 hardtanh hardsigmoid
// hardswish mish, each with its in-place `_` form and `_out` where ATen has one) and
// tensorplay::nn::functional's relu relu6 leaky_relu elu selu gelu silu mish softplus hardtanh
// hardsigmoid hardswish with libtorch's option structs. relu, gelu, silu and softplus are the
// tensor ops of ops/unary.hpp.
//
// Each op is one scalar functor run by unary.hpp's loop (the iteration engine does layouts,
// threads, out= and in-place checks); PyTorch 1.13's kernel names appear in the dtype errors
// ("\"elu_cpu\" not implemented for 'Long'"). Floating types only, but hardtanh (and relu6),
// which is a clamp in PyTorch and keeps integer dtypes. Half and BFloat16 compute in float (PyTorch
// 1.13's CPU kernels refuse Half, which we take, as ops/unary.hpp does). No device has kernels
// for these: a CUDA or Vulkan tensor fails with the device dispatch point's NotImplementedError.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cmath>
#include <string_view>

#include <tensorplay/autograd/functions/nn.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/nn/functional/options.hpp>
#include <tensorplay/ops/unary.hpp>

namespace tensorplay {
namespace detail {

// ---- scalar functions (T: the compute type; C: the type the parameters were converted to) -------

template <class C>
struct LeakyReluOp {
  C slope;
  template <class T>
  T operator()(T x) const noexcept {
    return x > T(0) ? x : x * slope;
  }
};

// x <= 0 ? expm1(x * input_scale) * alpha * scale : x * scale (PyTorch's negcoef/poscoef).
template <class C>
struct EluOp {
  C negcoef, poscoef, input_scale;
  template <class T>
  T operator()(T x) const noexcept {
    return x <= T(0) ? std::expm1(x * input_scale) * negcoef : x * poscoef;
  }
};

// clamp(x, lo, hi): min(max(x, lo), hi) (hi wins when lo > hi); NaN passes through.
template <class C>
struct HardtanhOp {
  C lo, hi;
  template <class T>
  T operator()(T x) const noexcept {
    const T y = x < lo ? lo : x;
    return y > hi ? hi : y;
  }
};

struct HardsigmoidOp {
  template <class T>
  T operator()(T x) const noexcept {
    return std::min(std::max(x + T(3), T(0)), T(6)) / T(6);
  }
};

struct HardswishOp {
  template <class T>
  T operator()(T x) const noexcept {
    return x * std::min(std::max(x + T(3), T(0)), T(6)) / T(6);
  }
};

// x * tanh(softplus(x)), PyTorch's formula (exp overflows to inf for large x: tanh(inf) = 1).
struct MishOp {
  template <class T>
  T operator()(T x) const noexcept {
    return x * tanh_of(log1p_of(exp_of(x)));
  }
};

// A dtype-keeping unary op whose functor OpT<C> takes Scalar parameters converted to C, the
// compute type (float for Half and BFloat16).
template <UnaryTypes K, template <class> class OpT, class... Scalars>
Tensor scalar_param_unary(const Tensor& out, const Tensor& self, const char* kernel,
                          const Scalars&... params) {
  TensorIterator iter = unary_iter(out, self);
  if (!iter.is_cpu()) detail::throw_no_device_op(kernel, iter.device());
  const DType dt = iter.common_dtype();
  dispatch_dtype(dt, [&]<class T>() {
    if constexpr (kUnarySupports<K, T>) {
      using C = opmath_t<T>;
      unary_loop<T>(iter, OpT<C>{params.template to<C>()...});
    } else {
      dtype_not_implemented(kernel, dt);
    }
  });
  return iter.output();
}

template <class = void>
Tensor leaky_relu_impl(const Tensor& out, const Tensor& self, const Scalar& slope) {
  return scalar_param_unary<UnaryTypes::Floating, LeakyReluOp>(out, self, "leaky_relu_cpu", slope);
}
template <class = void>
Tensor elu_impl(const Tensor& out, const Tensor& self, const Scalar& alpha, const Scalar& scale,
                const Scalar& input_scale) {
  const Scalar negcoef(alpha.toDouble() * scale.toDouble());
  return scalar_param_unary<UnaryTypes::Floating, EluOp>(out, self, "elu_cpu", negcoef, scale,
                                                         input_scale);
}
template <class = void>
Tensor hardtanh_impl(const Tensor& out, const Tensor& self, const Scalar& min_val,
                     const Scalar& max_val) {
  TP_CHECK(self.dtype() != kBool, "Bool inputs not supported for hardtanh");
  return scalar_param_unary<UnaryTypes::AllButBool, HardtanhOp>(out, self, "clamp_scalar_cpu",
                                                                min_val, max_val);
}
template <class = void>
Tensor hardsigmoid_impl(const Tensor& out, const Tensor& self) {
  return unary_op<UnaryTypes::Floating>(out, self, "hardsigmoid_cpu", HardsigmoidOp{});
}
template <class = void>
Tensor hardswish_impl(const Tensor& out, const Tensor& self) {
  return unary_op<UnaryTypes::Floating>(out, self, "hardswish_cpu", HardswishOp{});
}
template <class = void>
Tensor mish_impl(const Tensor& out, const Tensor& self) {
  return unary_op<UnaryTypes::Floating>(out, self, "mish_cpu", MishOp{});
}

// SELU's constants (Klambauer et al.), as ATen spells them.
inline constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
inline constexpr double kSeluScale = 1.0507009873554804934193349852946;

}  // namespace detail

// ---- leaky_relu ---------------------------------------------------------------------------------
template <class = void>
Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope = 0.01) {
  return autograd::detail::record_unary<autograd::LeakyReluBackward0>(
      self, [&] { return detail::leaky_relu_impl(Tensor(), self, negative_slope); },
      [&](auto& fn) { fn.negative_slope_ = negative_slope; });
}
template <class = void>
const Tensor& leaky_relu_out(const Tensor& out, const Tensor& self,
                             const Scalar& negative_slope = 0.01) {
  detail::check_out_defined(out, "leaky_relu_out");
  autograd::detail::check_out_no_grad("leaky_relu", out, self);
  detail::leaky_relu_impl(out, self, negative_slope);
  return out;
}
template <class = void>
const Tensor& leaky_relu_(const Tensor& self, const Scalar& negative_slope = 0.01) {
  return autograd::detail::record_unary_inplace<autograd::LeakyReluBackward1>(
      self, [&] { detail::leaky_relu_impl(self, self, negative_slope); },
      [&](auto& fn) { fn.negative_slope_ = negative_slope; });
}

// ---- elu, selu ----------------------------------------------------------------------------------
template <class = void>
Tensor elu(const Tensor& self, const Scalar& alpha = 1, const Scalar& scale = 1,
           const Scalar& input_scale = 1) {
  return autograd::detail::record_unary<autograd::EluBackward0>(
      self, [&] { return detail::elu_impl(Tensor(), self, alpha, scale, input_scale); },
      [&](auto& fn) {
        fn.alpha_ = alpha.toDouble();
        fn.scale_ = scale.toDouble();
        fn.input_scale_ = input_scale.toDouble();
      });
}
template <class = void>
const Tensor& elu_out(const Tensor& out, const Tensor& self, const Scalar& alpha = 1,
                      const Scalar& scale = 1, const Scalar& input_scale = 1) {
  detail::check_out_defined(out, "elu_out");
  autograd::detail::check_out_no_grad("elu", out, self);
  detail::elu_impl(out, self, alpha, scale, input_scale);
  return out;
}
template <class = void>
const Tensor& elu_(const Tensor& self, const Scalar& alpha = 1, const Scalar& scale = 1,
                   const Scalar& input_scale = 1) {
  return autograd::detail::record_unary_inplace<autograd::EluBackward1>(
      self, [&] { detail::elu_impl(self, self, alpha, scale, input_scale); },
      [&](auto& fn) {
        fn.alpha_ = alpha.toDouble();
        fn.scale_ = scale.toDouble();
        fn.input_scale_ = input_scale.toDouble();
      });
}
// selu(x) = elu(x, alpha, scale) with SELU's constants (EluBackward0 / EluBackward1).
template <class = void>
Tensor selu(const Tensor& self) {
  return tensorplay::elu(self, detail::kSeluAlpha, detail::kSeluScale);
}
template <class = void>
const Tensor& selu_(const Tensor& self) {
  return tensorplay::elu_(self, detail::kSeluAlpha, detail::kSeluScale);
}

// ---- hardtanh, relu6 ----------------------------------------------------------------------------
template <class = void>
Tensor hardtanh(const Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1) {
  return autograd::detail::record_unary<autograd::HardtanhBackward0>(
      self, [&] { return detail::hardtanh_impl(Tensor(), self, min_val, max_val); },
      [&](auto& fn) {
        fn.min_val_ = min_val;
        fn.max_val_ = max_val;
      });
}
template <class = void>
const Tensor& hardtanh_out(const Tensor& out, const Tensor& self, const Scalar& min_val = -1,
                           const Scalar& max_val = 1) {
  detail::check_out_defined(out, "hardtanh_out");
  autograd::detail::check_out_no_grad("hardtanh", out, self);
  detail::hardtanh_impl(out, self, min_val, max_val);
  return out;
}
template <class = void>
const Tensor& hardtanh_(const Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1) {
  return autograd::detail::record_unary_inplace<autograd::HardtanhBackward0>(
      self, [&] { detail::hardtanh_impl(self, self, min_val, max_val); },
      [&](auto& fn) {
        fn.min_val_ = min_val;
        fn.max_val_ = max_val;
      });
}
// relu6(x) = hardtanh(x, 0, 6), as ATen composes it.
template <class = void>
Tensor relu6(const Tensor& self) {
  return tensorplay::hardtanh(self, 0, 6);
}
template <class = void>
const Tensor& relu6_(const Tensor& self) {
  return tensorplay::hardtanh_(self, 0, 6);
}

// ---- hardsigmoid, hardswish, mish ---------------------------------------------------------------
template <class = void>
Tensor hardsigmoid(const Tensor& self) {
  return autograd::detail::record_unary<autograd::HardsigmoidBackward0>(
      self, [&] { return detail::hardsigmoid_impl(Tensor(), self); });
}
template <class = void>
const Tensor& hardsigmoid_out(const Tensor& out, const Tensor& self) {
  detail::check_out_defined(out, "hardsigmoid_out");
  autograd::detail::check_out_no_grad("hardsigmoid", out, self);
  detail::hardsigmoid_impl(out, self);
  return out;
}
template <class = void>
const Tensor& hardsigmoid_(const Tensor& self) {
  return autograd::detail::record_unary_inplace<autograd::HardsigmoidBackward0>(
      self, [&] { detail::hardsigmoid_impl(self, self); });
}
template <class = void>
Tensor hardswish(const Tensor& self) {
  return autograd::detail::record_unary<autograd::HardswishBackward0>(
      self, [&] { return detail::hardswish_impl(Tensor(), self); });
}
template <class = void>
const Tensor& hardswish_out(const Tensor& out, const Tensor& self) {
  detail::check_out_defined(out, "hardswish_out");
  autograd::detail::check_out_no_grad("hardswish", out, self);
  detail::hardswish_impl(out, self);
  return out;
}
template <class = void>
const Tensor& hardswish_(const Tensor& self) {
  return autograd::detail::record_unary_inplace<autograd::HardswishBackward0>(
      self, [&] { detail::hardswish_impl(self, self); });
}
template <class = void>
Tensor mish(const Tensor& self) {
  return autograd::detail::record_unary<autograd::MishBackward0>(
      self, [&] { return detail::mish_impl(Tensor(), self); });
}
template <class = void>
const Tensor& mish_out(const Tensor& out, const Tensor& self) {
  detail::check_out_defined(out, "mish_out");
  autograd::detail::check_out_no_grad("mish", out, self);
  detail::mish_impl(out, self);
  return out;
}
template <class = void>
const Tensor& mish_(const Tensor& self) {
  return autograd::detail::record_unary_inplace<autograd::MishBackward0>(
      self, [&] { detail::mish_impl(self, self); });
}

}  // namespace tensorplay

// ---- tensorplay::nn::functional (torch::nn::functional's spellings) -----------------------------
// An in-place option returns the input, modified (as F.relu(x, inplace=True) does).
namespace tensorplay::nn::functional {

template <class = void>
Tensor relu(const Tensor& input, const ReLUFuncOptions& options = {}) {
  return options.inplace() ? tensorplay::relu_(input) : tensorplay::relu(input);
}
template <class = void>
Tensor relu6(const Tensor& input, const ReLU6FuncOptions& options = {}) {
  return options.inplace() ? tensorplay::relu6_(input) : tensorplay::relu6(input);
}
template <class = void>
Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options = {}) {
  return options.inplace() ? tensorplay::leaky_relu_(input, options.negative_slope())
                           : tensorplay::leaky_relu(input, options.negative_slope());
}
template <class = void>
Tensor elu(const Tensor& input, const ELUFuncOptions& options = {}) {
  return options.inplace() ? tensorplay::elu_(input, options.alpha())
                           : tensorplay::elu(input, options.alpha());
}
template <class = void>
Tensor selu(const Tensor& input, const SELUFuncOptions& options = {}) {
  return options.inplace() ? tensorplay::selu_(input) : tensorplay::selu(input);
}
template <class = void>
Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {}) {
  return tensorplay::gelu(input, options.approximate());
}
template <class = void>
Tensor silu(const Tensor& input, const SiLUFuncOptions& options = {}) {
  return options.inplace() ? tensorplay::silu_(input) : tensorplay::silu(input);
}
template <class = void>
Tensor mish(const Tensor& input, const MishFuncOptions& options = {}) {
  return options.inplace() ? tensorplay::mish_(input) : tensorplay::mish(input);
}
template <class = void>
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {}) {
  return tensorplay::softplus(input, options.beta(), options.threshold());
}
template <class = void>
Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& options = {}) {
  return options.inplace() ? tensorplay::hardtanh_(input, options.min_val(), options.max_val())
                           : tensorplay::hardtanh(input, options.min_val(), options.max_val());
}
template <class = void>
Tensor hardsigmoid(const Tensor& input, const HardsigmoidFuncOptions& options = {}) {
  return options.inplace() ? tensorplay::hardsigmoid_(input) : tensorplay::hardsigmoid(input);
}
template <class = void>
Tensor hardswish(const Tensor& input, const HardswishFuncOptions& options = {}) {
  return options.inplace() ? tensorplay::hardswish_(input) : tensorplay::hardswish(input);
}

}  // namespace tensorplay::nn::functional
