// Compile-time proof that the dtype tables and the 16-bit float conversions are constexpr.
// Nothing runs: this translation unit compiles or fails.
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/half.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace tp = tensorplay;
using tp::BFloat16;
using tp::DType;
using tp::Half;

// ---- itemsize ---------------------------------------------------------------------------
static_assert(tp::itemsize(tp::kBool) == 1);
static_assert(tp::itemsize(tp::kUInt8) == 1);
static_assert(tp::itemsize(tp::kInt8) == 1);
static_assert(tp::itemsize(tp::kInt16) == 2);
static_assert(tp::itemsize(tp::kInt32) == 4);
static_assert(tp::itemsize(tp::kInt64) == 8);
static_assert(tp::itemsize(tp::kFloat16) == 2);
static_assert(tp::itemsize(tp::kBFloat16) == 2);
static_assert(tp::itemsize(tp::kFloat32) == 4);
static_assert(tp::itemsize(tp::kFloat64) == 8);
static_assert(tp::elementSize(tp::kDouble) == sizeof(double));

// ---- names ------------------------------------------------------------------------------
static_assert(tp::dtype_name(tp::kFloat) == "float32");
static_assert(tp::dtype_name(tp::kBFloat16) == "bfloat16");
static_assert(tp::legacy_type_name(tp::kLong) == "LongTensor");
static_assert(tp::parse_dtype("half") == tp::kHalf);
static_assert(tp::parse_dtype("tensorplay.int64") == tp::kInt64);

// ---- promotion and casting --------------------------------------------------------------
static_assert(tp::promote_types(tp::kUInt8, tp::kInt8) == tp::kInt16);
static_assert(tp::promote_types(tp::kBool, tp::kInt32) == tp::kInt32);
static_assert(tp::promote_types(tp::kFloat16, tp::kBFloat16) == tp::kFloat32);
static_assert(tp::promote_types(tp::kInt64, tp::kFloat16) == tp::kFloat16);
static_assert(tp::promote_types(tp::kInt64, tp::kBFloat16) == tp::kBFloat16);
static_assert(tp::promote_types(tp::kBFloat16, tp::kFloat64) == tp::kFloat64);
static_assert(tp::promote_types(tp::kUInt8, tp::kBool) == tp::kUInt8);
static_assert(tp::promote_types(tp::kInt16, tp::kInt32) == tp::kInt32);
static_assert(tp::promoteTypes(tp::kFloat, tp::kDouble) == tp::kDouble);
static_assert(!tp::can_cast(tp::kFloat32, tp::kInt32));
static_assert(!tp::can_cast(tp::kInt32, tp::kBool));
static_assert(tp::can_cast(tp::kBool, tp::kFloat16));
static_assert(tp::can_cast(tp::kInt64, tp::kInt8));

// ---- predicates -------------------------------------------------------------------------
static_assert(tp::is_floating_point(tp::kBFloat16));
static_assert(!tp::is_floating_point(tp::kInt64));
static_assert(tp::is_integral(tp::kBool, true) && !tp::is_integral(tp::kBool, false));
static_assert(!tp::is_signed(tp::kUInt8) && tp::is_signed(tp::kHalf));
static_assert(tp::is_reduced_floating_point(tp::kHalf) &&
              !tp::is_reduced_floating_point(tp::kFloat));

// ---- traits -----------------------------------------------------------------------------
static_assert(tp::dtype_of<float> == tp::kFloat);
static_assert(tp::dtype_of<Half> == tp::kHalf);
static_assert(tp::dtype_of<BFloat16> == tp::kBFloat16);
static_assert(tp::dtype_of<bool> == tp::kBool);
static_assert(tp::dtype_of<int64_t> == tp::kInt64);
static_assert(tp::CppTypeToDType<uint8_t>::value == tp::kByte);
static_assert(std::is_same_v<tp::cpp_type_t<tp::kInt16>, int16_t>);
static_assert(std::is_same_v<tp::cpp_type_t<tp::kFloat16>, Half>);
static_assert(std::is_same_v<tp::DTypeToCppType<tp::kDouble>::type, double>);
static_assert(tp::SupportedType<int8_t> && !tp::SupportedType<char> &&
              !tp::SupportedType<unsigned>);

