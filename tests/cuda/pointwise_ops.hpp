// run_op: the op of a PointwiseCode as a user calls it, on the CPU or the device alike, for the
// CUDA elementwise tests (pointwise_test.cpp compares the two; pointwise_source_test.cpp checks
// which dtypes the CPU computes each op in).
#pragma once

#include <catch2/catch.hpp>

#include <tensorplay/tensorplay.hpp>

#include <optional>
#include <vector>

namespace cuda_pointwise_ops {

namespace tp = tensorplay;
using C = tp::PointwiseCode;

inline std::optional<tp::Scalar> bound(tp::Scalar s) { return s; }

// The op of `code` on x (its 1 to 3 inputs; where: the condition first) as a user calls it.
inline tp::Tensor run_op(C code, const std::vector<tp::Tensor>& x) {
  const tp::Tensor& a = x[0];
  const tp::Tensor& b = x.size() > 1 ? x[1] : x[0];
  const bool is_int = !tp::is_floating_point(a.dtype());
  switch (code) {
    case C::Add: return tp::add(a, b);
    case C::Sub: return tp::sub(a, b);
    case C::Mul: return tp::mul(a, b);
    case C::Div: return tp::div(a, b);
    case C::Maximum: return tp::maximum(a, b);
    case C::Minimum: return tp::minimum(a, b);
    case C::Pow: return tp::pow(a, b);
    case C::Eq: return a.eq(b);
    case C::Ne: return a.ne(b);
    case C::Lt: return a.lt(b);
    case C::Le: return a.le(b);
    case C::Gt: return a.gt(b);
    case C::Ge: return a.ge(b);
    case C::Atan2: return tp::atan2(a, b);
    case C::Remainder: return tp::remainder(a, b);
    case C::Fmod: return tp::fmod(a, b);
    case C::DivTrunc: return tp::div(a, b, "trunc");
    case C::DivFloor: return tp::div(a, b, "floor");
    case C::Where: return tp::where(x[0], x[1], x[2]);
    case C::Neg: return tp::neg(a);
    case C::Abs: return tp::abs(a);
    case C::Exp: return tp::exp(a);
    case C::Log: return tp::log(a);
    case C::Sqrt: return tp::sqrt(a);
    case C::Rsqrt: return tp::rsqrt(a);
    case C::Tanh: return tp::tanh(a);
    case C::Sigmoid: return tp::sigmoid(a);
    case C::Relu: return tp::relu(a);
    case C::Gelu: return tp::gelu(a);
    case C::GeluTanh: return tp::gelu(a, "tanh");
    case C::Silu: return tp::silu(a);
    case C::Sin: return tp::sin(a);
    case C::Cos: return tp::cos(a);
    case C::Clamp:
      if (a.dtype() == tp::kByte) return tp::clamp(a, bound(2), bound(30));
      return is_int ? tp::clamp(a, bound(-3), bound(5)) : tp::clamp(a, bound(-1.5), bound(2.25));
    case C::Reciprocal: return tp::reciprocal(a);
    case C::Square: return tp::square(a);
    case C::Tan: return tp::tan(a);
    case C::Asin: return tp::asin(a);
    case C::Acos: return tp::acos(a);
    case C::Atan: return tp::atan(a);
    case C::Sinh: return tp::sinh(a);
    case C::Cosh: return tp::cosh(a);
    case C::Exp2: return tp::exp2(a);
    case C::Expm1: return tp::expm1(a);
    case C::Log2: return tp::log2(a);
    case C::Log10: return tp::log10(a);
    case C::Log1p: return tp::log1p(a);
    case C::Erf: return tp::erf(a);
    case C::Floor: return tp::floor(a);
    case C::Ceil: return tp::ceil(a);
    case C::Trunc: return tp::trunc(a);
    case C::Round: return tp::round(a);
    case C::None: break;
  }
  FAIL("no op for the code");
  return {};
}

}  // namespace cuda_pointwise_ops
