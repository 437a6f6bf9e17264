// Half (IEEE 754 binary16) and BFloat16 (bfloat16): 16-bit floating-point value types.
//
// Both are storage types, as in c10: two bytes holding the bit pattern in `x`, trivially copyable
// so a buffer of them can be memcpy'd, and arithmetic done by widening to float and rounding the
// result back (most kernels that use them are memory bound; float math is exact enough and runs
// everywhere). Every conversion is constexpr: it is integer code on the bit pattern, using
// std::bit_cast, with no floating-point operation whose result could depend on the rounding mode.
//
// Rounding is to nearest, ties to even, from every source type, including results that land in the
// subnormal range or overflow (to infinity). NaN converts to a quiet NaN of the same sign.
// Two deliberate differences from c10, both about exactness rather than API:
//  - a double or a 64-bit integer is rounded once, directly to 16 bits; c10 goes through float
//    first, which can round twice (e.g. 1 + 2^-11 + 2^-40 -> 1.0 in c10, 1 + 2^-10 here).
//  - BFloat16 keeps the sign of a NaN and widens a signalling NaN to a quiet one, as Half does;
//    c10 returns +0x7FC0 for every NaN and widens by a plain shift.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

namespace tensorplay {

namespace detail {

constexpr uint32_t f32_to_bits(float f) noexcept { return std::bit_cast<uint32_t>(f); }
constexpr float f32_from_bits(uint32_t w) noexcept { return std::bit_cast<float>(w); }

// Rounds the positive value sig * 2^exp2 to nearest-even in a binary format with ExpBits exponent
// bits and ManBits stored fraction bits, and returns the magnitude bits (infinity on overflow).
// Slow but general: it serves sources that are rare in kernels (double, 64-bit integers), which
// must not go through float first because that rounds twice.
template <int ExpBits, int ManBits>
constexpr uint16_t round_to_format(uint64_t sig, int exp2) noexcept {
  constexpr int bias = (1 << (ExpBits - 1)) - 1;
  constexpr int emin = 1 - bias;
  constexpr uint64_t inf = uint64_t((1u << ExpBits) - 1) << ManBits;
  if (sig == 0) return 0;
  const int e = 63 - std::countl_zero(sig) + exp2;  // exponent of the leading one bit
  if (e > bias) return uint16_t(inf);               // >= 2^(bias+1): overflows however rounded
  const int e_eff = e < emin ? emin : e;            // subnormals share emin's ulp
  const int shift = (e_eff - ManBits) - exp2;       // bits of sig below the result's ulp
  uint64_t n;
  if (shift <= 0) {
    n = sig << -shift;  // exact; n < 2^(ManBits+1) here
  } else if (shift > 64) {
    n = 0;  // sig < 2^64 <= 2^(shift-1): below half an ulp
  } else if (shift == 64) {
    n = sig > (uint64_t{1} << 63) ? 1 : 0;  // exactly half an ulp ties to the even 0
  } else {
    n = sig >> shift;
    const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    n += (rem > half || (rem == half && (n & 1))) ? 1 : 0;
  }
  // n includes the implicit bit for normals, so adding it to the exponent field (e_eff - emin)
  // yields the biased exponent; a carry out of the fraction bumps the exponent for free.
  const uint64_t bits = (uint64_t(e_eff - emin) << ManBits) + n;
  return uint16_t(bits >= inf ? inf : bits);
}

// Splits a finite nonzero double into sig * 2^exp2 and rounds it to the format.
template <int ExpBits, int ManBits>
constexpr uint16_t round_double_magnitude(uint64_t d_bits) noexcept {
  const uint64_t frac = d_bits & ((uint64_t{1} << 52) - 1);
  const int exp_field = int((d_bits >> 52) & 0x7FF);
  if (exp_field == 0) return round_to_format<ExpBits, ManBits>(frac, -1074);
  return round_to_format<ExpBits, ManBits>(frac | (uint64_t{1} << 52), exp_field - 1075);
}

template <std::integral I>
constexpr bool is_negative(I v) noexcept {
  if constexpr (std::is_signed_v<I>) {
    return v < 0;
  } else {
    return false;
  }
}

template <std::integral I>
constexpr uint64_t unsigned_magnitude(I v) noexcept {
  if constexpr (std::is_signed_v<I>) {
    // -(v + 1) + 1 avoids negating the most negative value.
    return v < 0 ? uint64_t(-(int64_t(v) + 1)) + 1 : uint64_t(v);
  } else {
    return uint64_t(v);
  }
}

// ---- binary16 ----------------------------------------------------------------------------

// binary16 -> binary32 is exact. A NaN keeps its sign and payload and is made quiet (as c10's
// float-multiply path does); an infinity keeps a zero fraction.
constexpr float fp16_to_fp32(uint16_t h) noexcept {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) {
    return f32_from_bits(sign | 0x7F800000u | (mant << 13) | (mant != 0 ? 0x00400000u : 0u));
  }
  if (exp == 0) {
    if (mant == 0) return f32_from_bits(sign);
    // Subnormal: shift the leading one up to the implicit-bit position (bit 10) and lower the
    // exponent by as much; every binary16 subnormal is a normal binary32.
    const int shift = std::countl_zero(mant) - 21;
    mant = (mant << shift) & 0x3FFu;
    return f32_from_bits(sign | (uint32_t(113 - shift) << 23) | (mant << 13));
  }
  return f32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));  // rebias 15 -> 127
}

