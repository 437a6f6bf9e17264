// The CUDA source of the copy kernel: dst = src on one device, element by element through an
// offset calculator (any strides, broadcast sources, a CPU 0-d source as a constant), converting
// between any two dtypes with c10::convert's rules (core/convert.hpp). It is the device side of
// copy_, to, contiguous, clone and fill_ for every layout; copy.hpp launches it.
//
//   const CastKernelKey key{kHalf, kDouble};   // float64 -> float16
//   // entry cast_kernel_name(key), one argument: PointwiseParams<2, unsigned> by value
//
// The conversions, as the CPU's: to bool is `!= 0` (NaN is true); from bool 0 or 1; a floating
// value goes to uint8 through int64 (-1.0 is 255); float16 and bfloat16 widen exactly to float32
// first; and a value becomes float16 or bfloat16 with one rounding (to nearest, ties to even),
// also from float64 and the 64-bit integers, which reach float32 first with round-to-odd
// (toward zero, then the lowest bit set if anything was dropped): 24 bits rounded to odd and
// then to 11 or 8 bits round exactly as one rounding would. That code is shared with the host
// (TENSORPLAY_CUDA_CONVERT_CODE_), so the tests compare it with core/half.hpp's conversions.
// Everything else is a C++ static_cast (floating values truncate toward zero into integers;
// out-of-range values are undefined on both sides).
#pragma once

#include <tensorplay/backends/cuda/pointwise_source.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>

namespace tensorplay::cuda::detail {
// Round toward zero, on the host (the kernels use __double2float_rz and __ll2double_rz).
inline float double_to_float_rz(double d) {
  float f = static_cast<float>(d);
  if (!std::isnan(d) && std::fabs(static_cast<double>(f)) > std::fabs(d)) {
    f = std::nextafter(f, 0.0f);
  }
  return f;
}
inline double int64_to_double_rz(long long v) {
  double d = static_cast<double>(v);
  if (std::fabs(static_cast<long double>(d)) > std::fabs(static_cast<long double>(v))) {
    d = std::nextafter(d, 0.0);
  }
  return d;
}
}  // namespace tensorplay::cuda::detail

#define TENSORPLAY_CUDA_DOUBLE_TO_FLOAT_RZ_(d) ::tensorplay::cuda::detail::double_to_float_rz(d)
#define TENSORPLAY_CUDA_INT64_TO_DOUBLE_RZ_(v) ::tensorplay::cuda::detail::int64_to_double_rz(v)

// clang-format off
#define TENSORPLAY_CUDA_CONVERT_CODE_(X)                                                     \
  X(                                                                                         \
  /* float64 -> float32 with round-to-odd. NaN stays NaN; what overflows is FLT_MAX with its \
     lowest bit set, which any 16-bit format rounds to infinity. */                          \
  TENSORPLAY_CUDA_HD_ float double_to_float_odd(double d) {                                  \
    float f = TENSORPLAY_CUDA_DOUBLE_TO_FLOAT_RZ_(d);                                        \
    if (d == d && static_cast<double>(f) != d) {                                             \
      f = TENSORPLAY_CUDA_BITS_FLOAT_(TENSORPLAY_CUDA_FLOAT_BITS_(f) | 1u);                  \
    }                                                                                        \
    return f;                                                                                \
  }                                                                                          \
  /* int64 -> float32 with round-to-odd, through float64 (rounding to odd twice is rounding  \
     to odd once, when the bits dropped first are remembered). */                            \
  TENSORPLAY_CUDA_HD_ float int64_to_float_odd(long long v) {                                \
    const double d = TENSORPLAY_CUDA_INT64_TO_DOUBLE_RZ_(v);                                 \
    float f = double_to_float_odd(d);                                                        \
    if (static_cast<long long>(d) != v) {                                                    \
      f = TENSORPLAY_CUDA_BITS_FLOAT_(TENSORPLAY_CUDA_FLOAT_BITS_(f) | 1u);                  \
    }                                                                                        \
    return f;                                                                                \
  }                                                                                          \
  )
