// Unary elementwise math: neg abs sign square, exp exp2 expm1 log log2 log10 log1p, sqrt rsqrt
// reciprocal, the trigonometric and hyperbolic functions, sigmoid relu gelu silu softplus,
// floor ceil round trunc frac, erf; each as libtorch spells it: `exp(t)`, `t.exp()`, in place
// `t.exp_()` / `exp_(t)`, and `exp_out(out, t)`. Unary minus is `-t` (neg).
//
// Every op is one scalar function run by the iteration engine (ops/tensor_iterator.hpp) through
// the one-input loop below; the engine does the layouts, threading, out= resizing and casting,
// in-place and overlap checks, and version bumps. What differs between ops is PyTorch 1.13's
// dtype rule, of three kinds:
//  - "float" ops (exp, log, sqrt, sin, sigmoid, erf, ...: PyTorch's unary_float_op) compute in
//    the input's dtype if it is floating and in float32 for integer and bool inputs; an out=
//    tensor of another dtype receives the result converted when the cast is safe, so
//    `int_tensor.exp_()` fails with "result type Float can't be cast to the desired output
//    type Long";
//  - dtype-keeping ops (neg abs sign relu floor ceil round trunc frac gelu silu softplus:
//    PyTorch's unary_op) compute in the input's dtype and require out= to have it too;
//    floor/ceil/round/trunc of an integer tensor are a copy (as in PyTorch), and the kernels
//    that exist only for floating types fail on integers with PyTorch's "\"frac_cpu\" not
//    implemented for 'Long'";
//  - square is pow(x, 2) in PyTorch, so it promotes as `x ** 2` does: bool becomes int64;
//    otherwise it keeps the dtype like the ops above.
//
// Float32 exp, log, log1p, tanh and erf (and sigmoid, silu, gelu and softplus, built on them) use
// the vectorisable versions of ops/vec_math.hpp, within 2 ulp; float32 sin cos tan asin acos atan
// sinh cosh and float64 exp log sin cos those of ops/vec_trig.hpp, within 1 ulp; sqrt and rsqrt use
// the square-root instruction; everything else is the <cmath> function in the compute type
// (float for Half and BFloat16, which are rounded once at the end, as opmath does in PyTorch).
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cmath>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <tensorplay/ops/cpu_capability.hpp>
#if TENSORPLAY_X86_SIMD_
#include <immintrin.h>
#endif

#include <tensorplay/autograd/functions/pointwise.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/half.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/loops.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>
#include <tensorplay/ops/vec_math.hpp>
#include <tensorplay/ops/vec_trig.hpp>

