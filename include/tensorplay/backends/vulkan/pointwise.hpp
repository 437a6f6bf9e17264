// The Vulkan kernel of every elementwise op (ops/device_dispatch.hpp's PointwiseOp): one shader
// (shaders/pointwise.comp) that walks a TensorIterator's iteration space with the operands' own
// strides, so broadcasting, transposed operands and out= tensors need no copies. The front ends
// (promotion, broadcasting, out= and in-place rules, autograd) are the CPU's; this is only the
// kernel step.
//
// Every op computes in float32: inputs float32 (where's condition bool), output float32, or bool
// for the comparisons. The ops that have a meaning without float32's transcendental functions
// (arithmetic, pow, comparisons, where, clamp, abs, neg, relu, square, and integer division with
// the CPU's ZeroDivisionError, checked on the host first) also compute in int32, and in int64 where
// the device reports shaderInt64; every op computes in float64 where it reports shaderFloat64, the
// transcendental ones with shaders/math_f64.glsl's double-precision functions
// (shaders/pointwise_typed.glsl, one shader per type). Float16 and bfloat16 compute in float32,
// bool and the 8- and 16-bit integers in int32, as on the CPU: inputs converted and the result
// converted back by the cast shader (cast.hpp). A CPU 0-d input (a wrapped number) is passed as a
// constant (uploaded, for the 64-bit types). An op the typed shaders do not have raises TypeError,
// an op no shader has "Could not run ..." (the dispatch point's NotImplementedError). An iteration
// of more than 4 dimensions (after coalescing) runs over contiguous, expanded copies of its inputs.
#pragma once

#include <tensorplay/backends/vulkan/cast.hpp>
#include <tensorplay/backends/vulkan/pipeline.hpp>
#include <tensorplay/backends/vulkan/shaders/pointwise.spv.hpp>
#include <tensorplay/backends/vulkan/shaders/pointwise_f64.spv.hpp>
#include <tensorplay/backends/vulkan/shaders/pointwise_i32.spv.hpp>
#include <tensorplay/backends/vulkan/shaders/pointwise_i64.spv.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

