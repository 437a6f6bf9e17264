// Half and BFloat16: exhaustive decoding and round trips, and rounding checked against a slow,
// independent reference that works on doubles (frexp/ldexp/floor are exact here) and applies
// round-to-nearest-even explicitly.
#include <tensorplay/core/half.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace core_half_test {

using tensorplay::BFloat16;
using tensorplay::Half;

namespace {

// Format parameters for the reference: significand digits (with the implicit bit), the minimum
// normal exponent, and the maximum exponent.
struct Format {
  int digits;
  int emin;
  int emax;
};
constexpr Format kHalfFormat{11, -14, 15};
constexpr Format kBF16Format{8, -126, 127};

// Rounds v to the nearest representable value of the format, ties to even, overflowing to
// infinity. Everything here is exact in double: scaling by powers of two, floor, and the
// subtraction of the floor.
double reference_round(double v, Format f) {
  if (v == 0 || std::isnan(v) || std::isinf(v)) return v;
  const double a = std::fabs(v);
  int k = 0;
  std::frexp(a, &k);  // a = m * 2^k, m in [0.5, 1)
  const int e = k - 1;
  const int q = std::max(e, f.emin) - (f.digits - 1);  // exponent of one ulp at a
  const double scaled = std::ldexp(a, -q);
  double n = std::floor(scaled);
  const double frac = scaled - n;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) == 1.0)) n += 1;
  double r = std::ldexp(n, q);
  if (r >= std::ldexp(1.0, f.emax + 1)) r = std::numeric_limits<double>::infinity();
  return std::copysign(r, v);
}