namespace tensorplay {
namespace detail {

// ---- dtype classes and kernel runners ------------------------------------------------------

// Which storage types an op's kernel exists for; a dtype outside its class fails with
// PyTorch's AT_DISPATCH message naming the kernel. Kernels are instantiated only for the class.
enum class UnaryTypes { Floating, AllButBool, All };

template <class T>
inline constexpr bool kIsFloatingStorage = std::is_floating_point_v<T> || ReducedFloatingPoint<T>;

template <UnaryTypes K, class T>
inline constexpr bool kUnarySupports =
    K == UnaryTypes::All ||
    (K == UnaryTypes::AllButBool && !std::is_same_v<T, bool>) || kIsFloatingStorage<T>;

// A contiguous row of Half or BFloat16 goes through a float buffer: widened in bulk (with F16C
// for Half), the op run over floats in a loop the compiler can vectorise, then narrowed in bulk,
// rounding once. Converting element by element in software costs more than the op itself
// (exp over Half: 6 ns an element that way, against under 1 ns).
template <class T, class Op>
void reduced_float_row(T* o, const T* x, int64_t n, const Op& op) {
  constexpr int64_t kChunk = 256;
  float buf[kChunk];
  for (int64_t b = 0; b < n; b += kChunk) {
    const int64_t len = n - b < kChunk ? n - b : kChunk;
    int64_t k = convert_contiguous_simd(buf, x + b, len);
    for (; k < len; ++k) buf[k] = static_cast<float>(x[b + k]);
    k = 0;
    if constexpr (requires { op.contiguous(buf, buf, len); }) k = op.contiguous(buf, buf, len);
    for (; k < len; ++k) buf[k] = op(buf[k]);
    k = convert_contiguous_simd(o + b, static_cast<const float*>(buf), len);
    for (; k < len; ++k) o[b + k] = convert<T>(buf[k]);
  }
}

template <class T, class Op>
inline void contiguous_row(T* o, const T* x, int64_t n, const Op& op) {
  int64_t i = 0;
  // An op may do a leading part of the row itself (explicit SIMD; see SqrtOp).
  if constexpr (requires { op.contiguous(o, x, n); }) i = op.contiguous(o, x, n);
  for (; i < n; ++i) o[i] = convert<T>(op(opmath_t<T>(x[i])));
}

// One row of n elements: out[i] = op(in[i]), strides in bytes. The only code instantiated per
// op and dtype; everything around it (unary_loop_impl<>) exists once.
template <class T, class Op>
void unary_row(const void* op_ptr, char* out, const char* in, int64_t out_stride, int64_t in_stride,
               int64_t n) {
  // A local copy: the compiler then knows the row's stores cannot change the op's parameters,
  // and keeps them in registers.
  const Op op = *static_cast<const Op*>(op_ptr);
  if (out_stride == int64_t(sizeof(T)) && in_stride == int64_t(sizeof(T))) {
    T* o = reinterpret_cast<T*>(out);
    const T* x = reinterpret_cast<const T*>(in);
    if constexpr (ReducedFloatingPoint<T>) {
      reduced_float_row(o, x, n, op);
    } else if (static_cast<const T*>(o) == x) {
      // In place, the same pointer twice: clang then vectorises without the overlap test that
      // would otherwise send this row down its scalar loop (5x slower).
      contiguous_row(o, o, n, op);
    } else {
      contiguous_row(o, x, n, op);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<T*>(out + i * out_stride) =
          convert<T>(op(opmath_t<T>(*reinterpret_cast<const T*>(in + i * in_stride))));
    }
  }
}

using unary_row_t = void (*)(const void*, char*, const char*, int64_t, int64_t, int64_t);

// The loop of every unary op over iter (one output and one input, both in the computation
// dtype), row by row through `row`. It is loops.hpp's elementwise() cut down to one input and
// type-erased per row, because every op and dtype instantiates it and this header is part of
// the umbrella: the general N-input machinery, instantiated ~170 times, cost about a second of
// compile time in every including file; an indirect call per row costs nothing measurable.
template <class = void>
void unary_loop_impl(const TensorIterator& iter, unary_row_t row, const void* op) {
  iter.for_each_2d(
      [row, op](char** data, const int64_t* strides, int64_t m0, int64_t m1) {
        for (int64_t j = 0; j < m1; ++j) {
          row(op, data[0] + j * strides[2], data[1] + j * strides[3], strides[0], strides[1], m0);
        }
      },
      internal::GRAIN_SIZE);
  iter.finish();
}

template <class T, class Op>
void unary_loop(const TensorIterator& iter, const Op& op) {
  unary_loop_impl(iter, cpu_dispatch_fn<&unary_row<T, Op>, kDispatchedTypes<T>>(), &op);
}

// Runs `op` over iter in its computation dtype, or fails naming `kernel` if K excludes it.
template <UnaryTypes K, class Op>
void unary_kernel(const TensorIterator& iter, const char* kernel, const Op& op) {
  if (!iter.is_cpu()) {
    if constexpr (pointwise_code_of<Op>() == PointwiseCode::None) {
      detail::throw_no_device_op(kernel, iter.device());  // no device has a kernel for it
    } else {
      return pointwise_on_device(iter, pointwise_code_of<Op>());
    }
  }
  const DType dt = iter.common_dtype();
  dispatch_dtype(dt, [&]<class T>() {
    if constexpr (kUnarySupports<K, T>) {
      unary_loop<T>(iter, op);
    } else {
      dtype_not_implemented(kernel, dt);
    }
  });
}

// PyTorch's unary_float_op: integers and bool compute in float32, out= may be another dtype
// that the result casts to safely.
template <class = void>
TensorIterator unary_float_iter(const Tensor& out, const Tensor& self) {
  return TensorIteratorConfig()
      .add_output(out)
      .add_input(self)
      .promote_inputs_to_common_dtype(true)
      .promote_integer_inputs_to_float(true)
      .cast_common_dtype_to_outputs(true)
      .enforce_safe_casting_to_output(true)
      .build();
}

// PyTorch's unary_op: the input's dtype throughout; out= must have it ("Found dtype ...").
template <class = void>
TensorIterator unary_iter(const Tensor& out, const Tensor& self) {
  return TensorIteratorConfig().add_output(out).add_input(self).build();
}

template <class Op>
Tensor unary_float_op(const Tensor& out, const Tensor& self, const char* kernel, const Op& op) {
  TensorIterator iter = unary_float_iter(out, self);
  unary_kernel<UnaryTypes::Floating>(iter, kernel, op);
  return iter.output();
}

template <UnaryTypes K, class Op>
Tensor unary_op(const Tensor& out, const Tensor& self, const char* kernel, const Op& op) {
  TensorIterator iter = unary_iter(out, self);
  unary_kernel<K>(iter, kernel, op);
  return iter.output();
}

// floor, ceil, round and trunc: an integer tensor is its own result (PyTorch copies it); bool
// and the floating types go to the kernel, which has only the floating types.
template <class Op>
Tensor rounding_op(const Tensor& out, const Tensor& self, const char* kernel, const Op& op) {
  TensorIterator iter = unary_iter(out, self);
  if (is_integral(self.dtype(), /*include_bool=*/false)) {
    copy_impl(iter.tensor(0), iter.input(0));  // nothing to do in place: same tensor
    iter.finish();
  } else {
    unary_kernel<UnaryTypes::Floating>(iter, kernel, op);
  }
  return iter.output();
}

// out= variants need a tensor to write to (an undefined one would mean "allocate" inside).
template <class = void>
void check_out_defined(const Tensor& out, const char* op) {
  TP_CHECK(out.defined(), op, ": the out= tensor is undefined");
}

// -x, and |x|, on integers without signed overflow: INT_MIN wraps to itself as in PyTorch
// (two's complement), where `-x` would be undefined behaviour in C++.
template <class T>
inline T wrapping_neg(T x) noexcept {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<decltype(+x)>;
    return static_cast<T>(U(0) - static_cast<U>(x));
  } else {
    return -x;
  }
}

// ---- the scalar functions (called with opmath_t: float for Half and BFloat16) ---------------
// Forced inline: each is used in a few loops of its instantiation, and a call left in a loop
// (GCC declines to inline exp's ~30 instructions at every site) stops it from vectorising.
#if defined(__GNUC__)
#define TENSORPLAY_UNARY_OP_ __attribute__((always_inline))
#else
#define TENSORPLAY_UNARY_OP_
#endif

struct NegOp {
  static constexpr PointwiseCode kDevice = PointwiseCode::Neg;
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    return wrapping_neg(x);
  }
};

