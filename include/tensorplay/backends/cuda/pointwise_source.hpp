// The CUDA source of the elementwise kernels (ops/device_dispatch.hpp's PointwiseOp): one kernel
// template over a TensorIterator's operands, instantiated as source for each (PointwiseCode,
// dtypes, arity, index width) and compiled at run time with NVRTC (nvrtc.hpp).
//
//   const PointwiseKernelKey key = pointwise_kernel_key(PointwiseCode::Add, kHalf);
//   std::string ptx = compile_to_ptx(pointwise_kernel_source({&key, 1}),
//                                    pointwise_kernel_name(key), 80, pointwise_compile_options());
//   // entry pointwise_kernel_name(key), one argument: PointwiseParams<3, unsigned> by value
//
// What each op computes is the CPU's (ops/unary.hpp, ops/binary.hpp, ops/compare.hpp), with the
// CPU's dtype sets (PointwiseTypes) and its compute types: float16 and bfloat16 are loaded as
// float32, computed there and rounded once to the nearest even on the store (the conversions
// below are core/half.hpp's, bit for bit, and also compiled here so the tests check them);
// integers wrap (arithmetic in an unsigned type, as ops/binary.hpp's wrap_add & co.); bool
// inputs and outputs are bytes; comparisons write bool; where's condition is bool. Operands
// arrive in the compute dtype, as the front ends leave them (the iterator converts inputs, and
// finish() converts the result into an out= tensor of another dtype), so a kernel's dtypes are
// fixed by its code and compute dtype: pointwise_kernel_key() spells them out and
// check_pointwise_kernel_key() refuses any other combination.
//
// Floating-point functions are CUDA's correctly rounded or few-ulp libm functions (expf,
// erff...), which may differ from the CPU's vectorised ones in the last bit; special values
// (NaN, infinities, signed zeros) follow C and the CPU. Kernels are compiled with --fmad=false
// so that `a + alpha * b` and the formulas of gelu & co. round each step as the CPU's code
// reads, rather than being contracted into fused multiply-adds.
//
// Integer division and remainder by zero: the CPU raises ZeroDivisionError; a kernel cannot
// throw, so it stores 0 and ORs kPointwiseErrorZeroDivision into the device word
// PointwiseParams::error (null: not reported). The launch path (pointwise.hpp) reads that word
// after the kernel and raises the CPU's error.
#pragma once

#include <tensorplay/backends/cuda/offset_calculator.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/half.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/device_dispatch.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// float <-> its bits, on the host; the kernel prelude maps them to __float_as_uint & co.
#define TENSORPLAY_CUDA_FLOAT_BITS_(f) std::bit_cast<unsigned>(f)
#define TENSORPLAY_CUDA_BITS_FLOAT_(u) std::bit_cast<float>(u)

// core/half.hpp's conversions (fp16_to_fp32, fp32_to_fp16, bf16_to_fp32, fp32_to_bf16) for the
// kernels, which cannot rely on cuda_fp16.h (NVRTC has no include path to it). Shared with the
// host so that the tests compare them with core/half.hpp's.
// clang-format off
#define TENSORPLAY_CUDA_HALF_CODE_(X)                                                        \
  X(                                                                                         \
  /* binary16 -> binary32, exact; a NaN keeps its sign and payload and is made quiet. */     \
  TENSORPLAY_CUDA_HD_ float half_bits_to_float(unsigned short h) {                           \
    const unsigned sign = static_cast<unsigned>(h & 0x8000u) << 16;                          \
    const unsigned biased = (h >> 10) & 0x1fu;                                               \
    unsigned mant = h & 0x3ffu;                                                              \
    if (biased == 0x1fu) {                                                                   \
      return TENSORPLAY_CUDA_BITS_FLOAT_(sign | 0x7f800000u | (mant << 13) |                 \
                                         (mant != 0 ? 0x400000u : 0u));                      \
    }                                                                                        \
    if (biased == 0) {                                                                       \
      if (mant == 0) return TENSORPLAY_CUDA_BITS_FLOAT_(sign);                               \
      /* A subnormal: move the leading one to the implicit bit, lowering the exponent. */    \
      unsigned e = 113u;                                                                     \
      while ((mant & 0x400u) == 0) {                                                         \
        mant <<= 1;                                                                          \
        --e;                                                                                 \
      }                                                                                      \
      return TENSORPLAY_CUDA_BITS_FLOAT_(sign | (e << 23) | ((mant & 0x3ffu) << 13));        \
    }                                                                                        \
    return TENSORPLAY_CUDA_BITS_FLOAT_(sign | ((biased + 112u) << 23) | (mant << 13));       \
  }                                                                                          \
                                                                                             \
  /* binary32 -> binary16, round to nearest even; NaN -> a quiet NaN of the same sign. */    \
  TENSORPLAY_CUDA_HD_ unsigned short float_to_half_bits(float f) {                           \
    const unsigned w = TENSORPLAY_CUDA_FLOAT_BITS_(f);                                       \
    const unsigned sign = (w >> 16) & 0x8000u;                                               \
    const unsigned a = w & 0x7fffffffu;                                                      \
    if (a > 0x7f800000u) return static_cast<unsigned short>(sign | 0x7e00u);                 \
    /* From 65520, the midpoint between 65504 and 65536, everything rounds to infinity. */   \
    if (a >= 0x477ff000u) return static_cast<unsigned short>(sign | 0x7c00u);                \
    if (a >= 0x38800000u) {                                                                  \
      const unsigned r = a - 0x38000000u;                                                    \
      return static_cast<unsigned short>(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));    \
    }                                                                                        \
    if (a < 0x33000000u) return static_cast<unsigned short>(sign);                           \
    /* A subnormal result, in units of 2^-24. */                                             \
    const unsigned shift = 126u - (a >> 23);                                                 \
    const unsigned sig = (a & 0x7fffffu) | 0x800000u;                                        \
    const unsigned n = sig >> shift;                                                         \
    const unsigned rem = sig & ((1u << shift) - 1u);                                         \
    const unsigned half = 1u << (shift - 1u);                                                \
    const bool up = rem > half || (rem == half && (n & 1u) != 0);                            \
    return static_cast<unsigned short>(sign | (n + (up ? 1u : 0u)));                        \
  }                                                                                          \
                                                                                             \
  /* bfloat16 is the top half of a binary32: widening is a shift (and quieting a NaN). */    \
  TENSORPLAY_CUDA_HD_ float bfloat16_bits_to_float(unsigned short b) {                       \
    unsigned w = static_cast<unsigned>(b) << 16;                                             \
    if ((b & 0x7fffu) > 0x7f80u) w |= 0x400000u;                                             \
    return TENSORPLAY_CUDA_BITS_FLOAT_(w);                                                   \
  }                                                                                          \
  TENSORPLAY_CUDA_HD_ unsigned short float_to_bfloat16_bits(float f) {                       \
    const unsigned w = TENSORPLAY_CUDA_FLOAT_BITS_(f);                                       \
    if ((w & 0x7fffffffu) > 0x7f800000u) {                                                   \
      return static_cast<unsigned short>(((w >> 16) & 0x8000u) | 0x7fc0u);                   \
    }                                                                                        \
    return static_cast<unsigned short>((w + 0x7fffu + ((w >> 16) & 1u)) >> 16);              \
  }                                                                                          \
  )