// Independent decoders: the value of a bit pattern from the IEEE formula.
double reference_half_value(uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 0x1F, m = h & 0x3FF;
  double v;
  if (e == 0x1F) {
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (e == 0) {
    v = std::ldexp(double(m), -24);
  } else {
    v = std::ldexp(double(1024 + m), e - 25);
  }
  return s ? -v : v;
}

double reference_bf16_value(uint16_t b) {
  const int s = b >> 15, e = (b >> 7) & 0xFF, m = b & 0x7F;
  double v;
  if (e == 0xFF) {
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (e == 0) {
    v = std::ldexp(double(m), -133);
  } else {
    v = std::ldexp(double(128 + m), e - 134);
  }
  return s ? -v : v;
}

uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
float float_of(uint32_t w) { return std::bit_cast<float>(w); }

Half half_bits(uint16_t b) { return Half(b, Half::from_bits()); }
BFloat16 bf16_bits(uint16_t b) { return BFloat16(b, BFloat16::from_bits()); }

// Same value and, for zeros, same sign.
bool same_value(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

template <class T>
void check_against_reference_float(float f, Format fmt) {
  const T h(f);
  const double got = static_cast<float>(h);
  if (std::isnan(f)) {
    INFO("input bits 0x" << std::hex << bits_of(f));
    CHECK(tensorplay::isnan(h));
    CHECK(tensorplay::signbit(h) == std::signbit(f));
    return;
  }
  const double want = reference_round(f, fmt);
  if (!same_value(got, want)) {
    INFO("input " << f << " bits 0x" << std::hex << bits_of(f) << " got bits 0x" << h.x);
    CHECK(got == want);
  }
}

template <class T>
void check_against_reference_double(double d, Format fmt) {
  const T h(d);
  const double got = static_cast<float>(h);
  const double want = reference_round(d, fmt);
  if (!same_value(got, want)) {
    INFO("input " << d << " bits 0x" << std::hex << std::bit_cast<uint64_t>(d) << " got 0x" << h.x);
    CHECK(got == want);
  }
}

// Float inputs around every representable value of a 16-bit format: the value, its float
// neighbours, the exact midpoint to the next value and the midpoint's float neighbours, with
// both signs. These are where round-to-nearest-even can go wrong.
template <class T>
std::vector<float> boundary_inputs(uint16_t max_finite, float beyond_max) {
  std::vector<float> out;
  const float inf = std::numeric_limits<float>::infinity();
  for (uint32_t b = 0; b <= max_finite; ++b) {
    const float lo = static_cast<float>(T(uint16_t(b), T::from_bits()));
    const float hi =
        b == max_finite ? beyond_max : static_cast<float>(T(uint16_t(b + 1), T::from_bits()));
    const float mid = lo + (hi - lo) / 2;  // exact: one more bit than the format has
    for (float x : {lo, std::nextafter(lo, inf), std::nextafter(lo, -inf), mid,
                    std::nextafter(mid, inf), std::nextafter(mid, -inf)}) {
      out.push_back(x);
      out.push_back(-x);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("Half and BFloat16 are 2-byte trivially copyable value types", "[core][half]") {
  STATIC_REQUIRE(sizeof(Half) == 2);
  STATIC_REQUIRE(alignof(Half) == 2);
  STATIC_REQUIRE(sizeof(BFloat16) == 2);
  STATIC_REQUIRE(alignof(BFloat16) == 2);
  STATIC_REQUIRE(std::is_trivially_copyable_v<Half>);
  STATIC_REQUIRE(std::is_trivially_copyable_v<BFloat16>);
  STATIC_REQUIRE(std::is_trivially_default_constructible_v<Half>);
  STATIC_REQUIRE(std::is_trivially_default_constructible_v<BFloat16>);
  STATIC_REQUIRE(std::is_standard_layout_v<Half>);
  STATIC_REQUIRE(std::is_standard_layout_v<BFloat16>);
  CHECK(Half{}.x == 0);
  CHECK(BFloat16{}.x == 0);
}

TEST_CASE("Half decodes all 65536 bit patterns exactly", "[core][half]") {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = uint16_t(b);
    const float f = half_bits(h);
    const double want = reference_half_value(h);
    if (std::isnan(want)) {
      // NaN: same sign, payload kept in the top fraction bits, quiet bit set.
      const uint32_t w = bits_of(f);
      const uint32_t expect =
          (uint32_t(h & 0x8000u) << 16) | 0x7F800000u | (uint32_t(h & 0x3FFu) << 13) | 0x400000u;
      if (w != expect) {
        INFO("half bits 0x" << std::hex << b << " float bits 0x" << w);
        CHECK(w == expect);
      }
    } else if (!same_value(f, want)) {
      INFO("half bits 0x" << std::hex << b);
      CHECK(double(f) == want);
    }
  }
  SUCCEED("every bit pattern checked; a mismatch fails the CHECK above");
}

TEST_CASE("Half round trips all 65536 bit patterns through float", "[core][half]") {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = uint16_t(b);
    const Half back(static_cast<float>(half_bits(h)));
    const bool nan = (h & 0x7FFFu) > 0x7C00u;
    const uint16_t expect = nan ? uint16_t((h & 0x8000u) | 0x7E00u) : h;
    if (back.x != expect) {
      INFO("half bits 0x" << std::hex << b << " came back as 0x" << back.x);
      CHECK(back.x == expect);
    }
    // And through double, which takes the other (generic) rounding path.
    const Half back_d(static_cast<double>(static_cast<float>(half_bits(h))));
    if (back_d.x != expect) {
      INFO("half bits 0x" << std::hex << b << " came back through double as 0x" << back_d.x);
      CHECK(back_d.x == expect);
    }
  }
  SUCCEED("every bit pattern checked; a mismatch fails the CHECK above");
}

TEST_CASE("BFloat16 decodes and round trips all 65536 bit patterns", "[core][half]") {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = uint16_t(b);
    const float f = bf16_bits(h);
    const double want = reference_bf16_value(h);
    const bool nan = std::isnan(want);
    if (nan) {
      const uint32_t expect = (uint32_t(h) << 16) | 0x400000u;  // quieted
      if (bits_of(f) != expect) {
        INFO("bf16 bits 0x" << std::hex << b);
        CHECK(bits_of(f) == expect);
      }
    } else if (!same_value(f, want) || bits_of(f) != (uint32_t(h) << 16)) {
      INFO("bf16 bits 0x" << std::hex << b);
      CHECK(bits_of(f) == (uint32_t(h) << 16));
    }
    const uint16_t expect = nan ? uint16_t((h & 0x8000u) | 0x7FC0u) : h;
    const BFloat16 back(f);
    const BFloat16 back_d(static_cast<double>(f));
    if (back.x != expect || back_d.x != expect) {
      INFO("bf16 bits 0x" << std::hex << b << " came back as 0x" << back.x << " / 0x" << back_d.x);
      CHECK(back.x == expect);
      CHECK(back_d.x == expect);
    }
  }
  SUCCEED("every bit pattern checked; a mismatch fails the CHECK above");
}

TEST_CASE("float -> Half rounds to nearest even: edge cases", "[core][half]") {
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    float in;
    uint16_t out;
  };
  const Case cases[] = {
      {0.0f, 0x0000},
      {-0.0f, 0x8000},
      {1.0f, 0x3C00},
      {-2.0f, 0xC000},
      {0.5f, 0x3800},
      {65504.0f, 0x7BFF},                        // max finite
      {std::nextafter(65520.0f, 0.0f), 0x7BFF},  // just below the overflow threshold
      {65520.0f, 0x7C00},                        // the tie with 65536 goes to inf (even)
      {-65520.0f, 0xFC00},
      {65536.0f, 0x7C00},
      {1e10f, 0x7C00},
      {std::numeric_limits<float>::max(), 0x7C00},
      {inf, 0x7C00},
      {-inf, 0xFC00},
      {std::ldexp(1.0f, -14), 0x0400},  // smallest normal
      {std::ldexp(1.0f, -24), 0x0001},  // smallest subnormal
      {-std::ldexp(1.0f, -24), 0x8001},
      {std::ldexp(1.0f, -25), 0x0000},  // half of it: tie to even 0
      {-std::ldexp(1.0f, -25), 0x8000},
      {std::nextafter(std::ldexp(1.0f, -25), 1.0f), 0x0001},
      {std::ldexp(3.0f, -25), 0x0002},         // 1.5 ulps: tie to even 2
      {std::ldexp(5.0f, -25), 0x0002},         // 2.5 ulps: tie to even 2
      {std::ldexp(1023.5f, -24), 0x0400},      // rounds up out of the subnormals
      {std::ldexp(1022.5f, -24), 0x03FE},      // tie between 0x3FE and 0x3FF -> even
      {1.0f + std::ldexp(1.0f, -11), 0x3C00},  // tie -> even (down)
      {1.0f + std::ldexp(3.0f, -11), 0x3C02},  // tie -> even (up)
      {std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f), 0x3C01},
      {2047.5f, 0x6800},  // tie at 2048's neighbour -> 2048
      {std::numeric_limits<float>::denorm_min(), 0x0000},
      {-std::numeric_limits<float>::denorm_min(), 0x8000},
      {std::numeric_limits<float>::min(), 0x0000},
      {0.1f, 0x2E66},
      {3.14159265f, 0x4248},
  };
  for (const auto& c : cases) {
    INFO("input " << c.in);
    CHECK(Half(c.in).x == c.out);
    CHECK(Half(double(c.in)).x == c.out);
  }
  CHECK(Half(std::numeric_limits<float>::quiet_NaN()).x == 0x7E00);
  CHECK(Half(-std::numeric_limits<float>::quiet_NaN()).x == 0xFE00);
  CHECK(Half(float_of(0x7F800001u)).x == 0x7E00);  // signalling float NaN -> quiet half NaN
  CHECK(Half(float_of(0xFFFFFFFFu)).x == 0xFE00);
  CHECK(Half(std::numeric_limits<double>::quiet_NaN()).x == 0x7E00);
  CHECK(Half(-std::numeric_limits<double>::infinity()).x == 0xFC00);
}

TEST_CASE("float -> Half matches the reference at every boundary and on random inputs",
          "[core][half]") {
  const std::vector<float> inputs = boundary_inputs<Half>(0x7BFF, 65536.0f);
  CHECK(inputs.size() == 12 * 0x7C00);
  for (float f : inputs) check_against_reference_float<Half>(f, kHalfFormat);
  std::mt19937 rng(20240601);
  // Any bit pattern (NaNs, huge and tiny values included).
  std::uniform_int_distribution<uint32_t> any_bits;
  for (int i = 0; i < 300000; ++i) {
    check_against_reference_float<Half>(float_of(any_bits(rng)), kHalfFormat);
  }
  // Concentrated on the exponents where Half is interesting: 2^-26 .. 2^17.
  std::uniform_int_distribution<uint32_t> exp(127 - 26, 127 + 17);
  std::uniform_int_distribution<uint32_t> mant(0, 0x7FFFFF);
  for (int i = 0; i < 300000; ++i) {
    const uint32_t w = (uint32_t(i & 1) << 31) | (exp(rng) << 23) | mant(rng);
    check_against_reference_float<Half>(float_of(w), kHalfFormat);
  }
}

TEST_CASE("double -> Half rounds once, directly", "[core][half]") {
  // 1 + 2^-11 + 2^-40 is above the tie between 1 and 1 + 2^-10, so it rounds up; rounding to
  // float first would land exactly on the tie and then round to even (1.0).
  const double d = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  CHECK(Half(d).x == 0x3C01);
  CHECK(Half(static_cast<float>(d)).x == 0x3C00);
  CHECK(Half(65519.99999999).x == 0x7BFF);
  CHECK(Half(65520.0).x == 0x7C00);
  CHECK(Half(std::numeric_limits<double>::max()).x == 0x7C00);
  CHECK(Half(std::numeric_limits<double>::denorm_min()).x == 0x0000);
  CHECK(Half(-std::numeric_limits<double>::denorm_min()).x == 0x8000);
  CHECK(Half(std::ldexp(1.0, -25) * (1 + std::ldexp(1.0, -50))).x == 0x0001);

  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> any_bits;
  std::uniform_int_distribution<uint64_t> exp(1023 - 27, 1023 + 17);
  std::uniform_int_distribution<uint64_t> mant(0, (uint64_t{1} << 52) - 1);
  for (int i = 0; i < 200000; ++i) {
    const double a = std::bit_cast<double>(any_bits(rng));
    if (!std::isnan(a)) check_against_reference_double<Half>(a, kHalfFormat);
    const double b = std::bit_cast<double>((uint64_t(i & 1) << 63) | (exp(rng) << 52) | mant(rng));
    check_against_reference_double<Half>(b, kHalfFormat);
  }
  // Exact ties in double, and their neighbours, for every positive finite half.
  for (uint32_t h = 0; h < 0x7BFF; ++h) {
    const double lo = reference_half_value(uint16_t(h));
    const double hi = reference_half_value(uint16_t(h + 1));
    const double mid = (lo + hi) / 2;
    for (double x : {mid, std::nextafter(mid, 1e300), std::nextafter(mid, -1e300)}) {
      check_against_reference_double<Half>(x, kHalfFormat);
      check_against_reference_double<Half>(-x, kHalfFormat);
    }
  }
}

TEST_CASE("integers -> Half", "[core][half]") {
  for (int i = -70000; i <= 70000; ++i) {
    const double want = reference_round(double(i), kHalfFormat);
    const double got = static_cast<float>(Half(i));
    if (got != want) {
      INFO("int " << i);
      CHECK(got == want);
    }
  }
  CHECK(Half(int8_t(-128)).x == 0xD800);
  CHECK(Half(uint8_t(255)).x == 0x5BF8);
  CHECK(Half(true).x == 0x3C00);
  CHECK(Half(std::numeric_limits<int64_t>::max()).x == 0x7C00);
  CHECK(Half(std::numeric_limits<int64_t>::min()).x == 0xFC00);
  CHECK(Half(std::numeric_limits<uint64_t>::max()).x == 0x7C00);
  CHECK(Half(2049).x == 0x6800);  // tie between 2048 and 2050 -> even (2048)
  CHECK(Half(2051).x == 0x6802);  // tie between 2050 and 2052 -> even (2052)
}

TEST_CASE("float -> BFloat16 rounds to nearest even: edge cases", "[core][half]") {
  struct Case {
    uint32_t in;
    uint16_t out;
  };
  const Case cases[] = {
      {0x00000000u, 0x0000}, {0x80000000u, 0x8000}, {0x3F800000u, 0x3F80},  // 1
      {0x3F808000u, 0x3F80},  // 1 + 2^-8: tie -> even (down)
      {0x3F818000u, 0x3F82},  // tie -> even (up)
      {0x3F808001u, 0x3F81},  // just above the tie
      {0x3F807FFFu, 0x3F80},  // just below the tie
      {0x7F7F0000u, 0x7F7F},  // max finite
      {0x7F7F7FFFu, 0x7F7F},  // below the overflow threshold
      {0x7F7F8000u, 0x7F80},  // tie between max and 2^128 -> even, which is infinity
      {0xFF7F8000u, 0xFF80}, {0x7F7FFFFFu, 0x7F80},  // float max overflows
      {0x7F800000u, 0x7F80},                         // inf
      {0xFF800000u, 0xFF80}, {0x00000001u, 0x0000},  // float denorm_min
      {0x00008000u, 0x0000},                         // tie -> even 0
      {0x00008001u, 0x0001}, {0x00018000u, 0x0002},  // tie -> even 2
      {0x00010000u, 0x0001},                         // bf16 denorm_min
      {0x007FFFFFu, 0x0080},  // largest float subnormal rounds up to the smallest normal
      {0x00800000u, 0x0080}, {0x3DCCCCCDu, 0x3DCD},  // 0.1f
      {0x40490FDBu, 0x4049},                         // pi
  };
  for (const auto& c : cases) {
    INFO("input bits 0x" << std::hex << c.in);
    CHECK(BFloat16(float_of(c.in)).x == c.out);
    CHECK(BFloat16(double(float_of(c.in))).x == c.out);
  }
  CHECK(BFloat16(float_of(0x7FC00000u)).x == 0x7FC0);
  CHECK(BFloat16(float_of(0xFFC00000u)).x == 0xFFC0);
  CHECK(BFloat16(float_of(0x7F800001u)).x == 0x7FC0);  // a NaN whose top bits look like inf
  CHECK(BFloat16(float_of(0x7FFFFFFFu)).x == 0x7FC0);  // would carry into the sign if added
  CHECK(BFloat16(std::numeric_limits<double>::quiet_NaN()).x == 0x7FC0);
  CHECK(BFloat16(1e300).x == 0x7F80);
  CHECK(BFloat16(-1e300).x == 0xFF80);
  CHECK(BFloat16(1e-300).x == 0x0000);
}

TEST_CASE("float/double -> BFloat16 match the reference at every boundary and on random inputs",
          "[core][half]") {
  // The midpoint past max is 2^128 - 2^119, which a float cannot hold; boundary_inputs gets inf
  // there, and the edge-case table pins 0x7F7F8000 separately.
  const std::vector<float> inputs =
      boundary_inputs<BFloat16>(0x7F7F, std::numeric_limits<float>::infinity());
  CHECK(inputs.size() == 12 * 0x7F80);
  for (float f : inputs) check_against_reference_float<BFloat16>(f, kBF16Format);
  std::mt19937 rng(99);
  std::uniform_int_distribution<uint32_t> any_bits;
  for (int i = 0; i < 300000; ++i) {
    check_against_reference_float<BFloat16>(float_of(any_bits(rng)), kBF16Format);
  }
  std::mt19937_64 rng64(5);
  std::uniform_int_distribution<uint64_t> exp(1023 - 140, 1023 + 130);
  std::uniform_int_distribution<uint64_t> mant(0, (uint64_t{1} << 52) - 1);
  for (int i = 0; i < 200000; ++i) {
    const double d =
        std::bit_cast<double>((uint64_t(i & 1) << 63) | (exp(rng64) << 52) | mant(rng64));
    check_against_reference_double<BFloat16>(d, kBF16Format);
  }
  // The double midpoint past max, which float cannot express, and its neighbours.
  const double past_max = std::ldexp(255.5, 120);
  CHECK(BFloat16(past_max).x == 0x7F80);
  CHECK(BFloat16(std::nextafter(past_max, 0.0)).x == 0x7F7F);
  // Double rounding avoided: 1 + 2^-8 + 2^-40 -> 1 + 2^-7, not 1.
  CHECK(BFloat16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)).x == 0x3F81);
}

