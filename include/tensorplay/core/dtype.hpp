// DType (alias ScalarType): the element type of a tensor, its C++ type, its size, its names, and
// PyTorch's type-promotion and casting rules.
//
// Everything here is constexpr and table driven; the tables are indexed by the enum value, so the
// enumerator order below is part of the layout of every table (and is not c10's order: ours puts
// the types in the order the spec lists them, bool first).
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/half.hpp>

namespace tensorplay {

enum class DType : int8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  // The quantized types (c10's names and order): integers read through a Quantizer
  // (core/quantizer.hpp). They come after the dense types so that every dense table (promotion,
  // dispatch, device casts) keeps its size and is never indexed with them.
  QInt8,
  QUInt8,
  QInt32,
};
using ScalarType = DType;

// The dense types, which the kernel tables and dispatch_dtype cover.
inline constexpr int kNumDTypes = 10;
inline constexpr int kNumQuantizedDTypes = 3;
inline constexpr int kNumAllDTypes = kNumDTypes + kNumQuantizedDTypes;

// libtorch's constants (c10 names) ...
inline constexpr DType kBool = DType::Bool;
inline constexpr DType kByte = DType::UInt8;
inline constexpr DType kChar = DType::Int8;
inline constexpr DType kShort = DType::Int16;
inline constexpr DType kInt = DType::Int32;
inline constexpr DType kLong = DType::Int64;
inline constexpr DType kHalf = DType::Float16;
inline constexpr DType kBFloat16 = DType::BFloat16;
inline constexpr DType kFloat = DType::Float32;
inline constexpr DType kDouble = DType::Float64;
// ... and the torch:: spellings.
inline constexpr DType kUInt8 = DType::UInt8;
inline constexpr DType kInt8 = DType::Int8;
inline constexpr DType kInt16 = DType::Int16;
inline constexpr DType kInt32 = DType::Int32;
inline constexpr DType kInt64 = DType::Int64;
inline constexpr DType kFloat16 = DType::Float16;
inline constexpr DType kFloat32 = DType::Float32;
inline constexpr DType kFloat64 = DType::Float64;
// The quantized types.
inline constexpr DType kQInt8 = DType::QInt8;
inline constexpr DType kQUInt8 = DType::QUInt8;
inline constexpr DType kQInt32 = DType::QInt32;

namespace detail {

// A dense type (the promotion table's rows).
constexpr bool is_valid_dtype(DType t) noexcept {
  return static_cast<int>(t) >= 0 && static_cast<int>(t) < kNumDTypes;
}
// Any enumerator, quantized included (the info table's rows).
constexpr bool is_known_dtype(DType t) noexcept {
  return static_cast<int>(t) >= 0 && static_cast<int>(t) < kNumAllDTypes;
}
constexpr std::size_t dtype_index(DType t) noexcept { return static_cast<std::size_t>(t); }

// One row per DType, in enum order.
struct DTypeInfo {
  std::size_t itemsize;
  std::string_view name;         // PyTorch's canonical dtype name: torch.<name>
  std::string_view legacy_name;  // the old tensor-type name used in messages
  bool is_floating_point;
  bool is_integral;  // excluding Bool
  bool is_signed;
};

inline constexpr std::array<DTypeInfo, kNumAllDTypes> kDTypeInfo = {{
    {1, "bool", "BoolTensor", false, false, false},
    {1, "uint8", "ByteTensor", false, true, false},
    {1, "int8", "CharTensor", false, true, true},
    {2, "int16", "ShortTensor", false, true, true},
    {4, "int32", "IntTensor", false, true, true},
    {8, "int64", "LongTensor", false, true, true},
    {2, "float16", "HalfTensor", true, false, true},
    {2, "bfloat16", "BFloat16Tensor", true, false, true},
    {4, "float32", "FloatTensor", true, false, true},
    {8, "float64", "DoubleTensor", true, false, true},
    {1, "qint8", "QInt8Tensor", false, false, true},
    {1, "quint8", "QUInt8Tensor", false, false, false},
    {4, "qint32", "QInt32Tensor", false, false, true},
}};

}  // namespace detail