// binary32 -> binary16, round to nearest even. This is the hot conversion, so it special-cases
// the ranges instead of calling round_to_format.
constexpr uint16_t fp32_to_fp16(float f) noexcept {
  const uint32_t w = f32_to_bits(f);
  const uint16_t sign = uint16_t((w >> 16) & 0x8000u);
  const uint32_t a = w & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return uint16_t(sign | 0x7E00u);  // NaN -> quiet NaN
  // 65520 = 0x477FF000 is the midpoint between 65504 (max finite) and 65536; the tie goes to the
  // even neighbour, which is infinity, so everything from there up overflows.
  if (a >= 0x477FF000u) return uint16_t(sign | 0x7C00u);
  if (a >= 0x38800000u) {
    // Normal result (|f| >= 2^-14): rebias the exponent, then drop 13 fraction bits with the
    // classic add-half-minus-one-plus-lsb trick; a carry rolls into the exponent correctly.
    const uint32_t r = a - 0x38000000u;
    return uint16_t(sign | ((r + 0xFFFu + ((r >> 13) & 1u)) >> 13));
  }
  if (a < 0x33000000u) return sign;  // below 2^-25 (half the smallest subnormal): signed zero
  // Subnormal result: count in units of 2^-24, shifting the 24-bit significand right.
  const uint32_t shift = 126u - (a >> 23);  // 14..24
  const uint32_t sig = (a & 0x7FFFFFu) | 0x800000u;
  const uint32_t n = sig >> shift;
  const uint32_t rem = sig & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1u);
  // n may round up to 0x400, which is exactly the encoding of the smallest normal.
  return uint16_t(sign | (n + ((rem > half || (rem == half && (n & 1u))) ? 1u : 0u)));
}

constexpr uint16_t fp64_to_fp16(double d) noexcept {
  const uint64_t b = std::bit_cast<uint64_t>(d);
  const uint16_t sign = uint16_t((b >> 48) & 0x8000u);
  const uint64_t a = b & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) return uint16_t(sign | 0x7E00u);
  if (a == 0x7FF0000000000000ull) return uint16_t(sign | 0x7C00u);
  return uint16_t(sign | round_double_magnitude<5, 10>(a));
}

template <std::integral I>
constexpr uint16_t int_to_fp16(I v) noexcept {
  const uint16_t sign = is_negative(v) ? 0x8000u : 0u;
  return uint16_t(sign | round_to_format<5, 10>(unsigned_magnitude(v), 0));
}

// ---- bfloat16 ----------------------------------------------------------------------------

// bfloat16 is the top half of a binary32, so widening is a shift (plus quieting a NaN).
constexpr float bf16_to_fp32(uint16_t b) noexcept {
  uint32_t w = uint32_t(b) << 16;
  if ((b & 0x7FFFu) > 0x7F80u) w |= 0x00400000u;
  return f32_from_bits(w);
}

// binary32 -> bfloat16, round to nearest even: adding 0x7FFF plus the lowest kept bit makes the
// dropped half round up exactly when it is above half, or at half with an odd kept part. The
// carry propagates into the exponent, up to infinity, which is the right answer there too.
constexpr uint16_t fp32_to_bf16(float f) noexcept {
  const uint32_t w = f32_to_bits(f);
  if ((w & 0x7FFFFFFFu) > 0x7F800000u) return uint16_t(((w >> 16) & 0x8000u) | 0x7FC0u);
  return uint16_t((w + 0x7FFFu + ((w >> 16) & 1u)) >> 16);
}

