// The Vulkan kernel of every elementwise op (ops/device_dispatch.hpp's PointwiseOp): one
// shader (shaders/pointwise.comp) that walks a TensorIterator's iteration space with the
// operands' own strides, so broadcasting, transposed operands and out= tensors need no copies.
// The front ends (promotion, broadcasting, out= and in-place rules, autograd) are the CPU's;
// this is only the kernel step.
//
// Float32 compute: inputs float32 (where's condition bool), output float32, or bool for the
// comparisons; a CPU 0-d input (a wrapped number) is passed as a constant. Other dtypes raise
// TypeError, as does an op the shader does not have ("Could not run ..." from the dispatch
// point). An iteration of more than 4 dimensions (after coalescing) runs over contiguous,
// expanded copies of its inputs.
#pragma once

#include <tensorplay/backends/vulkan/pipeline.hpp>
#include <tensorplay/backends/vulkan/shaders/pointwise.spv.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
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

inline constexpr std::uint32_t kPointwiseShaderOps = 52;  // shaders/pointwise.comp's op numbers

template <std::size_t... I>
constexpr std::array<ShaderInfo, sizeof...(I)> pointwise_shaders(std::index_sequence<I...>) {
  return {ShaderInfo{"pointwise", shaders::pointwise_spv, sizeof(shaders::pointwise_spv),
                     /*num_buffers=*/4, /*push_constant_bytes=*/sizeof(PointwisePush),
                     /*local_size_x=*/256, /*specialized=*/true,
                     /*specialization=*/static_cast<std::uint32_t>(I)}...};
}
}  // namespace detail

// The pointwise shader, specialised for each of its ops (pipelines are cached per ShaderInfo).
inline constexpr std::array<ShaderInfo, detail::kPointwiseShaderOps> pointwise_shader =
    detail::pointwise_shaders(std::make_index_sequence<detail::kPointwiseShaderOps>());

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

inline void run_pointwise(const TensorIterator& iter, PointwiseCode code, double s0, double s1) {
  const ShaderOp op = shader_op(code);
  const std::string_view name = pointwise_name(code);
  if (op.number == kNoShaderOp) {
    ::tensorplay::detail::throw_no_device_kernel(name, DeviceType::Vulkan, /*compiled_in=*/true);
  }
  const int ninputs = op.arity == Arity::Unary ? 1 : op.arity == Arity::Binary ? 2 : 3;
  TP_CHECK(iter.noutputs() == 1 && iter.ninputs() == ninputs, "vulkan: '", name, "' expects ",
           ninputs, " inputs and one output, got ", iter.ninputs(), " and ", iter.noutputs());
  const DType out_dtype = op.bool_output ? kBool : kFloat;
  for (int k = 0; k < iter.ntensors(); ++k) {
    const bool condition = code == PointwiseCode::Where && k == 1;
    const DType want = k == 0 ? out_dtype : condition ? kBool : kFloat;
    TP_CHECK_TYPE(iter.dtype(k) == want, "'", name,
                  "' on the Vulkan backend computes in float32; got a tensor of dtype ",
                  scalar_type_name(iter.dtype(k)),
                  " (convert it with .to(kFloat), or move the tensors with .cpu())");
  }
  if (iter.numel() == 0) return;
  if (iter.ndim() > kMaxPointwiseDims) return run_pointwise_flat(iter, code, s0, s1);

  PointwisePush push{};
  push.numel = checked_u32(iter.numel(), "an op over");
  push.ndim = static_cast<std::uint32_t>(iter.ndim());
  push.s0 = static_cast<float>(s0);
  push.s1 = static_cast<float>(s1);
  for (int d = 0; d < iter.ndim(); ++d) push.sizes[d] = checked_u32(iter.shape()[d], "a size of");
  BufferRange ranges[4];
  for (int k = 0; k < iter.ntensors(); ++k) {
    const Tensor& t = iter.tensor(k);
    if (k > 0 && t.is_cpu()) {  // a wrapped number: a constant (checked 0-d by the iterator)
      push.flags |= 1u << (k - 1);
      push.offsets[k] = std::bit_cast<std::uint32_t>(t.item().to<float>());
      continue;
    }
    const bool bytes = t.dtype() == kBool;
    if (bytes) push.flags |= k == 0 ? 256u : 16u << (k - 1);
    ranges[k] = word_range(t);
    push.offsets[k] = checked_u32(t.storage_offset(), "a storage offset of");
    checked_u32(static_cast<int64_t>(t.storage().nbytes() / t.itemsize()), "a storage of");
    for (int d = 0; d < iter.ndim(); ++d) {
      push.strides[4 * k + d] =
          checked_u32(iter.stride(k, d) / iter.element_size(k), "a stride of");
    }
  }
  // Unused and constant slots bind the output's range (never read).
  for (int k = 1; k < 4; ++k) {
    if (ranges[k].buffer == VK_NULL_HANDLE) ranges[k] = ranges[0];
  }
  dispatch_1d(pointwise_shader[op.number], {ranges[0], ranges[1], ranges[2], ranges[3]}, push,
              iter.numel());
}

}  // namespace detail
}  // namespace vulkan

template <>
struct DeviceKernel<PointwiseOp, DeviceType::Vulkan> {
  static void run(const TensorIterator& iter, PointwiseCode code, double s0, double s1) {
    vulkan::detail::run_pointwise(iter, code, s0, s1);
  }
};

}  // namespace tensorplay
