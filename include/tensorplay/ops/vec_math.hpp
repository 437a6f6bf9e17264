// Elementary functions for float written so that the compiler vectorises them: plain scalar
// C++ with no branches, no calls and no tables, so that a contiguous loop
// `for (i) out[i] = exp_f32(in[i])` becomes one AVX2 instruction sequence per 8 elements at
// -O3 -march=x86-64-v3 (glibc's expf and logf are a call per element, 3-4x slower there).
// PyTorch's CPU kernels reach the same speed through Sleef's hand-vectorised functions.
//
// Selections are written as bit masks rather than `c ? a : b`: under the default
// -ftrapping-math GCC will not if-convert a select whose unselected arm is floating-point
// arithmetic, and the loop then stays scalar.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

// Always inlined: a call left in the loop stops vectorisation, and GCC's size heuristics do
// decline to inline these once a file has several call sites (each op has a few loops).
#if defined(__GNUC__)
#define TENSORPLAY_VEC_MATH_INLINE_ inline __attribute__((always_inline))
#else
#define TENSORPLAY_VEC_MATH_INLINE_ inline
#endif

namespace tensorplay::detail {

// a * b + c, fused where the target has FMA (one rounding, and as fast as a multiply).
// __FMA__ (the build's -march has it): std::fma, fused whatever the contraction setting.
// Otherwise the plain expression, because std::fma without hardware support is a slow library
// call, and because the same inline function is also compiled into the AVX2 and AVX-512
// variants of the run-time dispatch (ops/cpu_capability.hpp), whose target("fma") does not
// define __FMA__: there GCC's default -ffp-contract=fast (in -std=c++20 as in gnu++20) and
// Clang's -ffp-contract=on both contract `a * b + c` into one vfmadd (checked in the generated
// code), while the default-level variant, which has no FMA, rounds twice. Results of those
// variants thus differ in the last bit, within the bounds stated below for each function.
TENSORPLAY_VEC_MATH_INLINE_ float fmadd_f32(float a, float b, float c) noexcept {
#if defined(__FMA__)
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}

// Bit-level helpers: |x|, a sign transplant, and a select.
TENSORPLAY_VEC_MATH_INLINE_ float abs_f32(float x) noexcept {
  return std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0x7FFFFFFFu);
}
// |magnitude| with x's sign bit (magnitude must be non-negative or NaN).
TENSORPLAY_VEC_MATH_INLINE_ float with_sign_of_f32(float magnitude, float x) noexcept {
  return std::bit_cast<float>(std::bit_cast<uint32_t>(magnitude) |
                              (std::bit_cast<uint32_t>(x) & 0x80000000u));
}
// cond ? a : b, as a bit mask (see the top of this file).
TENSORPLAY_VEC_MATH_INLINE_ float select_f32(bool cond, float a, float b) noexcept {
  const uint32_t m = uint32_t(0) - uint32_t(cond);
  return std::bit_cast<float>((std::bit_cast<uint32_t>(a) & m) | (std::bit_cast<uint32_t>(b) & ~m));
}

// exp(x) for float, within 1.2 ulp of the exact value over the whole float range (checked
// exhaustively on every float in [-104, 89]: max 0.89 ulp with FMA, 1.18 without), subnormal
// results included; exp(+inf) = +inf, exp(-inf) = +0, NaN in gives NaN (the same NaN) out.
//
// Method: x = n ln2 + r with n = round(x / ln2) and |r| <= ln2 / 2, so exp(x) = 2^n exp(r).
//  - The input is clamped to [-104, 89] first, below which exp rounds to 0 and above which it
//    overflows, so every later step stays in range. The clamp works on the bit pattern with
//    integer min: as signed integers, positive floats order by value and every negative float is
//    below every positive one (so `min(bits, bits(89))` touches only x > 89, +inf and +NaN); as
//    unsigned integers negative floats order by magnitude above every positive one (so
//    `min(bits, bits(-104))` touches only x < -104, -inf and -NaN). Each is one instruction.
//    NaN does not survive the clamp and is put back at the end.
//  - n is found by adding 1.5 * 2^23: the sum's last mantissa bits are n, correctly rounded.
//  - r is x - n ln2 in two steps (Cody and Waite): ln2's leading part has 9 significant bits,
//    so n * kLn2Hi is exact for |n| < 2^15 and the first subtraction loses nothing.
//  - exp(r) is a degree-6 polynomial, 1 + r + c2 r^2 + ... + c6 r^6, fitted for minimum relative
//    error on [-ln2/2, ln2/2] (3e-9, a twentieth of a float ulp, before rounding the
//    coefficients to float).
//  - 2^n is applied as two factors 2^(n/2) and 2^(n - n/2), each built directly in the exponent
//    field; n runs over [-150, 128], beyond the normal exponents a single factor could hold, and
//    the second multiply rounds once into the subnormal range or overflows to inf.
TENSORPLAY_VEC_MATH_INLINE_ float exp_f32(float x) noexcept {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;
  constexpr float kLn2Lo = -2.12194440054690583e-4f;
  constexpr float kShift = 12582912.0f;  // 1.5 * 2^23
  constexpr int32_t kHiBits = std::bit_cast<int32_t>(89.0f);
  constexpr uint32_t kLoBits = std::bit_cast<uint32_t>(-104.0f);

  const int32_t bits = std::bit_cast<int32_t>(x);
  const uint32_t hi_clamped = uint32_t(bits < kHiBits ? bits : kHiBits);
  const float xc = std::bit_cast<float>(hi_clamped < kLoBits ? hi_clamped : kLoBits);

  const float k = fmadd_f32(xc, kLog2e, kShift);
  const float n = k - kShift;
  const int32_t ni = int32_t(std::bit_cast<uint32_t>(k) - std::bit_cast<uint32_t>(kShift));
  float r = fmadd_f32(n, -kLn2Hi, xc);
  r = fmadd_f32(n, -kLn2Lo, r);

  float p = 0x1.6a23ccp-10f;
  p = fmadd_f32(p, r, 0x1.123a2p-7f);
  p = fmadd_f32(p, r, 0x1.5558f2p-5f);
  p = fmadd_f32(p, r, 0x1.555492p-3f);
  p = fmadd_f32(p, r, 0x1.fffffcp-2f);
  p = fmadd_f32(p, r, 1.0f);
  p = fmadd_f32(p, r, 1.0f);

  const int32_t n1 = ni >> 1, n2 = ni - n1;  // both in [-75, 64]: normal exponents
  const float s1 = std::bit_cast<float>(uint32_t(n1 + 127) << 23);
  const float s2 = std::bit_cast<float>(uint32_t(n2 + 127) << 23);
  const float result = p * s1 * s2;

  return select_f32(x != x, x, result);  // NaN in, the same NaN out
}