// clang-format on

// The one argument of every elementwise kernel, passed by value (__grid_constant__: read in
// place, never copied per thread).
// clang-format off
#define TENSORPLAY_CUDA_POINTWISE_PARAMS_CODE_(X)                                            \
  X(                                                                                         \
  template <int N, class Index>                                                              \
  struct PointwiseParams {                                                                   \
    /* Operand k's first element (output 0, then the inputs). */                             \
    char* data[N];                                                                           \
    /* Operand k's value when bit k of constant_mask is set (a CPU 0-d input, a wrapped      \
       number): its dtype's bytes, zero-extended. data[k] is then not read. */               \
    unsigned long long constants[N];                                                         \
    /* s0, s1 as the code defines them (add/sub: alpha; clamp: the bounds), in the compute   \
       type's bits (pointwise_scalar_bits). */                                               \
    unsigned long long scalars[2];                                                           \
    /* A device word the kernel ORs error codes into (kPointwiseErrorZeroDivision); or null. \
       The launch path reads it after the kernel. */                                         \
    unsigned* error;                                                                         \
    Index numel;                                                                             \
    unsigned constant_mask;                                                                  \
    OffsetCalculator<N, Index> offsets;                                                      \
  };                                                                                         \
  )
// clang-format on

namespace tensorplay::cuda {

namespace detail {
TENSORPLAY_CUDA_HALF_CODE_(TENSORPLAY_CUDA_EXPAND_)
}  // namespace detail

TENSORPLAY_CUDA_POINTWISE_PARAMS_CODE_(TENSORPLAY_CUDA_EXPAND_)

// The error word's bit for an integer division or remainder by zero (the CPU's
// ZeroDivisionError).
inline constexpr unsigned kPointwiseErrorZeroDivision = 1u;

// ---- the ops: arity, result, and the dtypes the CPU has each for -------------------------------

// The dtypes an op's kernel exists for (the compute dtype), as on the CPU: All; AllButBool (the
// integers and floating types: sub, integer-capable division, pow, clamp, neg, abs, relu,
// square, and the rounding ops, which are the identity on integers as the CPU's copy is);
// Floating (true division, atan2, and the functions the CPU computes in float for integer
// inputs: the front ends promote those first).
enum class PointwiseTypes : std::uint8_t { All, AllButBool, Floating };

struct PointwiseOpInfo {
  PointwiseCode code;
  std::string_view name;  // in kernel names; unique (pointwise_name() has "div" three times)
  int arity;              // inputs: 1, 2 or 3
  bool bool_output;       // the comparisons
  PointwiseTypes types;
};

inline constexpr std::size_t kNumPointwiseCodes = static_cast<std::size_t>(PointwiseCode::None);

// One row per PointwiseCode, in enum order (checked below, so a new code must be added here).
inline constexpr std::array<PointwiseOpInfo, kNumPointwiseCodes> kPointwiseOps = [] {
  using C = PointwiseCode;
  using T = PointwiseTypes;
  return std::array<PointwiseOpInfo, kNumPointwiseCodes>{{
      {C::Add, "add", 2, false, T::All},
      {C::Sub, "sub", 2, false, T::AllButBool},
      {C::Mul, "mul", 2, false, T::All},
      {C::Div, "div", 2, false, T::Floating},
      {C::Maximum, "maximum", 2, false, T::All},
      {C::Minimum, "minimum", 2, false, T::All},
      {C::Pow, "pow", 2, false, T::AllButBool},
      {C::Eq, "eq", 2, true, T::All},
      {C::Ne, "ne", 2, true, T::All},
      {C::Lt, "lt", 2, true, T::All},
      {C::Le, "le", 2, true, T::All},
      {C::Gt, "gt", 2, true, T::All},
      {C::Ge, "ge", 2, true, T::All},
      {C::Atan2, "atan2", 2, false, T::Floating},
      {C::Remainder, "remainder", 2, false, T::AllButBool},
      {C::Fmod, "fmod", 2, false, T::AllButBool},
      {C::DivTrunc, "div_trunc", 2, false, T::AllButBool},
      {C::DivFloor, "div_floor", 2, false, T::AllButBool},
      {C::Where, "where", 3, false, T::All},
      {C::Neg, "neg", 1, false, T::AllButBool},
      {C::Abs, "abs", 1, false, T::AllButBool},
      {C::Exp, "exp", 1, false, T::Floating},
      {C::Log, "log", 1, false, T::Floating},
      {C::Sqrt, "sqrt", 1, false, T::Floating},
      {C::Rsqrt, "rsqrt", 1, false, T::Floating},
      {C::Tanh, "tanh", 1, false, T::Floating},
      {C::Sigmoid, "sigmoid", 1, false, T::Floating},
      {C::Relu, "relu", 1, false, T::AllButBool},
      {C::Gelu, "gelu", 1, false, T::Floating},
      {C::GeluTanh, "gelu_tanh", 1, false, T::Floating},
      {C::Silu, "silu", 1, false, T::Floating},
      {C::Sin, "sin", 1, false, T::Floating},
      {C::Cos, "cos", 1, false, T::Floating},
      {C::Clamp, "clamp", 1, false, T::AllButBool},
      {C::Reciprocal, "reciprocal", 1, false, T::Floating},
      {C::Square, "square", 1, false, T::AllButBool},
      {C::Tan, "tan", 1, false, T::Floating},
      {C::Asin, "asin", 1, false, T::Floating},
      {C::Acos, "acos", 1, false, T::Floating},
      {C::Atan, "atan", 1, false, T::Floating},
      {C::Sinh, "sinh", 1, false, T::Floating},
      {C::Cosh, "cosh", 1, false, T::Floating},
      {C::Exp2, "exp2", 1, false, T::Floating},
      {C::Expm1, "expm1", 1, false, T::Floating},
      {C::Log2, "log2", 1, false, T::Floating},
      {C::Log10, "log10", 1, false, T::Floating},
      {C::Log1p, "log1p", 1, false, T::Floating},
      {C::Erf, "erf", 1, false, T::Floating},
      {C::Floor, "floor", 1, false, T::AllButBool},
      {C::Ceil, "ceil", 1, false, T::AllButBool},
      {C::Trunc, "trunc", 1, false, T::AllButBool},
      {C::Round, "round", 1, false, T::AllButBool},
  }};
}();

namespace detail {
constexpr bool pointwise_table_in_enum_order() {
  for (std::size_t i = 0; i < kPointwiseOps.size(); ++i) {
    if (static_cast<std::size_t>(kPointwiseOps[i].code) != i) return false;
  }
  return true;
}
static_assert(pointwise_table_in_enum_order(),
              "kPointwiseOps: one row per PointwiseCode, in order");
}  // namespace detail

// The row of `code`; a code without one (None) raises the dispatch point's NotImplementedError.
inline const PointwiseOpInfo& pointwise_op_info(PointwiseCode code) {
  const auto i = static_cast<std::size_t>(code);
  if (i >= kPointwiseOps.size()) {
    ::tensorplay::detail::throw_no_device_kernel(pointwise_name(code), DeviceType::CUDA,
                                                 /*compiled_in=*/true);
  }
  return kPointwiseOps[i];
}

// Whether `code` has a kernel computing in `compute` (the CPU's dtype set).
inline bool pointwise_supports(PointwiseCode code, DType compute) {
  switch (pointwise_op_info(code).types) {
    case PointwiseTypes::All: return true;
    case PointwiseTypes::AllButBool: return compute != kBool;
    case PointwiseTypes::Floating: return is_floating_point(compute);
  }
  return false;
}

// ---- kernel keys --------------------------------------------------------------------------------

// One kernel: the op, its output's and inputs' dtypes, and whether it indexes with 64 bits
// (can_use_32bit_indexing false). A kernel takes PointwiseParams<arity + 1, Index>.
struct PointwiseKernelKey {
  PointwiseCode code = PointwiseCode::None;
  DType out = kFloat;
  std::array<DType, 3> inputs{kFloat, kFloat, kFloat};  // the first `arity` are read
  int arity = 0;
  bool index64 = false;
  friend bool operator==(const PointwiseKernelKey&, const PointwiseKernelKey&) = default;
};

// The dtype the key's op computes in: the inputs' for the comparisons and where, else the
// output's.
inline DType pointwise_compute_dtype(const PointwiseKernelKey& key) {
  if (key.code == PointwiseCode::Where) return key.inputs[1];
  return pointwise_op_info(key.code).bool_output ? key.inputs[0] : key.out;
}

// Refuses a key no kernel exists for: an unknown code (NotImplementedError), the wrong number
// of inputs, a dtype outside the op's set (PyTorch's "\"remainder_cuda\" not implemented for
// 'Bool'"), or dtypes other than the front ends give the op (TypeError).
inline void check_pointwise_kernel_key(const PointwiseKernelKey& key) {
  const PointwiseOpInfo& info = pointwise_op_info(key.code);
  const std::string_view op = pointwise_name(key.code);
  TP_CHECK(key.arity == info.arity, "cuda: '", op, "' takes ", info.arity, " inputs, got ",
           key.arity);
  const DType compute = pointwise_compute_dtype(key);
  TP_CHECK(pointwise_supports(key.code, compute), "\"", info.name, "_cuda\" not implemented for '",
           scalar_type_name(compute), "'");
  const int first = key.code == PointwiseCode::Where ? 1 : 0;
  if (key.code == PointwiseCode::Where) {
    TP_CHECK_TYPE(key.inputs[0] == kBool,
                  "where expected condition to be a boolean tensor, but got a tensor with dtype ",
                  scalar_type_name(key.inputs[0]));
  }
  for (int k = first; k < info.arity; ++k) {
    const DType in = key.inputs[std::size_t(k)];
    TP_CHECK_TYPE(in == compute, "cuda: '", op, "' computes in one dtype; got inputs of dtypes ",
                  scalar_type_name(compute), " and ", scalar_type_name(in));
  }
  const DType out = info.bool_output ? kBool : compute;
  TP_CHECK_TYPE(key.out == out, "cuda: '", op, "' computing in ", scalar_type_name(compute),
                " writes ", scalar_type_name(out), ", not ", scalar_type_name(key.out));
}

// The key of `code` computing in `compute`, with the dtypes the front ends give it (checked).
inline PointwiseKernelKey pointwise_kernel_key(PointwiseCode code, DType compute,
                                               bool index64 = false) {
  const PointwiseOpInfo& info = pointwise_op_info(code);
  PointwiseKernelKey key;
  key.code = code;
  key.arity = info.arity;
  key.index64 = index64;
  key.out = info.bool_output ? kBool : compute;
  key.inputs = {compute, compute, compute};
  if (code == PointwiseCode::Where) key.inputs[0] = kBool;
  check_pointwise_kernel_key(key);
  return key;
}

// The kernel's entry name in the PTX: tp_pointwise_<op>_<compute dtype>_<i32|i64>.
inline std::string pointwise_kernel_name(const PointwiseKernelKey& key) {
  check_pointwise_kernel_key(key);
  return ::tensorplay::detail::str_cat("tp_pointwise_", pointwise_op_info(key.code).name, "_",
                                       dtype_name(pointwise_compute_dtype(key)),
                                       key.index64 ? "_i64" : "_i32");
}

// ---- host values for the kernel's parameters ----------------------------------------------------

// s0 or s1 (a double, as the front ends pass them) as PointwiseParams::scalars holds it: the
// compute type's bits, through the storage dtype as the CPU converts (alpha.to<T>() then
// opmath: float16 alpha 0.1 is float(Half(0.1))). Integers take the value modulo 2^bits (the
// CPU's Scalar::to has refused values outside the type already; negatives wrap into unsigned
// types as c10's conversion lets them), and saturate at int64's range, where clamp's missing
// bound (the type's extreme) does not survive the trip through double exactly.
inline std::uint64_t pointwise_scalar_bits(DType compute, double v) {
  switch (compute) {
    case kBool: return v != 0 ? 1u : 0u;
    case kHalf: return std::bit_cast<std::uint32_t>(static_cast<float>(Half(v)));
    case kBFloat16: return std::bit_cast<std::uint32_t>(static_cast<float>(BFloat16(v)));
    case kFloat: return std::bit_cast<std::uint32_t>(static_cast<float>(v));
    case kDouble: return std::bit_cast<std::uint64_t>(v);
    default: break;
  }
  using L = std::numeric_limits<std::int64_t>;
  const std::int64_t i = std::isnan(v)  ? 0
                         : v <= -0x1p63 ? L::min()
                         : v >= 0x1p63  ? L::max()
                                        : static_cast<std::int64_t>(v);
  const auto bits = static_cast<std::uint64_t>(i);
  const std::size_t width = itemsize(compute) * 8;
  return width >= 64 ? bits : bits & ((std::uint64_t{1} << width) - 1);
}

// A CPU 0-d input's value as PointwiseParams::constants holds it: its bytes, zero-extended.
inline std::uint64_t pointwise_constant_bits(const Tensor& t) {
  TP_CHECK(t.defined() && t.is_cpu() && t.numel() == 1,
           "cuda: a constant operand is a CPU tensor of one element");
  std::uint64_t bits = 0;
  std::memcpy(&bits, t.data_ptr(), static_cast<std::size_t>(t.itemsize()));  // little-endian
  return bits;
}

// NVRTC options the kernels are written for (see the top of this file for --fmad).
inline std::vector<std::string> pointwise_compile_options() {
  return {"-std=c++17", "--fmad=false"};
}

// ---- the source ---------------------------------------------------------------------------------

namespace detail {

// The kernel's type for a dtype's storage, and the compute type (opmath).
inline std::string_view cuda_storage_type(DType t) {
  switch (t) {
    case kBool: return "bool";
    case kByte: return "unsigned char";
    case kChar: return "signed char";
    case kShort: return "short";
    case kInt: return "int";
    case kLong: return "long long";
    case kHalf: return "tp::Half";
    case kBFloat16: return "tp::BFloat16";
    case kFloat: return "float";
    case kDouble: return "double";
    default: break;  // the quantized dtypes
  }
  return "void";
}
inline std::string_view cuda_compute_type(DType t) {
  return t == kHalf || t == kBFloat16 ? "float" : cuda_storage_type(t);
}

template <int N, class Index>
void append_params_layout_check(std::string& s, const char* index) {
  using P = PointwiseParams<N, Index>;
  append_layout_check<P>(
      s, "PointwiseParams<" + std::to_string(N) + ", " + index + ">",
      {member_layout("data", &P::data), member_layout("constants", &P::constants),
       member_layout("scalars", &P::scalars), member_layout("error", &P::error),
       member_layout("numel", &P::numel), member_layout("constant_mask", &P::constant_mask),
       member_layout("offsets", &P::offsets)});
}

// Everything but the kernels' entry points: the shared structs and conversions, then the
// device-only code (a raw string: this is CUDA C++, compiled by NVRTC only).
inline std::string pointwise_prelude() {
  std::string s =
      "// TensorPlay's elementwise kernels "
      "(include/tensorplay/backends/cuda/pointwise_source.hpp)\n"
      "#define TENSORPLAY_CUDA_HD_ __device__ __forceinline__\n"
      "#define TENSORPLAY_CUDA_FLOAT_BITS_(f) __float_as_uint(f)\n"
      "#define TENSORPLAY_CUDA_BITS_FLOAT_(u) __uint_as_float(u)\n";
  s += indexing_device_source();
  s += "namespace tp {\n";
  s += TENSORPLAY_CUDA_HALF_CODE_(TENSORPLAY_CUDA_STRINGIFY_);
  s += "\n";
  s += TENSORPLAY_CUDA_POINTWISE_PARAMS_CODE_(TENSORPLAY_CUDA_STRINGIFY_);
  s += "\n";
  append_params_layout_check<2, unsigned>(s, "unsigned");
  append_params_layout_check<3, unsigned>(s, "unsigned");
  append_params_layout_check<4, unsigned>(s, "unsigned");
  append_params_layout_check<2, unsigned long long>(s, "unsigned long long");
  append_params_layout_check<3, unsigned long long>(s, "unsigned long long");
  append_params_layout_check<4, unsigned long long>(s, "unsigned long long");
  s += ::tensorplay::detail::str_cat(
      "constexpr unsigned kElementsPerThread = ", kPointwiseElementsPerThread, "u;\n",
      "constexpr unsigned kErrorZeroDivision = ", kPointwiseErrorZeroDivision, "u;\n");
  s += R"CUDA(
struct Half { unsigned short x; };
struct BFloat16 { unsigned short x; };

// ---- type traits (NVRTC has no <type_traits> without an include path) ----
template <class A, class B> struct is_same { static constexpr bool value = false; };
template <class A> struct is_same<A, A> { static constexpr bool value = true; };
template <class T> struct is_float {
  static constexpr bool value = is_same<T, float>::value || is_same<T, double>::value;
};
template <class T> struct is_int {  // the integer types, not bool
  static constexpr bool value = !is_float<T>::value && !is_same<T, bool>::value;
};
template <class T> struct is_signed { static constexpr bool value = T(-1) < T(0); };
// The unsigned type integer arithmetic wraps in: at least as wide as unsigned, so that nothing
// promotes to int and overflows there (ops/binary.hpp's wrap_unsigned_t).
template <class T> struct wrap_unsigned { typedef unsigned type; };
template <> struct wrap_unsigned<long long> { typedef unsigned long long type; };
// The compute type of a storage type (at::opmath_type).
template <class T> struct opmath { typedef T type; };
template <> struct opmath<Half> { typedef float type; };
template <> struct opmath<BFloat16> { typedef float type; };

// ---- memory: loads widen to the compute type, stores round once ----
template <class S> __device__ __forceinline__ typename opmath<S>::type load(const char* p) {
  return *reinterpret_cast<const S*>(p);
}
template <> __device__ __forceinline__ float load<Half>(const char* p) {
  return half_bits_to_float(*reinterpret_cast<const unsigned short*>(p));
}
template <> __device__ __forceinline__ float load<BFloat16>(const char* p) {
  return bfloat16_bits_to_float(*reinterpret_cast<const unsigned short*>(p));
}
template <> __device__ __forceinline__ bool load<bool>(const char* p) {
  return *reinterpret_cast<const unsigned char*>(p) != 0;
}
template <class S> __device__ __forceinline__ void store(char* p, typename opmath<S>::type v) {
  *reinterpret_cast<S*>(p) = v;
}
template <> __device__ __forceinline__ void store<Half>(char* p, float v) {
  *reinterpret_cast<unsigned short*>(p) = float_to_half_bits(v);
}
template <> __device__ __forceinline__ void store<BFloat16>(char* p, float v) {
  *reinterpret_cast<unsigned short*>(p) = float_to_bfloat16_bits(v);
}
template <> __device__ __forceinline__ void store<bool>(char* p, bool v) {
  *reinterpret_cast<unsigned char*>(p) = v ? 1 : 0;
}
// A value from its bits (a constant operand's bytes, a scalar in the compute type's bits).
template <class S>
__device__ __forceinline__ typename opmath<S>::type from_bits(unsigned long long b) {
  return static_cast<S>(b);  // the integers: the low bytes, two's complement
}
template <> __device__ __forceinline__ bool from_bits<bool>(unsigned long long b) { return b != 0; }
template <> __device__ __forceinline__ float from_bits<float>(unsigned long long b) {
  return __uint_as_float(static_cast<unsigned>(b));
}
template <> __device__ __forceinline__ double from_bits<double>(unsigned long long b) {
  return __longlong_as_double(static_cast<long long>(b));
}
template <> __device__ __forceinline__ float from_bits<Half>(unsigned long long b) {
  return half_bits_to_float(static_cast<unsigned short>(b));
}
template <> __device__ __forceinline__ float from_bits<BFloat16>(unsigned long long b) {
  return bfloat16_bits_to_float(static_cast<unsigned short>(b));
}

// ---- math in float or double: one name, CUDA's libm function of the type ----
#define TP_MATH1(name, f32)                                                       \
  __device__ __forceinline__ float name(float x) { return ::f32(x); }             \
  __device__ __forceinline__ double name(double x) { return ::name(x); }
#define TP_MATH2(name, f32)                                                       \
  __device__ __forceinline__ float name(float x, float y) { return ::f32(x, y); } \
  __device__ __forceinline__ double name(double x, double y) { return ::name(x, y); }
TP_MATH1(exp, expf) TP_MATH1(exp2, exp2f) TP_MATH1(expm1, expm1f) TP_MATH1(log, logf)
TP_MATH1(log2, log2f) TP_MATH1(log10, log10f) TP_MATH1(log1p, log1pf) TP_MATH1(sqrt, sqrtf)
TP_MATH1(sin, sinf) TP_MATH1(cos, cosf) TP_MATH1(tan, tanf) TP_MATH1(asin, asinf)
TP_MATH1(acos, acosf) TP_MATH1(atan, atanf) TP_MATH1(sinh, sinhf) TP_MATH1(cosh, coshf)
TP_MATH1(tanh, tanhf) TP_MATH1(erf, erff) TP_MATH1(floor, floorf) TP_MATH1(ceil, ceilf)
TP_MATH1(trunc, truncf) TP_MATH1(rint, rintf) TP_MATH1(fabs, fabsf)
TP_MATH2(fmod, fmodf) TP_MATH2(atan2, atan2f) TP_MATH2(pow, powf) TP_MATH2(copysign, copysignf)
#undef TP_MATH1
#undef TP_MATH2
template <class C> __device__ __forceinline__ C quiet_nan();  // std::numeric_limits' quiet_NaN
template <> __device__ __forceinline__ float quiet_nan<float>() {
  return __uint_as_float(0x7fc00000u);
}
template <> __device__ __forceinline__ double quiet_nan<double>() {
  return __longlong_as_double(0x7ff8000000000000ll);
}

// ---- integer arithmetic as ops/binary.hpp's: wrapping, and Python's division ----
template <class T> __device__ __forceinline__ T wrap_add(T a, T b) {
  typedef typename wrap_unsigned<T>::type U;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T> __device__ __forceinline__ T wrap_sub(T a, T b) {
  typedef typename wrap_unsigned<T>::type U;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <class T> __device__ __forceinline__ T wrap_mul(T a, T b) {
  typedef typename wrap_unsigned<T>::type U;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}
// The most negative value stays itself, as on the CPU (two's complement).
template <class T> __device__ __forceinline__ T wrap_neg(T x) { return wrap_sub(T(0), x); }

// The error word: the CPU's ZeroDivisionError, reported to the host.
__device__ __forceinline__ void report(unsigned* error, unsigned code) {
  if (error != nullptr) atomicOr(error, code);
}

// The op's scalars in the compute type, and where to report errors.
template <class C> struct Ctx {
  C s0;
  C s1;
  unsigned* error;
};

// Truncating division; b == -1 is -a (wrapping): INT_MIN / -1 would trap.
template <class T> __device__ __forceinline__ T div_trunc_int(T a, T b, unsigned* error) {
  if (b == 0) {
    report(error, kErrorZeroDivision);
    return T(0);
  }
  if constexpr (is_signed<T>::value) {
    if (b == T(-1)) return wrap_neg(a);
  }
  return static_cast<T>(a / b);
}
// Python's a // b: truncation, minus one when the signs differ and the division is inexact.
template <class T> __device__ __forceinline__ T div_floor_int(T a, T b, unsigned* error) {
  if (b == 0) {
    report(error, kErrorZeroDivision);
    return T(0);
  }
  if constexpr (is_signed<T>::value) {
    if (b == T(-1)) return wrap_neg(a);
    if ((a < 0) != (b < 0)) {
      const T q = static_cast<T>(a / b), r = static_cast<T>(a % b);
      return r != 0 ? static_cast<T>(q - 1) : q;
    }
  }
  return static_cast<T>(a / b);
}
// C's %: the dividend's sign.
template <class T> __device__ __forceinline__ T fmod_int(T a, T b, unsigned* error) {
  if (b == 0) {
    report(error, kErrorZeroDivision);
    return T(0);
  }
  if constexpr (is_signed<T>::value) {
    if (b == T(-1)) return T(0);
  }
  return static_cast<T>(a % b);
}
// Python's %: the divisor's sign.
template <class T> __device__ __forceinline__ T remainder_int(T a, T b, unsigned* error) {
  T r = fmod_int(a, b, error);
  if constexpr (is_signed<T>::value) {
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
  }
  return r;
}
// ATen's powi: by squaring, wrapping; a negative exponent gives 1 for a base of 1, +-1 for -1,
// and 0 otherwise.
template <class T> __device__ __forceinline__ T powi(T a, T b) {
  if constexpr (is_signed<T>::value) {
    if (b < 0) {
      if (a == 1) return T(1);
      if (a == T(-1)) return (b & 1) ? T(-1) : T(1);
      return T(0);
    }
  }
  typedef typename wrap_unsigned<T>::type U;
  U result = 1, base = static_cast<U>(a);
  while (b) {
    if (b & 1) result = static_cast<U>(result * base);
    b = static_cast<T>(b / 2);
    base = static_cast<U>(base * base);
  }
  return static_cast<T>(result);
}
// c10::div_floor_floating: floor(a / b) from fmod, so exact quotients stay exact.
template <class C> __device__ __forceinline__ C div_floor_float(C a, C b) {
  if (b == C(0)) return a / b;
  const C mod = fmod(a, b);
  C div = (a - mod) / b;
  if (mod != C(0) && (b < C(0)) != (mod < C(0))) div -= C(1);
  if (div == C(0)) return copysign(C(0), a / b);
  C floordiv = floor(div);
  if (div - floordiv > C(0.5)) floordiv += C(1);
  return floordiv;
}

// ---- the ops: f(inputs..., ctx) in the compute type C, one struct per PointwiseCode ----
#define TP_UNARY(name, expr)                                                   \
  struct op_##name {                                                           \
    template <class C> static __device__ __forceinline__ C f(C x, const Ctx<C>& ctx) { \
      (void)ctx;                                                               \
      return expr;                                                             \
    }                                                                          \
  };
#define TP_COMPARE(name, expr)                                                 \
  struct op_##name {                                                           \
    template <class C>                                                         \
    static __device__ __forceinline__ bool f(C a, C b, const Ctx<C>&) { return expr; } \
  };

struct op_add {  // a + alpha * b; bool: a || (alpha && b)
  template <class C> static __device__ __forceinline__ C f(C a, C b, const Ctx<C>& ctx) {
    if constexpr (is_same<C, bool>::value) {
      return a || (ctx.s0 && b);
    } else if constexpr (is_int<C>::value) {
      return wrap_add(a, wrap_mul(ctx.s0, b));
    } else {
      return a + ctx.s0 * b;
    }
  }
};
struct op_sub {  // a - alpha * b (PyTorch's a + (-alpha) * b, the same value)
  template <class C> static __device__ __forceinline__ C f(C a, C b, const Ctx<C>& ctx) {
    if constexpr (is_int<C>::value) {
      return wrap_sub(a, wrap_mul(ctx.s0, b));
    } else {
      return a - ctx.s0 * b;
    }
  }
};
struct op_mul {
  template <class C> static __device__ __forceinline__ C f(C a, C b, const Ctx<C>&) {
    if constexpr (is_same<C, bool>::value) {
      return a && b;
    } else if constexpr (is_int<C>::value) {
      return wrap_mul(a, b);
    } else {
      return a * b;
    }
  }
};
struct op_div {
  template <class C> static __device__ __forceinline__ C f(C a, C b, const Ctx<C>&) {
    return a / b;
  }
};
// maximum/minimum: NaN in either gives NaN; bool is or/and; the CPU's order otherwise (which
// of -0 and +0 wins too).
struct op_maximum {
  template <class C> static __device__ __forceinline__ C f(C a, C b, const Ctx<C>&) {
    if constexpr (is_same<C, bool>::value) {
      return a || b;
    } else {
      if constexpr (is_float<C>::value) {
        if (a != a || b != b) return quiet_nan<C>();
      }
      return a < b ? b : a;
    }
  }
};
struct op_minimum {
  template <class C> static __device__ __forceinline__ C f(C a, C b, const Ctx<C>&) {
    if constexpr (is_same<C, bool>::value) {
      return a && b;
    } else {
      if constexpr (is_float<C>::value) {
        if (a != a || b != b) return quiet_nan<C>();
      }
      return b < a ? b : a;
    }
  }
};
struct op_pow {  // C's pow; integers by squaring
  template <class C> static __device__ __forceinline__ C f(C a, C b, const Ctx<C>&) {
    if constexpr (is_int<C>::value) {
      return powi(a, b);
    } else {
      return pow(a, b);
    }
  }
};
TP_COMPARE(eq, a == b)
TP_COMPARE(ne, a != b)
TP_COMPARE(lt, a < b)
TP_COMPARE(le, a <= b)
TP_COMPARE(gt, a > b)
TP_COMPARE(ge, a >= b)
struct op_atan2 {
  template <class C> static __device__ __forceinline__ C f(C a, C b, const Ctx<C>&) {
    return atan2(a, b);
  }
};
struct op_remainder {
  template <class C> static __device__ __forceinline__ C f(C a, C b, const Ctx<C>& ctx) {
    if constexpr (is_int<C>::value) {
      return remainder_int(a, b, ctx.error);
    } else {
      C mod = fmod(a, b);
      if (mod != C(0) && ((b < C(0)) != (mod < C(0)))) mod += b;
      return mod;
    }
  }
};
struct op_fmod {
  template <class C> static __device__ __forceinline__ C f(C a, C b, const Ctx<C>& ctx) {
    if constexpr (is_int<C>::value) {
      return fmod_int(a, b, ctx.error);
    } else {
      return fmod(a, b);
    }
  }
};
struct op_div_trunc {
  template <class C> static __device__ __forceinline__ C f(C a, C b, const Ctx<C>& ctx) {
    if constexpr (is_int<C>::value) {
      return div_trunc_int(a, b, ctx.error);
    } else {
      return trunc(a / b);
    }
  }
};
struct op_div_floor {
  template <class C> static __device__ __forceinline__ C f(C a, C b, const Ctx<C>& ctx) {
    if constexpr (is_int<C>::value) {
      return div_floor_int(a, b, ctx.error);
    } else {
      return div_floor_float(a, b);
    }
  }
};
struct op_where {
  template <class C>
  static __device__ __forceinline__ C f(bool c, C a, C b, const Ctx<C>&) { return c ? a : b; }
};
struct op_neg {
  template <class C> static __device__ __forceinline__ C f(C x, const Ctx<C>&) {
    if constexpr (is_int<C>::value) {
      return wrap_neg(x);
    } else {
      return -x;
    }
  }
};
struct op_abs {  // floats: the sign bit cleared (abs(-0.0) = +0.0)
  template <class C> static __device__ __forceinline__ C f(C x, const Ctx<C>&) {
    if constexpr (is_float<C>::value) {
      return fabs(x);
    } else if constexpr (!is_signed<C>::value) {
      return x;
    } else {
      return x < 0 ? wrap_neg(x) : x;
    }
  }
};
struct op_relu {  // keeps NaN and -0.0, as the CPU's clamp_min(x, 0)
  template <class C> static __device__ __forceinline__ C f(C x, const Ctx<C>&) {
    if constexpr (is_int<C>::value && !is_signed<C>::value) {
      return x;
    } else {
      return x < C(0) ? C(0) : x;
    }
  }
};
// clamp: min(max(x, s0), s1); a NaN x stays NaN, lo > hi gives hi, a NaN bound gives NaN.
struct op_clamp {
  template <class C> static __device__ __forceinline__ C f(C x, const Ctx<C>& ctx) {
    const C lo = ctx.s0, hi = ctx.s1;
    if constexpr (is_int<C>::value) {
      const C y = x < lo ? lo : x;
      return hi < y ? hi : y;
    } else {
      const C y = (x < lo || lo != lo) ? lo : x;
      return (hi < y || hi != hi) ? hi : y;
    }
  }
};
struct op_square {
  template <class C> static __device__ __forceinline__ C f(C x, const Ctx<C>&) {
    if constexpr (is_int<C>::value) {
      return wrap_mul(x, x);
    } else {
      return x * x;
    }
  }
};
// The functions the CPU has for the floating types only (integer inputs were promoted).
TP_UNARY(exp, exp(x))
TP_UNARY(log, log(x))
TP_UNARY(sqrt, sqrt(x))
TP_UNARY(rsqrt, C(1) / sqrt(x))
TP_UNARY(tanh, tanh(x))
TP_UNARY(sigmoid, C(1) / (C(1) + exp(-x)))
// x / 2 * (1 + erf(x / sqrt(2))) and the tanh form, in the CPU's order of operations.
TP_UNARY(gelu, x * C(0.5) * (C(1) + erf(x * C(0.70710678118654752440))))
TP_UNARY(gelu_tanh, C(0.5) * x *
                        (C(1) + tanh(C(0.79788456080286535588) * (x + C(0.044715) * x * x * x))))
TP_UNARY(silu, x / (C(1) + exp(-x)))
TP_UNARY(sin, sin(x))
TP_UNARY(cos, cos(x))
TP_UNARY(reciprocal, C(1) / x)
TP_UNARY(tan, tan(x))
TP_UNARY(asin, asin(x))
TP_UNARY(acos, acos(x))
TP_UNARY(atan, atan(x))
TP_UNARY(sinh, sinh(x))
TP_UNARY(cosh, cosh(x))
TP_UNARY(exp2, exp2(x))
TP_UNARY(expm1, expm1(x))
TP_UNARY(log2, log2(x))
TP_UNARY(log10, log10(x))
TP_UNARY(log1p, log1p(x))
TP_UNARY(erf, erf(x))
// Rounding: an integer is its own result (the CPU copies it); round is half to even.
#define TP_ROUNDING(name, fn)                                                  \
  struct op_##name {                                                           \
    template <class C> static __device__ __forceinline__ C f(C x, const Ctx<C>&) { \
      if constexpr (is_float<C>::value) {                                      \
        return fn(x);                                                          \
      } else {                                                                 \
        return x;                                                              \
      }                                                                        \
    }                                                                          \
  };
TP_ROUNDING(floor, floor)
TP_ROUNDING(ceil, ceil)
TP_ROUNDING(trunc, trunc)
TP_ROUNDING(round, rint)
#undef TP_UNARY
#undef TP_COMPARE
#undef TP_ROUNDING

// ---- the kernel ----
// Operand K's value: its constant, or the element at its offset.
template <class S, int K, int N, class I>
__device__ __forceinline__ typename opmath<S>::type operand(const PointwiseParams<N, I>& p,
                                                            const Offsets<N, I>& o) {
  if (p.constant_mask & (1u << K)) return from_bits<S>(p.constants[K]);
  return load<S>(p.data[K] + o.v[K]);
}

// The elements of a launch over `numel` that this thread does: up to kElementsPerThread, a
// block-width apart (coalesced), f(idx) each. Every one-element-per-index kernel (elementwise,
// copies, random numbers) walks its space with it.
template <class I, class F>
__device__ __forceinline__ void for_each_element(I numel, F&& f) {
  const I step = static_cast<I>(blockDim.x);
  I idx = static_cast<I>(blockIdx.x) * step * kElementsPerThread + static_cast<I>(threadIdx.x);
  for (unsigned i = 0; i < kElementsPerThread; ++i, idx += step) {
    if (idx >= numel) return;
    f(idx);
  }
}

// Element idx of the iteration space, its operands found by the offset calculator.
template <class Op, class C, class Out, class In0, class In1, class In2, int N, class I>
__device__ __forceinline__ void pointwise(const PointwiseParams<N, I>& p) {
  const Ctx<C> ctx = {from_bits<C>(p.scalars[0]), from_bits<C>(p.scalars[1]), p.error};
  for_each_element(p.numel, [&](I idx) {
    const Offsets<N, I> o = p.offsets.get(idx);
    if constexpr (N == 2) {
      store<Out>(p.data[0] + o.v[0], Op::f(operand<In0, 1>(p, o), ctx));
    } else if constexpr (N == 3) {
      store<Out>(p.data[0] + o.v[0], Op::f(operand<In0, 1>(p, o), operand<In1, 2>(p, o), ctx));
    } else {
      store<Out>(p.data[0] + o.v[0], Op::f(operand<In0, 1>(p, o), operand<In1, 2>(p, o),
                                           operand<In2, 3>(p, o), ctx));
    }
  });
}

}  // namespace tp
)CUDA";
  return s;
}

}  // namespace detail