// Bytes per element (c10: elementSize). 0 for a value outside the enum.
constexpr std::size_t itemsize(DType t) noexcept {
  return detail::is_known_dtype(t) ? detail::kDTypeInfo[detail::dtype_index(t)].itemsize : 0;
}
constexpr std::size_t elementSize(DType t) noexcept { return itemsize(t); }

// "float32", "int64", ...; "unknown" for a value outside the enum.
constexpr std::string_view dtype_name(DType t) noexcept {
  return detail::is_known_dtype(t) ? detail::kDTypeInfo[detail::dtype_index(t)].name
                                   : std::string_view("unknown");
}

// "FloatTensor", "LongTensor", ...: the legacy type names PyTorch still uses in some messages
// (callers prefix "tensorplay." as PyTorch prefixes "torch.").
constexpr std::string_view legacy_type_name(DType t) noexcept {
  return detail::is_known_dtype(t) ? detail::kDTypeInfo[detail::dtype_index(t)].legacy_name
                                   : std::string_view("UnknownTensor");
}

// c10's ScalarType spelling ("Float", "Long", "Half"), which libtorch's messages use
// ("expected scalar type Float but found Double", "\"add\" not implemented for 'Bool'").
// A string_view into the legacy name, so a passing check builds nothing.
constexpr std::string_view scalar_type_name(DType t) noexcept {
  const std::string_view legacy = legacy_type_name(t);
  return legacy.substr(0, legacy.size() - 6);  // drop "Tensor"
}

// Prints as Python prints a dtype: "tensorplay.float32".
// c10's TypeMeta names (the C++ type a dtype stores), which several PyTorch messages print
// ("Expected out tensor to have dtype float, but got double instead"); the 16-bit floats carry
// our namespace.
constexpr const char* typemeta_name(DType d) noexcept {
  switch (d) {
    case DType::Bool: return "bool";
    case DType::UInt8: return "unsigned char";
    case DType::Int8: return "signed char";
    case DType::Int16: return "short int";
    case DType::Int32: return "int";
    case DType::Int64: return "long int";
    case DType::Float16: return "tensorplay::Half";
    case DType::BFloat16: return "tensorplay::BFloat16";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::QInt8: return "tensorplay::qint8";
    case DType::QUInt8: return "tensorplay::quint8";
    case DType::QInt32: return "tensorplay::qint32";
  }
  return "unknown";
}

inline std::ostream& operator<<(std::ostream& os, DType t) {
  return os << "tensorplay." << dtype_name(t);
}

// ---- Predicates (c10 spellings alongside) --------------------------------------------------

constexpr bool is_floating_point(DType t) noexcept {
  return detail::is_valid_dtype(t) && detail::kDTypeInfo[detail::dtype_index(t)].is_floating_point;
}
constexpr bool is_integral(DType t, bool include_bool) noexcept {
  return detail::is_valid_dtype(t) && (detail::kDTypeInfo[detail::dtype_index(t)].is_integral ||
                                       (include_bool && t == DType::Bool));
}
// c10's isSignedType: false for Bool and UInt8, true for every other type here.
constexpr bool is_signed(DType t) noexcept {
  return detail::is_valid_dtype(t) && detail::kDTypeInfo[detail::dtype_index(t)].is_signed;
}
// The 16-bit floats, which kernels usually compute in float (c10: isReducedFloatingType).
constexpr bool is_reduced_floating_point(DType t) noexcept {
  return t == DType::Float16 || t == DType::BFloat16;
}

// A quantized type (c10: isQIntType).
constexpr bool is_quantized(DType t) noexcept {
  return t == DType::QInt8 || t == DType::QUInt8 || t == DType::QInt32;
}
constexpr bool isQIntType(DType t) noexcept { return is_quantized(t); }
// The integer type a quantized type stores (c10: toUnderlying); a dense type is its own.
constexpr DType toUnderlying(DType t) noexcept {
  switch (t) {
    case DType::QInt8: return DType::Int8;
    case DType::QUInt8: return DType::UInt8;
    case DType::QInt32: return DType::Int32;
    default: return t;
  }
}
// The quantized type storing `t` (the inverse of toUnderlying; ValueError for any other type).
constexpr DType to_quantized_dtype(DType t) {
  switch (t) {
    case DType::Int8: return DType::QInt8;
    case DType::UInt8: return DType::QUInt8;
    case DType::Int32: return DType::QInt32;
    default: break;
  }
  TP_CHECK_VALUE(false, "no quantized dtype stores ", scalar_type_name(t));
  return t;
}

