// DType: sizes, names, traits, predicates, PyTorch's promotion table and casting rule, parsing.
#include <tensorplay/core/dtype.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

namespace core_dtype_test {

using namespace tensorplay;

namespace {

constexpr std::array<DType, 10> kAll = {kBool,  kUInt8,   kInt8,     kInt16,   kInt32,
                                        kInt64, kFloat16, kBFloat16, kFloat32, kFloat64};

template <class T>
void check_pair(DType d) {
  STATIC_REQUIRE(SupportedType<T>);
  CHECK(dtype_of<T> == d);
  CHECK(CppTypeToDType<T>::value == d);
  CHECK(CppTypeToScalarType<T>::value == d);
  CHECK(itemsize(d) == sizeof(T));
}

std::string printed(DType d) {
  std::ostringstream os;
  os << d;
  return os.str();
}

}  // namespace

TEST_CASE("DType enumerators, constants and aliases", "[core][dtype]") {
  STATIC_REQUIRE(std::is_same_v<ScalarType, DType>);
  STATIC_REQUIRE(std::is_same_v<std::underlying_type_t<DType>, int8_t>);
  STATIC_REQUIRE(kNumDTypes == 10);
  for (int i = 0; i < kNumDTypes; ++i) CHECK(static_cast<int>(kAll[i]) == i);
  CHECK(kBool == DType::Bool);
  CHECK(kByte == DType::UInt8);
  CHECK(kChar == DType::Int8);
  CHECK(kShort == DType::Int16);
  CHECK(kInt == DType::Int32);
  CHECK(kLong == DType::Int64);
  CHECK(kHalf == DType::Float16);
  CHECK(kBFloat16 == DType::BFloat16);
  CHECK(kFloat == DType::Float32);
  CHECK(kDouble == DType::Float64);
  CHECK(kUInt8 == kByte);
  CHECK(kInt8 == kChar);
  CHECK(kInt16 == kShort);
  CHECK(kInt32 == kInt);
  CHECK(kInt64 == kLong);
  CHECK(kFloat16 == kHalf);
  CHECK(kFloat32 == kFloat);
  CHECK(kFloat64 == kDouble);
}

TEST_CASE("DType itemsize, names, legacy names and printing", "[core][dtype]") {
  struct Row {
    DType d;
    std::size_t size;
    const char* name;
    const char* legacy;
  };
  const Row rows[] = {
      {kBool, 1, "bool", "BoolTensor"},        {kUInt8, 1, "uint8", "ByteTensor"},
      {kInt8, 1, "int8", "CharTensor"},        {kInt16, 2, "int16", "ShortTensor"},
      {kInt32, 4, "int32", "IntTensor"},       {kInt64, 8, "int64", "LongTensor"},
      {kFloat16, 2, "float16", "HalfTensor"},  {kBFloat16, 2, "bfloat16", "BFloat16Tensor"},
      {kFloat32, 4, "float32", "FloatTensor"}, {kFloat64, 8, "float64", "DoubleTensor"},
  };
  for (const auto& r : rows) {
    INFO(r.name);
    CHECK(itemsize(r.d) == r.size);
    CHECK(elementSize(r.d) == r.size);
    CHECK(dtype_name(r.d) == r.name);
    CHECK(legacy_type_name(r.d) == r.legacy);
    CHECK(printed(r.d) == std::string("tensorplay.") + r.name);
    CHECK(parse_dtype(r.name) == r.d);
    CHECK(parse_dtype(printed(r.d)) == r.d);  // what prints parses back
  }
  // Values outside the enum (reachable only by a cast) do not read past the tables.
  const DType bad = static_cast<DType>(42);
  CHECK(itemsize(bad) == 0);
  CHECK(dtype_name(bad) == "unknown");
  CHECK(legacy_type_name(bad) == "UnknownTensor");
  CHECK(printed(bad) == "tensorplay.unknown");
  CHECK_FALSE(is_floating_point(bad));
  CHECK_FALSE(is_integral(bad, true));
  CHECK_FALSE(is_signed(static_cast<DType>(-1)));
  CHECK_THROWS_AS(promote_types(bad, kFloat), ValueError);
}

TEST_CASE("C++ type <-> DType traits", "[core][dtype]") {
  check_pair<bool>(kBool);
  check_pair<uint8_t>(kUInt8);
  check_pair<int8_t>(kInt8);
  check_pair<int16_t>(kInt16);
  check_pair<int32_t>(kInt32);
  check_pair<int64_t>(kInt64);
  check_pair<Half>(kHalf);
  check_pair<BFloat16>(kBFloat16);
  check_pair<float>(kFloat);
  check_pair<double>(kDouble);

  STATIC_REQUIRE(std::is_same_v<cpp_type_t<kBool>, bool>);
  STATIC_REQUIRE(std::is_same_v<cpp_type_t<kUInt8>, uint8_t>);
  STATIC_REQUIRE(std::is_same_v<cpp_type_t<kInt8>, int8_t>);
  STATIC_REQUIRE(std::is_same_v<cpp_type_t<kInt16>, int16_t>);
  STATIC_REQUIRE(std::is_same_v<cpp_type_t<kInt32>, int32_t>);
  STATIC_REQUIRE(std::is_same_v<cpp_type_t<kInt64>, int64_t>);
  STATIC_REQUIRE(std::is_same_v<cpp_type_t<kHalf>, Half>);
  STATIC_REQUIRE(std::is_same_v<cpp_type_t<kBFloat16>, BFloat16>);
  STATIC_REQUIRE(std::is_same_v<cpp_type_t<kFloat>, float>);
  STATIC_REQUIRE(std::is_same_v<cpp_type_t<kDouble>, double>);
  STATIC_REQUIRE(std::is_same_v<DTypeToCppType<kFloat>::type, float>);
  STATIC_REQUIRE(std::is_same_v<ScalarTypeToCPPType<kLong>::type, int64_t>);
  STATIC_REQUIRE(std::is_same_v<ScalarTypeToCPPTypeT<kHalf>, Half>);

  // Round trips both ways.
  STATIC_REQUIRE(dtype_of<cpp_type_t<kBFloat16>> == kBFloat16);
  STATIC_REQUIRE(std::is_same_v<cpp_type_t<dtype_of<int16_t>>, int16_t>);

  // Types without a dtype.
  STATIC_REQUIRE_FALSE(SupportedType<char>);
  STATIC_REQUIRE_FALSE(SupportedType<uint16_t>);
  STATIC_REQUIRE_FALSE(SupportedType<uint32_t>);
  STATIC_REQUIRE_FALSE(SupportedType<uint64_t>);
  STATIC_REQUIRE_FALSE(SupportedType<long double>);
  STATIC_REQUIRE_FALSE(SupportedType<const float>);
  STATIC_REQUIRE_FALSE(SupportedType<float*>);
  STATIC_REQUIRE_FALSE(SupportedType<std::string>);
  STATIC_REQUIRE_FALSE(SupportedType<DType>);
}

TEST_CASE("DType predicates", "[core][dtype]") {
  struct Row {
    DType d;
    bool floating, integral, integral_or_bool, is_signed_, reduced;
  };
  const Row rows[] = {
      {kBool, false, false, true, false, false},   {kUInt8, false, true, true, false, false},
      {kInt8, false, true, true, true, false},     {kInt16, false, true, true, true, false},
      {kInt32, false, true, true, true, false},    {kInt64, false, true, true, true, false},
      {kFloat16, true, false, false, true, true},  {kBFloat16, true, false, false, true, true},
      {kFloat32, true, false, false, true, false}, {kFloat64, true, false, false, true, false},
  };
  for (const auto& r : rows) {
    INFO(dtype_name(r.d));
    CHECK(is_floating_point(r.d) == r.floating);
    CHECK(isFloatingType(r.d) == r.floating);
    CHECK(is_integral(r.d, false) == r.integral);
    CHECK(isIntegralType(r.d, false) == r.integral);
    CHECK(is_integral(r.d, true) == r.integral_or_bool);
    CHECK(isIntegralType(r.d, true) == r.integral_or_bool);
    CHECK(is_signed(r.d) == r.is_signed_);
    CHECK(isSignedType(r.d) == r.is_signed_);
    CHECK(is_reduced_floating_point(r.d) == r.reduced);
    CHECK(isReducedFloatingType(r.d) == r.reduced);
    // Predicates agree with the C++ types.
  }
  CHECK(std::is_signed_v<cpp_type_t<kInt8>> == is_signed(kInt8));
  CHECK(std::is_signed_v<cpp_type_t<kUInt8>> == is_signed(kUInt8));
  CHECK(std::is_floating_point_v<cpp_type_t<kDouble>> == is_floating_point(kDouble));
}

TEST_CASE("promote_types matches c10's table entry by entry", "[core][dtype]") {
  // Transcribed from c10/core/ScalarType.cpp's _promoteTypesLookup, keeping c10's row and column
  // order (u1 i1 i2 i4 i8 f2 f4 f8, then b1 bf; the complex and quantized columns dropped), so a
  // slip when the header permuted it into our enum order would show here.
  constexpr DType u1 = kByte, i1 = kChar, i2 = kShort, i4 = kInt, i8 = kLong, f2 = kHalf,
                  f4 = kFloat, f8 = kDouble, b1 = kBool, bf = kBFloat16;
  constexpr std::array<DType, 10> order = {u1, i1, i2, i4, i8, f2, f4, f8, b1, bf};
  // clang-format off
  constexpr DType table[10][10] = {
      /*         u1  i1  i2  i4  i8  f2  f4  f8  b1  bf */
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, u1, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, i1, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, i2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, i4, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, b1, bf},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, bf, bf},
  };
  // clang-format on
  for (int r = 0; r < 10; ++r) {
    for (int c = 0; c < 10; ++c) {
      INFO(dtype_name(order[r]) << " + " << dtype_name(order[c]));
      CHECK(promote_types(order[r], order[c]) == table[r][c]);
      CHECK(promoteTypes(order[r], order[c]) == table[r][c]);
    }
  }
  // Properties, in our enum order.
  for (DType a : kAll) {
    CHECK(promote_types(a, a) == a);              // idempotent
    CHECK(promote_types(kBool, a) == a);          // bool is the bottom
    CHECK(promote_types(a, kDouble) == kDouble);  // double is the top
    for (DType b : kAll) {
      const DType p = promote_types(a, b);
      CHECK(p == promote_types(b, a));  // symmetric
      CHECK(promote_types(p, a) == p);  // the result absorbs both inputs
      CHECK(promote_types(p, b) == p);
      CHECK(can_cast(a, p));  // both inputs cast to the result
      CHECK(can_cast(b, p));
      for (DType c : kAll) {  // associative
        CHECK(promote_types(promote_types(a, b), c) == promote_types(a, promote_types(b, c)));
      }
    }
  }
}