namespace tensorplay {
namespace vulkan {

inline constexpr int kMaxPointwiseDims = 4;

namespace detail {
struct PointwisePush {
  std::uint32_t numel, ndim, flags;
  std::uint32_t offsets[4];
  std::uint32_t sizes[kMaxPointwiseDims];
  std::uint32_t strides[4 * kMaxPointwiseDims];
  float s0, s1;
};
static_assert(sizeof(PointwisePush) == 116, "push constants must fit the guaranteed 128 bytes");

// The typed shaders' push constants: s0 and s1 as the compute type's words (two for 64 bits).
struct TypedPointwisePush {
  std::uint32_t numel, ndim, flags;
  std::uint32_t offsets[4];
  std::uint32_t sizes[kMaxPointwiseDims];
  std::uint32_t strides[4 * kMaxPointwiseDims];
  std::uint32_t s[4];
};
static_assert(sizeof(TypedPointwisePush) == 124, "push constants must fit 128 bytes");

inline constexpr std::uint32_t kPointwiseShaderOps = 52;  // shaders/pointwise.comp's op numbers

template <std::size_t... I>
constexpr std::array<ShaderInfo, sizeof...(I)> pointwise_shaders(const char* name,
                                                                 const std::uint32_t* spirv,
                                                                 std::size_t bytes,
                                                                 std::uint32_t push_bytes,
                                                                 std::index_sequence<I...>) {
  return {ShaderInfo{name, spirv, bytes, /*num_buffers=*/4, push_bytes, /*local_size_x=*/256,
                     /*specialized=*/true, /*specialization=*/static_cast<std::uint32_t>(I)}...};
}
using PointwiseShaders = std::array<ShaderInfo, kPointwiseShaderOps>;
}  // namespace detail

// The pointwise shaders, each specialised for each of its ops (pipelines are cached per
// ShaderInfo, so an op never run is never compiled).
inline constexpr detail::PointwiseShaders pointwise_shader = detail::pointwise_shaders(
    "pointwise", shaders::pointwise_spv, sizeof(shaders::pointwise_spv),
    sizeof(detail::PointwisePush), std::make_index_sequence<detail::kPointwiseShaderOps>());
inline constexpr detail::PointwiseShaders pointwise_i32_shader = detail::pointwise_shaders(
    "pointwise_i32", shaders::pointwise_i32_spv, sizeof(shaders::pointwise_i32_spv),
    sizeof(detail::TypedPointwisePush), std::make_index_sequence<detail::kPointwiseShaderOps>());
inline constexpr detail::PointwiseShaders pointwise_i64_shader = detail::pointwise_shaders(
    "pointwise_i64", shaders::pointwise_i64_spv, sizeof(shaders::pointwise_i64_spv),
    sizeof(detail::TypedPointwisePush), std::make_index_sequence<detail::kPointwiseShaderOps>());
inline constexpr detail::PointwiseShaders pointwise_f64_shader = detail::pointwise_shaders(
    "pointwise_f64", shaders::pointwise_f64_spv, sizeof(shaders::pointwise_f64_spv),
    sizeof(detail::TypedPointwisePush), std::make_index_sequence<detail::kPointwiseShaderOps>());

namespace detail {

// The shader's op numbers (shaders/pointwise.comp), and what each op reads and writes.
enum class Arity : std::uint8_t { Unary, Binary, Ternary };
struct ShaderOp {
  std::uint32_t number;
  Arity arity;
  bool bool_output;
};
inline constexpr std::uint32_t kNoShaderOp = std::numeric_limits<std::uint32_t>::max();

constexpr ShaderOp shader_op(PointwiseCode code) noexcept {
  using C = PointwiseCode;
  switch (code) {
    case C::Add: return {0, Arity::Binary, false};
    case C::Sub: return {1, Arity::Binary, false};
    case C::Mul: return {2, Arity::Binary, false};
    case C::Div: return {3, Arity::Binary, false};
    case C::Maximum: return {4, Arity::Binary, false};
    case C::Minimum: return {5, Arity::Binary, false};
    case C::Pow: return {6, Arity::Binary, false};
    case C::Eq: return {7, Arity::Binary, true};
    case C::Ne: return {8, Arity::Binary, true};
    case C::Lt: return {9, Arity::Binary, true};
    case C::Le: return {10, Arity::Binary, true};
    case C::Gt: return {11, Arity::Binary, true};
    case C::Ge: return {12, Arity::Binary, true};
    case C::Where: return {13, Arity::Ternary, false};
    case C::Neg: return {14, Arity::Unary, false};
    case C::Abs: return {15, Arity::Unary, false};
    case C::Exp: return {16, Arity::Unary, false};
    case C::Log: return {17, Arity::Unary, false};
    case C::Sqrt: return {18, Arity::Unary, false};
    case C::Rsqrt: return {19, Arity::Unary, false};
    case C::Tanh: return {20, Arity::Unary, false};
    case C::Sigmoid: return {21, Arity::Unary, false};
    case C::Relu: return {22, Arity::Unary, false};
    case C::Gelu: return {23, Arity::Unary, false};
    case C::GeluTanh: return {24, Arity::Unary, false};
    case C::Silu: return {25, Arity::Unary, false};
    case C::Sin: return {26, Arity::Unary, false};
    case C::Cos: return {27, Arity::Unary, false};
    case C::Clamp: return {28, Arity::Unary, false};
    case C::Reciprocal: return {29, Arity::Unary, false};
    case C::Square: return {30, Arity::Unary, false};
    case C::Atan2: return {31, Arity::Binary, false};
    case C::Remainder: return {32, Arity::Binary, false};
    case C::Fmod: return {33, Arity::Binary, false};
    case C::DivTrunc: return {34, Arity::Binary, false};
    case C::DivFloor: return {35, Arity::Binary, false};
    case C::Tan: return {36, Arity::Unary, false};
    case C::Asin: return {37, Arity::Unary, false};
    case C::Acos: return {38, Arity::Unary, false};
    case C::Atan: return {39, Arity::Unary, false};
    case C::Sinh: return {40, Arity::Unary, false};
    case C::Cosh: return {41, Arity::Unary, false};
    case C::Exp2: return {42, Arity::Unary, false};
    case C::Expm1: return {43, Arity::Unary, false};
    case C::Log2: return {44, Arity::Unary, false};
    case C::Log10: return {45, Arity::Unary, false};
    case C::Log1p: return {46, Arity::Unary, false};
    case C::Erf: return {47, Arity::Unary, false};
    case C::Floor: return {48, Arity::Unary, false};
    case C::Ceil: return {49, Arity::Unary, false};
    case C::Trunc: return {50, Arity::Unary, false};
    case C::Round: return {51, Arity::Unary, false};
    case C::None: break;
  }
  return {kNoShaderOp, Arity::Unary, false};
}

// A storage's range, rounded up to whole 32-bit words (the shader reads and writes words;
// allocations are 256-byte blocks, so the word is always there).
inline BufferRange word_range(const Tensor& t) {
  BufferRange r = buffer_of(t.storage().data_ptr());
  r.size = (std::min<VkDeviceSize>(r.size, t.storage().nbytes()) + 3) / 4 * 4;
  return r;
}

inline std::uint32_t checked_u32(int64_t v, const char* what) {
  TP_CHECK_NOT_IMPLEMENTED(v >= 0 && v <= int64_t{UINT32_MAX}, "vulkan: ", what, " ", v,
                           " does not fit the kernels' 32-bit indices");
  return static_cast<std::uint32_t>(v);
}

inline void run_pointwise(const TensorIterator& iter, PointwiseCode code, double s0, double s1);

// The dtype a kernel computes a narrow dtype in, as the CPU does (c10's opmath type): float32
// for float16 and bfloat16, int32 for bool and the 8- and 16-bit integers; others are their own.
constexpr DType wide_compute_dtype(DType dt) noexcept {
  switch (dt) {
    case kHalf: case kBFloat16: return kFloat;
    case kBool: case kByte: case kChar: case kShort: return kInt;
    default: return dt;
  }
}

// More dimensions than the push constants hold: the same op over contiguous, expanded copies
// of the inputs (one dimension), written back into the output if it is not contiguous.
inline void run_pointwise_flat(const TensorIterator& iter, PointwiseCode code, double s0,
                               double s1) {
  NoGradGuard no_grad;
  const Tensor& out = iter.tensor(0);
  const IntArrayRef shape = out.sizes();
  Tensor flat_out = out.is_contiguous() ? out : empty(shape, out.options());
  TensorIteratorConfig config;
  config.add_output(flat_out).check_all_same_dtype(false).set_check_mem_overlap(false);
  for (int k = 0; k < iter.ninputs(); ++k) {
    const Tensor& in = iter.input(k);
    config.add_input(in.is_cpu() ? in : in.expand(shape).contiguous());
  }
  const TensorIterator flat = config.build();
  run_pointwise(flat, code, s0, s1);
  if (!flat_out.is_same(out)) ::tensorplay::detail::copy_impl(out, flat_out);
}

// Whether the typed shaders (pointwise_typed.glsl) have `code`: in int32 and int64 the ops that
// need none of float32's transcendental functions, pow included (by squaring, wrapping; rounding
// an integer is the integer; true division and roots of integers are the front ends'
// promotions); in float64 every op (shaders/math_f64.glsl has the transcendental functions).
constexpr bool typed_shader_has(PointwiseCode code, bool floating) noexcept {
  using C = PointwiseCode;
  switch (code) {
    case C::Add: case C::Sub: case C::Mul: case C::Maximum: case C::Minimum: case C::Eq:
    case C::Ne: case C::Lt: case C::Le: case C::Gt: case C::Ge: case C::Where: case C::Neg:
    case C::Abs: case C::Relu: case C::Clamp: case C::Square: case C::Remainder: case C::Fmod:
    case C::DivTrunc: case C::DivFloor: case C::Floor: case C::Ceil: case C::Trunc: case C::Round:
    case C::Pow:
      return true;
    case C::Div: case C::Sqrt: case C::Rsqrt: case C::Reciprocal: case C::Exp:
    case C::Exp2: case C::Expm1: case C::Log: case C::Log2: case C::Log10: case C::Log1p:
    case C::Sin: case C::Cos:
    case C::Tan: case C::Asin: case C::Acos: case C::Atan: case C::Atan2: case C::Sinh:
    case C::Cosh: case C::Tanh: case C::Sigmoid: case C::Silu: case C::Gelu: case C::GeluTanh:
    case C::Erf:
      return floating;
    default:
      return false;
  }
}

// Integer division by zero is the CPU's ZeroDivisionError, which a shader cannot raise: the
// divisor (input 1) is checked first, on the device (one reduction and a 1-byte read).
inline void check_integer_divisor(const TensorIterator& iter, PointwiseCode code, DType dt) {
  using C = PointwiseCode;
  if (is_floating_point(dt) ||
      (code != C::DivTrunc && code != C::DivFloor && code != C::Remainder && code != C::Fmod)) {
    return;
  }
  NoGradGuard no_grad;
  const Tensor& divisor = iter.input(1);
  const bool zero = divisor.is_cpu() ? divisor.item().to<int64_t>() == 0
                                     : divisor.eq(0).amax().item<bool>();
  TP_CHECK(!zero, "ZeroDivisionError");
}

// The shaders for the dtype `op` computes in, or a typed error that says why there are none.
inline const PointwiseShaders& pointwise_shaders_for(DType dt, PointwiseCode code,
                                                     std::string_view name) {
  const auto refuse = [&](const char* why) {
    throw TypeError(::tensorplay::detail::str_cat(
        "'", name, "' on the Vulkan backend computes in float32", why, "; got a tensor of dtype ",
        scalar_type_name(dt), " (convert it with .to(kFloat), or move the tensors with .cpu())"));
  };
  if (dt == kFloat) return pointwise_shader;
  if (dt != kInt && dt != kLong && dt != kDouble) {
    refuse(typed_shader_has(code, false) ? " (and int32, int64, float64)" : "");
  }
  if (!typed_shader_has(code, dt == kDouble)) {
    refuse(typed_shader_has(code, true) ? " (and float64)" : "");
  }
  if (dt == kInt) return pointwise_i32_shader;
  const Context& ctx = context();
  TP_CHECK_TYPE(dt == kLong ? ctx.has_int64() : ctx.has_float64(), "'", name, "' in ",
                scalar_type_name(dt), " on the Vulkan backend needs a device with ",
                dt == kLong ? "shaderInt64" : "shaderFloat64", ", which '", ctx.device_name(),
                "' does not report (convert it with .to(kFloat), or move the tensors with "
                ".cpu())");
  return dt == kLong ? pointwise_i64_shader : pointwise_f64_shader;
}

// s0/s1 as the typed shaders read them: the compute type's words, low word first; integers
// saturate (clamp's missing bound is the type's extreme, which a double cannot hold exactly).
inline void typed_scalar(DType dt, double v, std::uint32_t* words) {
  std::uint64_t bits = 0;
  if (dt == kDouble) {
    bits = std::bit_cast<std::uint64_t>(v);
  } else if (dt == kLong) {
    using L = std::numeric_limits<std::int64_t>;
    const std::int64_t i = v <= -0x1p63 ? L::min() : v >= 0x1p63 ? L::max()
                                                                 : static_cast<std::int64_t>(v);
    bits = static_cast<std::uint64_t>(i);
  } else {
    using L = std::numeric_limits<std::int32_t>;
    const std::int32_t i = v <= L::min() ? L::min() : v >= L::max() ? L::max()
                                                                     : static_cast<std::int32_t>(v);
    bits = static_cast<std::uint32_t>(i);
  }
  words[0] = static_cast<std::uint32_t>(bits);
  words[1] = static_cast<std::uint32_t>(bits >> 32);
}

// The same op in the wide dtype: the inputs converted (on the device; a wrapped number on the
// host), the result computed into a temporary (a bool result directly) and converted back.
inline void run_pointwise_wide(const TensorIterator& iter, PointwiseCode code, double s0,
                               double s1, DType wide) {
  NoGradGuard no_grad;
  const ShaderOp op = shader_op(code);
  const Tensor& out = iter.tensor(0);
  const Tensor wide_out = op.bool_output ? out : empty(out.sizes(), out.options().dtype(wide));
  TensorIteratorConfig config;
  config.add_output(wide_out).check_all_same_dtype(false).set_check_mem_overlap(false);
  for (int k = 0; k < iter.ninputs(); ++k) {
    const Tensor& in = iter.input(k);
    const bool condition = code == PointwiseCode::Where && k == 0;
    if (condition || in.dtype() == wide) {
      config.add_input(in);
    } else {
      config.add_input(in.is_cpu() ? in.to(wide) : cast_to(in, wide));
    }
  }
  run_pointwise(config.build(), code, s0, s1);
  if (!wide_out.is_same(out)) cast_copy(out, wide_out);
}

inline void run_pointwise(const TensorIterator& iter, PointwiseCode code, double s0, double s1) {
  const ShaderOp op = shader_op(code);
  const std::string_view name = pointwise_name(code);
  if (op.number == kNoShaderOp) {
    ::tensorplay::detail::throw_no_device_kernel(name, DeviceType::Vulkan, /*compiled_in=*/true);
  }
  const int ninputs = op.arity == Arity::Unary ? 1 : op.arity == Arity::Binary ? 2 : 3;
  TP_CHECK(iter.noutputs() == 1 && iter.ninputs() == ninputs, "vulkan: '", name, "' expects ",
           ninputs, " inputs and one output, got ", iter.ninputs(), " and ", iter.noutputs());
  // The compute dtype: the output's, or (comparisons) the inputs'.
  const DType compute = op.bool_output ? iter.dtype(1) : iter.dtype(0);
  if (const DType wide = wide_compute_dtype(compute); wide != compute && iter.numel() > 0) {
    return run_pointwise_wide(iter, code, s0, s1, wide);
  }
  const PointwiseShaders& shaders = pointwise_shaders_for(compute, code, name);
  for (int k = 0; k < iter.ntensors(); ++k) {
    const bool condition = code == PointwiseCode::Where && k == 1;
    const DType want = (k == 0 && op.bool_output) || condition ? kBool : compute;
    TP_CHECK_TYPE(iter.dtype(k) == want, "'", name,
                  "' on the Vulkan backend computes in one dtype; got tensors of dtypes ",
                  scalar_type_name(compute), " and ", scalar_type_name(iter.dtype(k)));
  }
  if (iter.numel() == 0) return;
  check_integer_divisor(iter, code, compute);
  if (iter.ndim() > kMaxPointwiseDims) return run_pointwise_flat(iter, code, s0, s1);

  const bool typed = compute != kFloat;
  const bool wide = compute == kLong || compute == kDouble;
  TypedPointwisePush push{};
  push.numel = checked_u32(iter.numel(), "an op over");
  push.ndim = static_cast<std::uint32_t>(iter.ndim());
  for (int d = 0; d < iter.ndim(); ++d) push.sizes[d] = checked_u32(iter.shape()[d], "a size of");
  BufferRange ranges[4];
  Tensor uploaded[4];  // 64-bit constants, as device tensors (freed in stream order)
  for (int k = 0; k < iter.ntensors(); ++k) {
    const Tensor* t = &iter.tensor(k);
    if (k > 0 && t->is_cpu()) {  // a wrapped number (checked 0-d by the iterator)
      if (!wide) {  // a constant in place of the offset
        push.flags |= 1u << (k - 1);
        push.offsets[k] = typed ? static_cast<std::uint32_t>(t->item().to<std::int32_t>())
                                : std::bit_cast<std::uint32_t>(t->item().to<float>());
        continue;
      }
      uploaded[k] = t->to(iter.tensor(0).device());
      t = &uploaded[k];
    }
    if (t->dtype() == kBool) push.flags |= k == 0 ? 256u : 16u << (k - 1);
    ranges[k] = word_range(*t);
    push.offsets[k] = checked_u32(t->storage_offset(), "a storage offset of");
    checked_u32(static_cast<int64_t>(t->storage().nbytes() / t->itemsize()), "a storage of");
    for (int d = 0; d < iter.ndim(); ++d) {
      push.strides[4 * k + d] =
          checked_u32(iter.stride(k, d) / iter.element_size(k), "a stride of");
    }
  }
  // Unused and constant slots bind the output's range (never read).
  for (int k = 1; k < 4; ++k) {
    if (ranges[k].buffer == VK_NULL_HANDLE) ranges[k] = ranges[0];
  }
  const BufferRange& r0 = ranges[0];
  if (typed) {
    typed_scalar(compute, s0, push.s);
    typed_scalar(compute, s1, push.s + 2);
    dispatch_1d(shaders[op.number], {r0, ranges[1], ranges[2], ranges[3]}, push, iter.numel());
    return;
  }
  // The float32 shader's push constants: the same fields, s0 and s1 as floats.
  PointwisePush fpush{};
  std::memcpy(&fpush, &push, offsetof(PointwisePush, s0));
  fpush.s0 = static_cast<float>(s0);
  fpush.s1 = static_cast<float>(s1);
  dispatch_1d(shaders[op.number], {r0, ranges[1], ranges[2], ranges[3]}, fpush, iter.numel());
}

}  // namespace detail
}  // namespace vulkan

template <class>
void DeviceKernel<PointwiseOp, DeviceType::Vulkan>::run(const TensorIterator& iter,
                                                      PointwiseCode code, double s0, double s1) {
  vulkan::detail::run_pointwise(iter, code, s0, s1);
}

}  // namespace tensorplay