struct AbsOp {
  static constexpr PointwiseCode kDevice = PointwiseCode::Abs;
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    if constexpr (std::is_floating_point_v<T>) {
      return std::abs(x);  // clears the sign bit: abs(-0.0) = +0.0, NaN stays NaN
    } else if constexpr (std::is_unsigned_v<T>) {
      return x;
    } else {
      return x < 0 ? wrapping_neg(x) : x;
    }
  }
};

// (0 < x) - (x < 0), as PyTorch's kernel: sign(NaN) = 0 and sign(-0.0) = +0.0.
struct SignOp {
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    if constexpr (std::is_same_v<T, bool>) {
      return x;
    } else {
      return static_cast<T>(int(T(0) < x) - int(x < T(0)));
    }
  }
};

// x * x; integers wrap (computed in the unsigned type of their promotion, so no UB).
struct SquareOp {
  static constexpr PointwiseCode kDevice = PointwiseCode::Square;
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<decltype(+x)>;
      return static_cast<T>(static_cast<U>(x) * static_cast<U>(x));
    } else {
      return x * x;
    }
  }
};

// x < 0 ? 0 : x keeps NaN and -0.0 as PyTorch's clamp_min(x, 0) does.
struct ReluOp {
  static constexpr PointwiseCode kDevice = PointwiseCode::Relu;
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    if constexpr (std::is_unsigned_v<T>) {
      return x;
    } else {
      return x < T(0) ? T(0) : x;
    }
  }
};

// exp, log, log1p, tanh and erf in the compute type T: the vectorisable versions of
// ops/vec_math.hpp for float (and so for Half and BFloat16), <cmath> for double (but exp and log,
// which ops/vec_trig.hpp has for double too).
template <class T>
TENSORPLAY_UNARY_OP_ inline T exp_of(T x) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    return exp_f32(x);
  } else {
    return exp_f64(x);
  }
}
template <class T>
TENSORPLAY_UNARY_OP_ inline T log_of(T x) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    return log_f32(x);
  } else {
    return log_f64(x);
  }
}
template <class T>
TENSORPLAY_UNARY_OP_ inline T log1p_of(T x) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    return log1p_f32(x);
  } else {
    return std::log1p(x);
  }
}
template <class T>
TENSORPLAY_UNARY_OP_ inline T tanh_of(T x) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    return tanh_f32(x);
  } else {
    return std::tanh(x);
  }
}
template <class T>
TENSORPLAY_UNARY_OP_ inline T erf_of(T x) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    return erf_f32(x);
  } else {
    return std::erf(x);
  }
}

// asin acos atan sinh cosh: ops/vec_trig.hpp's vectorisable versions for float (and so for Half
// and BFloat16), <cmath> for double.
#define TENSORPLAY_UNARY_FLOAT_FN_(name)                    \
  template <class T>                                        \
  TENSORPLAY_UNARY_OP_ inline T name##_of(T x) noexcept {   \
    if constexpr (std::is_same_v<T, float>) {               \
      return name##_f32(x);                                 \
    } else {                                                \
      return std::name(x);                                  \
    }                                                       \
  }
TENSORPLAY_UNARY_FLOAT_FN_(asin)
TENSORPLAY_UNARY_FLOAT_FN_(acos)
TENSORPLAY_UNARY_FLOAT_FN_(atan)
TENSORPLAY_UNARY_FLOAT_FN_(sinh)
TENSORPLAY_UNARY_FLOAT_FN_(cosh)
#undef TENSORPLAY_UNARY_FLOAT_FN_

#define TENSORPLAY_UNARY_FUNCTOR_(Name, fn, code)           \
  struct Name {                                             \
    static constexpr PointwiseCode kDevice = code;          \
    template <class T>                                      \
    TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept { \
      return fn(x);                                         \
    }                                                       \
  };