TEST_CASE("integers -> BFloat16 round once", "[core][half]") {
  for (int i = -100000; i <= 100000; i += 7) {
    CHECK(static_cast<float>(BFloat16(i)) == reference_round(double(i), kBF16Format));
  }
  // 2^60 + 2^52 + 1 is just above the tie between 2^60 and 2^60 + 2^53: it rounds up. Through
  // double (or float) the +1 is lost first and the tie then rounds to even, down.
  const int64_t v = (int64_t{1} << 60) + (int64_t{1} << 52) + 1;
  CHECK(BFloat16(v).x == 0x5D81);
  CHECK(BFloat16(static_cast<double>(v)).x == 0x5D80);
  CHECK(BFloat16(std::numeric_limits<int64_t>::min()).x == 0xDF00);   // -2^63 exactly
  CHECK(BFloat16(std::numeric_limits<int64_t>::max()).x == 0x5F00);   // rounds to 2^63
  CHECK(BFloat16(std::numeric_limits<uint64_t>::max()).x == 0x5F80);  // rounds to 2^64
  CHECK(BFloat16(uint8_t(255)).x == 0x437F);  // 255 has 8 significant bits: exact
  CHECK(BFloat16(257).x == 0x4380);           // tie -> even (256)
  CHECK(BFloat16(259).x == 0x4382);           // tie -> even (260)
}