// log(x) for float, within 1 ulp (checked exhaustively on every float: max 0.89 ulp with FMA,
// 0.90 without), subnormal inputs included; log(+-0) = -inf, log(x < 0) = NaN, log(+inf) = +inf,
// and NaN in gives the same NaN out.
//
// Method: x = 2^k m with m in [sqrt(1/2), sqrt(2)), so log(x) = k ln2 + log1p(f), f = m - 1.
//  - A subnormal x is first scaled by 2^23 (exact) and k corrected by 23.
//  - k and m come from the bits: subtracting sqrt(1/2)'s bit pattern makes the exponent field
//    step exactly where m would leave [sqrt(1/2), sqrt(2)); the mantissa keeps x's bits and the
//    exponent becomes 0 or -1. f = m - 1 is exact (Sterbenz).
//  - log1p(f) = f + f^2 q(f), q of degree 8 fitted for minimum relative error of the sum on
//    [sqrt(1/2) - 1, sqrt(2) - 1] (4e-9 before rounding the coefficients to float).
//  - k ln2 is added last, in two parts: ln2's leading part has 16 significant bits, so
//    k * kLn2Hi is exact, and the small parts are summed first.
TENSORPLAY_VEC_MATH_INLINE_ float log_f32(float x) noexcept {
  constexpr float kLn2Hi = 0.693145751953125f;
  constexpr float kLn2Lo = 1.428606765330187045e-06f;
  constexpr int32_t kSqrtHalfBits = 0x3F3504F3;

  int32_t ix = std::bit_cast<int32_t>(x);
  const uint32_t subnormal = uint32_t(0) - uint32_t(ix < 0x00800000);  // also 0 and negatives
  const float scaled = x * 8388608.0f;                                 // 2^23
  ix = int32_t((uint32_t(ix) & ~subnormal) | (std::bit_cast<uint32_t>(scaled) & subnormal));
  // Bit arithmetic in uint32_t: a negative input's bits would overflow int32_t (undefined); the
  // result for those lanes is discarded by the special-case blend below anyway.
  const int32_t e = int32_t(uint32_t(ix) - uint32_t(kSqrtHalfBits)) >> 23;
  const float k = float(e - int32_t(subnormal & 23u));
  const float f = std::bit_cast<float>(uint32_t(ix) - (uint32_t(e) << 23)) - 1.0f;

  float q = -0x1.38497ep-4f;
  q = fmadd_f32(q, f, 0x1.08581ap-3f);
  q = fmadd_f32(q, f, -0x1.0f3a0ap-3f);
  q = fmadd_f32(q, f, 0x1.226f4cp-3f);
  q = fmadd_f32(q, f, -0x1.5426d6p-3f);
  q = fmadd_f32(q, f, 0x1.99a40ep-3f);
  q = fmadd_f32(q, f, -0x1.00042ap-2f);
  q = fmadd_f32(q, f, 0x1.55555p-2f);
  q = fmadd_f32(q, f, -0x1.fffff8p-2f);
  const float tail = fmadd_f32(k, kLn2Lo, f * f * q);
  const float result = fmadd_f32(k, kLn2Hi, f + tail);

  // The special inputs.
  constexpr float kInf = std::numeric_limits<float>::infinity();
  float r = select_f32(x == 0.0f, -kInf, result);
  r = select_f32(x < 0.0f, std::numeric_limits<float>::quiet_NaN(), r);
  return select_f32(!(x < kInf) & !(x < 0.0f), x, r);  // +inf and NaN: x itself
}