constexpr uint16_t fp64_to_bf16(double d) noexcept {
  const uint64_t b = std::bit_cast<uint64_t>(d);
  const uint16_t sign = uint16_t((b >> 48) & 0x8000u);
  const uint64_t a = b & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) return uint16_t(sign | 0x7FC0u);
  if (a == 0x7FF0000000000000ull) return uint16_t(sign | 0x7F80u);
  return uint16_t(sign | round_double_magnitude<8, 7>(a));
}

template <std::integral I>
constexpr uint16_t int_to_bf16(I v) noexcept {
  const uint16_t sign = is_negative(v) ? 0x8000u : 0u;
  return uint16_t(sign | round_to_format<8, 7>(unsigned_magnitude(v), 0));
}

}  // namespace detail

// IEEE 754 binary16: 1 sign, 5 exponent, 10 fraction bits. Max 65504, epsilon 2^-10.
struct alignas(2) Half {
  uint16_t x;

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() noexcept { return from_bits_t(); }

  // Trivial, as in c10, so that arrays of Half can be allocated without initialisation.
  Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) noexcept : x(bits) {}
  constexpr Half(float value) noexcept : x(detail::fp32_to_fp16(value)) {}
  constexpr Half(double value) noexcept : x(detail::fp64_to_fp16(value)) {}
  template <std::integral I>
  constexpr Half(I value) noexcept : x(detail::int_to_fp16(value)) {}

  constexpr operator float() const noexcept { return detail::fp16_to_fp32(x); }
};

// bfloat16: the upper 16 bits of a binary32 (1 sign, 8 exponent, 7 fraction bits). Same range as
// float, epsilon 2^-7.
struct alignas(2) BFloat16 {
  uint16_t x;

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() noexcept { return from_bits_t(); }

  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) noexcept : x(bits) {}
  constexpr BFloat16(float value) noexcept : x(detail::fp32_to_bf16(value)) {}
  constexpr BFloat16(double value) noexcept : x(detail::fp64_to_bf16(value)) {}
  template <std::integral I>
  constexpr BFloat16(I value) noexcept : x(detail::int_to_bf16(value)) {}

  constexpr operator float() const noexcept { return detail::bf16_to_fp32(x); }
};

static_assert(sizeof(Half) == 2 && alignof(Half) == 2);
static_assert(sizeof(BFloat16) == 2 && alignof(BFloat16) == 2);
static_assert(std::is_trivially_copyable_v<Half> && std::is_trivially_copyable_v<BFloat16>);
static_assert(std::is_standard_layout_v<Half> && std::is_standard_layout_v<BFloat16>);

// Half or BFloat16.
template <class T>
concept ReducedFloatingPoint = std::same_as<T, Half> || std::same_as<T, BFloat16>;

// ---- Arithmetic, as c10 defines it: computed in float. -----------------------------------
// T op T and T op integer give T (rounded back); T op float gives float; T op double gives
// double; Half op BFloat16 gives float, as type promotion does (float16 + bfloat16 -> float32).
// Comparisons are the built-in float ones, reached through operator float. The overloads are
// plain functions per type (not templates over T) so that the mixed float/double forms are
// exact matches and never leave a call ambiguous.

#define TENSORPLAY_REDUCED_FLOAT_BINARY_OP_(T, op)                                          \
  constexpr T operator op(T a, T b) noexcept {                                              \
    return T(static_cast<float>(a) op static_cast<float>(b));                               \
  }                                                                                         \
  constexpr float operator op(T a, float b) noexcept { return static_cast<float>(a) op b; } \
  constexpr float operator op(float a, T b) noexcept { return a op static_cast<float>(b); } \
  constexpr double operator op(T a, double b) noexcept {                                    \
    return static_cast<double>(static_cast<float>(a)) op b;                                 \
  }                                                                                         \
  constexpr double operator op(double a, T b) noexcept {                                    \
    return a op static_cast<double>(static_cast<float>(b));                                 \
  }                                                                                         \
  template <std::integral I>                                                                \
  constexpr T operator op(T a, I b) noexcept {                                              \
    return a op T(b);                                                                       \
  }                                                                                         \
  template <std::integral I>                                                                \
  constexpr T operator op(I a, T b) noexcept {                                              \
    return T(a) op b;                                                                       \
  }                                                                                         \
  /* h op= x, for any x that converts to T */                                               \
  constexpr T& operator op##=(T& a, T b) noexcept {                                         \
    a = a op b;                                                                             \
    return a;                                                                               \
  }                                                                                         \
  /* float accumulators, as in c10: float += Half */                                        \
  constexpr float& operator op##=(float& a, T b) noexcept {                                 \
    a = a op static_cast<float>(b);                                                         \
    return a;                                                                               \
  }