TEST_CASE("Half and BFloat16 arithmetic goes through float", "[core][half]") {
  const Half a(1.5f), b(2.25f);
  STATIC_REQUIRE(std::is_same_v<decltype(a + b), Half>);
  STATIC_REQUIRE(std::is_same_v<decltype(a * 2), Half>);
  STATIC_REQUIRE(std::is_same_v<decltype(2 * a), Half>);
  STATIC_REQUIRE(std::is_same_v<decltype(a + int64_t{2}), Half>);
  STATIC_REQUIRE(std::is_same_v<decltype(a + 2u), Half>);
  STATIC_REQUIRE(std::is_same_v<decltype(a - 1.0f), float>);
  STATIC_REQUIRE(std::is_same_v<decltype(1.0f / a), float>);
  STATIC_REQUIRE(std::is_same_v<decltype(a * 1.0), double>);
  STATIC_REQUIRE(std::is_same_v<decltype(1.0 - a), double>);
  STATIC_REQUIRE(std::is_same_v<decltype(a + BFloat16(1.0f)), float>);
  STATIC_REQUIRE(std::is_same_v<decltype(BFloat16(1.0f) * a), float>);
  STATIC_REQUIRE(std::is_same_v<decltype(-a), Half>);
  STATIC_REQUIRE(std::is_same_v<decltype(BFloat16(1.0f) / BFloat16(3.0f)), BFloat16>);

  CHECK(static_cast<float>(a + b) == 3.75f);
  CHECK(static_cast<float>(a - b) == -0.75f);
  CHECK(static_cast<float>(a * b) == 3.375f);
  CHECK(static_cast<float>(b / a) == 1.5f);
  CHECK((a * 2).x == Half(3.0f).x);
  CHECK((1 - a).x == Half(-0.5f).x);
  CHECK(a + 1.0f == 2.5f);
  CHECK(a + 1.0 == 2.5);
  CHECK(a + BFloat16(1.0f) == 2.5f);
  // The float result is rounded once, to Half: 1/3 -> 0x3555.
  CHECK((Half(1.0f) / Half(3.0f)).x == 0x3555);
  CHECK((BFloat16(1.0f) / BFloat16(3.0f)).x == 0x3EAB);
  // Overflow of the rounded result.
  CHECK(tensorplay::isinf(Half(60000.0f) + Half(60000.0f)));

  Half c = a;
  c += b;
  CHECK(c == 3.75f);
  c -= 1;
  CHECK(c == 2.75f);
  c *= 2.0f;
  CHECK(c == 5.5f);
  c /= Half(2.0f);
  CHECK(c == 2.75f);
  float acc = 1.0f;
  acc += a;
  acc *= BFloat16(2.0f);
  CHECK(acc == 5.0f);

  CHECK((-a).x == 0xBE00);
  CHECK((-Half(0.0f)).x == 0x8000);
  CHECK((-Half(std::numeric_limits<float>::quiet_NaN())).x == 0xFE00);
  CHECK((+a).x == a.x);
  CHECK((-BFloat16(1.0f)).x == 0xBF80);

  // Comparisons are float comparisons: -0 == +0, NaN unordered.
  CHECK(a < b);
  CHECK(b > a);
  CHECK(a <= a);
  CHECK(a == Half(1.5));
  CHECK(a != b);
  CHECK(Half(0.0f) == Half(-0.0f));
  const Half nan = std::numeric_limits<Half>::quiet_NaN();
  CHECK_FALSE(nan == nan);
  CHECK(nan != nan);
  CHECK_FALSE(nan < a);
  CHECK(BFloat16(2.0f) > a);
  CHECK(a == 1.5);
  CHECK(a < 2);
  // Explicit conversions to other arithmetic types go through float.
  CHECK(static_cast<int>(Half(2.75f)) == 2);
  CHECK(static_cast<double>(BFloat16(0.5f)) == 0.5);
}

