// Binary elementwise math: add, sub, rsub, mul, div (true, trunc, floor), remainder, fmod, pow,
// atan2, maximum, minimum, clamp, lerp and the bitwise ops, each with libtorch's overloads (free
// function, Tensor method, in-place `_` method, `*_out(out, ...)`), plus the arithmetic and
// bitwise operators. Semantics are PyTorch 1.13's (aten/src/ATen/native/BinaryOps.cpp and
// cpu/BinaryOpsKernel.cpp): type promotion through result_type (a C++ number promotes as a
// Python scalar does), broadcasting, integer overflow wrapping, Python's sign rules for floor
// division and remainder, NaN propagation in maximum/minimum/clamp.
//
// Where PyTorch's behaviour is undefined we define it: INT_MIN / -1 and INT_MIN % -1 on 32- and
// 64-bit integers trap (SIGFPE) in PyTorch; here they wrap (INT_MIN and 0), which is what
// PyTorch itself gives for int8 and int16 through C++'s integer promotion.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include <tensorplay/autograd/functions/pointwise.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/half.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/loops.hpp>
#include <tensorplay/ops/parallel.hpp>
#include <tensorplay/ops/result_type.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>

namespace tensorplay {
namespace detail::binary_impl {

// ---- dtype sets: which dtypes a kernel is instantiated for ----------------------------------

inline constexpr unsigned kSetBool = 1, kSetIntegral = 2, kSetFloating = 4;

template <class T>
inline constexpr unsigned dtype_set_of = std::is_same_v<T, bool> ? kSetBool
                                         : std::is_integral_v<T> ? kSetIntegral
                                                                 : kSetFloating;

// dispatch_dtype limited to the dtypes a kernel exists for. Any other dtype fails as PyTorch's
// AT_DISPATCH macros do ("\"remainder_cpu\" not implemented for 'Bool'"), and the kernel is not
// instantiated for it, which is most of what keeps this header cheap to compile.
template <unsigned Set, class F>
void dispatch_set(DType dt, const char* name, F&& f) {
  dispatch_dtype(dt, [&]<class T>() {
    if constexpr ((dtype_set_of<T> & Set) != 0) {
      f.template operator()<T>();
    } else {
      TP_ERROR("\"", name, "\" not implemented for '", scalar_type_name(dt), "'");
    }
  });
}

// ---- integer arithmetic that wraps instead of overflowing ----------------------------------
// Signed overflow is undefined in C++ (PyTorch lets it happen and relies on the hardware); we
// compute in an unsigned type at least as wide as `unsigned`, so that uint16 * uint16 cannot
// promote to a signed int and overflow there either, and convert back modulo 2^n (C++20).

template <class T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <class T>
using wrap_unsigned_t =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <class T>
inline T wrap_add(T a, T b) {
  using U = wrap_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T>
inline T wrap_sub(T a, T b) {
  using U = wrap_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <class T>
inline T wrap_mul(T a, T b) {
  using U = wrap_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

// Truncating division; b == -1 is -a (wrapping), which also avoids the INT_MIN / -1 trap.
template <class T>
inline T div_trunc_int(T a, T b) {
  TP_CHECK(b != 0, "ZeroDivisionError");
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrap_sub(T(0), a);
  }
  return static_cast<T>(a / b);
}

// Python's a // b: truncation, minus one when the signs differ and the division is inexact.
template <class T>
inline T div_floor_int(T a, T b) {
  TP_CHECK(b != 0, "ZeroDivisionError");
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrap_sub(T(0), a);
    if ((a < 0) != (b < 0)) {
      const T q = static_cast<T>(a / b), r = static_cast<T>(a % b);
      return r != 0 ? static_cast<T>(q - 1) : q;
    }
  }
  return static_cast<T>(a / b);
}

// c10::div_floor_floating: floor(a / b) computed from fmod so that the quotient is exact, with
// Python's result for every sign and IEEE's for division by zero.
template <class T>
inline T div_floor_float(T a, T b) {
  if (b == T(0)) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && (b < T(0)) != (mod < T(0))) div -= T(1);
  if (div == T(0)) return std::copysign(T(0), a / b);
  T floordiv = std::floor(div);
  if (div - floordiv > T(0.5)) floordiv += T(1);
  return floordiv;
}

// Python's a % b: the result takes the divisor's sign.
template <class T>
inline T remainder_value(T a, T b) {
  if constexpr (is_int_v<T>) {
    TP_CHECK(b != 0, "ZeroDivisionError");
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return T(0);  // INT_MIN % -1 traps in hardware; every a % -1 is 0
    }
    T r = static_cast<T>(a % b);
    if constexpr (std::is_signed_v<T>) {
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    }
    return r;
  } else {
    T mod = std::fmod(a, b);
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) mod += b;
    return mod;
  }
}

// C's fmod: the result takes the dividend's sign.
template <class T>
inline T fmod_value(T a, T b) {
  if constexpr (is_int_v<T>) {
    TP_CHECK(b != 0, "ZeroDivisionError");
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return T(0);
    }
    return static_cast<T>(a % b);
  } else {
    return std::fmod(a, b);
  }
}

// Integer power by squaring, wrapping (ATen's powi). A negative exponent gives 1 for a base of
// 1, +-1 for a base of -1, and 0 otherwise, since the true result truncates to that.
template <class T>
inline T powi(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return T(1);
      if (a == -1) return (b & 1) ? T(-1) : T(1);
      return T(0);
    }
  }
  using U = wrap_unsigned_t<T>;
  U result = 1, base = static_cast<U>(a);
  while (b) {
    if (b & 1) result = static_cast<U>(result * base);
    b = static_cast<T>(b / 2);
    base = static_cast<U>(base * base);
  }
  return static_cast<T>(result);
}

// ATen's lerp: the two forms are exact at their own end (weight 0 and weight 1).
template <class M>
inline M lerp_value(M self, M end, M weight) {
  return std::abs(weight) < M(0.5) ? self + weight * (end - self)
                                   : end - (end - self) * (M(1) - weight);
}

// A C++ number as the engine would see it in dtype T: the wrapped-number tensor's own dtype
// (double, int64 or bool) converted with PyTorch's element conversion, unchecked, as the
// iterator's input conversion is (uint8_tensor + 300 adds 44).
template <class T>
inline T scalar_as(const Scalar& s) {
  if (s.isFloatingPoint()) return convert<T>(s.to<double>());
  if (s.isBoolean()) return convert<T>(s.to<bool>());
  return convert<T>(s.to<int64_t>());
}

// The engine's row loops (ops/loops.hpp) for one, two and three inputs.
template <class Out, class In, class Op>
void run_unary(const TensorIterator& iter, const Op& op) {
  elementwise<Out, In>(iter, op);
}
template <class Out, class In, class Op>
void run_binary(const TensorIterator& iter, const Op& op) {
  elementwise<Out, In, In>(iter, op);
}
template <class Out, class In0, class In, class Op>
void run_ternary(const TensorIterator& iter, const Op& op) {
  elementwise<Out, In0, In, In>(iter, op);
}

// ---- BinaryPlan: how one binary elementwise call runs --------------------------------------
//
// The common case, two contiguous tensors of one dtype and shape (or a contiguous tensor and a
// C++ number that does not change its dtype), skips the TensorIterator: it allocates the result
// (or writes self in place, or a contiguous out= tensor of that shape and dtype) and runs the
// row loop directly, split by parallel_for. Building an iterator costs several hundred
// nanoseconds of vectors and dimension bookkeeping, most of the time of a 1024-element add.
// Everything else (broadcasting, strides, mixed dtypes, an out= that needs resizing or a cast,
// partial overlap, wrapped numbers) goes through the iterator, which owns those rules; both
// roads compute the same values in the same dtype. The plan points at its operands: they must
// outlive it (the public functions' parameters do).
struct BinaryOptions {
  bool int_to_float = false;          // integer/bool inputs compute in float32 (true division)
  std::optional<DType> static_dtype;  // dtype of the result when not the inputs' (kBool)
};

// A class template (BinaryPlan is BinaryPlanT<>) so that its members, which build the iterator and
// reach every kernel, are compiled only in a file that runs a binary op.
template <class = void>
class BinaryPlanT {
 public:
  using Options = BinaryOptions;

  // `out`: undefined (allocate the result), an out= tensor, or `a` itself (in place).
  BinaryPlanT(const Tensor& out, const Tensor& a, const Tensor& b, Options opt = {})
      : a_(&a), b_(&b), given_out_(out.defined()) {
    const DType dt = a.dtype();
    // The fast road is the CPU's; other devices go through the engine, which checks them.
    if (b.dtype() == dt && on_cpu(a) && on_cpu(b) && a.is_contiguous() && b.is_contiguous() &&
        a.sizes() == b.sizes() && !a.unsafeGetTensorImpl()->is_wrapped_number() &&
        (!opt.int_to_float || is_floating_point(dt)) &&
        (!out.defined() || fast_output(out, a, opt.static_dtype.value_or(dt), &b))) {
      set_fast(out, dt, opt);
      return;
    }
    build(out, a, b, opt);
  }

  BinaryPlanT(const Tensor& out, const Tensor& a, const Scalar& b, Options opt = {})
      : a_(&a), scalar_(b), has_scalar_(true), given_out_(out.defined()) {
    const DType dt = a.dtype();
    if (on_cpu(a) && row_major_strides(a) && !a.unsafeGetTensorImpl()->is_wrapped_number() &&
        (!opt.int_to_float || is_floating_point(dt)) && result_type(a, b) == dt &&
        (!out.defined() || fast_output(out, a, opt.static_dtype.value_or(dt), nullptr))) {
      set_fast(out, dt, opt);
      return;
    }
    wrapped_ = wrapped_scalar_tensor(b);
    b_ = &wrapped_;
    build(out, a, wrapped_, opt);
  }

  BinaryPlanT(const BinaryPlanT&) = delete;
  BinaryPlanT& operator=(const BinaryPlanT&) = delete;

  // The dtype the kernel computes in (result_type of the inputs, or float32 for int_to_float).
  DType common_dtype() const noexcept { return common_; }

  // Off the CPU, runs the device's kernel for `code` (ops/device_dispatch.hpp) and returns true;
  // on the CPU returns false and the caller runs its CPU loop.
  bool run_on_device(PointwiseCode code, double s0 = 0) {
    if (fast_ || iter_->is_cpu()) return false;
    pointwise_on_device(*iter_, code, s0);
    return true;
  }

  // Off the CPU, for an op no device has a kernel for: PyTorch's "Could not run" error naming
  // it by its CPU kernel (`name`).
  void refuse_device(const char* name) const {
    if (!fast_ && !iter_->is_cpu()) detail::throw_no_device_op(name, iter_->device());
  }

  // Runs op(opmath_t<In> x, opmath_t<In> y) -> Out over every element and finishes the call
  // (converted outputs written back, versions bumped).
  template <class Out, class In, class Op>
  void run(const Op& op) {
    In s{};
    if (fast_ && has_scalar_) s = scalar_as<In>(scalar_);
    run_erased(detail::elementwise_row_fn<Op, Out, In, In>(), &op, int64_t(sizeof(Out)),
               int64_t(sizeof(In)), &s);
  }