// ---- Half -------------------------------------------------------------------------------
static_assert(Half(1.0f).x == 0x3C00);
static_assert(Half(-2.0f).x == 0xC000);
static_assert(Half(0.0f).x == 0x0000 && Half(-0.0f).x == 0x8000);
static_assert(Half(65504.0f).x == 0x7BFF);
static_assert(Half(65520.0f).x == 0x7C00);  // ties to even: infinity
static_assert(Half(0x1p-24f).x == 0x0001);  // 2^-24, smallest subnormal
static_assert(Half(0x1p-25f).x == 0x0000);  // 2^-25: tie to even zero
static_assert(Half(0x1p-14f).x == 0x0400);  // 2^-14, smallest normal
static_assert(Half(0.1f).x == 0x2E66);
static_assert(Half(std::numeric_limits<float>::infinity()).x == 0x7C00);
static_assert(Half(std::numeric_limits<float>::quiet_NaN()).x == 0x7E00);
static_assert(Half(1.0).x == 0x3C00);
static_assert(Half(1.0 + 0x1p-11 + 0x1p-40).x == 0x3C01);  // rounded once from double
static_assert(Half(2049).x == 0x6800);
static_assert(Half(int64_t{1} << 40).x == 0x7C00);
static_assert(static_cast<float>(Half(0x3C00, Half::from_bits())) == 1.0f);
static_assert(static_cast<float>(Half(0x0001, Half::from_bits())) == 0x1p-24f);
static_assert(static_cast<float>(Half(0x7BFF, Half::from_bits())) == 65504.0f);
static_assert((Half(1.5f) + Half(2.25f)).x == Half(3.75f).x);
static_assert((Half(1.0f) / Half(3.0f)).x == 0x3555);
static_assert((-Half(1.0f)).x == 0xBC00);
static_assert(Half(1.5f) < Half(2.0f));
static_assert(Half(1.5f) * 2.0 == 3.0);
static_assert(tp::isnan(std::numeric_limits<Half>::quiet_NaN()));
static_assert(tp::isinf(std::numeric_limits<Half>::infinity()));
static_assert(std::numeric_limits<Half>::max().x == 0x7BFF);
static_assert(static_cast<float>(std::numeric_limits<Half>::epsilon()) == 0x1p-10f);

// ---- BFloat16 ---------------------------------------------------------------------------
static_assert(BFloat16(1.0f).x == 0x3F80);
static_assert(BFloat16(-2.0f).x == 0xC000);
static_assert(BFloat16(3.14159265f).x == 0x4049);
static_assert(BFloat16(0.1f).x == 0x3DCD);
static_assert(BFloat16(1.0f + 0x1p-8f).x == 0x3F80);   // tie to even
static_assert(BFloat16(1.0f + 0x3p-8f).x == 0x3F82);   // tie to even
static_assert(BFloat16(0x1.fefffep127f).x == 0x7F7F);  // 0x7F7F7FFF: just below threshold
static_assert(BFloat16(0x1.ffp127f).x == 0x7F80);      // 0x7F7F8000: ties to infinity
static_assert(BFloat16(std::numeric_limits<float>::quiet_NaN()).x == 0x7FC0);
static_assert(BFloat16(1e300).x == 0x7F80);
static_assert(BFloat16((int64_t{1} << 60) + (int64_t{1} << 52) + 1).x == 0x5D81);
static_assert(static_cast<float>(BFloat16(0x3F80, BFloat16::from_bits())) == 1.0f);
static_assert((BFloat16(1.0f) + BFloat16(2.0f)).x == BFloat16(3.0f).x);
static_assert(std::numeric_limits<BFloat16>::max().x == 0x7F7F);
static_assert(static_cast<float>(std::numeric_limits<BFloat16>::min()) == 0x1p-126f);
static_assert(Half(1.0f) + BFloat16(1.0f) == 2.0f);

// ---- the generic rounding helper at its extremes (unreachable from double or int64 inputs) ---
// A 64-bit significand exactly half an ulp above zero ties to the even 0; one more bit rounds up.
static_assert(tp::detail::round_to_format<5, 10>(uint64_t{1} << 63, -88) == 0x0000);
static_assert(tp::detail::round_to_format<5, 10>((uint64_t{1} << 63) | 1, -88) == 0x0001);
static_assert(tp::detail::round_to_format<5, 10>(~uint64_t{0}, -89) == 0x0000);
static_assert(tp::detail::round_to_format<8, 7>(~uint64_t{0}, 0) == 0x5F80);  // 2^64