TENSORPLAY_UNARY_FUNCTOR_(ExpOp, exp_of, PointwiseCode::Exp)
TENSORPLAY_UNARY_FUNCTOR_(LogOp, log_of, PointwiseCode::Log)
TENSORPLAY_UNARY_FUNCTOR_(Log1pOp, log1p_of, PointwiseCode::Log1p)
TENSORPLAY_UNARY_FUNCTOR_(TanhOp, tanh_of, PointwiseCode::Tanh)
TENSORPLAY_UNARY_FUNCTOR_(ErfOp, erf_of, PointwiseCode::Erf)
TENSORPLAY_UNARY_FUNCTOR_(AsinOp, asin_of, PointwiseCode::Asin)
TENSORPLAY_UNARY_FUNCTOR_(AcosOp, acos_of, PointwiseCode::Acos)
TENSORPLAY_UNARY_FUNCTOR_(AtanOp, atan_of, PointwiseCode::Atan)
TENSORPLAY_UNARY_FUNCTOR_(SinhOp, sinh_of, PointwiseCode::Sinh)
TENSORPLAY_UNARY_FUNCTOR_(CoshOp, cosh_of, PointwiseCode::Cosh)
// The remaining <cmath> functions (one functor each rather than a lambda per op, so that ops
// sharing a function share its loops).
TENSORPLAY_UNARY_FUNCTOR_(Exp2Op, std::exp2, PointwiseCode::Exp2)
TENSORPLAY_UNARY_FUNCTOR_(Expm1Op, std::expm1, PointwiseCode::Expm1)
TENSORPLAY_UNARY_FUNCTOR_(Log2Op, std::log2, PointwiseCode::Log2)
TENSORPLAY_UNARY_FUNCTOR_(Log10Op, std::log10, PointwiseCode::Log10)
TENSORPLAY_UNARY_FUNCTOR_(FloorOp, std::floor, PointwiseCode::Floor)
TENSORPLAY_UNARY_FUNCTOR_(CeilOp, std::ceil, PointwiseCode::Ceil)
TENSORPLAY_UNARY_FUNCTOR_(TruncOp, std::trunc, PointwiseCode::Trunc)
// round: half to even, as PyTorch.
TENSORPLAY_UNARY_FUNCTOR_(RoundOp, std::nearbyint, PointwiseCode::Round)
#undef TENSORPLAY_UNARY_FUNCTOR_

// sin, cos and tan (ops/vec_trig.hpp for float, so for Half and BFloat16 too, and sin and cos
// for double; <cmath>'s tan for double): contiguous rows through trig_row_f32 / trig_row_f64 and
// strided ones through trig_scalar_f32 / trig_scalar_f64, each doing the costly large-argument
// reduction (or glibc's call) only where it is needed, with the same bits.
template <TrigFn kFn>
struct TrigOp {
  static constexpr PointwiseCode kDevice = kFn == TrigFn::Sin   ? PointwiseCode::Sin
                                           : kFn == TrigFn::Cos ? PointwiseCode::Cos
                                                                : PointwiseCode::Tan;
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    if constexpr (std::is_same_v<T, float>) {
      return trig_scalar_f32<kFn>(x);
    } else if constexpr (kFn != TrigFn::Tan) {
      return trig_scalar_f64<kFn>(x);
    } else {
      return std::tan(x);
    }
  }
  int64_t contiguous(float* o, const float* x, int64_t n) const noexcept {
    trig_row_f32<kFn>(o, x, n);
    return n;
  }
  int64_t contiguous(double* o, const double* x, int64_t n) const noexcept
      requires(kFn != TrigFn::Tan) {
    trig_row_f64<kFn>(o, x, n);
    return n;
  }
};
using SinOp = TrigOp<TrigFn::Sin>;
using CosOp = TrigOp<TrigFn::Cos>;
using TanOp = TrigOp<TrigFn::Tan>;

// 1 / (1 + exp(-x)): exp(-x) overflows to inf for x < -88.7 and the result is then 0, as in
// PyTorch (which computes it the same way); for large x it is exactly 1.
struct SigmoidOp {
  static constexpr PointwiseCode kDevice = PointwiseCode::Sigmoid;
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    return T(1) / (T(1) + exp_of(-x));
  }
};

// x / (1 + exp(-x)), PyTorch's formula: silu(-inf) is NaN there too.
struct SiluOp {
  static constexpr PointwiseCode kDevice = PointwiseCode::Silu;
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    return x / (T(1) + exp_of(-x));
  }
};

// sqrt and 1 / sqrt. std::sqrt must set errno for a negative input, so the compiler follows
// each square-root instruction with a test and a possible libm call, and will not vectorise the
// loop. The instruction alone already is IEEE's correctly rounded square root (the value
// std::sqrt returns), so contiguous float and double rows use it directly: AVX at the AVX2 and
// AVX-512 levels (ops/cpu_capability.hpp: the level is asked once per row, and the AVX helper is
// inlined into those levels' row variants), SSE2 (every x86-64) at the default level;
// `contiguous` returns how many leading elements it did. Every road rounds the same way.
#if TENSORPLAY_X86_SIMD_
template <bool kReciprocal, class T>
[[gnu::target(TENSORPLAY_TARGET_AVX2_)]] inline int64_t sqrt_row_avx(T* o, const T* x,
                                                                     int64_t n) noexcept {
  int64_t i = 0;
  if constexpr (std::is_same_v<T, float>) {
    for (; i + 8 <= n; i += 8) {
      __m256 r = _mm256_sqrt_ps(_mm256_loadu_ps(x + i));
      if constexpr (kReciprocal) r = _mm256_div_ps(_mm256_set1_ps(1.0f), r);
      _mm256_storeu_ps(o + i, r);
    }
  } else {
    for (; i + 4 <= n; i += 4) {
      __m256d r = _mm256_sqrt_pd(_mm256_loadu_pd(x + i));
      if constexpr (kReciprocal) r = _mm256_div_pd(_mm256_set1_pd(1.0), r);
      _mm256_storeu_pd(o + i, r);
    }
  }
  return i;
}
template <bool kReciprocal, class T>
inline int64_t sqrt_row_sse2(T* o, const T* x, int64_t n) noexcept {
  int64_t i = 0;
  if constexpr (std::is_same_v<T, float>) {
    for (; i + 4 <= n; i += 4) {
      __m128 r = _mm_sqrt_ps(_mm_loadu_ps(x + i));
      if constexpr (kReciprocal) r = _mm_div_ps(_mm_set1_ps(1.0f), r);
      _mm_storeu_ps(o + i, r);
    }
  } else {
    for (; i + 2 <= n; i += 2) {
      __m128d r = _mm_sqrt_pd(_mm_loadu_pd(x + i));
      if constexpr (kReciprocal) r = _mm_div_pd(_mm_set1_pd(1.0), r);
      _mm_storeu_pd(o + i, r);
    }
  }
  return i;
}
#endif