  // The allocated result, moved out; an undefined tensor when the caller gave the output (the
  // caller returns its own reference: no reference-count traffic on the in-place path).
  Tensor take_result() {
    if (given_out_) return Tensor();
    return fast_ ? std::move(result_) : iter_->output();
  }

 private:
  void run_erased(detail::RowFn fn, const void* op, int64_t out_size, int64_t in_size,
                  const void* scalar) {
    if (!fast_) return detail::run_rows(*iter_, fn, op);
    const Tensor& result = out_ ? *out_ : result_;
    char* out = static_cast<char*>(result.data_ptr());
    char* a = static_cast<char*>(a_->data_ptr());
    char* b = has_scalar_ ? static_cast<char*>(const_cast<void*>(scalar))
                          : static_cast<char*>(b_->data_ptr());
    const int64_t strides[3] = {out_size, in_size, has_scalar_ ? 0 : in_size};
    parallel_for(0, result.numel(), internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) {
      char* data[3] = {out + begin * strides[0], a + begin * strides[1], b + begin * strides[2]};
      fn(op, data, strides, end - begin);
    });
    if (out_) result.unsafeGetTensorImpl()->bump_version();
  }

  // PyTorch runs `t + 2` through its iterator with a 0-d operand, whose result is contiguous
  // when t's strides are exactly the contiguous ones; a t that is contiguous with other strides
  // on size-1 dims, or empty, gets the iterator's layout (an empty [2, 0, 3] with strides
  // [1, 2, 2] gives [1, 2, 0]), so only the former may take the fast road.
  // Defined operands only (the checks above ran): no undefined-tensor check on the hot path.
  static bool on_cpu(const Tensor& t) noexcept { return t.unsafeGetTensorImpl()->device().is_cpu(); }

  static bool row_major_strides(const Tensor& t) {
    if (t.numel() == 0 || !t.is_contiguous()) return false;
    int64_t expected = 1;
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (t.stride(d) != expected) return false;
      expected *= t.size(d);
    }
    return true;
  }

  // A given output (self in place, or out=) the fast road may write: on the CPU, of the
  // result's dtype, contiguous with a's sizes (so element i of every operand is element i in
  // memory, and no resize is due), and sharing no memory with an input unless it is that input
  // exactly (same first byte, same element size: each element is read before it is written).
  // Anything else is the iterator's to resize, cast, or refuse for partial overlap.
  static bool fast_output(const Tensor& out, const Tensor& a, DType result, const Tensor* b) {
    const auto same_or_apart = [&](const Tensor& in) {
      return !in.is_alias_of(out) ||
             (in.data_ptr() == out.data_ptr() && in.itemsize() == out.itemsize());
    };
    return on_cpu(out) && out.dtype() == result && out.sizes() == a.sizes() &&
           out.is_contiguous() && same_or_apart(a) && (b == nullptr || same_or_apart(*b));
  }

  void set_fast(const Tensor& out, DType dt, const Options& opt) {
    fast_ = true;
    common_ = dt;
    if (out.defined()) {
      // A caller's tensor is about to be written: the refusals the iterator applies to its
      // given outputs (read-only storages, inference tensors), which this road skips.
      autograd::detail::check_inplace(out);
      out_ = &out;
    } else {
      result_ = empty(a_->sizes(), TensorOptions().dtype(opt.static_dtype.value_or(dt)));
    }
  }

  void build(const Tensor& out, const Tensor& a, const Tensor& b, const Options& opt) {
    TensorIteratorConfig config;
    config.add_output(out)
        .add_input(a)
        .add_input(b)
        .promote_inputs_to_common_dtype(true)
        .promote_integer_inputs_to_float(opt.int_to_float)
        .cast_common_dtype_to_outputs(true);
    if (opt.static_dtype) config.declare_static_dtype(*opt.static_dtype);
    iter_.emplace(config.build());
    common_ = iter_->common_dtype();
  }

  const Tensor* a_;
  const Tensor* b_ = nullptr;
  Scalar scalar_;
  const Tensor* out_ = nullptr;  // the given output on the fast road (self in place, or out=)
  bool has_scalar_ = false, fast_ = false, given_out_ = false;
  DType common_ = kFloat;
  Tensor result_, wrapped_;
  std::optional<TensorIterator> iter_;
};
using BinaryPlan = BinaryPlanT<>;

// ---- checks --------------------------------------------------------------------------------

template <class = void>
void alpha_check(DType dt, const Scalar& alpha) {
  TP_CHECK(!alpha.isBoolean() || dt == kBool, "Boolean alpha only supported for Boolean results.");
  TP_CHECK(is_floating_point(dt) || alpha.isIntegral(true),
           "For integral input tensors, argument alpha must not be a floating point number.");
}

template <class = void>
void sub_check(DType self, DType other) {
  TP_CHECK(self != kBool || other != kBool,
           "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
           "or `logical_xor()` operator instead.");
  TP_CHECK(self != kBool && other != kBool,
           "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
           "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

// ---- kernels: one per op, each handed a plan ----------------------------------------------

template <class = void>
void add_kernel(BinaryPlan& p, const Scalar& alpha) {
  alpha_check(p.common_dtype(), alpha);
  if (p.run_on_device(PointwiseCode::Add, alpha.to<double>())) return;
  dispatch_dtype(p.common_dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    // alpha in the storage type first, as ATen's kernel takes it (alpha.to<scalar_t>()).
    const M w = static_cast<M>(alpha.to<T>());
    if constexpr (std::is_same_v<T, bool>) {
      p.run<T, T>([w](bool x, bool y) { return x || (w && y); });
    } else if constexpr (is_int_v<T>) {
      p.run<T, T>([w](M x, M y) { return wrap_add(x, wrap_mul(w, y)); });
    } else {
      p.run<T, T>([w](M x, M y) { return x + w * y; });
    }
  });
}

// PyTorch computes a - b as a + (-alpha) * b; in two's complement and in IEEE arithmetic that is
// the same value as a - alpha * b, which needs no negation of alpha (INT64_MIN has none).
template <class = void>
void sub_kernel(BinaryPlan& p, const Scalar& alpha) {
  alpha_check(p.common_dtype(), alpha);
  if (p.run_on_device(PointwiseCode::Sub, alpha.to<double>())) return;
  dispatch_set<kSetIntegral | kSetFloating>(p.common_dtype(), "sub_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    const M w = static_cast<M>(alpha.to<T>());
    if constexpr (is_int_v<T>) {
      p.run<T, T>([w](M x, M y) { return wrap_sub(x, wrap_mul(w, y)); });
    } else {
      p.run<T, T>([w](M x, M y) { return x - w * y; });
    }
  });
}

template <class = void>
void mul_kernel(BinaryPlan& p) {
  if (p.run_on_device(PointwiseCode::Mul)) return;
  dispatch_dtype(p.common_dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      p.run<T, T>([](bool x, bool y) { return x && y; });
    } else if constexpr (is_int_v<T>) {
      p.run<T, T>([](M x, M y) { return wrap_mul(x, y); });
    } else {
      p.run<T, T>([](M x, M y) { return x * y; });
    }
  });
}

enum class DivMode { True, Trunc, Floor };

template <class = void>
DivMode parse_rounding_mode(std::optional<std::string_view> mode) {
  if (!mode) return DivMode::True;
  if (*mode == "trunc") return DivMode::Trunc;
  if (*mode == "floor") return DivMode::Floor;
  TP_ERROR("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode,
           "'");
}

template <class = void>
void div_kernel(BinaryPlan& p, DivMode mode) {
  if (p.run_on_device(mode == DivMode::True    ? PointwiseCode::Div
                      : mode == DivMode::Trunc ? PointwiseCode::DivTrunc
                                               : PointwiseCode::DivFloor)) {
    return;
  }
  const DType dt = p.common_dtype();
  const char* name = mode == DivMode::True    ? "div_cpu"
                     : mode == DivMode::Trunc ? "div_trunc_cpu"
                                              : "div_floor_cpu";
  dispatch_set<kSetIntegral | kSetFloating>(dt, name, [&]<class T>() {
    using M = opmath_t<T>;
    if constexpr (is_int_v<T>) {
      // True division never gets here: integer inputs were promoted to float32.
      p.run<T, T>([floor = mode == DivMode::Floor](M x, M y) {
        return floor ? div_floor_int(x, y) : div_trunc_int(x, y);
      });
    } else {
      // True division alone gets a branch-free op, which vectorises.
      if (mode == DivMode::True) return p.run<T, T>([](M x, M y) { return x / y; });
      p.run<T, T>([floor = mode == DivMode::Floor](M x, M y) {
        return floor ? div_floor_float(x, y) : std::trunc(x / y);
      });
    }
  });
}

template <class = void>
void remainder_kernel(BinaryPlan& p) {
  if (p.run_on_device(PointwiseCode::Remainder)) return;
  dispatch_set<kSetIntegral | kSetFloating>(p.common_dtype(), "remainder_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    p.run<T, T>([](M x, M y) { return remainder_value(x, y); });
  });
}

template <class = void>
void fmod_kernel(BinaryPlan& p) {
  if (p.run_on_device(PointwiseCode::Fmod)) return;
  dispatch_set<kSetIntegral | kSetFloating>(p.common_dtype(), "fmod_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    p.run<T, T>([](M x, M y) { return fmod_value(x, y); });
  });
}

template <class = void>
void pow_kernel(BinaryPlan& p) {
  if (p.run_on_device(PointwiseCode::Pow)) return;
  dispatch_set<kSetIntegral | kSetFloating>(p.common_dtype(), "pow", [&]<class T>() {
    using M = opmath_t<T>;
    if constexpr (is_int_v<T>) {
      p.run<T, T>([](M x, M y) { return powi(x, y); });
    } else {
      p.run<T, T>([](M x, M y) { return std::pow(x, y); });
    }
  });
}

template <class = void>
void atan2_kernel(BinaryPlan& p) {
  if (p.run_on_device(PointwiseCode::Atan2)) return;
  dispatch_set<kSetFloating>(p.common_dtype(), "atan2_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    p.run<T, T>([](M x, M y) { return std::atan2(x, y); });
  });
}

// maximum/minimum: NaN in either operand gives NaN; bool is logical or/and.
template <bool IsMax>
inline void max_min_kernel(BinaryPlan& p) {
  if (p.run_on_device(IsMax ? PointwiseCode::Maximum : PointwiseCode::Minimum)) return;
  dispatch_dtype(p.common_dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      p.run<T, T>([](bool x, bool y) { return IsMax ? (x || y) : (x && y); });
    } else if constexpr (is_int_v<T>) {
      p.run<T, T>([](M x, M y) { return IsMax ? (x < y ? y : x) : (y < x ? y : x); });
    } else {
      p.run<T, T>([](M x, M y) {
        if (x != x || y != y) return std::numeric_limits<M>::quiet_NaN();
        return IsMax ? (x < y ? y : x) : (y < x ? y : x);
      });
    }
  });
}