constexpr bool isFloatingType(DType t) noexcept { return is_floating_point(t); }
constexpr bool isIntegralType(DType t, bool include_bool) noexcept {
  return is_integral(t, include_bool);
}
constexpr bool isSignedType(DType t) noexcept { return is_signed(t); }
constexpr bool isReducedFloatingType(DType t) noexcept { return is_reduced_floating_point(t); }

// ---- C++ type <-> DType ------------------------------------------------------------------
// Exactly the ten types below map (no cv-qualifiers, no `long long` or `char` aliases), as in
// c10's CppTypeToScalarType; a type without a mapping has no `value`, so SupportedType is false.

template <class T>
struct CppTypeToDType {};

#define TENSORPLAY_DTYPE_TYPE_PAIR_(cpp, dt)  \
  template <>                                 \
  struct CppTypeToDType<cpp> {                \
    static constexpr DType value = DType::dt; \
  };                                          \
  template <>                                 \
  struct DTypeToCppType<DType::dt> {          \
    using type = cpp;                         \
  };

template <DType D>
struct DTypeToCppType {};

TENSORPLAY_DTYPE_TYPE_PAIR_(bool, Bool)
TENSORPLAY_DTYPE_TYPE_PAIR_(uint8_t, UInt8)
TENSORPLAY_DTYPE_TYPE_PAIR_(int8_t, Int8)
TENSORPLAY_DTYPE_TYPE_PAIR_(int16_t, Int16)
TENSORPLAY_DTYPE_TYPE_PAIR_(int32_t, Int32)
TENSORPLAY_DTYPE_TYPE_PAIR_(int64_t, Int64)
TENSORPLAY_DTYPE_TYPE_PAIR_(Half, Float16)
TENSORPLAY_DTYPE_TYPE_PAIR_(BFloat16, BFloat16)
TENSORPLAY_DTYPE_TYPE_PAIR_(float, Float32)
TENSORPLAY_DTYPE_TYPE_PAIR_(double, Float64)
#undef TENSORPLAY_DTYPE_TYPE_PAIR_

template <class T>
concept SupportedType = requires {
  { CppTypeToDType<T>::value } -> std::convertible_to<DType>;
};

template <SupportedType T>
inline constexpr DType dtype_of = CppTypeToDType<T>::value;

template <DType D>
using cpp_type_t = typename DTypeToCppType<D>::type;

// c10 spellings.
template <class T>
using CppTypeToScalarType = CppTypeToDType<T>;
template <DType D>
using ScalarTypeToCPPType = DTypeToCppType<D>;
template <DType D>
using ScalarTypeToCPPTypeT = cpp_type_t<D>;

// ---- Type promotion ------------------------------------------------------------------------

namespace detail {

// c10's promoteTypes table (c10/core/ScalarType.cpp, generated from NumPy's promote_types),
// restricted to our ten types and permuted into our enum order. Its rules, for reading it:
// bool is below every type; unsigned meets signed at the next wider signed type (uint8 + int8
// -> int16); any float beats any integer whatever the widths (int64 + float16 -> float16); and
// the two 16-bit floats, neither of which holds the other, meet at float32.
inline constexpr std::array<std::array<DType, kNumDTypes>, kNumDTypes> kPromoteTypesTable = [] {
  constexpr DType b1 = DType::Bool, u1 = DType::UInt8, i1 = DType::Int8, i2 = DType::Int16,
                  i4 = DType::Int32, i8 = DType::Int64, f2 = DType::Float16, bf = DType::BFloat16,
                  f4 = DType::Float32, f8 = DType::Float64;
  // clang-format off
  return std::array<std::array<DType, kNumDTypes>, kNumDTypes>{{
      /*         b1  u1  i1  i2  i4  i8  f2  bf  f4  f8 */
      /* b1 */ {{b1, u1, i1, i2, i4, i8, f2, bf, f4, f8}},
      /* u1 */ {{u1, u1, i2, i2, i4, i8, f2, bf, f4, f8}},
      /* i1 */ {{i1, i2, i1, i2, i4, i8, f2, bf, f4, f8}},
      /* i2 */ {{i2, i2, i2, i2, i4, i8, f2, bf, f4, f8}},
      /* i4 */ {{i4, i4, i4, i4, i4, i8, f2, bf, f4, f8}},
      /* i8 */ {{i8, i8, i8, i8, i8, i8, f2, bf, f4, f8}},
      /* f2 */ {{f2, f2, f2, f2, f2, f2, f2, f4, f4, f8}},
      /* bf */ {{bf, bf, bf, bf, bf, bf, f4, bf, f4, f8}},
      /* f4 */ {{f4, f4, f4, f4, f4, f4, f4, f4, f4, f8}},
      /* f8 */ {{f8, f8, f8, f8, f8, f8, f8, f8, f8, f8}},
  }};
  // clang-format on
}();

}  // namespace detail