#define TENSORPLAY_REDUCED_FLOAT_MIXED_OP_(op)               \
  constexpr float operator op(Half a, BFloat16 b) noexcept { \
    return static_cast<float>(a) op static_cast<float>(b);   \
  }                                                          \
  constexpr float operator op(BFloat16 a, Half b) noexcept { \
    return static_cast<float>(a) op static_cast<float>(b);   \
  }

#define TENSORPLAY_REDUCED_FLOAT_OPS_(T)                                                 \
  TENSORPLAY_REDUCED_FLOAT_BINARY_OP_(T, +)                                              \
  TENSORPLAY_REDUCED_FLOAT_BINARY_OP_(T, -)                                              \
  TENSORPLAY_REDUCED_FLOAT_BINARY_OP_(T, *)                                              \
  TENSORPLAY_REDUCED_FLOAT_BINARY_OP_(T, /)                                              \
  constexpr T operator+(T a) noexcept { return a; }                                      \
  /* Negation flips the sign bit: exact, and defined for NaN and zero as IEEE negate. */ \
  constexpr T operator-(T a) noexcept { return T(uint16_t(a.x ^ 0x8000u), T::from_bits()); }

TENSORPLAY_REDUCED_FLOAT_OPS_(Half)
TENSORPLAY_REDUCED_FLOAT_OPS_(BFloat16)
TENSORPLAY_REDUCED_FLOAT_MIXED_OP_(+)
TENSORPLAY_REDUCED_FLOAT_MIXED_OP_(-)
TENSORPLAY_REDUCED_FLOAT_MIXED_OP_(*)
TENSORPLAY_REDUCED_FLOAT_MIXED_OP_(/)
#undef TENSORPLAY_REDUCED_FLOAT_OPS_
#undef TENSORPLAY_REDUCED_FLOAT_MIXED_OP_
#undef TENSORPLAY_REDUCED_FLOAT_BINARY_OP_

// Prints the float value, as c10 does ("1.5", "inf", "nan").
inline std::ostream& operator<<(std::ostream& os, Half value) {
  return os << static_cast<float>(value);
}
inline std::ostream& operator<<(std::ostream& os, BFloat16 value) {
  return os << static_cast<float>(value);
}

// ---- Classification ----------------------------------------------------------------------
// constexpr, and found by ADL, so generic code can write `using std::isnan; isnan(x)`. They also
// accept the built-in floating types, so an unqualified isnan(double) inside namespace tensorplay
// still works (and never silently converts a float to Half).
template <class T>
concept ClassifiableFloat = ReducedFloatingPoint<T> || std::floating_point<T>;

template <ClassifiableFloat T>
constexpr bool isnan(T v) noexcept {
  if constexpr (std::same_as<T, Half>) {
    return (v.x & 0x7FFFu) > 0x7C00u;
  } else if constexpr (std::same_as<T, BFloat16>) {
    return (v.x & 0x7FFFu) > 0x7F80u;
  } else {
    return v != v;
  }
}

template <ClassifiableFloat T>
constexpr bool isinf(T v) noexcept {
  if constexpr (std::same_as<T, Half>) {
    return (v.x & 0x7FFFu) == 0x7C00u;
  } else if constexpr (std::same_as<T, BFloat16>) {
    return (v.x & 0x7FFFu) == 0x7F80u;
  } else {
    return v == std::numeric_limits<T>::infinity() || v == -std::numeric_limits<T>::infinity();
  }
}

template <ClassifiableFloat T>
constexpr bool isfinite(T v) noexcept {
  return !isnan(v) && !isinf(v);
}