template <class Op>
inline void bitwise_kernel(BinaryPlan& p, const char* name, const Op& op) {
  p.refuse_device(name);
  dispatch_set<kSetBool | kSetIntegral>(p.common_dtype(), name, [&]<class T>() {
    p.run<T, T>([op](T x, T y) { return static_cast<T>(op(x, y)); });
  });
}
struct BitAnd {
  template <class T>
  T operator()(T x, T y) const {
    return static_cast<T>(x & y);
  }
};
struct BitOr {
  template <class T>
  T operator()(T x, T y) const {
    return static_cast<T>(x | y);
  }
};
struct BitXor {
  template <class T>
  T operator()(T x, T y) const {
    return static_cast<T>(x ^ y);
  }
};

// Shifts (integral dtypes only, PyTorch's lshift_cpu / rshift_cpu). A shift by a negative count
// or by the width of the type or more is defined here as PyTorch 2 defines it (<<: 0; >>: the
// sign fill); libtorch 1.13 shifts by the count modulo the hardware's width there.
struct ShiftLeft {
  template <class T>
  T operator()(T x, T y) const {
    constexpr auto bits = static_cast<T>(sizeof(T) * 8 - 1);
    if constexpr (std::is_signed_v<T>) {
      if (y < 0) return T(0);
    }
    if (y > bits) return T(0);
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(x) << y);
  }
};
struct ShiftRight {
  template <class T>
  T operator()(T x, T y) const {
    constexpr auto bits = static_cast<T>(sizeof(T) * 8 - 1);
    if constexpr (std::is_signed_v<T>) {
      if (y < 0 || y > bits) return x < 0 ? T(-1) : T(0);
    } else {
      if (y > bits) return T(0);
    }
    return static_cast<T>(x >> y);
  }
};
template <class Op>
inline void shift_kernel(BinaryPlan& p, const char* name, const Op& op) {
  p.refuse_device(name);
  dispatch_set<kSetIntegral>(p.common_dtype(), name, [&]<class T>() {
    p.run<T, T>([op](T x, T y) { return op(x, y); });
  });
}

// A one-input iterator for the unary-shaped ops (pow with a scalar exponent, clamp with scalar
// bounds, bitwise_not): PyTorch's build_unary_op, whose out= must already have the dtype.
template <class = void>
TensorIterator unary_iter(const Tensor& out, const Tensor& self) {
  return TensorIteratorConfig().add_output(out).add_input(self).build();
}

template <class = void>
bool is_number(const Scalar& s, double v) {
  return !s.isBoolean() && s.toDouble() == v;
}

// pow(Tensor, Scalar): ATen's pow_tensor_scalar_kernel with its shortcuts (square, cube, sqrt,
// reciprocal, ...; none for Half, as in ATen). The exponent's case is chosen per call and
// switched on per element: one kernel per dtype instead of one per case (the branch is the same
// for every element, so it predicts perfectly).
enum class PowCase : uint8_t {
  One,
  Identity,
  Square,
  Cube,
  Sqrt,
  Rsqrt,
  Reciprocal,
  InvSquare,
  General
};

template <class = void>
Tensor pow_scalar_impl(const Tensor& out, const Tensor& base, const Scalar& exp) {
  TP_CHECK(!(is_integral(base.dtype(), true) && exp.isIntegral(true) && exp.toLong() < 0),
           "Integers to negative integer powers are not allowed.");
  if (!base.is_cpu()) {  // the device's binary pow, with the exponent as a wrapped number
    BinaryPlan p(out, base, exp);
    pow_kernel(p);
    Tensor result = p.take_result();
    return result.defined() ? result : out;
  }
  const DType common = result_type(base, exp);
  TensorIterator iter = unary_iter(out, base.to(common));
  const bool zero = is_number(exp, 0.0), one = is_number(exp, 1.0);
  dispatch_set<kSetIntegral | kSetFloating>(common, "pow", [&]<class T>() {
    using M = opmath_t<T>;
    PowCase c = zero ? PowCase::One : one ? PowCase::Identity : PowCase::General;
    if constexpr (is_int_v<T>) {
      const T e = c == PowCase::General ? exp.to<T>() : T(0);
      run_unary<T, T>(iter, [c, e](M x) {
        return c == PowCase::General ? powi(x, e) : c == PowCase::One ? M(1) : x;
      });
    } else {
      // float and double compute the general case as std::pow(float, double) does, in double
      // and rounded once; Half and BFloat16 take the exponent in their own precision.
      const double e = c != PowCase::General  ? 0.0
                       : std::is_same_v<T, M> ? exp.toDouble()
                                              : double(float(exp.to<T>()));
      if (c == PowCase::General && !std::is_same_v<T, Half>) {
        c = e == 2.0    ? PowCase::Square
            : e == 3.0  ? PowCase::Cube
            : e == 0.5  ? PowCase::Sqrt
            : e == -0.5 ? PowCase::Rsqrt
            : e == -1.0 ? PowCase::Reciprocal
            : e == -2.0 ? PowCase::InvSquare
                        : PowCase::General;
      }
      using P =
          std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, float>, double, float>;
      run_unary<T, T>(iter, [c, pe = P(e)](M x) -> M {
        switch (c) {
          case PowCase::One: return M(1);
          case PowCase::Identity: return x;
          case PowCase::Square: return x * x;
          case PowCase::Cube: return x * x * x;
          case PowCase::Sqrt: return std::sqrt(x);
          case PowCase::Rsqrt: return M(1) / std::sqrt(x);
          case PowCase::Reciprocal: return M(1) / x;
          case PowCase::InvSquare: return M(1) / (x * x);
          case PowCase::General: break;
        }
        return static_cast<M>(std::pow(P(x), pe));
      });
    }
  });
  return iter.output();
}

// pow(Scalar, Tensor): a base of 1 fills ones; anything else is pow(wrapped base, exponent).
template <class = void>
Tensor pow_scalar_base_impl(const Tensor& out, const Scalar& base, const Tensor& exp) {
  if (is_number(base, 1.0)) {
    const DType dt = out.defined() ? out.dtype() : result_type(base, exp);
    Tensor result = out.defined() ? out : empty(exp.sizes(), TensorOptions().dtype(dt));
    if (out.defined()) resize_output(out, exp.sizes());
    result.fill_(1);
    if (!out.defined()) result.unsafeGetTensorImpl()->reset_version();
    return result;
  }
  const Tensor wrapped = wrapped_scalar_tensor(base);  // outlives the plan, which points at it
  BinaryPlan p(out, wrapped, exp);
  pow_kernel(p);
  return p.take_result();
}

// clamp(Tensor, Scalar, Scalar) and clamp_min/clamp_max with a Scalar: PyTorch promotes self
// with the bounds by hand (floating self is never promoted), refuses a promotion in place, and
// runs a unary kernel. A NaN bound makes every element NaN.
template <class = void>
Tensor clamp_scalar_impl(const Tensor& out, const Tensor& self, const std::optional<Scalar>& min,
                         const std::optional<Scalar>& max, const char* name) {
  TP_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  DType rt = self.dtype();
  if (!is_floating_point(rt)) {
    ResultTypeState state = update_result_type_state(self, {});
    if (min) state = update_result_type_state(*min, state);
    if (max) state = update_result_type_state(*max, state);
    rt = result_type(state);
    // PyTorch prints self's TypeMeta here ("... desired output type long int").
    TP_CHECK(rt == self.dtype() || !out.defined() || !out.is_same(self), "result type ",
             scalar_type_name(rt), " can't be cast to the desired output type ",
             typemeta_name(self.dtype()));
  }
  TensorIterator iter = unary_iter(out, self.to(rt));
  dispatch_set<kSetIntegral | kSetFloating>(rt, name, [&]<class T>() {
    using M = opmath_t<T>;
    // The bounds in the storage type, checked (uint8 clamp(0, 300) fails as in PyTorch); a
    // missing one is the type's extreme (an infinity for floats), which changes nothing.
    using L = std::numeric_limits<M>;
    const M lo = min ? static_cast<M>(min->to<T>()) : is_int_v<T> ? L::lowest() : -L::infinity();
    const M hi = max ? static_cast<M>(max->to<T>()) : is_int_v<T> ? L::max() : L::infinity();
    if (!iter.is_cpu()) return pointwise_on_device(iter, PointwiseCode::Clamp, lo, hi);
    // std::max(x, lo) then std::min(., hi): a NaN x stays NaN, lo > hi gives hi, and a NaN
    // bound gives NaN everywhere (PyTorch fills the result with NaN).
    run_unary<T, T>(iter, [lo, hi](M x) {
      if constexpr (is_int_v<T>) {
        const M y = x < lo ? lo : x;
        return hi < y ? hi : y;
      } else {
        const M y = (x < lo || lo != lo) ? lo : x;
        return (hi < y || hi != hi) ? hi : y;
      }
    });
  });
  return iter.output();
}

// clamp(Tensor, Tensor, Tensor): bounds are tensors that broadcast and promote with self. With
// one bound it is maximum or minimum, as in PyTorch (so bool is allowed there).
template <class = void>
Tensor clamp_tensor_impl(const Tensor& out, const Tensor& self, const std::optional<Tensor>& min,
                         const std::optional<Tensor>& max) {
  const bool has_min = min && min->defined(), has_max = max && max->defined();
  TP_CHECK(has_min || has_max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  if (!has_max) {
    BinaryPlan p(out, self, *min);
    max_min_kernel<true>(p);
    return p.take_result();
  }
  if (!has_min) {
    BinaryPlan p(out, self, *max);
    max_min_kernel<false>(p);
    return p.take_result();
  }
  TensorIterator iter = TensorIteratorConfig()
                            .add_output(out)
                            .add_input(self)
                            .add_input(*min)
                            .add_input(*max)
                            .promote_inputs_to_common_dtype(true)
                            .cast_common_dtype_to_outputs(true)
                            .build();
  dispatch_set<kSetIntegral | kSetFloating>(iter.common_dtype(), "clamp_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    run_ternary<T, T, T>(iter, [](M x, M lo, M hi) {
      if constexpr (!is_int_v<T>) {
        if (std::isnan(lo) || std::isnan(hi)) return std::numeric_limits<M>::quiet_NaN();
      }
      const M y = x < lo ? lo : x;
      return hi < y ? hi : y;
    });
  });
  return iter.output();
}

template <class = void>
void lerp_dtype_check(const Tensor& self, const Tensor& other, const char* what) {
  TP_CHECK(self.dtype() == other.dtype(), "expected dtype ", typemeta_name(self.dtype()), " for `",
           what, "` but got dtype ", typemeta_name(other.dtype()));
}

template <class = void>
Tensor lerp_scalar_impl(const Tensor& out, const Tensor& self, const Tensor& end,
                        const Scalar& weight) {
  lerp_dtype_check(self, end, "end");
  BinaryPlan p(out, self, end);
  dispatch_set<kSetFloating>(p.common_dtype(), "lerp_kernel_scalar", [&]<class T>() {
    using M = opmath_t<T>;
    const M w = weight.to<M>();
    p.run<T, T>([w](M x, M y) { return lerp_value(x, y, w); });
  });
  return p.take_result();
}

