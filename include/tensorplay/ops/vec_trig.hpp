// Trigonometric, inverse trigonometric and hyperbolic functions for float (sin cos tan asin acos
// atan sinh cosh), and exp log sin cos for double, written in the style of ops/vec_math.hpp: plain
// scalar C++ with no branches, no calls and no tables, so that GCC vectorises a contiguous loop
// over them (AVX2 or AVX-512, whatever the target of the function they are inlined into; nothing
// here tests __AVX__ or __FMA__). glibc's sinf and friends are a call per element; PyTorch
// reaches vector speed through Sleef.
//
// The float functions compute in double: the argument widens exactly, every step has 29 bits to
// spare, and the one rounding to float at the end makes them all but correctly rounded: every
// one is within 0.502 ulp over the whole float range (Sleef's u10 functions, which PyTorch
// uses, promise 1 ulp; the numbers measured are above each function: exhaustive or every 7th
// float, with FMA, and every 61st without). Four doubles per AVX2 vector instead of eight
// floats, but no double-float arithmetic (what Sleef's u10 functions carry instead), no
// error-free tricks that depend on FMA, and plain `a * b + c` throughout: it is fused where the
// target has FMA (GCC contracts by default) and nothing depends on whether it is. Products that
// must be exact are exact by construction (their factors' significant bits fit in 53). The
// double sin and cos are fdlibm's, on a branch-free reduction valid up to 2^17, and glibc's
// beyond: a call, made only for the (rare) elements that need it (see their section).
//
// GCC 12 vectorises them with SSE4.1 and up (x86-64-v2, v3, v4); at the SSE2 baseline it
// cannot turn a double comparison into a 64-bit mask, and the loops stay scalar there (and
// correct), but for the double sin and cos, which compare nothing.
//
// Selections are bit masks, for the reason given at the top of vec_math.hpp.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include <tensorplay/ops/vec_math.hpp>

#if defined(__GNUC__)
#define TENSORPLAY_VEC_TRIG_INLINE_ inline __attribute__((always_inline))
#else
#define TENSORPLAY_VEC_TRIG_INLINE_ inline
#endif