TEST_CASE("classification helpers", "[core][half]") {
  using tensorplay::isfinite;
  using tensorplay::isinf;
  using tensorplay::isnan;
  using tensorplay::signbit;
  const Half hn = std::numeric_limits<Half>::quiet_NaN();
  const Half hi = std::numeric_limits<Half>::infinity();
  const BFloat16 bn = std::numeric_limits<BFloat16>::quiet_NaN();
  const BFloat16 bi = std::numeric_limits<BFloat16>::infinity();
  CHECK(isnan(hn));
  CHECK(isnan(bn));
  CHECK_FALSE(isnan(hi));
  CHECK_FALSE(isnan(bi));
  CHECK(isinf(hi));
  CHECK(isinf(-hi));
  CHECK(isinf(bi));
  CHECK_FALSE(isinf(hn));
  CHECK(isfinite(Half(1.0f)));
  CHECK(isfinite(std::numeric_limits<Half>::max()));
  CHECK_FALSE(isfinite(hi));
  CHECK_FALSE(isfinite(bn));
  CHECK(signbit(Half(-0.0f)));
  CHECK_FALSE(signbit(Half(0.0f)));
  CHECK(signbit(BFloat16(-2.0f)));
  // The built-in types work too, without converting to Half.
  CHECK_FALSE(isinf(1e300));
  CHECK(isinf(-std::numeric_limits<double>::infinity()));
  CHECK_FALSE(isinf(1e10f));
  CHECK(isnan(std::nanf("")));
  CHECK(signbit(-0.0));
  CHECK(signbit(-0.0f));
  CHECK_FALSE(isfinite(std::numeric_limits<double>::infinity()));
  // And std::isnan reaches Half through operator float.
  CHECK(std::isnan(hn));
  // Every half pattern classifies like its float value.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const Half h = half_bits(uint16_t(b));
    const float f = h;
    const BFloat16 g = bf16_bits(uint16_t(b));
    const float gf = g;
    if (isnan(h) != std::isnan(f) || isinf(h) != std::isinf(f) || isfinite(h) != std::isfinite(f) ||
        signbit(h) != std::signbit(f) || isnan(g) != std::isnan(gf) || isinf(g) != std::isinf(gf) ||
        isfinite(g) != std::isfinite(gf) || signbit(g) != std::signbit(gf)) {
      INFO("bits 0x" << std::hex << b);
      CHECK(false);
    }
  }
}

