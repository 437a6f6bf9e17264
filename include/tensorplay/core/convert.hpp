// convert<To>(v): one element from one storage type to another, with PyTorch's rules
// (c10::convert). Used by every loop that writes a type other than the one it computes in.
#pragma once

#include <cstdint>
#include <type_traits>

#include <tensorplay/core/half.hpp>

namespace tensorplay {
namespace detail {

// One element from From to To, with PyTorch's conversion rules (c10::convert):
//  - to bool is `!= 0` (so NaN is true), never a truncating cast;
//  - Half and BFloat16 widen exactly to float first, so they are rounded once, by the target;
//  - a floating value goes to uint8 through int64, so -1.0 wraps to 255 as in c10 (a direct
//    negative float -> unsigned cast is undefined and differs between compilers);
//  - everything else is static_cast: floats truncate toward zero into integers, and Half and
//    BFloat16 are built directly from the source type (one rounding, even from double).
// Out-of-range float -> integer values are undefined in C++ and in PyTorch alike.
template <class To, class From>
inline To convert(From v) noexcept {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (ReducedFloatingPoint<From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<From, bool>) {
    return static_cast<To>(static_cast<uint8_t>(v));
  } else if constexpr (std::is_same_v<To, uint8_t> && std::is_floating_point_v<From>) {
    return static_cast<uint8_t>(static_cast<int64_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace detail
}  // namespace tensorplay