template <ClassifiableFloat T>
constexpr bool signbit(T v) noexcept {
  if constexpr (ReducedFloatingPoint<T>) {
    return (v.x & 0x8000u) != 0;
  } else if constexpr (std::same_as<T, float>) {
    return (std::bit_cast<uint32_t>(v) >> 31) != 0;
  } else if constexpr (std::same_as<T, double>) {
    return (std::bit_cast<uint64_t>(v) >> 63) != 0;
  } else {
    // long double's layout varies by platform; a NaN's sign is not observable this way.
    return v < 0 || (v == 0 && 1 / v < 0);
  }
}

}  // namespace tensorplay

// ---- numeric_limits (values as c10 defines them, except BFloat16's signaling_NaN: c10 returns
// the infinity pattern 0x7F80 there, which is not a NaN; 0x7FA0 is one). ------------------------
template <>
struct std::numeric_limits<tensorplay::Half> {
 private:
  using T = tensorplay::Half;
  static constexpr T bits(uint16_t b) noexcept { return T(b, T::from_bits()); }

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr auto has_denorm = std::numeric_limits<float>::has_denorm;
  static constexpr bool has_denorm_loss = std::numeric_limits<float>::has_denorm_loss;
  static constexpr auto round_style = std::numeric_limits<float>::round_style;
  static constexpr bool is_iec559 = true;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = 11;
  static constexpr int digits10 = 3;
  static constexpr int max_digits10 = 5;
  static constexpr int radix = 2;
  static constexpr int min_exponent = -13;
  static constexpr int min_exponent10 = -4;
  static constexpr int max_exponent = 16;
  static constexpr int max_exponent10 = 4;
  static constexpr bool traps = std::numeric_limits<float>::traps;
  static constexpr bool tinyness_before = std::numeric_limits<float>::tinyness_before;

  static constexpr T min() noexcept { return bits(0x0400); }          // 2^-14
  static constexpr T lowest() noexcept { return bits(0xFBFF); }       // -65504
  static constexpr T max() noexcept { return bits(0x7BFF); }          // 65504
  static constexpr T epsilon() noexcept { return bits(0x1400); }      // 2^-10
  static constexpr T round_error() noexcept { return bits(0x3800); }  // 0.5
  static constexpr T infinity() noexcept { return bits(0x7C00); }
  static constexpr T quiet_NaN() noexcept { return bits(0x7E00); }
  static constexpr T signaling_NaN() noexcept { return bits(0x7D00); }
  static constexpr T denorm_min() noexcept { return bits(0x0001); }  // 2^-24
};

template <>
struct std::numeric_limits<tensorplay::BFloat16> {
 private:
  using T = tensorplay::BFloat16;
  static constexpr T bits(uint16_t b) noexcept { return T(b, T::from_bits()); }

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr auto has_denorm = std::numeric_limits<float>::has_denorm;
  static constexpr bool has_denorm_loss = std::numeric_limits<float>::has_denorm_loss;
  static constexpr auto round_style = std::numeric_limits<float>::round_style;
  static constexpr bool is_iec559 = false;  // not an IEEE 754 interchange format
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = 8;
  static constexpr int digits10 = 2;
  static constexpr int max_digits10 = 4;
  static constexpr int radix = 2;
  static constexpr int min_exponent = -125;
  static constexpr int min_exponent10 = -37;
  static constexpr int max_exponent = 128;
  static constexpr int max_exponent10 = 38;
  static constexpr bool traps = std::numeric_limits<float>::traps;
  static constexpr bool tinyness_before = std::numeric_limits<float>::tinyness_before;

  static constexpr T min() noexcept { return bits(0x0080); }          // 2^-126
  static constexpr T lowest() noexcept { return bits(0xFF7F); }       // -(2 - 2^-7) * 2^127
  static constexpr T max() noexcept { return bits(0x7F7F); }          // (2 - 2^-7) * 2^127
  static constexpr T epsilon() noexcept { return bits(0x3C00); }      // 2^-7
  static constexpr T round_error() noexcept { return bits(0x3F00); }  // 0.5
  static constexpr T infinity() noexcept { return bits(0x7F80); }
  static constexpr T quiet_NaN() noexcept { return bits(0x7FC0); }
  static constexpr T signaling_NaN() noexcept { return bits(0x7FA0); }
  static constexpr T denorm_min() noexcept { return bits(0x0001); }  // 2^-133
};