TEST_CASE("numeric_limits<Half>", "[core][half]") {
  using L = std::numeric_limits<Half>;
  STATIC_REQUIRE(L::is_specialized);
  STATIC_REQUIRE(L::is_signed);
  STATIC_REQUIRE(!L::is_integer);
  STATIC_REQUIRE(!L::is_exact);
  STATIC_REQUIRE(L::has_infinity);
  STATIC_REQUIRE(L::has_quiet_NaN);
  STATIC_REQUIRE(L::has_signaling_NaN);
  STATIC_REQUIRE(L::has_denorm == std::denorm_present);
  STATIC_REQUIRE(L::round_style == std::round_to_nearest);
  STATIC_REQUIRE(L::is_iec559);
  STATIC_REQUIRE(L::is_bounded);
  STATIC_REQUIRE(L::digits == 11);
  STATIC_REQUIRE(L::digits10 == 3);
  STATIC_REQUIRE(L::max_digits10 == 5);
  STATIC_REQUIRE(L::radix == 2);
  STATIC_REQUIRE(L::min_exponent == -13);
  STATIC_REQUIRE(L::min_exponent10 == -4);
  STATIC_REQUIRE(L::max_exponent == 16);
  STATIC_REQUIRE(L::max_exponent10 == 4);
  CHECK(float(L::max()) == 65504.0f);
  CHECK(float(L::lowest()) == -65504.0f);
  CHECK(float(L::min()) == std::ldexp(1.0f, -14));
  CHECK(float(L::epsilon()) == std::ldexp(1.0f, -10));
  CHECK(float(L::round_error()) == 0.5f);
  CHECK(float(L::denorm_min()) == std::ldexp(1.0f, -24));
  CHECK(float(L::infinity()) == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(float(L::quiet_NaN())));
  CHECK(tensorplay::isnan(L::signaling_NaN()));
  CHECK((L::signaling_NaN().x & 0x0200) == 0);  // quiet bit clear
  CHECK((L::quiet_NaN().x & 0x0200) != 0);
  // epsilon is the gap above 1.
  CHECK(float(half_bits(0x3C01)) - 1.0f == float(L::epsilon()));
  // max digits: 5 significant digits distinguish every pair of adjacent halves.
  CHECK(Half(1.0f + float(L::epsilon())).x == 0x3C01);
}