namespace tensorplay::detail {

// ---- double helpers (the twins of vec_math.hpp's float ones) --------------------------------

TENSORPLAY_VEC_TRIG_INLINE_ double abs_f64(double x) noexcept {
  return std::bit_cast<double>(std::bit_cast<uint64_t>(x) & 0x7FFFFFFFFFFFFFFFull);
}
// cond ? a : b, as a bit mask.
TENSORPLAY_VEC_TRIG_INLINE_ double select_f64(bool cond, double a, double b) noexcept {
  const uint64_t m = uint64_t(0) - uint64_t(cond);
  return std::bit_cast<double>((std::bit_cast<uint64_t>(a) & m) |
                               (std::bit_cast<uint64_t>(b) & ~m));
}
// x with its sign bit flipped where `flip` has bit 63 set (flip is 0 or 1 << 63).
TENSORPLAY_VEC_TRIG_INLINE_ double xor_sign_f64(double x, uint64_t flip) noexcept {
  return std::bit_cast<double>(std::bit_cast<uint64_t>(x) ^ flip);
}
// |magnitude| with the sign of the float x.
TENSORPLAY_VEC_TRIG_INLINE_ double with_sign_of_f32_f64(double magnitude, float x) noexcept {
  return xor_sign_f64(magnitude, uint64_t(std::bit_cast<uint32_t>(x) & 0x80000000u) << 32);
}

// Adding then subtracting 1.5 * 2^52 rounds a double with |v| < 2^51 to the nearest integer
// (ties to even), and the sum's low mantissa bits are that integer in two's complement. This is
// how the functions below round and convert to integers without an instruction that a baseline
// x86-64 target lacks (roundpd, cvtpd2qq).
inline constexpr double kRoundShift64 = 6755399441055744.0;  // 1.5 * 2^52

// ---- exp and log for double -------------------------------------------------------------------

// exp(x) for double, within 1 ulp (measured on 10^7 random doubles: max 0.65 ulp for normal
// results, 0.76 for subnormal ones, which round twice; glibc's is within 0.5 but a call per
// element), subnormal results included;
// exp(+inf) = +inf, exp(-inf) = +0, NaN in gives the same NaN out. The method of vec_math.hpp's
// exp_f32, with more of everything:
//  - x is clamped to [-746, 710] (beyond which the result is 0 or inf) so that n stays small;
//  - n = round(x / ln2), r + c = x - n ln2 in two steps (Cody and Waite): ln2's leading part
//    has 32 significant bits, so n * kLn2Hi is exact for |n| < 2^21, and c is the rounding
//    error of r;
//  - exp(r + c) = 1 + r + c + r^2 E(r), E of degree 10 (a Chebyshev fit on [-ln2/2, ln2/2],
//    1.4e-18), summed so that only the last addition rounds visibly;
//  - 2^n is applied as two factors of normal exponent, so that a subnormal result is rounded
//    once, by the last multiply.
TENSORPLAY_VEC_TRIG_INLINE_ double exp_f64(double x) noexcept {
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3FE62E42FEE00000
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  const double xc = select_f64(x < -746.0, -746.0, select_f64(x > 710.0, 710.0, x));

  const double k = xc * kLog2e + kRoundShift64;
  const double n = k - kRoundShift64;
  const double t = xc - n * kLn2Hi;  // exact
  const double lo = n * kLn2Lo;
  const double r = t - lo;
  const double c = (t - r) - lo;  // r + c = t - lo, the rounding of r kept

  // E in Estrin's form (pairs, then pairs of pairs): a third of Horner's dependency chain,
  // which is what bounds this loop's speed, for two more multiplies.
  const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
  const double p01 = 0x1.5555555555557p-3 * r + 0x1.0000000000000p-1;
  const double p23 = 0x1.11111111100dfp-7 * r + 0x1.5555555555556p-5;
  const double p45 = 0x1.a01a01abe62ddp-13 * r + 0x1.6c16c16c162d6p-10;
  const double p67 = 0x1.71de02375656cp-19 * r + 0x1.a01a01a6d7808p-16;
  const double p89 = 0x1.af4ddd84882fep-26 * r + 0x1.27e4db67b4303p-22;
  const double q03 = p23 * r2 + p01;
  const double q47 = p67 * r2 + p45;
  const double q8a = 0x1.1f72fc730b4ffp-29 * r2 + p89;
  const double p = q8a * r8 + (q47 * r4 + q03);
  // 1 + r + c + r^2 E(r) with one rounding that matters, the last: 1 + r as a sum and its exact
  // error (Fast2Sum: |r| < 1), the small terms added to the error first.
  const double s = 1.0 + r;
  const double e = s + (((1.0 - s) + r) + (c + r2 * p));

  // n in [-1077, 1025] split into halves of normal exponent, n1 = floor(n / 2) and n - n1,
  // from the rounding sum's bits (see kRoundShift64; never a float-to-integer conversion): u = n
  // + 1100 is positive, so the halving is a logical shift (AVX2 has no 64-bit arithmetic one).
  const uint64_t u = std::bit_cast<uint64_t>(k) - std::bit_cast<uint64_t>(kRoundShift64) + 1100u;
  const uint64_t u1 = u >> 1;  // n1 + 550
  const double s1 = std::bit_cast<double>((u1 + (1023u - 550u)) << 52);
  const double s2 = std::bit_cast<double>((u - u1 + (1023u - 550u)) << 52);
  return select_f64(x != x, x, e * s1 * s2);
}

// log(x) for double, within 1 ulp (measured on 10^7 random positive doubles of every exponent,
// subnormals included: max 0.83 ulp, near x = 0.7 where k ln2 and log1p(f) cancel in part);
// log(+-0) = -inf, log(x < 0) = NaN, log(+inf) = +inf, NaN in gives the same NaN out. fdlibm's
// method, written branch-free:
//  - x = 2^k m with m in [sqrt(1/2), sqrt(2)) from the bits (as in vec_math.hpp's log_f32; a
//    subnormal x is scaled by 2^54 first), f = m - 1 exact;
//  - log(1 + f) = 2 atanh(s) with s = f / (2 + f), |s| <= 0.172, written as
//    f - (f^2/2 - s (f^2/2 + R(s^2))) so that the large term f is exact and the rest small;
//    R(z) = z R1(z), R1 of degree 6 (a Chebyshev fit of (2 atanh(s) - 2 s) / s^3, 3e-16,
//    which the factor s^3 makes 1e-18 of the result);
//  - k ln2 in two parts, the leading one with 32 significant bits (k * kLn2Hi exact).
TENSORPLAY_VEC_TRIG_INLINE_ double log_f64(double x) noexcept {
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr uint64_t kSqrtHalfBits = 0x3FE6A09E667F3BCDull;

  uint64_t ix = std::bit_cast<uint64_t>(x);
  // Below the smallest normal, and also 0 and the negatives (as signed): scaled, and the
  // results for 0 and negatives replaced at the end.
  const uint64_t subnormal = uint64_t(0) - uint64_t(int64_t(ix) < int64_t(0x0010000000000000));
  ix = (ix & ~subnormal) | (std::bit_cast<uint64_t>(x * 0x1p54) & subnormal);
  // The exponent, biased by 1023 so that the shift is a logical one (AVX2 has no 64-bit
  // arithmetic shift).
  const uint64_t eb = (ix - kSqrtHalfBits + (uint64_t(1023) << 52)) >> 52;
  const double m = std::bit_cast<double>(ix - ((eb - 1023u) << 52));
  const double f = m - 1.0;
  // k = eb - 1023 (- 54), as a double through the rounding sum's bits.
  const double k =
      std::bit_cast<double>(std::bit_cast<uint64_t>(kRoundShift64) + eb - (subnormal & 54u)) -
      (kRoundShift64 + 1023.0);

  const double s = f / (2.0 + f);
  const double z = s * s;
  // R1 in Estrin's form (see exp_f64).
  const double z2 = z * z, z4 = z2 * z2;
  const double r01 = 0x1.99999999952e2p-2 * z + 0x1.5555555555558p-1;
  const double r23 = 0x1.c71c62e5800a1p-3 * z + 0x1.2492492df148dp-2;
  const double r45 = 0x1.39fe606542ddep-3 * z + 0x1.7462b4ab2ef6bp-3;
  const double r = ((0x1.2b584aae78a57p-3 * z2 + r45) * z4 + (r23 * z2 + r01)) * z;
  const double hfsq = 0.5 * f * f;
  const double result = k * kLn2Hi - ((hfsq - (s * (hfsq + r) + k * kLn2Lo)) - f);

  constexpr double kInf = std::numeric_limits<double>::infinity();
  double out = select_f64(x == 0.0, -kInf, result);
  out = select_f64(x < 0.0, std::numeric_limits<double>::quiet_NaN(), out);
  return select_f64(!(x < kInf) & !(x < 0.0), x, out);  // +inf and NaN: x itself
}

// ---- sin, cos, tan for float --------------------------------------------------------------
//
// Each reduces x to r = x - m pi/2 for an integer m, and evaluates one polynomial (sin, cos)
// or two (tan) on r:
//  - sin takes m even (m = 2n, n the integer nearest x/pi): |r| <= pi/2 and
//    sin(x) = (-1)^n sin(r);
//  - cos takes m odd (m = 2n + 1, n nearest x/pi - 1/2): |r| <= pi/2 and
//    cos(x) = (-1)^(n+1) sin(r). Cos is never evaluated near its zeros, where its polynomial
//    would cancel: the zeros of cos(x) become zeros of sin(r), where sin keeps its relative
//    accuracy;
//  - tan takes the m nearest x 2/pi: |r| <= pi/4 and tan(x) = sin(r) / cos(r), or
//    -cos(r) / sin(r) for odd m.
// The sign and the choice come from the low bits of the rounding sum (see kRoundShift64).
//
// Up to |x| = 2^17, r is found by Cody and Waite's method in double (trig_sub_m_pio2), beyond by
// trig_reduce_large, which is exact enough for every float. sin_f32, cos_f32 and tan_f32 compute
// both and select; contiguous rows (trig_row_f32) compute the second only for the blocks that
// need it, and one element at a time (trig_scalar_f32) only for the elements that do: the same
// bits every way.

// Beyond this, trig_reduce_large (float), or glibc's sin and cos (double).
inline constexpr double kTrigSmallLimit = 131072.0;  // 2^17

// x - m kScale pi/2 for an integer |m kScale| < 2^17 and a float x (kScale 1 or 2). pi/2's
// leading part has 36 significant bits, so m * kScale * kPio2A is exact, and so is x minus it
// (the two are within a factor of 2, or m = 0). The rest of pi/2, kPio2B, is a full double
// within 2^-92 of it; its product and the last subtraction round, but relative to 2^-21 and to
// the result, never to x: r is within 2^-52 |r| + 2^-73 of x - m kScale pi/2, enough for the
// nearest floats to a multiple of pi/2 below 2^17 (|r| > 2^-33). Two steps, not Cody and Waite's
// usual three, because double has 29 bits to spare here.
template <int kScale>
TENSORPLAY_VEC_TRIG_INLINE_ double trig_sub_m_pio2(double x, double m) noexcept {
  constexpr double kPio2A = kScale * 0x1.921fb54440000p+0;
  constexpr double kPio2B = kScale * 0x1.68c234c4c6629p-39;
  return (x - m * kPio2A) - m * kPio2B;
}

// One chunk of trig_reduce_large: (hi, lo) += x c mod 4, exactly.
TENSORPLAY_VEC_TRIG_INLINE_ void trig_reduce_add(double x, double c, double& hi,
                                                 double& lo) noexcept {
  constexpr double kShift4 = 27021597764222976.0;  // 1.5 * 2^54: rounds to multiples of 4
  const double t = x * c;
  const double w = select_f64(abs_f64(t) < 0x1p53, t - ((t + kShift4) - kShift4), 0.0);
  const double s = hi + w;  // two-sum: s + err == hi + w exactly
  const double bw = s - hi;
  const double err = (hi - (s - bw)) + (w - bw);
  hi = s;
  lo = lo + err;
}

// x 2/pi mod 4 as hi + lo (|hi| <= 16, lo a rounding error of hi), for any finite float x
// (widened to double). 2/pi is cut into eight 28-bit chunks c_k (bits 28k+1 .. 28k+28 after the
// point; 224 bits, enough for x up to 2^128 with 2^-70 to spare). Each product t = x c_k is exact
// (24 + 28 bits), and so is t mod 4, found by rounding t to a multiple of 4 with the shift
// 1.5 * 2^54 (valid for |t| < 2^53; a larger t has no bits below 4 and contributes 0). The
// residues, each in [-2, 2], are summed as a double-double (Knuth's two-sum keeps every rounding
// error), so cancellation between them loses nothing. A Payne-Hanek reduction without its table:
// every chunk is computed for every x, most of them 0 or negligible for a given x, which is why
// it is used only beyond 2^17. The callers then take an integer m near hi (|hi - m| <= 1) and
// r = ((hi - m) + lo) pi/2: hi - m is exact whenever it is small (Sterbenz), so r keeps its
// relative accuracy however close x is to a multiple of pi/2.
struct TrigLarge {
  double hi, lo;
};
TENSORPLAY_VEC_TRIG_INLINE_ TrigLarge trig_reduce_large(double x) noexcept {
  double hi = 0.0, lo = 0.0;
  trig_reduce_add(x, 0x1.45f306c000000p-1, hi, lo);
  trig_reduce_add(x, 0x1.c9c882a000000p-29, hi, lo);
  trig_reduce_add(x, 0x1.4fe13a8000000p-59, hi, lo);
  trig_reduce_add(x, 0x1.f47d4d0000000p-86, hi, lo);
  trig_reduce_add(x, 0x1.bb81b6c000000p-113, hi, lo);
  trig_reduce_add(x, 0x1.4acc9e0000000p-143, hi, lo);
  trig_reduce_add(x, 0x1.0e4107c000000p-170, hi, lo);
  trig_reduce_add(x, 0x1.ca2c756000000p-197, hi, lo);
  return {hi, lo};
}

// sin(r) on |r| <= pi/2 (+ a hair): r + r^3 S(r^2), S of degree 4 (a Chebyshev fit on
// [0, (pi/2)^2]: 3e-11, so 1e-10 relative to sin at most: 2^-9 of a float ulp).
TENSORPLAY_VEC_TRIG_INLINE_ double sin_pio2_poly_f64(double r) noexcept {
  const double z = r * r;
  double p = -0x1.9db1cc2a4cb87p-26;
  p = p * z + 0x1.7196917ff9c49p-19;
  p = p * z + -0x1.a01905ba4208ap-13;
  p = p * z + 0x1.11110fdaaf87bp-7;
  p = p * z + -0x1.5555555460530p-3;
  return r + (r * z) * p;  // -0 gives +0 (p < 0): the callers pass |r|
}
// sin(r) and cos(r) on |r| <= pi/4 (+ a hair), for tan: r + r^3 S(r^2) and
// 1 - r^2/2 + r^4 C(r^2), S and C of degree 4 (Chebyshev fits on [0, (pi/4)^2]: 3e-14, 2e-15).
TENSORPLAY_VEC_TRIG_INLINE_ double sin_pio4_poly_f64(double r, double z) noexcept {
  double p = -0x1.aa285788aaa42p-26;
  p = p * z + 0x1.71d9a9f41c5a9p-19;
  p = p * z + -0x1.a019fd9b35ee5p-13;
  p = p * z + 0x1.1111110fd3d43p-7;
  p = p * z + -0x1.555555555516bp-3;
  return r + (r * z) * p;  // -0 gives +0 (p < 0): the callers pass |r|
}
TENSORPLAY_VEC_TRIG_INLINE_ double cos_pio4_poly_f64(double z) noexcept {
  double p = 0x1.1c81c3531fff2p-29;
  p = p * z + -0x1.27e25f4bb4e6fp-22;
  p = p * z + 0x1.a019ff53a6a1cp-16;
  p = p * z + -0x1.6c16c16b614fcp-10;
  p = p * z + 0x1.5555555555437p-5;
  return 1.0 + (z * (z * p) - 0.5 * z);
}

enum class TrigFn { Sin, Cos, Tan };

// The three functions; kFull = false drops the large-argument reduction (right for |x| <= 2^17
// and for inf and NaN only: see trig_row_f32).
template <TrigFn kFn, bool kFull>
TENSORPLAY_VEC_TRIG_INLINE_ float trig_f32(float x) noexcept {
  constexpr double kInvPi = 0x1.45f306dc9c883p-2;
  constexpr double k2OverPi = 0x1.45f306dc9c883p-1;
  constexpr double kPio2 = 0x1.921fb54442d18p+0;
  const double d = x;
  // m and the rounding sum k whose low bits give n (sin, cos) or m (tan), for the small path...
  double k, r;
  if constexpr (kFn == TrigFn::Sin) {  // m = 2n
    k = d * kInvPi + kRoundShift64;
    r = trig_sub_m_pio2<2>(d, k - kRoundShift64);
  } else if constexpr (kFn == TrigFn::Cos) {  // m = 2n + 1
    k = (d * kInvPi - 0.5) + kRoundShift64;
    r = trig_sub_m_pio2<1>(d, 2.0 * (k - kRoundShift64) + 1.0);
  } else {
    k = d * k2OverPi + kRoundShift64;
    r = trig_sub_m_pio2<1>(d, k - kRoundShift64);
  }
  uint64_t kb = std::bit_cast<uint64_t>(k);
  if constexpr (kFull) {  // ...and for the large one, from y = x 2/pi mod 4
    const TrigLarge y = trig_reduce_large(d);
    double kl, ml;
    if constexpr (kFn == TrigFn::Sin) {
      kl = y.hi * 0.5 + kRoundShift64;
      ml = 2.0 * (kl - kRoundShift64);
    } else if constexpr (kFn == TrigFn::Cos) {
      kl = (y.hi * 0.5 - 0.5) + kRoundShift64;
      ml = 2.0 * (kl - kRoundShift64) + 1.0;
    } else {
      kl = y.hi + kRoundShift64;
      ml = kl - kRoundShift64;
    }
    const double rl = ((y.hi - ml) + y.lo) * kPio2;
    // +-inf and NaN take the small path, which gives NaN for them (inf - inf).
    // `&` on ints, not `&&`: no branch, so the loop stays vectorisable (and clang does not warn).
    const bool large = (int(abs_f64(d) > kTrigSmallLimit) & int(abs_f64(d) < 0x1p128)) != 0;
    const uint64_t mask = uint64_t(0) - uint64_t(large);
    r = select_f64(large, rl, r);
    kb = (std::bit_cast<uint64_t>(kl) & mask) | (kb & ~mask);
  }
  // The polynomials take |r| and r's sign is put back with the quadrant's (as a bit flip), so
  // that sin(-0) and tan(-0) are -0.
  const double a = abs_f64(r);
  const uint64_t r_sign = std::bit_cast<uint64_t>(r) & 0x8000000000000000ull;
  if constexpr (kFn == TrigFn::Sin) {
    return float(xor_sign_f64(sin_pio2_poly_f64(a), (kb << 63) ^ r_sign));  // odd n: negated
  } else if constexpr (kFn == TrigFn::Cos) {
    return float(xor_sign_f64(sin_pio2_poly_f64(a), (~kb << 63) ^ r_sign));  // even n: negated
  } else {
    const double z = a * a;
    const double s = xor_sign_f64(sin_pio4_poly_f64(a, z), r_sign);
    const double c = cos_pio4_poly_f64(z);
    const bool odd = (kb & 1u) != 0;
    return float(select_f64(odd, -c, s) / select_f64(odd, s, c));
  }
}

// sin(x) for float: within 0.5018 ulp over the whole float range (every float with |x| <= 2^17,
// every 7th beyond); correctly rounded but for rare near-halfway cases. sin(+-0) = +-0,
// sin(+-inf) = NaN, NaN in gives NaN out.
TENSORPLAY_VEC_TRIG_INLINE_ float sin_f32(float x) noexcept {
  return trig_f32<TrigFn::Sin, true>(x);
}
// cos(x) for float: within 0.5018 ulp, measured as sin_f32. cos(+-0) = 1.
TENSORPLAY_VEC_TRIG_INLINE_ float cos_f32(float x) noexcept {
  return trig_f32<TrigFn::Cos, true>(x);
}
// tan(x) for float: within 0.5000 ulp, measured as sin_f32 (the division in double costs
// nothing visible). tan(+-0) = +-0.
TENSORPLAY_VEC_TRIG_INLINE_ float tan_f32(float x) noexcept {
  return trig_f32<TrigFn::Tan, true>(x);
}

// sin_f32 (or cos_f32, tan_f32) for one element at a time, as a strided row computes: the
// large-argument reduction only when |x| needs it (a branch, which such a loop can afford and
// a vectorised one cannot). The same bits as sin_f32; NaN and inf take the full path.
template <TrigFn kFn>
inline float trig_scalar_f32(float x) noexcept {
  return abs_f32(x) <= float(kTrigSmallLimit) ? trig_f32<kFn, false>(x) : trig_f32<kFn, true>(x);
}

// out[i] = sin_f32(x[i]) (or cos_f32, tan_f32) over a contiguous row, out == x allowed: in
// blocks of 256, and a block with no |x| beyond 2^17 (the common case) skips the large-argument
// reduction, which is three times the cost of the rest. The results are the same bits. Full
// blocks have a constant length, so that their loops have no remainder to handle.
template <TrigFn kFn>
TENSORPLAY_VEC_TRIG_INLINE_ void trig_block_f32(float* out, const float* x, int64_t len) noexcept {
  constexpr uint32_t kLimitBits = std::bit_cast<uint32_t>(float(kTrigSmallLimit));
  float buf[256];      // the results go through it, so that out may alias x
  uint32_t large = 0;  // also inf and NaN: correct either way
  for (int64_t i = 0; i < len; ++i) {
    buf[i] = trig_f32<kFn, false>(x[i]);
    large |= uint32_t((std::bit_cast<uint32_t>(x[i]) & 0x7FFFFFFFu) > kLimitBits);
  }
  if (large != 0) {  // rare: the whole block again, with the full reduction
    for (int64_t i = 0; i < len; ++i) buf[i] = trig_f32<kFn, true>(x[i]);
  }
  for (int64_t i = 0; i < len; ++i) out[i] = buf[i];
}
template <TrigFn kFn>
TENSORPLAY_VEC_TRIG_INLINE_ void trig_row_f32(float* out, const float* x, int64_t n) noexcept {
  int64_t b = 0;
  for (; b + 256 <= n; b += 256) trig_block_f32<kFn>(out + b, x + b, 256);
  if (b < n) trig_block_f32<kFn>(out + b, x + b, n - b);
}

// ---- sin and cos for double ---------------------------------------------------------------
//
// fdlibm's method, written branch-free for |x| <= 2^17 (trig_f64): n = round(x 2/pi), r + y = x -
// n pi/2 as a head and a tail, and one of two kernels on |r| <= pi/4 (+ a hair), picked by n's
// parity: sin(x) = (-1)^(n/2) sin(r + y) for even n and (-1)^((n-1)/2) cos(r + y) for odd n, and
// cos(x) the other way round. Both kernels run for every element and a bit mask picks, which costs
// a second polynomial but keeps the loop vectorisable. Where cos is near 0 the sin kernel runs on
// the small r, so both functions keep their relative accuracy at their zeros. Beyond 2^17 (a
// rare case for a tensor) the row functions and sin_f64 / cos_f64 call glibc's sin and cos,
// which reduce exactly: within 1 ulp everywhere.

// pi/2 in three parts (Cody and Waite): kPio2C1 and kPio2C2 have 35 significant bits, so n times
// each is exact for |n| < 2^18, and kPio2C3 is the rest rounded to a double (pi/2 to 2^-130).
inline constexpr double kPio2C1 = 0x1.921fb54440000p+0;
inline constexpr double kPio2C2 = 0x1.68c234c4c0000p-39;
inline constexpr double kPio2C3 = 0x1.98a2e03707345p-77;

// fdlibm's __kernel_sin and __kernel_cos (Sun's k_sin.c and k_cos.c, also in musl and the BSDs):
// sin and cos of r + y for |r| <= pi/4, |y| small (the reduction's tail). sin(r) = r + r^3 S(r^2),
// S of degree 5; cos(r) = 1 - r^2/2 + r^4 C(r^2), C of degree 5 (Remez fits: 2^-58 and 2^-59
// relative). The tail enters to first order (sin(r + y) ~ sin r + y (1 - r^2/2), cos(r + y) ~
// cos r - y r), and the last additions are arranged so that only the final one rounds visibly:
// for sin the large term r alone, for cos 1 - r^2/2 as a sum and its rounding error (fdlibm's
// own sin and cos, with these kernels, are within 1 ulp; see sin_f64 for what was measured).
TENSORPLAY_VEC_TRIG_INLINE_ double sin_kernel_f64(double r, double y, double z) noexcept {
  constexpr double kS1 = -0x1.5555555555549p-3, kS2 = 0x1.111111110f8a6p-7;
  constexpr double kS3 = -0x1.a01a019c161d5p-13, kS4 = 0x1.71de357b1fe7dp-19;
  constexpr double kS5 = -0x1.ae5e68a2b9cebp-26, kS6 = 0x1.5d93a5acfd57cp-33;
  const double w = z * z;
  const double p = (kS2 + z * (kS3 + z * kS4)) + z * w * (kS5 + z * kS6);
  const double v = z * r;
  return r - ((z * (0.5 * y - v * p) - y) - v * kS1);
}
TENSORPLAY_VEC_TRIG_INLINE_ double cos_kernel_f64(double r, double y, double z) noexcept {
  constexpr double kC1 = 0x1.555555555554cp-5, kC2 = -0x1.6c16c16c15177p-10;
  constexpr double kC3 = 0x1.a01a019cb1590p-16, kC4 = -0x1.27e4f809c52adp-22;
  constexpr double kC5 = 0x1.1ee9ebdb4b1c4p-29, kC6 = -0x1.8fae9be8838d4p-37;
  const double w = z * z;
  const double p = z * (kC1 + z * (kC2 + z * kC3)) + w * w * (kC4 + z * (kC5 + z * kC6));
  const double hz = 0.5 * z;
  const double u = 1.0 - hz;
  return u + (((1.0 - u) - hz) + (z * p - r * y));
}

// x = n pi/2 + r + y for |x| <= 2^17, with n = round(x 2/pi) and k the rounding sum whose low
// bits are n (see kRoundShift64); NaN or inf give NaN (inf - inf), larger arguments values of no
// meaning (see sin_f64). Cody and Waite's method with three parts of pi/2:
//  - t = x - n kPio2C1 is exact: the product is, and x and it are within a factor of 2 (or n = 0);
//  - r = t - n kPio2C2 rounds, and e = (t - r) - n kPio2C2 is its exact rounding error: either
//    |t| >= |n kPio2C2| (Dekker's Fast2Sum), or r is below 2^-20 and then exact, all three being
//    multiples of 2^-73;
//  - y = e - n kPio2C3, the tail: r + y is within 2^-112 of x - n pi/2 (kPio2C3's rounding, the
//    product's and the subtraction's, n < 2^16.4). The double below 2^17 nearest to a multiple
//    of pi/2 is 2^-60.5 from it (x = 0x1.6c6cbc45dc8dep+5, 45.6), and those near 2^16 2^-52.7
//    (the continued fractions of pi/2 scaled to each binade bound these distances), so r + y
//    always carries 59 good bits or more.
// y is not renormalised against r: the kernels take it to first order, which is all it needs
// even where it is as large as r (then both are below 2^-59 and sin(r + y) rounds r + y).
TENSORPLAY_VEC_TRIG_INLINE_ void trig_reduce_f64(double x, double& r, double& y,
                                                 uint64_t& kb) noexcept {
  constexpr double k2OverPi = 0x1.45f306dc9c883p-1;
  const double k = x * k2OverPi + kRoundShift64;
  const double n = k - kRoundShift64;
  const double t = x - n * kPio2C1;
  const double w = n * kPio2C2;
  r = t - w;
  y = ((t - r) - w) - n * kPio2C3;
  kb = std::bit_cast<uint64_t>(k);
}

// sin(x) or cos(x) for |x| <= 2^17, NaN or inf (NaN out), branch-free: both kernels and a select
// on n's parity; for sin, n mod 4 = 0, 1, 2, 3 gives sin r, cos r, -sin r, -cos r, and for cos,
// cos r, -sin r, -cos r, sin r. The sign is the quadrant's, as a bit: sin(-0) = -0 (r = -0, y =
// 0, and the sin kernel keeps the sign). The selection mask comes straight from n's low bit (0 - 1
// is all ones), not from a comparison: SSE2 has no 64-bit integer compare, and with one the
// default level would stay scalar.
template <TrigFn kFn>
TENSORPLAY_VEC_TRIG_INLINE_ double trig_f64(double x) noexcept {
  double r, y;
  uint64_t kb;
  trig_reduce_f64(x, r, y, kb);
  const double z = r * r;
  const uint64_t sb = std::bit_cast<uint64_t>(sin_kernel_f64(r, y, z));
  const uint64_t cb = std::bit_cast<uint64_t>(cos_kernel_f64(r, y, z));
  const uint64_t odd = uint64_t(0) - (kb & 1u);
  constexpr uint64_t kSign = uint64_t(1) << 63;
  if constexpr (kFn == TrigFn::Sin) {
    return std::bit_cast<double>(((cb & odd) | (sb & ~odd)) ^ ((kb << 62) & kSign));
  } else {
    return std::bit_cast<double>(((sb & odd) | (cb & ~odd)) ^ (((kb + 1u) << 62) & kSign));
  }
}

// sin(x) and cos(x) for double, one element at a time: within 1 ulp over the whole double range
// (measured on 3 * 10^7 random doubles below 2^17: 0.79 ulp at most, with FMA or without; under
// 0.5 at the doubles nearest to multiples of pi/2), glibc's beyond 2^17. Branches, which one
// element can afford and a vectorised loop cannot: to glibc, and to the one kernel needed (what
// trig_f64 selects, so the same bits). sin(+-0) = +-0, cos(+-0) = 1, NaN and +-inf give NaN.
template <TrigFn kFn>
inline double trig_libm_f64(double x) noexcept {
  return kFn == TrigFn::Sin ? std::sin(x) : std::cos(x);
}
template <TrigFn kFn>
inline double trig_scalar_f64(double x) noexcept {
  const double a = abs_f64(x);
  if (a > kTrigSmallLimit && a < std::numeric_limits<double>::infinity()) {
    return trig_libm_f64<kFn>(x);
  }
  double r, y;
  uint64_t kb;
  trig_reduce_f64(x, r, y, kb);
  const double z = r * r;
  const bool cos_kernel = ((kb ^ uint64_t(kFn == TrigFn::Cos)) & 1u) != 0;
  const double v = cos_kernel ? cos_kernel_f64(r, y, z) : sin_kernel_f64(r, y, z);
  const uint64_t flip = ((kb + uint64_t(kFn == TrigFn::Cos)) << 62) & (uint64_t(1) << 63);
  return std::bit_cast<double>(std::bit_cast<uint64_t>(v) ^ flip);
}
inline double sin_f64(double x) noexcept { return trig_scalar_f64<TrigFn::Sin>(x); }
inline double cos_f64(double x) noexcept { return trig_scalar_f64<TrigFn::Cos>(x); }

// out[i] = sin_f64(x[i]) (or cos_f64) over a contiguous row, out == x allowed: trig_f64 over
// blocks of 256 (vectorised), then, in a block that holds a finite |x| > 2^17, glibc's function
// for those elements. The same bits as sin_f64.
template <TrigFn kFn>
TENSORPLAY_VEC_TRIG_INLINE_ void trig_block_f64(double* out, const double* x,
                                                int64_t len) noexcept {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr uint64_t kLimitBits = std::bit_cast<uint64_t>(kTrigSmallLimit);
  constexpr uint64_t kInfBits = std::bit_cast<uint64_t>(kInf);
  double buf[256];     // the results go through it, so that out may alias x
  uint64_t large = 0;  // bit 63: some finite |x| beyond 2^17
  for (int64_t i = 0; i < len; ++i) {
    buf[i] = trig_f64<kFn>(x[i]);
    // |x|'s bits b order as the values; b > kLimitBits and b < kInfBits as the sign bits of two
    // differences: SSE2 has no 64-bit compare, and with one the default level would stay scalar.
    const uint64_t b = std::bit_cast<uint64_t>(x[i]) & 0x7FFFFFFFFFFFFFFFull;
    large |= (kLimitBits - b) & (b - kInfBits);
  }
  large >>= 63;
  if (large != 0) {  // rare: glibc for the elements that need it
    for (int64_t i = 0; i < len; ++i) {
      const double a = abs_f64(x[i]);
      if (a > kTrigSmallLimit && a < kInf) buf[i] = trig_libm_f64<kFn>(x[i]);
    }
  }
  for (int64_t i = 0; i < len; ++i) out[i] = buf[i];
}
template <TrigFn kFn>
TENSORPLAY_VEC_TRIG_INLINE_ void trig_row_f64(double* out, const double* x, int64_t n) noexcept {
  int64_t b = 0;
  for (; b + 256 <= n; b += 256) trig_block_f64<kFn>(out + b, x + b, 256);
  if (b < n) trig_block_f64<kFn>(out + b, x + b, n - b);
}

// ---- asin, acos, atan for float ------------------------------------------------------------

// asin(a) on a in [0, 0.5]: a + a^3 P(a^2), P of degree 6 (a Chebyshev fit, 2.5e-10 on P, so
// 6e-11 relative to asin: 2^-10 of a float ulp).
TENSORPLAY_VEC_TRIG_INLINE_ double asin_poly_f64(double a, double z) noexcept {
  double p = 0x1.fb7ca379d49c6p-6;
  p = p * z + 0x1.5a80a068e3ee2p-7;
  p = p * z + 0x1.82db23768c84fp-6;
  p = p * z + 0x1.efedf83ab6506p-6;
  p = p * z + 0x1.6dc0f007c13e8p-5;
  p = p * z + 0x1.33331ecf8b70bp-4;
  p = p * z + 0x1.5555555c0171dp-3;
  return a + (a * z) * p;
}

// sqrt(z) for z >= 0 without std::sqrt: under the default -fmath-errno GCC guards each square
// root with a test and a libm call (for the errno of a negative argument), which keeps the loop
// scalar, and nothing in a header lifts that: an optimize("no-math-errno") attribute on this
// function is lost when it is inlined (the guard is added later, with the caller's flags), and
// GCC 12 does not fold the guard away even where the argument is provably non-negative (fabs,
// an integer converted). Instead, within 8e-13 relative (what the float functions need, not a
// double-precision square root):
//  - y ~ 1/sqrt(z) guessed from the bits and improved by one modified Newton step, y k1 (k2 -
//    z y^2), whose constants (Moroz, Walczyk et al.'s for float's fast inverse square root,
//    magic 0x5F1FFFF9, carried over to double's exponent bias; checked optimal for double too)
//    leave 6.5e-4 relative (a plain Newton step, 1.8e-3);
//  - s = z y and t = 1 - s y, so that sqrt(z) = s (1 - t)^(-1/2) exactly, and the series
//    s (1 + t/2 + 3t^2/8 + 5t^3/16) to third order: 35/128 t^4 = 8e-13 relative left.
// z y is formed before its product with y: y^2 overflows for z = 0 (y ~ 2^512), z y does not,
// and sqrt(0) = 0 (t = 1, s = 0). A negative z gives a value of no meaning.
TENSORPLAY_VEC_TRIG_INLINE_ double sqrt_nonneg_f64(double z) noexcept {
  double y = std::bit_cast<double>(0x5FE3FFFF20000000ull - (std::bit_cast<uint64_t>(z) >> 1));
  y = (0.703952253 * y) * (2.38924456 - z * y * y);
  const double s = z * y;
  const double t = 1.0 - s * y;
  return s + (s * t) * ((0.3125 * t + 0.375) * t + 0.5);
}

// The shared half of asin and acos, for a = |x| (x a float widened): v = asin(a) for a <= 0.5;
// above, v = asin(s) with s = sqrt((1 - a) / 2), from which asin(a) = pi/2 - 2 v and acos(a) =
// 2 v (the classic identity; 1 - a and the halving are exact, and the polynomial's argument
// stays in [0, 0.5]). The polynomial's z is a^2 or (1 - a) / 2, and its s the square root of z
// in both cases: for a <= 0.5 that recomputes a (to 8e-13, 2^-17 of a float ulp), but it saves
// the select of s. For a > 1 the square root of the negative (1 - a) / 2 is meaningless: the
// callers replace the result by NaN.
TENSORPLAY_VEC_TRIG_INLINE_ double asin_half_f64(double a, bool small) noexcept {
  const double z = select_f64(small, a * a, 0.5 - 0.5 * a);
  return asin_poly_f64(sqrt_nonneg_f64(z), z);
}

inline constexpr double kPio2F64 = 0x1.921fb54442d18p+0;

// asin(x) for float: within 0.5010 ulp (every float in [-1, 1]). asin(+-0) = +-0, |x| > 1 gives
// NaN, NaN in gives NaN out. Computed on |x|, then x's sign put back as a bit: x's sign bit
// alone is d ^ |d| (one instruction on the doubles, where extending the float's sign bit to 64
// bits takes four).
TENSORPLAY_VEC_TRIG_INLINE_ float asin_f32(float x) noexcept {
  const double d = x;
  const double a = abs_f64(d);
  const bool small = a <= 0.5;
  const double h = asin_half_f64(a, small);
  const double v = select_f64(small, h, kPio2F64 - 2.0 * h);
  const uint64_t sign = std::bit_cast<uint64_t>(d) ^ std::bit_cast<uint64_t>(a);
  const float r = float(xor_sign_f64(v, sign));
  return select_f32(abs_f32(x) > 1.0f, std::numeric_limits<float>::quiet_NaN(), r);
}

// acos(x) for float: within 0.5008 ulp (every float in [-1, 1]). acos(1) = +0, |x| > 1 gives NaN,
// NaN in gives NaN out. With hs = asin of |x|'s half carrying x's sign: pi/2 - hs for |x| <= 0.5,
// 2 hs for x > 0.5 and pi + 2 hs for x < -0.5, no cancellation in double. The constant term of
// the last two, 0 or pi, is pi/2 - (pi/2 with x's sign): exact, and no compare.
TENSORPLAY_VEC_TRIG_INLINE_ float acos_f32(float x) noexcept {
  const double d = x;
  const double a = abs_f64(d);
  const bool small = a <= 0.5;
  const uint64_t sign = std::bit_cast<uint64_t>(d) ^ std::bit_cast<uint64_t>(a);
  const double hs = xor_sign_f64(asin_half_f64(a, small), sign);
  const double base = kPio2F64 - xor_sign_f64(kPio2F64, sign);
  const double v = select_f64(small, kPio2F64 - hs, 2.0 * hs + base);
  return select_f32(abs_f32(x) > 1.0f, std::numeric_limits<float>::quiet_NaN(), float(v));
}

// atan(x) for float: within 0.5011 ulp (every float). Odd; atan(+-inf) = +-pi/2 (rounded), NaN in
// gives NaN out. Cephes' reduction with one division: for a = |x|, u is a itself (a <= tan(pi/8)),
// or (a - 1) / (a + 1) plus pi/4 (a <= tan(3pi/8)), or -1 / a plus pi/2, so that |u| <= tan(pi/8);
// atan(u) = u + u^3 Q(u^2), Q of degree 5 (a Chebyshev fit, 5e-10 on Q, 1e-10 relative).
TENSORPLAY_VEC_TRIG_INLINE_ float atan_f32(float x) noexcept {
  constexpr double kTanPi8 = 0.41421356237309503;  // sqrt(2) - 1
  constexpr double kTan3Pi8 = 2.4142135623730949;  // sqrt(2) + 1
  const double a = abs_f64(double(x));
  const bool mid = a > kTanPi8, big = a > kTan3Pi8;
  const double num = select_f64(big, -1.0, select_f64(mid, a - 1.0, a));
  const double den = select_f64(big, a, select_f64(mid, a + 1.0, 1.0));
  const double base = select_f64(big, kPio2F64, select_f64(mid, 0.5 * kPio2F64, 0.0));
  const double u = num / den;
  const double z = u * u;
  double q = 0x1.9d8b2344d1c3cp-5;
  q = q * z + -0x1.614448bd30a84p-4;
  q = q * z + 0x1.c57bad2e925f0p-4;
  q = q * z + -0x1.248a173238684p-3;
  q = q * z + 0x1.99997b13bead1p-3;
  q = q * z + -0x1.5555554c0aef3p-2;
  const double v = base + (u + (u * z) * q);
  return float(with_sign_of_f32_f64(v, x));
}

// ---- sinh, cosh for float ------------------------------------------------------------------

// e^a / 2 and e^-a / 2 for a in [0, 90] (beyond 89.4 both functions overflow float anyway; a
// larger a or inf is clamped to 90, NaN goes through as NaN), within 1e-11 relative: a = n ln2 + r
// as in exp_f64, and e^+-r = C(r^2) +- r S(r^2) from the even and odd Taylor series of degree
// 8 and 9 (|r| <= ln2/2: 7e-12 and 6e-13), so both exponentials cost one evaluation and no
// division; 2^(+-n - 1) is built in the exponent field.
struct ExpPair {
  double plus, minus;
};
TENSORPLAY_VEC_TRIG_INLINE_ ExpPair half_exp_pm_f64(double a) noexcept {
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  const double ac = select_f64(a > 90.0, 90.0, a);
  const double k = ac * kLog2e + kRoundShift64;
  const double n = k - kRoundShift64;
  const double r = (ac - n * kLn2Hi) - n * kLn2Lo;
  const double z = r * r;
  double c = 1.0 / 40320.0;
  c = c * z + 1.0 / 720.0;
  c = c * z + 1.0 / 24.0;
  c = c * z + 0.5;
  c = c * z + 1.0;
  double s = 1.0 / 362880.0;
  s = s * z + 1.0 / 5040.0;
  s = s * z + 1.0 / 120.0;
  s = s * z + 1.0 / 6.0;
  s = (s * z) * r + r;
  // n in [-1, 130]: both exponents normal.
  const uint64_t ni = std::bit_cast<uint64_t>(k) - std::bit_cast<uint64_t>(kRoundShift64);
  const double up = std::bit_cast<double>((ni + 1022u) << 52);    // 2^(n - 1)
  const double down = std::bit_cast<double>((1022u - ni) << 52);  // 2^(-n - 1)
  return {(c + s) * up, (c - s) * down};
}

// sinh(x) for float: within 0.5002 ulp (every float in [-90, 90]). Odd; +-inf beyond |x| = 89.4
// (the conversion to float overflows), NaN in gives NaN out. |x| < 0.5: x + x^3 (1/3! + x^2/5! +
// ... + x^8/11!) (Taylor, 2e-14 relative); otherwise e^|x|/2 - e^-|x|/2, where the subtraction
// loses under a bit (e^-|x| < 0.61 e^|x|).
TENSORPLAY_VEC_TRIG_INLINE_ float sinh_f32(float x) noexcept {
  const double a = abs_f64(double(x));
  const double z = a * a;
  double p = 1.0 / 39916800.0;
  p = p * z + 1.0 / 362880.0;
  p = p * z + 1.0 / 5040.0;
  p = p * z + 1.0 / 120.0;
  p = p * z + 1.0 / 6.0;
  const double small = a + (a * z) * p;
  const ExpPair e = half_exp_pm_f64(a);
  return float(with_sign_of_f32_f64(select_f64(a < 0.5, small, e.plus - e.minus), x));
}

// cosh(x) for float: e^|x|/2 + e^-|x|/2, within 0.5002 ulp (every float in [-90, 90]). Even; +inf
// beyond |x| = 89.4, NaN in gives NaN out.
TENSORPLAY_VEC_TRIG_INLINE_ float cosh_f32(float x) noexcept {
  const ExpPair e = half_exp_pm_f64(abs_f64(double(x)));
  return float(e.plus + e.minus);
}

}  // namespace tensorplay::detail

#undef TENSORPLAY_VEC_TRIG_INLINE_