template <class = void>
Tensor lerp_tensor_impl(const Tensor& out, const Tensor& self, const Tensor& end,
                        const Tensor& weight) {
  lerp_dtype_check(self, end, "end");
  lerp_dtype_check(self, weight, "weight");
  TensorIterator iter = TensorIteratorConfig()
                            .add_output(out)
                            .add_input(self)
                            .add_input(end)
                            .add_input(weight)
                            .build();
  dispatch_set<kSetFloating>(iter.common_dtype(), "lerp_kernel_tensor", [&]<class T>() {
    using M = opmath_t<T>;
    run_ternary<T, T, T>(iter, [](M x, M y, M w) { return lerp_value(x, y, w); });
  });
  return iter.output();
}

template <class = void>
Tensor bitwise_not_impl(const Tensor& out, const Tensor& self) {
  TensorIterator iter = unary_iter(out, self);
  dispatch_set<kSetBool | kSetIntegral>(iter.common_dtype(), "bitwise_not_cpu", [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>) {
      run_unary<T, T>(iter, [](bool x) { return !x; });
    } else {
      run_unary<T, T>(iter, [](T x) { return static_cast<T>(~x); });
    }
  });
  return iter.output();
}

// The shared shape of every binary entry point: plan, kernel, result.
template <class Other, class Kernel>
inline Tensor binary_call(const Tensor& out, const Tensor& self, const Other& other,
                          BinaryPlan::Options opt, const Kernel& kernel) {
  BinaryPlan p(out, self, other, opt);
  kernel(p);
  return p.take_result();
}

}  // namespace detail::binary_impl

// ==== recording =================================================================================
// Each differentiable op below is its kernel call wrapped in autograd::detail::differentiable
// (out of place), differentiable_inplace (the `_` methods) or, for a Scalar second operand,
// record_unary / record_unary_inplace; the nodes are in autograd/functions/pointwise.hpp. A
// node saves a tensor only when the formula of an edge that needs a gradient uses it; in place,
// the original self is saved as a clone (self itself changes). The out= forms never record and
// refuse arguments that require grad.

namespace detail::binary_impl {

template <class Other>
inline Tensor add_call(const Tensor& out, const Tensor& self, const Other& other,
                       const Scalar& alpha) {
  return binary_call(out, self, other, {}, [&](BinaryPlan& p) { add_kernel(p, alpha); });
}
template <class Other>
inline Tensor sub_call(const Tensor& out, const Tensor& self, const Other& other,
                       const Scalar& alpha) {
  if constexpr (std::is_same_v<Other, Scalar>) {
    sub_check(self.dtype(), other.type());
  } else {
    sub_check(self.dtype(), other.dtype());
  }
  return binary_call(out, self, other, {}, [&](BinaryPlan& p) { sub_kernel(p, alpha); });
}
template <class Other>
inline Tensor mul_call(const Tensor& out, const Tensor& self, const Other& other) {
  return binary_call(out, self, other, {}, mul_kernel<>);
}
template <class Other>
inline Tensor div_call(const Tensor& out, const Tensor& self, const Other& other,
                       std::optional<std::string_view> rounding_mode) {
  const DivMode mode = parse_rounding_mode(rounding_mode);
  BinaryPlan::Options opt;
  opt.int_to_float = mode == DivMode::True;
  return binary_call(out, self, other, opt, [mode](BinaryPlan& p) { div_kernel(p, mode); });
}
template <class Other>
inline Tensor remainder_call(const Tensor& out, const Tensor& self, const Other& other) {
  return binary_call(out, self, other, {}, remainder_kernel<>);
}
template <class Other>
inline Tensor fmod_call(const Tensor& out, const Tensor& self, const Other& other) {
  return binary_call(out, self, other, {}, fmod_kernel<>);
}
template <class = void>
Tensor atan2_call(const Tensor& out, const Tensor& self, const Tensor& other) {
  BinaryPlan::Options opt;
  opt.int_to_float = true;
  return binary_call(out, self, other, opt, atan2_kernel<>);
}
template <bool kMax>
inline Tensor max_min_call(const Tensor& out, const Tensor& self, const Tensor& other) {
  return binary_call(out, self, other, {}, max_min_kernel<kMax>);
}

// A node saving self_ and other_ under the conditions of the op (see each call).
template <class NodeT>
void save_pair(NodeT& fn, const Tensor& self, const Tensor& other, bool save_self,
               bool save_other) {
  if (save_self) fn.self_ = autograd::SavedVariable(self, false);
  if (save_other) fn.other_ = autograd::SavedVariable(other, false);
}

// op(self, other) recorded with a BinaryNode that saves self when `self_for(fn)` and other
// when `other_for(fn)`; in place, a saved self is the clone of the original.
template <class NodeT, class Compute, class SelfFor, class OtherFor>
Tensor binary_diff(const Compute& compute, const Tensor& self, const Tensor& other,
                   const SelfFor& self_for, const OtherFor& other_for) {
  return autograd::detail::differentiable<NodeT>(
      compute,
      [&](NodeT& fn, const Tensor&) { save_pair(fn, self, other, self_for(fn), other_for(fn)); },
      self, other);
}
template <class NodeT, class Compute, class SelfFor, class OtherFor>
const Tensor& binary_diff_(const Compute& compute, const Tensor& self, const Tensor& other,
                           const SelfFor& self_for, const OtherFor& other_for) {
  return autograd::detail::differentiable_inplace<NodeT>(
      self, compute,
      [&](NodeT& fn) {
        const bool s = self_for(fn);
        save_pair(fn, s ? self.clone() : Tensor(), other, s, other_for(fn));
      },
      autograd::detail::kSaveNothing, other);
}
inline constexpr auto kIfSelf = [](const auto& fn) { return fn.should_compute_output(0); };
inline constexpr auto kIfOther = [](const auto& fn) { return fn.should_compute_output(1); };
inline constexpr auto kAlways = [](const auto&) { return true; };
inline constexpr auto kNever = [](const auto&) { return false; };

}  // namespace detail::binary_impl

// ==== add / sub / rsub ========================================================================

template <class = void>
Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1) {
  return autograd::detail::differentiable<autograd::AddBackward0>(
      [&] { return detail::binary_impl::add_call(Tensor(), self, other, alpha); },
      [&](autograd::AddBackward0& fn, const Tensor&) { fn.alpha_ = alpha; }, self, other);
}
template <class = void>
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha = 1) {
  return autograd::detail::record_unary<autograd::AddBackward1>(
      self, [&] { return detail::binary_impl::add_call(Tensor(), self, other, alpha); });
}
template <class = void>
const Tensor& add_out(const Tensor& out, const Tensor& self, const Tensor& other,
                      const Scalar& alpha = 1) {
  autograd::detail::check_out_no_grad("add", out, self, other);
  detail::binary_impl::add_call(out, self, other, alpha);
  return out;
}
template <class = void>
const Tensor& add_out(const Tensor& out, const Tensor& self, const Scalar& other,
                      const Scalar& alpha = 1) {
  autograd::detail::check_out_no_grad("add", out, self);
  detail::binary_impl::add_call(out, self, other, alpha);
  return out;
}

template <class = void>
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1) {
  return autograd::detail::differentiable<autograd::SubBackward0>(
      [&] { return detail::binary_impl::sub_call(Tensor(), self, other, alpha); },
      [&](autograd::SubBackward0& fn, const Tensor&) { fn.alpha_ = alpha; }, self, other);
}
template <class = void>
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1) {
  return autograd::detail::record_unary<autograd::SubBackward1>(
      self, [&] { return detail::binary_impl::sub_call(Tensor(), self, other, alpha); });
}
template <class = void>
const Tensor& sub_out(const Tensor& out, const Tensor& self, const Tensor& other,
                      const Scalar& alpha = 1) {
  autograd::detail::check_out_no_grad("sub", out, self, other);
  detail::binary_impl::sub_call(out, self, other, alpha);
  return out;
}
template <class = void>
const Tensor& sub_out(const Tensor& out, const Tensor& self, const Scalar& other,
                      const Scalar& alpha = 1) {
  autograd::detail::check_out_no_grad("sub", out, self);
  detail::binary_impl::sub_call(out, self, other, alpha);
  return out;
}
template <class = void>
Tensor subtract(const Tensor& self, const Tensor& other, const Scalar& alpha = 1) {
  return sub(self, other, alpha);
}
template <class = void>
Tensor subtract(const Tensor& self, const Scalar& other, const Scalar& alpha = 1) {
  return sub(self, other, alpha);
}

// rsub(self, other, alpha) = other - alpha * self.
template <class = void>
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1) {
  return autograd::detail::differentiable<autograd::RsubBackward0>(
      [&] { return detail::binary_impl::sub_call(Tensor(), other, self, alpha); },
      [&](autograd::RsubBackward0& fn, const Tensor&) { fn.alpha_ = alpha; }, self, other);
}
template <class = void>
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1) {
  return autograd::detail::record_unary<autograd::RsubBackward1>(
      self,
      [&] {
        return detail::binary_impl::sub_call(Tensor(), detail::wrapped_scalar_tensor(other), self,
                                             alpha);
      },
      [&](auto& fn) { fn.alpha_ = alpha; });
}

// ==== mul ======================================================================================

template <class = void>
Tensor mul(const Tensor& self, const Tensor& other) {
  namespace bi = detail::binary_impl;
  return bi::binary_diff<autograd::MulBackward0>(
      [&] { return bi::mul_call(Tensor(), self, other); }, self, other, bi::kIfOther, bi::kIfSelf);
}
template <class = void>
Tensor mul(const Tensor& self, const Scalar& other) {
  return autograd::detail::record_unary<autograd::MulBackward1>(
      self, [&] { return detail::binary_impl::mul_call(Tensor(), self, other); },
      [&](auto& fn) { fn.other_ = other; });
}
template <class = void>
const Tensor& mul_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  autograd::detail::check_out_no_grad("mul", out, self, other);
  detail::binary_impl::mul_call(out, self, other);
  return out;
}
template <class = void>
const Tensor& mul_out(const Tensor& out, const Tensor& self, const Scalar& other) {
  autograd::detail::check_out_no_grad("mul", out, self);
  detail::binary_impl::mul_call(out, self, other);
  return out;
}
template <class = void>
Tensor multiply(const Tensor& self, const Tensor& other) {
  return mul(self, other);
}
template <class = void>
Tensor multiply(const Tensor& self, const Scalar& other) {
  return mul(self, other);
}

// ==== div ======================================================================================
// rounding_mode: nullopt (true division: integer inputs give float32), "trunc" or "floor". With
// a rounding mode the result is a step function of its inputs: zero gradients (DivBackward2/3).