// clang-format on

namespace tensorplay::cuda {

namespace detail {
TENSORPLAY_CUDA_CONVERT_CODE_(TENSORPLAY_CUDA_EXPAND_)
}  // namespace detail

// One copy kernel: the destination's and the source's dtypes (any two).
struct CastKernelKey {
  DType out = kFloat;
  DType in = kFloat;
  bool index64 = false;
  friend bool operator==(const CastKernelKey&, const CastKernelKey&) = default;
};

// Its entry name in the PTX: tp_cast_<out>_<in>_<i32|i64>.
inline std::string cast_kernel_name(const CastKernelKey& key) {
  return ::tensorplay::detail::str_cat("tp_cast_", dtype_name(key.out), "_", dtype_name(key.in),
                                       key.index64 ? "_i64" : "_i32");
}

// The CUDA source of one NVRTC program holding the copy kernels of `keys`.
inline std::string cast_kernel_source(std::span<const CastKernelKey> keys) {
  using ::tensorplay::detail::str_cat;
  std::string s = detail::pointwise_prelude();
  s += "#undef TENSORPLAY_CUDA_DOUBLE_TO_FLOAT_RZ_\n"
       "#undef TENSORPLAY_CUDA_INT64_TO_DOUBLE_RZ_\n"
       "#define TENSORPLAY_CUDA_DOUBLE_TO_FLOAT_RZ_(d) __double2float_rz(d)\n"
       "#define TENSORPLAY_CUDA_INT64_TO_DOUBLE_RZ_(v) __ll2double_rz(v)\n"
       "namespace tp {\n";
  s += TENSORPLAY_CUDA_CONVERT_CODE_(TENSORPLAY_CUDA_STRINGIFY_);
  s += R"CUDA(
// c10::convert of a loaded value (its compute type V) into storage type Out, stored.
template <class Out, class V> __device__ __forceinline__ void store_as(char* p, V v) {
  typedef typename opmath<Out>::type R;
  if constexpr (is_same<Out, bool>::value) {
    store<Out>(p, v != V(0));
  } else if constexpr (is_same<V, bool>::value) {
    store<Out>(p, static_cast<R>(static_cast<unsigned char>(v ? 1 : 0)));
  } else if constexpr (is_same<Out, Half>::value || is_same<Out, BFloat16>::value) {
    if constexpr (is_same<V, float>::value) {
      store<Out>(p, v);
    } else if constexpr (is_same<V, double>::value) {
      store<Out>(p, double_to_float_odd(v));
    } else {
      store<Out>(p, int64_to_float_odd(static_cast<long long>(v)));
    }
  } else if constexpr (is_same<Out, unsigned char>::value && is_float<V>::value) {
    store<Out>(p, static_cast<unsigned char>(static_cast<long long>(v)));
  } else {
    store<Out>(p, static_cast<R>(v));
  }
}

// Element by element, as the elementwise kernels go (for_each_element).
template <class Out, class In, class I>
__device__ __forceinline__ void cast(const PointwiseParams<2, I>& p) {
  for_each_element(p.numel, [&](I idx) {
    const Offsets<2, I> o = p.offsets.get(idx);
    store_as<Out>(p.data[0] + o.v[0], operand<In, 1>(p, o));
  });
}

}  // namespace tp
)CUDA";
  for (const CastKernelKey& key : keys) {
    const std::string_view index = key.index64 ? "unsigned long long" : "unsigned";
    s += str_cat("extern \"C\" __global__ void __launch_bounds__(", kPointwiseBlockSize, ") ",
                 cast_kernel_name(key), "(const __grid_constant__ tp::PointwiseParams<2, ", index,
                 "> p) {\n  tp::cast<", detail::cuda_storage_type(key.out), ", ",
                 detail::cuda_storage_type(key.in), ", ", index, ">(p);\n}\n");
  }
  return s;
}

}  // namespace tensorplay::cuda