// The smallest type both a and b convert to without losing their category (c10: promoteTypes).
// Symmetric. Throws ValueError for a value outside the enum (only reachable through a cast).
constexpr DType promote_types(DType a, DType b) {
  if (is_quantized(a) || is_quantized(b)) {
    if (a == b) return a;
    TP_CHECK(false,
             "promoteTypes with quantized numbers is not handled yet; figure out what the "
             "correct rules should be, offending types: ",
             scalar_type_name(a), " ", scalar_type_name(b));
  }
  TP_CHECK_VALUE(detail::is_valid_dtype(a) && detail::is_valid_dtype(b),
                 "promote_types: invalid dtype value ", static_cast<int>(a), ", ",
                 static_cast<int>(b));
  return detail::kPromoteTypesTable[detail::dtype_index(a)][detail::dtype_index(b)];
}
constexpr DType promoteTypes(DType a, DType b) { return promote_types(a, b); }

// Whether an in-place or out= result of dtype `to` may receive a value computed in `from`
// (c10::canCast): not floating -> integral (int_tensor += float_tensor is an error), and not
// anything but bool -> bool (bool is its own category in promotion). Everything else is allowed,
// narrowing included.
constexpr bool can_cast(DType from, DType to) noexcept {
  if (is_floating_point(from) && is_integral(to, /*include_bool=*/false)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}
constexpr bool canCast(DType from, DType to) noexcept { return can_cast(from, to); }

// ---- Names -----------------------------------------------------------------------------------

namespace detail {

struct DTypeAlias {
  std::string_view name;
  DType dtype;
};

// The dtype attributes of the torch module, restricted to our types (getattr(torch, name)).
inline constexpr std::array<DTypeAlias, 19> kDTypeNames = {{
    {"bool", DType::Bool},       {"uint8", DType::UInt8},   {"int8", DType::Int8},
    {"int16", DType::Int16},     {"short", DType::Int16},   {"int32", DType::Int32},
    {"int", DType::Int32},       {"int64", DType::Int64},   {"long", DType::Int64},
    {"float16", DType::Float16}, {"half", DType::Float16},  {"bfloat16", DType::BFloat16},
    {"float32", DType::Float32}, {"float", DType::Float32}, {"float64", DType::Float64},
    {"double", DType::Float64},  {"qint8", DType::QInt8},   {"quint8", DType::QUInt8},
    {"qint32", DType::QInt32},
}};

}  // namespace detail

// Parses a dtype name as PyTorch spells its attributes: "float32", "float", "double", "half",
// "int64", "long", "bool", ... An optional "tensorplay." prefix is accepted, so what operator<<
// prints parses back. Throws TypeError naming the accepted names otherwise.
constexpr DType parse_dtype(std::string_view name) {
  constexpr std::string_view prefix = "tensorplay.";
  const std::string_view bare =
      name.substr(0, prefix.size()) == prefix ? name.substr(prefix.size()) : name;
  for (const auto& alias : detail::kDTypeNames) {
    if (alias.name == bare) return alias.dtype;
  }
  TP_CHECK_TYPE(
      false, "unknown dtype name '", name,
      "'; expected one of: bool, uint8, int8, int16 (short), int32 (int), int64 (long), "
      "float16 (half), bfloat16, float32 (float), float64 (double), qint8, quint8, qint32");
  return DType::Float32;  // unreachable
}

}  // namespace tensorplay