template <class = void>
Tensor div(const Tensor& self, const Tensor& other,
           std::optional<std::string_view> rounding_mode = std::nullopt) {
  namespace bi = detail::binary_impl;
  const auto compute = [&] { return bi::div_call(Tensor(), self, other, rounding_mode); };
  if (rounding_mode) {
    return autograd::detail::differentiable<autograd::DivBackward2>(
        compute, autograd::detail::kSaveNothing, self, other);
  }
  return bi::binary_diff<autograd::DivBackward0>(compute, self, other, bi::kIfOther, bi::kAlways);
}
template <class = void>
Tensor div(const Tensor& self, const Scalar& other,
           std::optional<std::string_view> rounding_mode = std::nullopt) {
  const auto compute = [&] {
    return detail::binary_impl::div_call(Tensor(), self, other, rounding_mode);
  };
  if (rounding_mode) return autograd::detail::record_unary<autograd::DivBackward3>(self, compute);
  return autograd::detail::record_unary<autograd::DivBackward1>(
      self, compute, [&](auto& fn) { fn.other_ = other; });
}
template <class = void>
const Tensor& div_out(const Tensor& out, const Tensor& self, const Tensor& other,
                      std::optional<std::string_view> rounding_mode = std::nullopt) {
  autograd::detail::check_out_no_grad("div", out, self, other);
  detail::binary_impl::div_call(out, self, other, rounding_mode);
  return out;
}
template <class = void>
const Tensor& div_out(const Tensor& out, const Tensor& self, const Scalar& other,
                      std::optional<std::string_view> rounding_mode = std::nullopt) {
  autograd::detail::check_out_no_grad("div", out, self);
  detail::binary_impl::div_call(out, self, other, rounding_mode);
  return out;
}
template <class = void>
Tensor divide(const Tensor& self, const Tensor& other,
              std::optional<std::string_view> rounding_mode = std::nullopt) {
  return div(self, other, rounding_mode);
}
template <class = void>
Tensor divide(const Tensor& self, const Scalar& other,
              std::optional<std::string_view> rounding_mode = std::nullopt) {
  return div(self, other, rounding_mode);
}
template <class = void>
Tensor true_divide(const Tensor& self, const Tensor& other) {
  return div(self, other);
}
template <class = void>
Tensor true_divide(const Tensor& self, const Scalar& other) {
  return div(self, other);
}
// PyTorch 1.13's floor_divide rounds toward negative infinity (div(..., "floor")).
template <class = void>
Tensor floor_divide(const Tensor& self, const Tensor& other) {
  return div(self, other, "floor");
}
template <class = void>
Tensor floor_divide(const Tensor& self, const Scalar& other) {
  return div(self, other, "floor");
}

// ==== remainder / fmod ==========================================================================

template <class = void>
Tensor remainder(const Tensor& self, const Tensor& other) {
  namespace bi = detail::binary_impl;
  return bi::binary_diff<autograd::RemainderBackward1>(
      [&] { return bi::remainder_call(Tensor(), self, other); }, self, other, bi::kIfOther,
      bi::kIfOther);
}
template <class = void>
Tensor remainder(const Tensor& self, const Scalar& other) {
  return autograd::detail::record_unary<autograd::RemainderBackward0>(
      self, [&] { return detail::binary_impl::remainder_call(Tensor(), self, other); });
}
template <class = void>
Tensor remainder(const Scalar& self, const Tensor& other) {
  return remainder(detail::wrapped_scalar_tensor(self), other);
}
template <class = void>
const Tensor& remainder_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  autograd::detail::check_out_no_grad("remainder", out, self, other);
  detail::binary_impl::remainder_call(out, self, other);
  return out;
}
template <class = void>
const Tensor& remainder_out(const Tensor& out, const Tensor& self, const Scalar& other) {
  autograd::detail::check_out_no_grad("remainder", out, self);
  detail::binary_impl::remainder_call(out, self, other);
  return out;
}

template <class = void>
Tensor fmod(const Tensor& self, const Tensor& other) {
  namespace bi = detail::binary_impl;
  return bi::binary_diff<autograd::FmodBackward1>(
      [&] { return bi::fmod_call(Tensor(), self, other); }, self, other, bi::kIfOther,
      bi::kIfOther);
}
template <class = void>
Tensor fmod(const Tensor& self, const Scalar& other) {
  return autograd::detail::record_unary<autograd::FmodBackward0>(
      self, [&] { return detail::binary_impl::fmod_call(Tensor(), self, other); });
}
template <class = void>
const Tensor& fmod_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  autograd::detail::check_out_no_grad("fmod", out, self, other);
  detail::binary_impl::fmod_call(out, self, other);
  return out;
}
template <class = void>
const Tensor& fmod_out(const Tensor& out, const Tensor& self, const Scalar& other) {
  autograd::detail::check_out_no_grad("fmod", out, self);
  detail::binary_impl::fmod_call(out, self, other);
  return out;
}

// ==== pow =======================================================================================

template <class = void>
Tensor pow(const Tensor& self, const Tensor& exponent) {
  return autograd::detail::differentiable<autograd::PowBackward1>(
      [&] {
        return detail::binary_impl::binary_call(Tensor(), self, exponent, {},
                                                detail::binary_impl::pow_kernel<>);
      },
      [&](autograd::PowBackward1& fn, const Tensor& result) {
        fn.self_ = autograd::SavedVariable(self, false);
        fn.other_ = autograd::SavedVariable(exponent, false);
        if (fn.should_compute_output(1)) fn.result_ = autograd::SavedVariable(result, true);
      },
      self, exponent);
}
template <class = void>
Tensor pow(const Tensor& self, const Scalar& exponent) {
  return autograd::detail::record_unary<autograd::PowBackward0>(
      self, [&] { return detail::binary_impl::pow_scalar_impl(Tensor(), self, exponent); },
      [&](auto& fn) { fn.exponent_ = exponent; });
}
// The node's "self" is the exponent (its one edge); the base is a parameter.
template <class = void>
Tensor pow(const Scalar& self, const Tensor& exponent) {
  return autograd::detail::record_unary<autograd::PowBackward2>(
      exponent, [&] { return detail::binary_impl::pow_scalar_base_impl(Tensor(), self, exponent); },
      [&](auto& fn) { fn.base_ = self; });
}
template <class = void>
const Tensor& pow_out(const Tensor& out, const Tensor& self, const Tensor& exponent) {
  autograd::detail::check_out_no_grad("pow", out, self, exponent);
  detail::binary_impl::binary_call(out, self, exponent, {}, detail::binary_impl::pow_kernel<>);
  return out;
}
template <class = void>
const Tensor& pow_out(const Tensor& out, const Tensor& self, const Scalar& exponent) {
  autograd::detail::check_out_no_grad("pow", out, self);
  detail::binary_impl::pow_scalar_impl(out, self, exponent);
  return out;
}
template <class = void>
const Tensor& pow_out(const Tensor& out, const Scalar& self, const Tensor& exponent) {
  autograd::detail::check_out_no_grad("pow", out, exponent);
  detail::binary_impl::pow_scalar_base_impl(out, self, exponent);
  return out;
}

// ==== atan2 =====================================================================================

template <class = void>
Tensor atan2(const Tensor& self, const Tensor& other) {
  namespace bi = detail::binary_impl;
  return bi::binary_diff<autograd::Atan2Backward0>(
      [&] { return bi::atan2_call(Tensor(), self, other); }, self, other, bi::kAlways, bi::kAlways);
}
template <class = void>
const Tensor& atan2_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  autograd::detail::check_out_no_grad("atan2", out, self, other);
  detail::binary_impl::atan2_call(out, self, other);
  return out;
}
template <class = void>
Tensor arctan2(const Tensor& self, const Tensor& other) {
  return atan2(self, other);
}

// ==== maximum / minimum =========================================================================

template <class = void>
Tensor maximum(const Tensor& self, const Tensor& other) {
  namespace bi = detail::binary_impl;
  return bi::binary_diff<autograd::MaximumBackward0>(
      [&] { return bi::max_min_call<true>(Tensor(), self, other); }, self, other, bi::kAlways,
      bi::kAlways);
}
template <class = void>
const Tensor& maximum_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  autograd::detail::check_out_no_grad("maximum", out, self, other);
  detail::binary_impl::max_min_call<true>(out, self, other);
  return out;
}
template <class = void>
Tensor minimum(const Tensor& self, const Tensor& other) {
  namespace bi = detail::binary_impl;
  return bi::binary_diff<autograd::MinimumBackward0>(
      [&] { return bi::max_min_call<false>(Tensor(), self, other); }, self, other, bi::kAlways,
      bi::kAlways);
}
template <class = void>
const Tensor& minimum_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  autograd::detail::check_out_no_grad("minimum", out, self, other);
  detail::binary_impl::max_min_call<false>(out, self, other);
  return out;
}

// ==== clamp / clip ==============================================================================

namespace detail::binary_impl {
inline Tensor bound_or_undefined(const std::optional<Tensor>& t) { return t ? *t : Tensor(); }

// clamp with tensor bounds, recorded; `out` is undefined (a new result) or self (in place).
template <class = void>
Tensor clamp_tensor_diff(const Tensor& self, const std::optional<Tensor>& min,
                         const std::optional<Tensor>& max) {
  const Tensor lo = bound_or_undefined(min), hi = bound_or_undefined(max);
  return autograd::detail::differentiable<autograd::ClampBackward0>(
      [&] { return clamp_tensor_impl(Tensor(), self, min, max); },
      [&](autograd::ClampBackward0& fn, const Tensor&) {
        fn.self_ = autograd::SavedVariable(self, false);
        fn.min_ = autograd::SavedVariable(lo, false);
        fn.max_ = autograd::SavedVariable(hi, false);
      },
      self, lo, hi);
}
template <class = void>
const Tensor& clamp_tensor_diff_(const Tensor& self, const std::optional<Tensor>& min,
                                 const std::optional<Tensor>& max) {
  const Tensor lo = bound_or_undefined(min), hi = bound_or_undefined(max);
  return autograd::detail::differentiable_inplace<autograd::ClampBackward0>(
      self, [&] { clamp_tensor_impl(self, self, min, max); },
      [&](autograd::ClampBackward0& fn) {
        fn.self_ = autograd::SavedVariable(self.clone(), false);
        fn.min_ = autograd::SavedVariable(lo, false);
        fn.max_ = autograd::SavedVariable(hi, false);
      },
      autograd::detail::kSaveNothing, lo, hi);
}
// clamp_min / clamp_max with a tensor bound: the kernel of maximum (kMaximum) or minimum.
template <class NodeT, bool kMaximum>
Tensor clamp_bound_diff(const Tensor& self, const Tensor& bound) {
  return binary_diff<NodeT>([&] { return max_min_call<kMaximum>(Tensor(), self, bound); }, self,
                            bound, kAlways, kAlways);
}
template <class NodeT, bool kMaximum>
const Tensor& clamp_bound_diff_(const Tensor& self, const Tensor& bound) {
  return binary_diff_<NodeT>([&] { max_min_call<kMaximum>(self, self, bound); }, self, bound,
                             kAlways, kAlways);
}
template <class NodeT, class Init>
Tensor clamp_scalar_diff(const Tensor& out, const Tensor& self, const std::optional<Scalar>& min,
                         const std::optional<Scalar>& max, const char* name, const Init& init) {
  if (out.defined()) {
    return autograd::detail::record_unary_inplace<NodeT>(
        self, [&] { clamp_scalar_impl(self, self, min, max, name); }, init);
  }
  return autograd::detail::record_unary<NodeT>(
      self, [&] { return clamp_scalar_impl(Tensor(), self, min, max, name); }, init);
}
}  // namespace detail::binary_impl

