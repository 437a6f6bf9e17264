// Trigonometric, inverse trigonometric and hyperbolic functions for float (sin cos tan asin acos
// atan sinh cosh), and exp and log for double, written in the style of ops/vec_math.hpp: plain
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
// must be exact are exact by construction (their factors' significant bits fit in 53).
//
// GCC 12 vectorises them with SSE4.1 and up (x86-64-v2, v3, v4); at the SSE2 baseline it
// cannot turn a double comparison into a 64-bit mask, and the loops stay scalar there (and
// correct).
//
// Selections are bit masks, for the reason given at the top of vec_math.hpp.
#pragma once

#include <bit>
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

// Beyond this, trig_reduce_large.
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
// scalar. A reciprocal square root guessed from the bits (3.4% off), two Newton steps (5e-6),
// then one Newton step on the square root itself: within 2e-11 relative, which is what the
// float functions need (not a double-precision square root). sqrt(0) = 0.
TENSORPLAY_VEC_TRIG_INLINE_ double sqrt_nonneg_f64(double z) noexcept {
  double y = std::bit_cast<double>(0x5FE6EB50C7B537A9ull - (std::bit_cast<uint64_t>(z) >> 1));
  const double hz = 0.5 * z;
  y = y * (1.5 - hz * y * y);
  y = y * (1.5 - hz * y * y);
  const double s = z * y;
  return s + 0.5 * y * (z - s * s);
}

// The shared half of asin and acos: for a = |x| <= 0.5, v = asin(a); above, v = asin(sqrt((1 -
// a) / 2)), from which asin(a) = pi/2 - 2 v and acos(a) = 2 v (the classic identity; 1 - a and
// the halving are exact in double, and the polynomial's argument stays in [0, 0.5]).
// (Returns v only: a struct holding the bool as well keeps GCC from vectorising the callers.)
TENSORPLAY_VEC_TRIG_INLINE_ double asin_half_f64(double a) noexcept {
  const bool small = a <= 0.5;
  const double zl = 0.5 * (1.0 - a);
  const double s = select_f64(small, a, sqrt_nonneg_f64(select_f64(small, 0.0, zl)));
  const double z = select_f64(small, a * a, zl);
  return asin_poly_f64(s, z);
}

inline constexpr double kPio2F64 = 0x1.921fb54442d18p+0;
inline constexpr double kPiF64 = 0x1.921fb54442d18p+1;

// asin(x) for float: within 0.5014 ulp (every float in [-1, 1]). asin(+-0) = +-0, |x| > 1 gives
// NaN, NaN in gives NaN out.
TENSORPLAY_VEC_TRIG_INLINE_ float asin_f32(float x) noexcept {
  const double a = abs_f64(double(x));
  const double h = asin_half_f64(a);
  const double v = select_f64(a <= 0.5, h, kPio2F64 - 2.0 * h);
  const float r = float(with_sign_of_f32_f64(v, x));
  return select_f32(abs_f32(x) > 1.0f, std::numeric_limits<float>::quiet_NaN(), r);
}

// acos(x) for float: within 0.5008 ulp (every float in [-1, 1]). acos(1) = +0, |x| > 1 gives NaN,
// NaN in gives NaN out. pi/2 - asin(x) near 0, 2 v for x > 0.5, pi - 2 v for x < -0.5: no
// cancellation in double.
TENSORPLAY_VEC_TRIG_INLINE_ float acos_f32(float x) noexcept {
  const double a = abs_f64(double(x));
  const double h = asin_half_f64(a);
  const bool neg = x < 0.0f;
  const double large = select_f64(neg, kPiF64, 0.0) + xor_sign_f64(2.0 * h, uint64_t(neg) << 63);
  const double v = select_f64(a <= 0.5, kPio2F64 - with_sign_of_f32_f64(h, x), large);
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
