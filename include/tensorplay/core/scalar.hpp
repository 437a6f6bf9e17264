// Scalar: a dynamically typed number (bool, integer or floating), as c10::Scalar. What
// `fill_(1)`, `full(..., 2.5)` and `item()` traffic in.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string_view>
#include <type_traits>

#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/half.hpp>

namespace tensorplay {

class Scalar {
 public:
  Scalar() noexcept : Scalar(int64_t{0}) {}
  Scalar(bool v) noexcept : tag_(Tag::Bool) { v_.i = v; }
  template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) Scalar(T v)
  noexcept : tag_(Tag::Int) { v_.i = static_cast<int64_t>(v); }
  template <class T>
  requires std::is_floating_point_v<T> Scalar(T v)
  noexcept : tag_(Tag::Double) { v_.d = static_cast<double>(v); }
  Scalar(Half v) noexcept : Scalar(static_cast<float>(v)) {}
  Scalar(BFloat16 v) noexcept : Scalar(static_cast<float>(v)) {}

  bool isFloatingPoint() const noexcept { return tag_ == Tag::Double; }
  bool isIntegral(bool includeBool) const noexcept {
    return tag_ == Tag::Int || (includeBool && tag_ == Tag::Bool);
  }
  bool isBoolean() const noexcept { return tag_ == Tag::Bool; }
  // The dtype a 0-d tensor made from this scalar would have (PyTorch: double, long, bool).
  DType type() const noexcept {
    return tag_ == Tag::Double ? kDouble : tag_ == Tag::Int ? kLong : kBool;
  }

  // Checked conversion: integers out of the target's range and finite doubles beyond a
  // float's range throw, as c10's checked_convert does.
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      return tag_ == Tag::Double ? v_.d != 0.0 : v_.i != 0;
    } else if constexpr (std::is_integral_v<T>) {
      if (tag_ == Tag::Double) {
        const double d = v_.d;
        // c10's bound is d <= max. A 64-bit max is not a double: it rounds up to 2^63, which c10
        // lets through to an undefined cast; we stop below it.
        const double hi = static_cast<double>(std::numeric_limits<T>::max());
        TP_CHECK(std::isfinite(d) && d >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
                     (sizeof(T) < 8 ? d <= hi : d < hi),
                 "value cannot be converted to type ", type_name<T>(), " without overflow");
        return static_cast<T>(d);
      }
      TP_CHECK(fits<T>(v_.i), "value cannot be converted to type ", type_name<T>(),
               " without overflow");
      return static_cast<T>(v_.i);
    } else {
      const double d = tag_ == Tag::Double ? v_.d : static_cast<double>(v_.i);
      if constexpr (!std::is_same_v<T, double>) {
        TP_CHECK(
            !std::isfinite(d) || std::fabs(d) <= static_cast<double>(std::numeric_limits<T>::max()),
            "value cannot be converted to type ", type_name<T>(), " without overflow");
      }
      return static_cast<T>(d);
    }
  }
  double toDouble() const { return to<double>(); }
  float toFloat() const { return to<float>(); }
  int64_t toLong() const { return to<int64_t>(); }
  int32_t toInt() const { return to<int32_t>(); }
  bool toBool() const { return to<bool>(); }
  Half toHalf() const { return to<Half>(); }
  BFloat16 toBFloat16() const { return to<BFloat16>(); }

  Scalar operator-() const {
    TP_CHECK(tag_ != Tag::Bool, "torch boolean negative, the `-` operator, is not supported.");
    return tag_ == Tag::Double ? Scalar(-v_.d) : Scalar(-v_.i);
  }
  bool equal(const Scalar& o) const noexcept {
    if (tag_ == Tag::Double || o.tag_ == Tag::Double) return as_double() == o.as_double();
    return v_.i == o.v_.i;
  }

  friend std::ostream& operator<<(std::ostream& os, const Scalar& s) {
    if (s.tag_ == Tag::Bool) return os << (s.v_.i ? "true" : "false");
    if (s.tag_ == Tag::Int) return os << s.v_.i;
    return os << s.v_.d;
  }

 private:
  enum class Tag : uint8_t { Bool, Int, Double };

  double as_double() const noexcept {
    return tag_ == Tag::Double ? v_.d : static_cast<double>(v_.i);
  }
  // c10's overflows<>: an unsigned target also accepts negative values down to -max, which wrap
  // as two's complement (uint8 fill_(-1) gives 255, so `a - b` can be computed as `a + 255*b`).
  template <class T>
  static bool fits(int64_t v) noexcept {
    if constexpr (std::is_unsigned_v<T>) {
      const uint64_t magnitude = v < 0 ? -static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
      return magnitude <= std::numeric_limits<T>::max();
    } else {
      return v >= std::numeric_limits<T>::lowest() && v <= std::numeric_limits<T>::max();
    }
  }
  // The C++ type names c10's accessors pass to checked_convert, so messages read as PyTorch's
  // ("value cannot be converted to type uint8_t without overflow").
  template <class T>
  static std::string_view type_name() noexcept {
    if constexpr (std::is_same_v<T, uint8_t>)
      return "uint8_t";
    else if constexpr (std::is_same_v<T, int8_t>)
      return "int8_t";
    else if constexpr (std::is_same_v<T, int16_t>)
      return "int16_t";
    else if constexpr (std::is_same_v<T, int32_t>)
      return "int";
    else if constexpr (std::is_same_v<T, int64_t>)
      return "int64_t";
    else if constexpr (std::is_same_v<T, Half>)
      return "tensorplay::Half";
    else if constexpr (std::is_same_v<T, BFloat16>)
      return "tensorplay::BFloat16";
    else if constexpr (std::is_same_v<T, float>)
      return "float";
    else if constexpr (std::is_same_v<T, double>)
      return "double";
    else
      return "the requested type";
  }

  Tag tag_;
  union {
    double d;
    int64_t i;
  } v_;
};

}  // namespace tensorplay