template <class = void>
Tensor clamp(const Tensor& self, const std::optional<Scalar>& min,
             const std::optional<Scalar>& max = std::nullopt) {
  return detail::binary_impl::clamp_scalar_diff<autograd::ClampBackward1>(
      Tensor(), self, min, max, "clamp_scalar_cpu", [&](auto& fn) {
        fn.min_ = min;
        fn.max_ = max;
      });
}
template <class = void>
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min,
             const std::optional<Tensor>& max = {}) {
  return detail::binary_impl::clamp_tensor_diff(self, min, max);
}
template <class = void>
const Tensor& clamp_out(const Tensor& out, const Tensor& self, const std::optional<Scalar>& min,
                        const std::optional<Scalar>& max = std::nullopt) {
  autograd::detail::check_out_no_grad("clamp", out, self);
  detail::binary_impl::clamp_scalar_impl(out, self, min, max, "clamp_scalar_cpu");
  return out;
}
template <class = void>
const Tensor& clamp_out(const Tensor& out, const Tensor& self, const std::optional<Tensor>& min,
                        const std::optional<Tensor>& max = {}) {
  autograd::detail::check_out_no_grad("clamp", out, self,
                                      detail::binary_impl::bound_or_undefined(min),
                                      detail::binary_impl::bound_or_undefined(max));
  detail::binary_impl::clamp_tensor_impl(out, self, min, max);
  return out;
}
template <class = void>
Tensor clamp_min(const Tensor& self, const Scalar& min) {
  return detail::binary_impl::clamp_scalar_diff<autograd::ClampMinBackward0>(
      Tensor(), self, min, std::nullopt, "clamp_min_cpu", [&](auto& fn) { fn.min_ = min; });
}
template <class = void>
Tensor clamp_min(const Tensor& self, const Tensor& min) {
  return detail::binary_impl::clamp_bound_diff<autograd::ClampMinBackward1, true>(self, min);
}
template <class = void>
Tensor clamp_max(const Tensor& self, const Scalar& max) {
  return detail::binary_impl::clamp_scalar_diff<autograd::ClampMaxBackward0>(
      Tensor(), self, std::nullopt, max, "clamp_max_scalar_cpu", [&](auto& fn) { fn.max_ = max; });
}
template <class = void>
Tensor clamp_max(const Tensor& self, const Tensor& max) {
  return detail::binary_impl::clamp_bound_diff<autograd::ClampMaxBackward1, false>(self, max);
}
template <class = void>
const Tensor& clamp_min_out(const Tensor& out, const Tensor& self, const Scalar& min) {
  autograd::detail::check_out_no_grad("clamp_min", out, self);
  detail::binary_impl::clamp_scalar_impl(out, self, min, std::nullopt, "clamp_min_cpu");
  return out;
}
template <class = void>
const Tensor& clamp_min_out(const Tensor& out, const Tensor& self, const Tensor& min) {
  autograd::detail::check_out_no_grad("clamp_min", out, self, min);
  detail::binary_impl::max_min_call<true>(out, self, min);
  return out;
}
template <class = void>
const Tensor& clamp_max_out(const Tensor& out, const Tensor& self, const Scalar& max) {
  autograd::detail::check_out_no_grad("clamp_max", out, self);
  detail::binary_impl::clamp_scalar_impl(out, self, std::nullopt, max, "clamp_max_scalar_cpu");
  return out;
}
template <class = void>
const Tensor& clamp_max_out(const Tensor& out, const Tensor& self, const Tensor& max) {
  autograd::detail::check_out_no_grad("clamp_max", out, self, max);
  detail::binary_impl::max_min_call<false>(out, self, max);
  return out;
}
template <class = void>
Tensor clip(const Tensor& self, const std::optional<Scalar>& min,
            const std::optional<Scalar>& max = std::nullopt) {
  return clamp(self, min, max);
}
template <class = void>
Tensor clip(const Tensor& self, const std::optional<Tensor>& min,
            const std::optional<Tensor>& max = {}) {
  return clamp(self, min, max);
}

// ==== lerp ======================================================================================
// self + weight * (end - self), floating dtypes only, self/end/weight of one dtype.

namespace detail::binary_impl {
// lerp with a tensor weight, recorded: weight saved for self's and end's gradients, self and
// end for weight's. In place (`inplace`), the saved self is the original's clone.
template <class = void>
Tensor lerp_tensor_diff(const Tensor& self, const Tensor& end, const Tensor& weight, bool inplace) {
  const auto save = [&](autograd::LerpBackward1& fn, const Tensor& original_self) {
    if (fn.should_compute_output(0) || fn.should_compute_output(1)) {
      fn.weight_ = autograd::SavedVariable(weight, false);
    }
    if (fn.should_compute_output(2)) {
      fn.self_ = autograd::SavedVariable(original_self, false);
      fn.end_ = autograd::SavedVariable(end, false);
    }
  };
  if (inplace) {
    return autograd::detail::differentiable_inplace<autograd::LerpBackward1>(
        self, [&] { lerp_tensor_impl(self, self, end, weight); },
        [&](autograd::LerpBackward1& fn) {
          save(fn, fn.should_compute_output(2) ? self.clone() : Tensor());
        },
        autograd::detail::kSaveNothing, end, weight);
  }
  return autograd::detail::differentiable<autograd::LerpBackward1>(
      [&] { return lerp_tensor_impl(Tensor(), self, end, weight); },
      [&](autograd::LerpBackward1& fn, const Tensor&) { save(fn, self); }, self, end, weight);
}
}  // namespace detail::binary_impl

template <class = void>
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) {
  return autograd::detail::differentiable<autograd::LerpBackward0>(
      [&] { return detail::binary_impl::lerp_scalar_impl(Tensor(), self, end, weight); },
      [&](autograd::LerpBackward0& fn, const Tensor&) { fn.weight_ = weight; }, self, end);
}
template <class = void>
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  return detail::binary_impl::lerp_tensor_diff(self, end, weight, /*inplace=*/false);
}
template <class = void>
const Tensor& lerp_out(const Tensor& out, const Tensor& self, const Tensor& end,
                       const Scalar& weight) {
  autograd::detail::check_out_no_grad("lerp", out, self, end);
  detail::binary_impl::lerp_scalar_impl(out, self, end, weight);
  return out;
}
template <class = void>
const Tensor& lerp_out(const Tensor& out, const Tensor& self, const Tensor& end,
                       const Tensor& weight) {
  autograd::detail::check_out_no_grad("lerp", out, self, end, weight);
  detail::binary_impl::lerp_tensor_impl(out, self, end, weight);
  return out;
}

// ==== bitwise ===================================================================================
// Integral and bool dtypes; bool is logical and/or/xor.

#define TENSORPLAY_BITWISE_OP_(name, kname, kernel, Op)                                  \
  template <class = void>                                                                \
  Tensor name(const Tensor& self, const Tensor& other) {                                 \
    return detail::binary_impl::binary_call(                                             \
        Tensor(), self, other, {}, [](detail::binary_impl::BinaryPlan& p) {              \
          detail::binary_impl::kernel(p, kname, detail::binary_impl::Op{});              \
        });                                                                              \
  }                                                                                      \
  template <class = void>                                                                \
  Tensor name(const Tensor& self, const Scalar& other) {                                 \
    return detail::binary_impl::binary_call(                                             \
        Tensor(), self, other, {}, [](detail::binary_impl::BinaryPlan& p) {              \
          detail::binary_impl::kernel(p, kname, detail::binary_impl::Op{});              \
        });                                                                              \
  }                                                                                      \
  template <class = void>                                                                \
  Tensor name(const Scalar& self, const Tensor& other) {                                 \
    return name(detail::wrapped_scalar_tensor(self), other);                             \
  }                                                                                      \
  template <class = void>                                                                \
  const Tensor& name##_out(const Tensor& out, const Tensor& self, const Tensor& other) { \
    detail::binary_impl::binary_call(                                                    \
        out, self, other, {}, [](detail::binary_impl::BinaryPlan& p) {                   \
          detail::binary_impl::kernel(p, kname, detail::binary_impl::Op{});              \
        });                                                                              \
    return out;                                                                          \
  }                                                                                      \
  template <class = void>                                                                \
  const Tensor& name##_out(const Tensor& out, const Tensor& self, const Scalar& other) { \
    detail::binary_impl::binary_call(                                                    \
        out, self, other, {}, [](detail::binary_impl::BinaryPlan& p) {                   \
          detail::binary_impl::kernel(p, kname, detail::binary_impl::Op{});              \
        });                                                                              \
    return out;                                                                          \
  }

TENSORPLAY_BITWISE_OP_(bitwise_and, "bitwise_and_cpu", bitwise_kernel, BitAnd)
TENSORPLAY_BITWISE_OP_(bitwise_or, "bitwise_or_cpu", bitwise_kernel, BitOr)
TENSORPLAY_BITWISE_OP_(bitwise_xor, "bitwise_xor_cpu", bitwise_kernel, BitXor)
TENSORPLAY_BITWISE_OP_(bitwise_left_shift, "lshift_cpu", shift_kernel, ShiftLeft)
TENSORPLAY_BITWISE_OP_(bitwise_right_shift, "rshift_cpu", shift_kernel, ShiftRight)
#undef TENSORPLAY_BITWISE_OP_

template <class = void>
Tensor bitwise_not(const Tensor& self) {
  return detail::binary_impl::bitwise_not_impl(Tensor(), self);
}
template <class = void>
const Tensor& bitwise_not_out(const Tensor& out, const Tensor& self) {
  detail::binary_impl::bitwise_not_impl(out, self);
  return out;
}

// ==== Tensor methods ============================================================================