template <bool kReciprocal>
struct SqrtOpBase {
  static constexpr PointwiseCode kDevice = kReciprocal ? PointwiseCode::Rsqrt : PointwiseCode::Sqrt;
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    if constexpr (kReciprocal) {
      return T(1) / std::sqrt(x);
    } else {
      return std::sqrt(x);
    }
  }
  template <class T>
    requires std::is_same_v<T, float> || std::is_same_v<T, double>
  int64_t contiguous(T* o, const T* x, int64_t n) const noexcept {
#if TENSORPLAY_X86_SIMD_
    if (cpu_has_avx2_level()) return sqrt_row_avx<kReciprocal>(o, x, n);
    return sqrt_row_sse2<kReciprocal>(o, x, n);
#else
    (void)o, (void)x, (void)n;
    return 0;
#endif
  }
};
using SqrtOp = SqrtOpBase<false>;
using RsqrtOp = SqrtOpBase<true>;

struct ReciprocalOp {
  static constexpr PointwiseCode kDevice = PointwiseCode::Reciprocal;
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    return T(1) / x;
  }
};

struct FracOp {
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    return x - std::trunc(x);  // frac(inf) = NaN, as in PyTorch
  }
};

// round(x, decimals): PyTorch's formula, scaling by 10^|decimals| in the compute type.
struct RoundDecimalsOp {
  double scale_d;
  bool negative;
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    const T scale = static_cast<T>(scale_d);
    return negative ? std::nearbyint(x / scale) * scale : std::nearbyint(x * scale) / scale;
  }
};

// x / 2 * (1 + erf(x / sqrt(2))), and with approximate="tanh"
// x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))). Two functors, so that each loop is
// free of the choice.
struct GeluOp {
  static constexpr PointwiseCode kDevice = PointwiseCode::Gelu;
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    const T alpha = T(0.707106781186547524400844362104849039L);  // 1 / sqrt(2)
    return x * T(0.5) * (T(1) + erf_of(x * alpha));
  }
};
struct GeluTanhOp {
  static constexpr PointwiseCode kDevice = PointwiseCode::GeluTanh;
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    const T beta = T(0.797884560802865355879892119868763737L);  // sqrt(2 / pi)
    const T kappa = T(0.044715);
    return T(0.5) * x * (T(1) + tanh_of(beta * (x + kappa * x * x * x)));
  }
};

// x * beta > threshold ? x : log1p(exp(x * beta)) / beta (PyTorch's formula). For float both
// sides are computed and one selected by a mask, so that the loop vectorises.
template <class C>
struct SoftplusOp {
  C beta, threshold;
  template <class T>
  TENSORPLAY_UNARY_OP_ T operator()(T x) const noexcept {
    const T bx = x * beta;
    if constexpr (std::is_same_v<T, float>) {
      return select_f32(bx > threshold, x, log1p_f32(exp_f32(bx)) / beta);
    } else {
      return bx > threshold ? x : std::log1p(std::exp(bx)) / beta;
    }
  }
};

#undef TENSORPLAY_UNARY_OP_

// ---- op bodies: `out` undefined means allocate; in place is out == self ----------------------

template <class = void>
Tensor neg_impl(const Tensor& out, const Tensor& self) {
  TP_CHECK(self.dtype() != kBool,
           "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
           "invert a mask, use the `~` or `logical_not()` operator instead.");
  return unary_op<UnaryTypes::AllButBool>(out, self, "neg_cpu", NegOp{});
}

template <class = void>
Tensor abs_impl(const Tensor& out, const Tensor& self) {
  return unary_op<UnaryTypes::AllButBool>(out, self, "abs_cpu", AbsOp{});
}

template <class = void>
Tensor sign_impl(const Tensor& out, const Tensor& self) {
  return unary_op<UnaryTypes::All>(out, self, "sign_cpu", SignOp{});
}

template <class = void>
Tensor relu_impl(const Tensor& out, const Tensor& self) {
  if (self.is_quantized()) {  // PyTorch's qrelu: max(q, zero_point), the same parameters
    Tensor r = detail::quantized_relu(self);
    if (!out.defined()) return r;
    copy_impl(out, r);
    return out;
  }
  TP_CHECK(self.dtype() != kBool, "Boolean inputs not supported for relu");
  return unary_op<UnaryTypes::AllButBool>(out, self, "clamp_min_cpu", ReluOp{});
}

// pow(self, 2), as PyTorch defines square: the input is first converted to
// result_type(self, 2), which differs from self's dtype only for bool (int64), and the rest is
// a dtype-keeping op, so out= must have that dtype ("Found dtype Bool but expected Long" for
// an in-place square_ of a bool tensor, as in PyTorch).
template <class = void>
Tensor square_impl(const Tensor& out, const Tensor& self) {
  const Tensor in = self.dtype() == kBool ? self.to(kLong) : self;
  return unary_op<UnaryTypes::AllButBool>(out, in, "pow", SquareOp{});
}