// The CUDA source of one NVRTC program holding the kernels of `keys` (each checked), an
// `extern "C"` entry named pointwise_kernel_name(key) each. One key is the run-time case; many
// batch the compilation (the tests compile every op and dtype in a few programs).
inline std::string pointwise_kernel_source(std::span<const PointwiseKernelKey> keys) {
  std::string s = detail::pointwise_prelude();
  s += "\n";
  for (const PointwiseKernelKey& key : keys) {
    check_pointwise_kernel_key(key);
    const PointwiseOpInfo& info = pointwise_op_info(key.code);
    const std::string_view index = key.index64 ? "unsigned long long" : "unsigned";
    const std::string params =
        ::tensorplay::detail::str_cat("tp::PointwiseParams<", info.arity + 1, ", ", index, ">");
    std::string types = ::tensorplay::detail::str_cat(
        "tp::op_", info.name, ", ", detail::cuda_compute_type(pointwise_compute_dtype(key)), ", ",
        detail::cuda_storage_type(key.out));
    for (std::size_t k = 0; k < 3; ++k) {
      types += k < std::size_t(info.arity)
                   ? ::tensorplay::detail::str_cat(", ", detail::cuda_storage_type(key.inputs[k]))
                   : std::string(", void");
    }
    s += ::tensorplay::detail::str_cat(
        "extern \"C\" __global__ void __launch_bounds__(", kPointwiseBlockSize, ") ",
        pointwise_kernel_name(key), "(const __grid_constant__ ", params, " p) {\n  tp::pointwise<",
        types, ", ", info.arity + 1, ", ", index, ">(p);\n}\n");
  }
  return s;
}

}  // namespace tensorplay::cuda