template <class>
Tensor Tensor::add(const Tensor& other, const Scalar& alpha) const {
  return tensorplay::add(*this, other, alpha);
}
template <class>
Tensor Tensor::add(const Scalar& other, const Scalar& alpha) const {
  return tensorplay::add(*this, other, alpha);
}
template <class>
const Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) const {
  return autograd::detail::differentiable_inplace<autograd::AddBackward0>(
      *this, [&] { detail::binary_impl::add_call(*this, *this, other, alpha); },
      [&](autograd::AddBackward0& fn) { fn.alpha_ = alpha; }, autograd::detail::kSaveNothing,
      other);
}
template <class>
const Tensor& Tensor::add_(const Scalar& other, const Scalar& alpha) const {
  return autograd::detail::record_unary_inplace<autograd::AddBackward1>(
      *this, [&] { detail::binary_impl::add_call(*this, *this, other, alpha); });
}
template <class>
Tensor Tensor::sub(const Tensor& other, const Scalar& alpha) const {
  return tensorplay::sub(*this, other, alpha);
}
template <class>
Tensor Tensor::sub(const Scalar& other, const Scalar& alpha) const {
  return tensorplay::sub(*this, other, alpha);
}
template <class>
const Tensor& Tensor::sub_(const Tensor& other, const Scalar& alpha) const {
  return autograd::detail::differentiable_inplace<autograd::SubBackward0>(
      *this, [&] { detail::binary_impl::sub_call(*this, *this, other, alpha); },
      [&](autograd::SubBackward0& fn) { fn.alpha_ = alpha; }, autograd::detail::kSaveNothing,
      other);
}
template <class>
const Tensor& Tensor::sub_(const Scalar& other, const Scalar& alpha) const {
  return autograd::detail::record_unary_inplace<autograd::SubBackward1>(
      *this, [&] { detail::binary_impl::sub_call(*this, *this, other, alpha); });
}
template <class>
Tensor Tensor::subtract(const Tensor& other, const Scalar& alpha) const {
  return tensorplay::sub(*this, other, alpha);
}
template <class>
Tensor Tensor::subtract(const Scalar& other, const Scalar& alpha) const {
  return tensorplay::sub(*this, other, alpha);
}
template <class>
const Tensor& Tensor::subtract_(const Tensor& other, const Scalar& alpha) const {
  return sub_(other, alpha);
}
template <class>
const Tensor& Tensor::subtract_(const Scalar& other, const Scalar& alpha) const {
  return sub_(other, alpha);
}
template <class>
Tensor Tensor::mul(const Tensor& other) const {
  return tensorplay::mul(*this, other);
}
template <class>
Tensor Tensor::mul(const Scalar& other) const {
  return tensorplay::mul(*this, other);
}
template <class>
const Tensor& Tensor::mul_(const Tensor& other) const {
  namespace bi = detail::binary_impl;
  return bi::binary_diff_<autograd::MulBackward0>([&] { bi::mul_call(*this, *this, other); }, *this,
                                                  other, bi::kIfOther, bi::kIfSelf);
}
template <class>
const Tensor& Tensor::mul_(const Scalar& other) const {
  return autograd::detail::record_unary_inplace<autograd::MulBackward1>(
      *this, [&] { detail::binary_impl::mul_call(*this, *this, other); },
      [&](auto& fn) { fn.other_ = other; });
}
template <class>
Tensor Tensor::multiply(const Tensor& other) const {
  return tensorplay::mul(*this, other);
}
template <class>
Tensor Tensor::multiply(const Scalar& other) const {
  return tensorplay::mul(*this, other);
}
template <class>
const Tensor& Tensor::multiply_(const Tensor& other) const {
  return mul_(other);
}
template <class>
const Tensor& Tensor::multiply_(const Scalar& other) const {
  return mul_(other);
}
template <class>
Tensor Tensor::div(const Tensor& other, std::optional<std::string_view> rounding_mode) const {
  return tensorplay::div(*this, other, rounding_mode);
}
template <class>
Tensor Tensor::div(const Scalar& other, std::optional<std::string_view> rounding_mode) const {
  return tensorplay::div(*this, other, rounding_mode);
}
template <class>
const Tensor& Tensor::div_(const Tensor& other,
                           std::optional<std::string_view> rounding_mode) const {
  namespace bi = detail::binary_impl;
  const auto compute = [&] { bi::div_call(*this, *this, other, rounding_mode); };
  if (rounding_mode) {
    return autograd::detail::differentiable_inplace<autograd::DivBackward2>(
        *this, compute, autograd::detail::kSaveNothing, autograd::detail::kSaveNothing, other);
  }
  return bi::binary_diff_<autograd::DivBackward0>(compute, *this, other, bi::kIfOther, bi::kAlways);
}
template <class>
const Tensor& Tensor::div_(const Scalar& other,
                           std::optional<std::string_view> rounding_mode) const {
  const auto compute = [&] { detail::binary_impl::div_call(*this, *this, other, rounding_mode); };
  if (rounding_mode) {
    return autograd::detail::record_unary_inplace<autograd::DivBackward3>(*this, compute);
  }
  return autograd::detail::record_unary_inplace<autograd::DivBackward1>(
      *this, compute, [&](auto& fn) { fn.other_ = other; });
}
template <class>
Tensor Tensor::divide(const Tensor& other, std::optional<std::string_view> rounding_mode) const {
  return tensorplay::div(*this, other, rounding_mode);
}
template <class>
Tensor Tensor::divide(const Scalar& other, std::optional<std::string_view> rounding_mode) const {
  return tensorplay::div(*this, other, rounding_mode);
}
template <class>
const Tensor& Tensor::divide_(const Tensor& other,
                              std::optional<std::string_view> rounding_mode) const {
  return div_(other, rounding_mode);
}
template <class>
const Tensor& Tensor::divide_(const Scalar& other,
                              std::optional<std::string_view> rounding_mode) const {
  return div_(other, rounding_mode);
}
template <class>
Tensor Tensor::true_divide(const Tensor& other) const {
  return tensorplay::div(*this, other);
}
template <class>
Tensor Tensor::true_divide(const Scalar& other) const {
  return tensorplay::div(*this, other);
}
template <class>
const Tensor& Tensor::true_divide_(const Tensor& other) const {
  return div_(other);
}
template <class>
const Tensor& Tensor::true_divide_(const Scalar& other) const {
  return div_(other);
}
template <class>
Tensor Tensor::floor_divide(const Tensor& other) const {
  return tensorplay::div(*this, other, "floor");
}
template <class>
Tensor Tensor::floor_divide(const Scalar& other) const {
  return tensorplay::div(*this, other, "floor");
}
template <class>
const Tensor& Tensor::floor_divide_(const Tensor& other) const {
  return div_(other, "floor");
}
template <class>
const Tensor& Tensor::floor_divide_(const Scalar& other) const {
  return div_(other, "floor");
}
template <class>
Tensor Tensor::remainder(const Tensor& other) const {
  return tensorplay::remainder(*this, other);
}
template <class>
Tensor Tensor::remainder(const Scalar& other) const {
  return tensorplay::remainder(*this, other);
}
template <class>
const Tensor& Tensor::remainder_(const Tensor& other) const {
  namespace bi = detail::binary_impl;
  return bi::binary_diff_<autograd::RemainderBackward1>(
      [&] { bi::remainder_call(*this, *this, other); }, *this, other, bi::kIfOther, bi::kIfOther);
}
template <class>
const Tensor& Tensor::remainder_(const Scalar& other) const {
  return autograd::detail::record_unary_inplace<autograd::RemainderBackward0>(
      *this, [&] { detail::binary_impl::remainder_call(*this, *this, other); });
}
template <class>
Tensor Tensor::fmod(const Tensor& other) const {
  return tensorplay::fmod(*this, other);
}
template <class>
Tensor Tensor::fmod(const Scalar& other) const {
  return tensorplay::fmod(*this, other);
}
template <class>
const Tensor& Tensor::fmod_(const Tensor& other) const {
  namespace bi = detail::binary_impl;
  return bi::binary_diff_<autograd::FmodBackward1>([&] { bi::fmod_call(*this, *this, other); },
                                                   *this, other, bi::kIfOther, bi::kIfOther);
}
template <class>
const Tensor& Tensor::fmod_(const Scalar& other) const {
  return autograd::detail::record_unary_inplace<autograd::FmodBackward0>(
      *this, [&] { detail::binary_impl::fmod_call(*this, *this, other); });
}
template <class>
Tensor Tensor::pow(const Tensor& exponent) const {
  return tensorplay::pow(*this, exponent);
}
template <class>
Tensor Tensor::pow(const Scalar& exponent) const {
  return tensorplay::pow(*this, exponent);
}
template <class>
const Tensor& Tensor::pow_(const Tensor& exponent) const {
  return autograd::detail::differentiable_inplace<autograd::PowBackward1>(
      *this,
      [&] {
        detail::binary_impl::binary_call(*this, *this, exponent, {},
                                         detail::binary_impl::pow_kernel<>);
      },
      [&](autograd::PowBackward1& fn) {
        fn.self_ = autograd::SavedVariable(clone(), false);
        fn.other_ = autograd::SavedVariable(exponent, false);
      },
      [&](autograd::PowBackward1& fn) {
        if (fn.should_compute_output(1)) fn.result_ = autograd::SavedVariable(*this, true);
      },
      exponent);
}
template <class>
const Tensor& Tensor::pow_(const Scalar& exponent) const {
  return autograd::detail::record_unary_inplace<autograd::PowBackward0>(
      *this, [&] { detail::binary_impl::pow_scalar_impl(*this, *this, exponent); },
      [&](auto& fn) { fn.exponent_ = exponent; });
}
template <class>
Tensor Tensor::atan2(const Tensor& other) const {
  return tensorplay::atan2(*this, other);
}
template <class>
const Tensor& Tensor::atan2_(const Tensor& other) const {
  namespace bi = detail::binary_impl;
  return bi::binary_diff_<autograd::Atan2Backward0>([&] { bi::atan2_call(*this, *this, other); },
                                                    *this, other, bi::kAlways, bi::kAlways);
}
template <class>
Tensor Tensor::arctan2(const Tensor& other) const {
  return tensorplay::atan2(*this, other);
}
template <class>
const Tensor& Tensor::arctan2_(const Tensor& other) const {
  return atan2_(other);
}
template <class>
Tensor Tensor::maximum(const Tensor& other) const {
  return tensorplay::maximum(*this, other);
}
template <class>
Tensor Tensor::minimum(const Tensor& other) const {
  return tensorplay::minimum(*this, other);
}
template <class>
Tensor Tensor::clamp(const std::optional<Scalar>& min, const std::optional<Scalar>& max) const {
  return tensorplay::clamp(*this, min, max);
}
template <class>
Tensor Tensor::clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const {
  return tensorplay::clamp(*this, min, max);
}
template <class>
const Tensor& Tensor::clamp_(const std::optional<Scalar>& min,
                             const std::optional<Scalar>& max) const {
  detail::binary_impl::clamp_scalar_diff<autograd::ClampBackward1>(
      *this, *this, min, max, "clamp_scalar_cpu", [&](auto& fn) {
        fn.min_ = min;
        fn.max_ = max;
      });
  return *this;
}
template <class>
const Tensor& Tensor::clamp_(const std::optional<Tensor>& min,
                             const std::optional<Tensor>& max) const {
  return detail::binary_impl::clamp_tensor_diff_(*this, min, max);
}
template <class>
Tensor Tensor::clamp_min(const Scalar& min) const {
  return tensorplay::clamp_min(*this, min);
}
template <class>
Tensor Tensor::clamp_min(const Tensor& min) const {
  return tensorplay::clamp_min(*this, min);
}
template <class>
const Tensor& Tensor::clamp_min_(const Scalar& min) const {
  detail::binary_impl::clamp_scalar_diff<autograd::ClampMinBackward0>(
      *this, *this, min, std::nullopt, "clamp_min_cpu", [&](auto& fn) { fn.min_ = min; });
  return *this;
}
template <class>
const Tensor& Tensor::clamp_min_(const Tensor& min) const {
  return detail::binary_impl::clamp_bound_diff_<autograd::ClampMinBackward1, true>(*this, min);
}
template <class>
Tensor Tensor::clamp_max(const Scalar& max) const {
  return tensorplay::clamp_max(*this, max);
}
template <class>
Tensor Tensor::clamp_max(const Tensor& max) const {
  return tensorplay::clamp_max(*this, max);
}
template <class>
const Tensor& Tensor::clamp_max_(const Scalar& max) const {
  detail::binary_impl::clamp_scalar_diff<autograd::ClampMaxBackward0>(
      *this, *this, std::nullopt, max, "clamp_max_scalar_cpu", [&](auto& fn) { fn.max_ = max; });
  return *this;
}
template <class>
const Tensor& Tensor::clamp_max_(const Tensor& max) const {
  return detail::binary_impl::clamp_bound_diff_<autograd::ClampMaxBackward1, false>(*this, max);
}
template <class>
Tensor Tensor::clip(const std::optional<Scalar>& min, const std::optional<Scalar>& max) const {
  return tensorplay::clamp(*this, min, max);
}
template <class>
Tensor Tensor::clip(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const {
  return tensorplay::clamp(*this, min, max);
}
template <class>
const Tensor& Tensor::clip_(const std::optional<Scalar>& min,
                            const std::optional<Scalar>& max) const {
  return clamp_(min, max);
}
template <class>
const Tensor& Tensor::clip_(const std::optional<Tensor>& min,
                            const std::optional<Tensor>& max) const {
  return clamp_(min, max);
}
template <class>
Tensor Tensor::lerp(const Tensor& end, const Scalar& weight) const {
  return tensorplay::lerp(*this, end, weight);
}
template <class>
Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  return tensorplay::lerp(*this, end, weight);
}
template <class>
const Tensor& Tensor::lerp_(const Tensor& end, const Scalar& weight) const {
  return autograd::detail::differentiable_inplace<autograd::LerpBackward0>(
      *this, [&] { detail::binary_impl::lerp_scalar_impl(*this, *this, end, weight); },
      [&](autograd::LerpBackward0& fn) { fn.weight_ = weight; }, autograd::detail::kSaveNothing,
      end);
}
template <class>
const Tensor& Tensor::lerp_(const Tensor& end, const Tensor& weight) const {
  detail::binary_impl::lerp_tensor_diff(*this, end, weight, /*inplace=*/true);
  return *this;
}
template <class>
Tensor Tensor::bitwise_and(const Tensor& other) const {
  return tensorplay::bitwise_and(*this, other);
}
template <class>
Tensor Tensor::bitwise_and(const Scalar& other) const {
  return tensorplay::bitwise_and(*this, other);
}
template <class>
const Tensor& Tensor::bitwise_and_(const Tensor& other) const {
  return bitwise_and_out(*this, *this, other);
}
template <class>
const Tensor& Tensor::bitwise_and_(const Scalar& other) const {
  return bitwise_and_out(*this, *this, other);
}
template <class>
Tensor Tensor::bitwise_or(const Tensor& other) const {
  return tensorplay::bitwise_or(*this, other);
}
template <class>
Tensor Tensor::bitwise_or(const Scalar& other) const {
  return tensorplay::bitwise_or(*this, other);
}
template <class>
const Tensor& Tensor::bitwise_or_(const Tensor& other) const {
  return bitwise_or_out(*this, *this, other);
}
template <class>
const Tensor& Tensor::bitwise_or_(const Scalar& other) const {
  return bitwise_or_out(*this, *this, other);
}
template <class>
Tensor Tensor::bitwise_xor(const Tensor& other) const {
  return tensorplay::bitwise_xor(*this, other);
}
template <class>
Tensor Tensor::bitwise_xor(const Scalar& other) const {
  return tensorplay::bitwise_xor(*this, other);
}
template <class>
const Tensor& Tensor::bitwise_xor_(const Tensor& other) const {
  return bitwise_xor_out(*this, *this, other);
}
template <class>
const Tensor& Tensor::bitwise_xor_(const Scalar& other) const {
  return bitwise_xor_out(*this, *this, other);
}
#define TENSORPLAY_SHIFT_METHODS_(name, dunder)                 \
  template <class>                                              \
  Tensor Tensor::name(const Tensor& other) const {              \
    return tensorplay::name(*this, other);                      \
  }                                                             \
  template <class>                                              \
  Tensor Tensor::name(const Scalar& other) const {              \
    return tensorplay::name(*this, other);                      \
  }                                                             \
  template <class>                                              \
  const Tensor& Tensor::name##_(const Tensor& other) const {    \
    return name##_out(*this, *this, other);                     \
  }                                                             \
  template <class>                                              \
  const Tensor& Tensor::name##_(const Scalar& other) const {    \
    return name##_out(*this, *this, other);                     \
  }                                                             \
  template <class>                                              \
  Tensor Tensor::__##dunder##__(const Tensor& other) const {    \
    return tensorplay::name(*this, other);                      \
  }                                                             \
  template <class>                                              \
  Tensor Tensor::__##dunder##__(const Scalar& other) const {    \
    return tensorplay::name(*this, other);                      \
  }                                                             \
  template <class>                                              \
  const Tensor& Tensor::__i##dunder##__(const Tensor& other) const { \
    return name##_out(*this, *this, other);                     \
  }                                                             \
  template <class>                                              \
  const Tensor& Tensor::__i##dunder##__(const Scalar& other) const { \
    return name##_out(*this, *this, other);                     \
  }