TEST_CASE("promote_types: cases worked out by hand", "[core][dtype]") {
  // uint8 and int8 each miss values of the other; int16 holds both.
  CHECK(promote_types(kUInt8, kInt8) == kInt16);
  // uint8 fits in int16, so the wider signed type suffices.
  CHECK(promote_types(kUInt8, kInt16) == kInt16);
  // Category beats width: any float wins over any integer, even float16 over int64.
  CHECK(promote_types(kInt64, kFloat16) == kFloat16);
  CHECK(promote_types(kInt64, kBFloat16) == kBFloat16);
  CHECK(promote_types(kInt32, kFloat32) == kFloat32);
  // Neither 16-bit float holds the other (range vs precision): float32 holds both.
  CHECK(promote_types(kFloat16, kBFloat16) == kFloat32);
  CHECK(promote_types(kBFloat16, kFloat16) == kFloat32);
  // Bool is below everything, including uint8.
  CHECK(promote_types(kBool, kUInt8) == kUInt8);
  CHECK(promote_types(kBool, kBool) == kBool);
  CHECK(promote_types(kInt8, kInt64) == kInt64);
  CHECK(promote_types(kFloat16, kFloat64) == kFloat64);
}

TEST_CASE("can_cast follows c10::canCast", "[core][dtype]") {
  // Rows: from; columns: to; both in our enum order
  // (b1 u1 i1 i2 i4 i8 f2 bf f4 f8). Floating -> integral and non-bool -> bool are refused.
  // clang-format off
  constexpr bool table[10][10] = {
      /*           b1 u1 i1 i2 i4 i8 f2 bf f4 f8 */
      /* b1 */    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      /* u1 */    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      /* i1 */    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      /* i2 */    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      /* i4 */    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      /* i8 */    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      /* f2 */    {0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
      /* bf */    {0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
      /* f4 */    {0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
      /* f8 */    {0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
  };
  // clang-format on
  for (int r = 0; r < 10; ++r) {
    for (int c = 0; c < 10; ++c) {
      INFO(dtype_name(kAll[r]) << " -> " << dtype_name(kAll[c]));
      CHECK(can_cast(kAll[r], kAll[c]) == table[r][c]);
      CHECK(canCast(kAll[r], kAll[c]) == table[r][c]);
    }
  }
  // Narrowing within a category is allowed (int_tensor.add_(long_tensor) is fine).
  CHECK(can_cast(kInt64, kInt8));
  CHECK(can_cast(kFloat64, kFloat16));
  CHECK(can_cast(kInt64, kUInt8));
  CHECK_FALSE(can_cast(kFloat32, kInt64));
  CHECK_FALSE(can_cast(kInt32, kBool));
  CHECK_FALSE(can_cast(kFloat32, kBool));
  CHECK(can_cast(kBool, kFloat32));
}

TEST_CASE("parse_dtype accepts PyTorch's attribute names", "[core][dtype]") {
  struct Row {
    const char* name;
    DType d;
  };
  const Row rows[] = {
      {"bool", kBool},       {"uint8", kUInt8},          {"int8", kInt8},
      {"int16", kInt16},     {"short", kInt16},          {"int32", kInt32},
      {"int", kInt32},       {"int64", kInt64},          {"long", kInt64},
      {"float16", kFloat16}, {"half", kFloat16},         {"bfloat16", kBFloat16},
      {"float32", kFloat32}, {"float", kFloat32},        {"float64", kFloat64},
      {"double", kFloat64},  {"tensorplay.half", kHalf}, {"tensorplay.long", kLong},
  };
  for (const auto& r : rows) {
    INFO(r.name);
    CHECK(parse_dtype(r.name) == r.d);
  }
  STATIC_REQUIRE(parse_dtype("double") == kDouble);

  const std::string expected_tail =
      "'; expected one of: bool, uint8, int8, int16 (short), int32 (int), int64 (long), "
      "float16 (half), bfloat16, float32 (float), float64 (double), qint8, quint8, qint32";
  for (const char* bad :
       {"foo", "", "Float", "FLOAT32", "torch.float32", "float32 ", " int", "tensorplay.",
        "tensorplay.foo", "uint16", "complex64", "cfloat", "FloatTensor"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_dtype(bad), TypeError);
    CHECK_THROWS_WITH(parse_dtype(bad), "unknown dtype name '" + std::string(bad) + expected_tail);
  }
}

TEST_CASE("DType functions are usable in constant expressions", "[core][dtype]") {
  constexpr auto size = itemsize(kBFloat16);
  constexpr auto promoted = promote_types(kUInt8, kInt8);
  constexpr auto name = dtype_name(kFloat16);
  STATIC_REQUIRE(size == 2);
  STATIC_REQUIRE(promoted == kInt16);
  STATIC_REQUIRE(name == "float16");
  STATIC_REQUIRE(can_cast(kInt32, kFloat16));
  STATIC_REQUIRE(!can_cast(kFloat16, kInt32));
}

}  // namespace core_dtype_test