template <class = void>
Tensor round_decimals_impl(const Tensor& out, const Tensor& self, int64_t decimals) {
  TensorIterator iter = unary_iter(out, self);
  if (decimals == 0) {  // PyTorch runs the plain round kernel, which has no integer types
    unary_kernel<UnaryTypes::Floating>(iter, "round_vml_cpu", RoundOp{});
  } else {
    const int64_t e = decimals < 0 ? -decimals : decimals;
    unary_kernel<UnaryTypes::Floating>(iter, "round_cpu",
                                       RoundDecimalsOp{std::pow(10.0, double(e)), decimals < 0});
  }
  return iter.output();
}

template <class = void>
bool gelu_is_tanh(std::string_view approximate) {
  TP_CHECK(approximate == "none" || approximate == "tanh",
           "approximate argument must be either none or tanh.");
  return approximate == "tanh";
}

template <class = void>
Tensor gelu_impl(const Tensor& out, const Tensor& self, std::string_view approximate) {
  if (gelu_is_tanh(approximate)) {
    return unary_op<UnaryTypes::Floating>(out, self, "GeluKernelImpl", GeluTanhOp{});
  }
  return unary_op<UnaryTypes::Floating>(out, self, "GeluKernelImpl", GeluOp{});
}

template <class = void>
Tensor softplus_impl(const Tensor& out, const Tensor& self, const Scalar& beta,
                     const Scalar& threshold) {
  TensorIterator iter = unary_iter(out, self);
  const DType dt = iter.common_dtype();
  dispatch_dtype(dt, [&]<class T>() {
    if constexpr (kIsFloatingStorage<T>) {
      using C = opmath_t<T>;
      unary_loop<T>(iter, SoftplusOp<C>{beta.to<C>(), threshold.to<C>()});
    } else {
      dtype_not_implemented("softplus_cpu", dt);
    }
  });
  return iter.output();
}

}  // namespace detail

// ---- public API ------------------------------------------------------------------------------
// For each op NAME: NAME(self), NAME_(self) (in place), NAME_out(out, self), and the Tensor
// methods NAME() and NAME_(). BODY(out, self) computes into `out` (undefined: allocate); NODE
// is the autograd node NAME and NAME_ record (autograd/functions/pointwise.hpp). out= never
// records: it refuses arguments that require grad, as PyTorch does.
#define TENSORPLAY_UNARY_API_(name, body, node)                                              \
  template <class = void>                                                                    \
  Tensor name(const Tensor& self) {                                                          \
    return autograd::detail::record_unary<node>(self, [&] { return body(Tensor(), self); }); \
  }                                                                                          \
  template <class = void>                                                                    \
  const Tensor& name##_out(const Tensor& out, const Tensor& self) {                          \
    detail::check_out_defined(out, #name "_out");                                            \
    autograd::detail::check_out_no_grad(#name, out, self);                                   \
    body(out, self);                                                                         \
    return out;                                                                              \
  }                                                                                          \
  template <class = void>                                                                    \
  const Tensor& name##_(const Tensor& self) {                                                \
    return autograd::detail::record_unary_inplace<node>(self, [&] { body(self, self); });    \
  }                                                                                          \
  template <class>                                                                           \
  Tensor Tensor::name() const {                                                              \
    return tensorplay::name(*this);                                                          \
  }                                                                                          \
  template <class>                                                                           \
  const Tensor& Tensor::name##_() const {                                                    \
    return tensorplay::name##_(*this);                                                       \
  }