TENSORPLAY_SHIFT_METHODS_(bitwise_left_shift, lshift)
TENSORPLAY_SHIFT_METHODS_(bitwise_right_shift, rshift)
#undef TENSORPLAY_SHIFT_METHODS_

template <class>
Tensor Tensor::bitwise_not() const {
  return tensorplay::bitwise_not(*this);
}
template <class>
const Tensor& Tensor::bitwise_not_() const {
  return bitwise_not_out(*this, *this);
}
template <class>
Tensor Tensor::operator~() const {
  return tensorplay::bitwise_not(*this);
}

// Compound assignment: the in-place ops (no broadcasting of self, no dtype change of self).
template <class>
const Tensor& Tensor::operator+=(const Tensor& other) const {
  return add_(other);
}
template <class>
const Tensor& Tensor::operator+=(const Scalar& other) const {
  return add_(other);
}
template <class>
const Tensor& Tensor::operator-=(const Tensor& other) const {
  return sub_(other);
}
template <class>
const Tensor& Tensor::operator-=(const Scalar& other) const {
  return sub_(other);
}
template <class>
const Tensor& Tensor::operator*=(const Tensor& other) const {
  return mul_(other);
}
template <class>
const Tensor& Tensor::operator*=(const Scalar& other) const {
  return mul_(other);
}
template <class>
const Tensor& Tensor::operator/=(const Tensor& other) const {
  return div_(other);
}
template <class>
const Tensor& Tensor::operator/=(const Scalar& other) const {
  return div_(other);
}
template <class>
const Tensor& Tensor::operator%=(const Tensor& other) const {
  return remainder_(other);
}
template <class>
const Tensor& Tensor::operator%=(const Scalar& other) const {
  return remainder_(other);
}
template <class>
const Tensor& Tensor::operator&=(const Tensor& other) const {
  return bitwise_and_(other);
}
template <class>
const Tensor& Tensor::operator&=(const Scalar& other) const {
  return bitwise_and_(other);
}
template <class>
const Tensor& Tensor::operator|=(const Tensor& other) const {
  return bitwise_or_(other);
}
template <class>
const Tensor& Tensor::operator|=(const Scalar& other) const {
  return bitwise_or_(other);
}
template <class>
const Tensor& Tensor::operator^=(const Tensor& other) const {
  return bitwise_xor_(other);
}
template <class>
const Tensor& Tensor::operator^=(const Scalar& other) const {
  return bitwise_xor_(other);
}

// ==== operators =================================================================================
// A number on the left promotes as a Python number does (2.5 - int_tensor is float32, as
// Python's `2.5 - t`); libtorch's C++ operators fill a tensor of b's dtype instead, which
// truncates the number and refuses a float result for an integer tensor.

template <class = void>
Tensor operator+(const Tensor& a, const Tensor& b) {
  return add(a, b);
}
template <class = void>
Tensor operator+(const Tensor& a, const Scalar& b) {
  return add(a, b);
}
template <class = void>
Tensor operator+(const Scalar& a, const Tensor& b) {
  return add(b, a);
}
template <class = void>
Tensor operator-(const Tensor& a, const Tensor& b) {
  return sub(a, b);
}
template <class = void>
Tensor operator-(const Tensor& a, const Scalar& b) {
  return sub(a, b);
}
template <class = void>
Tensor operator-(const Scalar& a, const Tensor& b) {
  return rsub(b, a);
}
template <class = void>
Tensor operator*(const Tensor& a, const Tensor& b) {
  return mul(a, b);
}
template <class = void>
Tensor operator*(const Tensor& a, const Scalar& b) {
  return mul(a, b);
}
template <class = void>
Tensor operator*(const Scalar& a, const Tensor& b) {
  return mul(b, a);
}
template <class = void>
Tensor operator/(const Tensor& a, const Tensor& b) {
  return div(a, b);
}
template <class = void>
Tensor operator/(const Tensor& a, const Scalar& b) {
  return div(a, b);
}
template <class = void>
Tensor operator/(const Scalar& a, const Tensor& b) {
  return div(detail::wrapped_scalar_tensor(a), b);
}
template <class = void>
Tensor operator%(const Tensor& a, const Tensor& b) {
  return remainder(a, b);
}
template <class = void>
Tensor operator%(const Tensor& a, const Scalar& b) {
  return remainder(a, b);
}
template <class = void>
Tensor operator%(const Scalar& a, const Tensor& b) {
  return remainder(a, b);
}
template <class = void>
Tensor operator&(const Tensor& a, const Tensor& b) {
  return bitwise_and(a, b);
}
template <class = void>
Tensor operator&(const Tensor& a, const Scalar& b) {
  return bitwise_and(a, b);
}
template <class = void>
Tensor operator&(const Scalar& a, const Tensor& b) {
  return bitwise_and(a, b);
}
template <class = void>
Tensor operator|(const Tensor& a, const Tensor& b) {
  return bitwise_or(a, b);
}
template <class = void>
Tensor operator|(const Tensor& a, const Scalar& b) {
  return bitwise_or(a, b);
}
template <class = void>
Tensor operator|(const Scalar& a, const Tensor& b) {
  return bitwise_or(a, b);
}
template <class = void>
Tensor operator^(const Tensor& a, const Tensor& b) {
  return bitwise_xor(a, b);
}
template <class = void>
Tensor operator^(const Tensor& a, const Scalar& b) {
  return bitwise_xor(a, b);
}
template <class = void>
Tensor operator^(const Scalar& a, const Tensor& b) {
  return bitwise_xor(a, b);
}

}  // namespace tensorplay