TEST_CASE("numeric_limits<BFloat16>", "[core][half]") {
  using L = std::numeric_limits<BFloat16>;
  STATIC_REQUIRE(L::is_specialized);
  STATIC_REQUIRE(L::is_signed);
  STATIC_REQUIRE(!L::is_integer);
  STATIC_REQUIRE(L::has_infinity);
  STATIC_REQUIRE(L::has_quiet_NaN);
  STATIC_REQUIRE(!L::is_iec559);
  STATIC_REQUIRE(L::digits == 8);
  STATIC_REQUIRE(L::digits10 == 2);
  STATIC_REQUIRE(L::max_digits10 == 4);
  STATIC_REQUIRE(L::min_exponent == -125);
  STATIC_REQUIRE(L::min_exponent10 == -37);
  STATIC_REQUIRE(L::max_exponent == 128);
  STATIC_REQUIRE(L::max_exponent10 == 38);
  CHECK(float(L::max()) == float_of(0x7F7F0000u));
  CHECK(float(L::max()) == std::ldexp(255.0f, 120));
  CHECK(float(L::lowest()) == -std::ldexp(255.0f, 120));
  CHECK(float(L::min()) == std::numeric_limits<float>::min());
  CHECK(float(L::epsilon()) == std::ldexp(1.0f, -7));
  CHECK(float(L::round_error()) == 0.5f);
  CHECK(float(L::denorm_min()) == std::ldexp(1.0f, -133));
  CHECK(float(L::infinity()) == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(float(L::quiet_NaN())));
  CHECK(tensorplay::isnan(L::signaling_NaN()));
  CHECK((L::signaling_NaN().x & 0x0040) == 0);
  CHECK(float(bf16_bits(0x3F81)) - 1.0f == float(L::epsilon()));
}

TEST_CASE("Half and BFloat16 print their float value", "[core][half]") {
  const auto str = [](auto v) {
    std::ostringstream os;
    os << v;
    return os.str();
  };
  CHECK(str(Half(1.5f)) == "1.5");
  CHECK(str(Half(-2.0f)) == "-2");
  CHECK(str(Half(65504.0f)) == "65504");
  CHECK(str(Half(0.1f)) == "0.0999756");  // the half nearest 0.1, at float's default precision
  CHECK(str(std::numeric_limits<Half>::infinity()) == "inf");
  CHECK(str(-std::numeric_limits<Half>::infinity()) == "-inf");
  CHECK(str(std::numeric_limits<Half>::quiet_NaN()) == "nan");
  CHECK(str(BFloat16(1.5f)) == "1.5");
  CHECK(str(BFloat16(0.1f)) == "0.100098");
  CHECK(str(BFloat16(3.0e38f)) == "3.00406e+38");
  std::ostringstream os;
  os.precision(10);
  os << Half(0.1f);
  CHECK(os.str() == "0.09997558594");
}

}  // namespace core_half_test