// log1p(x) = log(1 + x) for float, within 1.7 ulp (checked exhaustively on every float: max
// 1.66 ulp with or without FMA): log1p(-1) = -inf, log1p(x < -1) = NaN, log1p(+inf) = +inf, NaN in
// gives NaN out. u = 1 + x rounds away the low bits of x; c = (x - (u - 1)) / u is what was lost,
// relative to u, so log1p(x) = log(u) + c to first order (the classic correction; u - 1 is exact).
TENSORPLAY_VEC_MATH_INLINE_ float log1p_f32(float x) noexcept {
  const float u = 1.0f + x;
  const float c = (x - (u - 1.0f)) / u;
  const float log_u = log_f32(u);
  // u = 1: |x| < 2^-24 and the answer is x itself, which c is exactly (this keeps -0.0).
  const float r = select_f32(u == 1.0f, c, log_u + c);
  // u = 0 (x = -1) and u = inf make c NaN; log(u) alone is the answer there (-inf, inf).
  return select_f32((u == 0.0f) | (u == std::numeric_limits<float>::infinity()), log_u, r);
}

// tanh(x) for float, within 1.4 ulp (checked exhaustively on every float: max 1.36 ulp with FMA,
// 1.34 without); odd, so
// tanh(-0.0) = -0.0; +-1 from |x| > 9; NaN in gives NaN out.
//  - |x| < 0.625: x + x^3 p(x^2), p of degree 4 fitted for minimum relative error (4e-9).
//  - otherwise 1 - 2 / (exp(2|x|) + 1) with x's sign: no cancellation there (the subtracted
//    term is below 0.45), and exp(2|x|) = inf gives exactly 1.
// Both are computed and one is selected, so that the loop stays free of branches.
TENSORPLAY_VEC_MATH_INLINE_ float tanh_f32(float x) noexcept {
  const float a = abs_f32(x);
  const float x2 = x * x;
  float p = -0x1.75e1ecp-8f;
  p = fmadd_f32(p, x2, 0x1.5226a4p-6f);
  p = fmadd_f32(p, x2, -0x1.b83c5cp-5f);
  p = fmadd_f32(p, x2, 0x1.110726p-3f);
  p = fmadd_f32(p, x2, -0x1.555532p-2f);
  // Both on |x|, x's sign put on last: an odd polynomial evaluated on -0.0 gives +0.0.
  const float small = fmadd_f32(a * x2, p, a);
  const float large = 1.0f - 2.0f / (exp_f32(a + a) + 1.0f);
  return with_sign_of_f32(select_f32(a < 0.625f, small, large), x);
}

// erf(x) for float, within 2 ulp (checked exhaustively on every float: max 1.59 ulp with FMA,
// 1.78 without); odd;
// +-1 from |x| > 3.92; NaN in gives NaN out.
//  - |x| < 0.875: 2/sqrt(pi) x + x^3 p(x^2), p of degree 4 fitted for minimum relative error
//    (1e-8).
//  - otherwise 1 - erfc(|x|) with x's sign, erfc(a) = exp(-a^2) t q(t), t = 1 / (1 + a / 2),
//    q of degree 4 fitted for minimum absolute error on [0.875, 4] (2e-9; the form is
//    Abramowitz and Stegun's 7.1.26 with more terms). erfc is below 0.22 there, so the
//    subtraction loses nothing, and the rounding of a^2 in the exponent costs at most
//    1e-8 of erfc.
TENSORPLAY_VEC_MATH_INLINE_ float erf_f32(float x) noexcept {
  const float a = abs_f32(x);
  const float x2 = x * x;
  // 2/sqrt(pi) x + x^3 p(x^2): the leading coefficient in two parts (its rounding to float alone
  // would cost half an ulp), p of degree 4 for the rest.
  constexpr float kC0Hi = 0x1.20dd76p+0f, kC0Lo = -0x1.f7ac92p-25f;
  float p = -0x1.471d0ep-11f;
  p = fmadd_f32(p, x2, 0x1.4a491ap-8f);
  p = fmadd_f32(p, x2, -0x1.b70be0p-6f);
  p = fmadd_f32(p, x2, 0x1.ce2326p-4f);
  p = fmadd_f32(p, x2, -0x1.81271cp-2f);
  const float small = fmadd_f32(a, kC0Hi, a * fmadd_f32(x2, p, kC0Lo));  // on |x|: see tanh
  const float t = 1.0f / fmadd_f32(0.5f, a, 1.0f);
  float q = -0x1.a7d102p-3f;
  q = fmadd_f32(q, t, 0x1.21308ap-1f);
  q = fmadd_f32(q, t, 0x1.650db2p-6f);
  q = fmadd_f32(q, t, 0x1.618310p-2f);
  q = fmadd_f32(q, t, 0x1.19a992p-2f);
  const float large = 1.0f - q * t * exp_f32(-x2);
  return with_sign_of_f32(select_f32(a < 0.875f, small, large), x);
}

}  // namespace tensorplay::detail

#undef TENSORPLAY_VEC_MATH_INLINE_