// A float op (integers compute in float32) whose scalar function is detail::FUNCTOR.
#define TENSORPLAY_UNARY_FLOAT_API_(name, kernel, functor, node) \
  namespace detail {                                             \
  template <class = void>                                        \
  Tensor name##_impl(const Tensor& out, const Tensor& self) {    \
    return unary_float_op(out, self, kernel, functor{});         \
  }                                                              \
  }                                                              \
  TENSORPLAY_UNARY_API_(name, detail::name##_impl, node)

// floor, ceil, round, trunc: integer tensors are copied.
#define TENSORPLAY_UNARY_ROUNDING_API_(name, kernel, functor, node) \
  namespace detail {                                                \
  template <class = void>                                           \
  Tensor name##_impl(const Tensor& out, const Tensor& self) {       \
    return rounding_op(out, self, kernel, functor{});               \
  }                                                                 \
  }                                                                 \
  TENSORPLAY_UNARY_API_(name, detail::name##_impl, node)

TENSORPLAY_UNARY_API_(neg, detail::neg_impl<>, autograd::NegBackward0)
TENSORPLAY_UNARY_API_(abs, detail::abs_impl<>, autograd::AbsBackward0)
TENSORPLAY_UNARY_API_(sign, detail::sign_impl<>, autograd::SignBackward0)
TENSORPLAY_UNARY_API_(relu, detail::relu_impl<>, autograd::ReluBackward0)

TENSORPLAY_UNARY_FLOAT_API_(exp, "exp_vml_cpu", ExpOp, autograd::ExpBackward0)
TENSORPLAY_UNARY_FLOAT_API_(exp2, "exp2", Exp2Op, autograd::Exp2Backward0)
TENSORPLAY_UNARY_FLOAT_API_(expm1, "expm1_vml_cpu", Expm1Op, autograd::Expm1Backward0)
TENSORPLAY_UNARY_FLOAT_API_(log, "log_vml_cpu", LogOp, autograd::LogBackward0)
TENSORPLAY_UNARY_FLOAT_API_(log2, "log2_vml_cpu", Log2Op, autograd::Log2Backward0)
TENSORPLAY_UNARY_FLOAT_API_(log10, "log10_vml_cpu", Log10Op, autograd::Log10Backward0)
TENSORPLAY_UNARY_FLOAT_API_(log1p, "log1p_vml_cpu", Log1pOp, autograd::Log1PBackward0)
TENSORPLAY_UNARY_FLOAT_API_(sqrt, "sqrt_vml_cpu", SqrtOp, autograd::SqrtBackward0)
TENSORPLAY_UNARY_FLOAT_API_(rsqrt, "rsqrt_cpu", RsqrtOp, autograd::RsqrtBackward0)
TENSORPLAY_UNARY_FLOAT_API_(reciprocal, "reciprocal_cpu", ReciprocalOp,
                            autograd::ReciprocalBackward0)
TENSORPLAY_UNARY_FLOAT_API_(sin, "sin_vml_cpu", SinOp, autograd::SinBackward0)
TENSORPLAY_UNARY_FLOAT_API_(cos, "cos_vml_cpu", CosOp, autograd::CosBackward0)
TENSORPLAY_UNARY_FLOAT_API_(tan, "tan_vml_cpu", TanOp, autograd::TanBackward0)
TENSORPLAY_UNARY_FLOAT_API_(asin, "asin_vml_cpu", AsinOp, autograd::AsinBackward0)
TENSORPLAY_UNARY_FLOAT_API_(acos, "acos_vml_cpu", AcosOp, autograd::AcosBackward0)
TENSORPLAY_UNARY_FLOAT_API_(atan, "atan_vml_cpu", AtanOp, autograd::AtanBackward0)
TENSORPLAY_UNARY_FLOAT_API_(sinh, "sinh_cpu", SinhOp, autograd::SinhBackward0)
TENSORPLAY_UNARY_FLOAT_API_(cosh, "cosh_cpu", CoshOp, autograd::CoshBackward0)
TENSORPLAY_UNARY_FLOAT_API_(tanh, "tanh_vml_cpu", TanhOp, autograd::TanhBackward0)
TENSORPLAY_UNARY_FLOAT_API_(sigmoid, "sigmoid_cpu", SigmoidOp, autograd::SigmoidBackward0)
TENSORPLAY_UNARY_FLOAT_API_(erf, "erf_vml_cpu", ErfOp, autograd::ErfBackward0)

TENSORPLAY_UNARY_ROUNDING_API_(floor, "floor_vml_cpu", FloorOp, autograd::FloorBackward0)
TENSORPLAY_UNARY_ROUNDING_API_(ceil, "ceil_vml_cpu", CeilOp, autograd::CeilBackward0)
TENSORPLAY_UNARY_ROUNDING_API_(trunc, "trunc_vml_cpu", TruncOp, autograd::TruncBackward0)
TENSORPLAY_UNARY_ROUNDING_API_(round, "round_vml_cpu", RoundOp, autograd::RoundBackward0)

namespace detail {
template <class = void>
Tensor frac_impl(const Tensor& out, const Tensor& self) {
  return unary_op<UnaryTypes::Floating>(out, self, "frac_cpu", FracOp{});
}
template <class = void>
Tensor silu_impl(const Tensor& out, const Tensor& self) {
  return unary_op<UnaryTypes::Floating>(out, self, "silu_cpu", SiluOp{});
}
}  // namespace detail
TENSORPLAY_UNARY_API_(frac, detail::frac_impl<>, autograd::FracBackward0)
TENSORPLAY_UNARY_API_(silu, detail::silu_impl<>, autograd::SiluBackward0)

// square is pow(self, 2) in PyTorch, and records pow's node (PowBackward0, exponent 2).
namespace detail {
inline constexpr auto kSquareExponent = [](auto& fn) { fn.exponent_ = 2; };
}  // namespace detail
template <class = void>
Tensor square(const Tensor& self) {
  return autograd::detail::record_unary<autograd::PowBackward0>(
      self, [&] { return detail::square_impl(Tensor(), self); }, detail::kSquareExponent);
}
template <class = void>
const Tensor& square_out(const Tensor& out, const Tensor& self) {
  detail::check_out_defined(out, "square_out");
  autograd::detail::check_out_no_grad("square", out, self);
  detail::square_impl(out, self);
  return out;
}
template <class = void>
const Tensor& square_(const Tensor& self) {
  return autograd::detail::record_unary_inplace<autograd::PowBackward0>(
      self, [&] { detail::square_impl(self, self); }, detail::kSquareExponent);
}
template <class>
Tensor Tensor::square() const {
  return tensorplay::square(*this);
}
template <class>
const Tensor& Tensor::square_() const {
  return tensorplay::square_(*this);
}

#undef TENSORPLAY_UNARY_ROUNDING_API_
#undef TENSORPLAY_UNARY_FLOAT_API_
#undef TENSORPLAY_UNARY_API_

// ---- ops with arguments ----------------------------------------------------------------------

// round(self, decimals): round half to even at 10^-decimals (negative decimals round to tens,
// hundreds, ...). Floating types only, whatever the value of decimals, as in PyTorch 1.13.
template <class = void>
Tensor round(const Tensor& self, int64_t decimals) {
  return autograd::detail::record_unary<autograd::RoundBackward1>(
      self, [&] { return detail::round_decimals_impl(Tensor(), self, decimals); });
}
template <class = void>
const Tensor& round_out(const Tensor& out, const Tensor& self, int64_t decimals) {
  detail::check_out_defined(out, "round_out");
  autograd::detail::check_out_no_grad("round", out, self);
  detail::round_decimals_impl(out, self, decimals);
  return out;
}
template <class = void>
const Tensor& round_(const Tensor& self, int64_t decimals) {
  return autograd::detail::record_unary_inplace<autograd::RoundBackward1>(
      self, [&] { detail::round_decimals_impl(self, self, decimals); });
}
template <class>
Tensor Tensor::round(int64_t decimals) const {
  return tensorplay::round(*this, decimals);
}
template <class>
const Tensor& Tensor::round_(int64_t decimals) const {
  return tensorplay::round_(*this, decimals);
}

// gelu(self, approximate): approximate is "none" (the exact erf form) or "tanh".
template <class = void>
Tensor gelu(const Tensor& self, std::string_view approximate = "none") {
  return autograd::detail::record_unary<autograd::GeluBackward0>(
      self, [&] { return detail::gelu_impl(Tensor(), self, approximate); },
      [&](auto& fn) { fn.tanh_ = approximate == "tanh"; });
}
template <class = void>
const Tensor& gelu_out(const Tensor& out, const Tensor& self,
                       std::string_view approximate = "none") {
  detail::check_out_defined(out, "gelu_out");
  autograd::detail::check_out_no_grad("gelu", out, self);
  detail::gelu_impl(out, self, approximate);
  return out;
}
template <class = void>
const Tensor& gelu_(const Tensor& self, std::string_view approximate = "none") {
  return autograd::detail::record_unary_inplace<autograd::GeluBackward0>(
      self, [&] { detail::gelu_impl(self, self, approximate); },
      [&](auto& fn) { fn.tanh_ = approximate == "tanh"; });
}
template <class>
Tensor Tensor::gelu(std::string_view approximate) const {
  return tensorplay::gelu(*this, approximate);
}
template <class>
const Tensor& Tensor::gelu_(std::string_view approximate) const {
  return tensorplay::gelu_(*this, approximate);
}

// softplus(self, beta, threshold) = log(1 + exp(beta x)) / beta, linear above threshold / beta.
template <class = void>
Tensor softplus(const Tensor& self, const Scalar& beta = 1, const Scalar& threshold = 20) {
  return autograd::detail::record_unary<autograd::SoftplusBackward0>(
      self, [&] { return detail::softplus_impl(Tensor(), self, beta, threshold); },
      [&](auto& fn) {
        fn.beta_ = beta;
        fn.threshold_ = threshold;
      });
}
template <class = void>
const Tensor& softplus_out(const Tensor& out, const Tensor& self, const Scalar& beta = 1,
                           const Scalar& threshold = 20) {
  detail::check_out_defined(out, "softplus_out");
  autograd::detail::check_out_no_grad("softplus", out, self);
  detail::softplus_impl(out, self, beta, threshold);
  return out;
}
template <class = void>
const Tensor& softplus_(const Tensor& self, const Scalar& beta = 1, const Scalar& threshold = 20) {
  return autograd::detail::record_unary_inplace<autograd::SoftplusBackward0>(
      self, [&] { detail::softplus_impl(self, self, beta, threshold); },
      [&](auto& fn) {
        fn.beta_ = beta;
        fn.threshold_ = threshold;
      });
}
template <class>
Tensor Tensor::softplus(const Scalar& beta, const Scalar& threshold) const {
  return tensorplay::softplus(*this, beta, threshold);
}
template <class>
const Tensor& Tensor::softplus_(const Scalar& beta, const Scalar& threshold) const {
  return tensorplay::softplus_(*this, beta, threshold);
}

// ---- aliases (PyTorch's names for the same ops) ----------------------------------------------

template <class = void>
Tensor negative(const Tensor& self) {
  return neg(self);
}
template <class = void>
const Tensor& negative_out(const Tensor& out, const Tensor& self) {
  return neg_out(out, self);
}
template <class = void>
const Tensor& negative_(const Tensor& self) {
  return neg_(self);
}
template <class>
Tensor Tensor::negative() const {
  return neg();
}
template <class>
const Tensor& Tensor::negative_() const {
  return neg_();
}

template <class = void>
Tensor absolute(const Tensor& self) {
  return abs(self);
}
template <class = void>
const Tensor& absolute_out(const Tensor& out, const Tensor& self) {
  return abs_out(out, self);
}
template <class = void>
const Tensor& absolute_(const Tensor& self) {
  return abs_(self);
}
template <class>
Tensor Tensor::absolute() const {
  return abs();
}
template <class>
const Tensor& Tensor::absolute_() const {
  return abs_();
}

// +t: the tensor itself (no copy), refused for bool as PyTorch does.
template <class = void>
Tensor positive(const Tensor& self) {
  TP_CHECK(self.dtype() != kBool, "The `+` operator, on a bool tensor is not supported.");
  return self;
}
template <class>
Tensor Tensor::positive() const {
  return tensorplay::positive(*this);
}

template <class>
Tensor Tensor::operator-() const {
  return neg();
}

}  // namespace tensorplay
