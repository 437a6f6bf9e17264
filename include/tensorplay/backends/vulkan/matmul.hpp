// Vulkan batched matrix product with an optional bias term (the kernel behind mm, bmm, matmul,
// addmm/baddbmm and linear): C[b] = alpha * A[b] @ B[b] + beta * Bias[b], in float32 and int32,
// and float64 and int64 where the device reports shaderFloat64 / shaderInt64 (integers wrap, as
// on the CPU). Shaders: shaders/matmul.comp, matmul_f64.comp, matmul_i32.comp and
// matmul_i64.comp (one body, shaders/matmul_body.glsl).
//
// A (m x k), B (k x n) and Bias (m x n) are strided views of buffer ranges: a first element
// and element strides per batch, row and column, any of which may be 0 (broadcast), so
// transposed operands and broadcast bias rows or columns need no copy. C is contiguous: batch
// x m x n, row-major from element c_first. The shader computes 16x16 tiles of C in workgroups
// of 256 invocations, staging 16x16 tiles of A and B in shared memory; sizes need not be
// multiples of 16. The grid is n tiles (x) by m tiles (y) by batch (z); a grid larger than
// maxComputeWorkGroupCount is split into several dispatches. Each C element is summed in a
// fixed order: results are deterministic.
//
// As in PyTorch's addmm, beta == 0 ignores the bias entirely (NaN or inf in it does not
// propagate); k == 0 gives beta * Bias, or zeros without a bias.
#pragma once

#include <tensorplay/backends/vulkan/pipeline.hpp>
#include <tensorplay/backends/vulkan/shaders/matmul.spv.hpp>
#include <tensorplay/backends/vulkan/shaders/matmul_f64.spv.hpp>
#include <tensorplay/backends/vulkan/shaders/matmul_i32.spv.hpp>
#include <tensorplay/backends/vulkan/shaders/matmul_i64.spv.hpp>
#include <tensorplay/core/dtype.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace tensorplay::vulkan {

// One strided operand: element (b, i, j) is
// first + b * batch_stride + i * row_stride + j * col_stride of `buffer` (in elements).
struct MatmulOperand {
  BufferRange buffer;
  std::size_t first = 0;
  std::int64_t batch_stride = 0, row_stride = 0, col_stride = 0;
};

namespace detail {
struct MatmulPush {
  std::uint32_t a[4], b[4], bias[4];  // first, batch stride, row stride, column stride
  std::uint32_t c_first, m, n, k, batch;
  std::uint32_t alpha[2], beta[2];  // the element type's words (a 32-bit type's in word 0)
  std::uint32_t has_bias;
  std::uint32_t base_x, base_y, base_z;  // first column tile, row tile and batch of a dispatch
};
static_assert(sizeof(MatmulPush) == 100);  // within the 128 bytes every device allows
// Products with k up to this are computed without shared-memory tiles (their barriers cost
// more than they save there).
inline constexpr std::uint32_t kDirectMaxK = 64;

inline constexpr std::uint32_t kMatmulTile = 16;

// Checks that every element of `op` viewed as batch x rows x cols (all > 0) lies in its range
// and that every offset fits 32 bits; writes the operand's push constants (strides of
// dimensions of size 1 become 0, as they never move the index).
inline void matmul_operand(const char* name, const MatmulOperand& op, std::uint32_t batch,
                           std::uint32_t rows, std::uint32_t cols, std::size_t itemsize,
                           std::uint32_t out[4]) {
  const std::int64_t strides[3] = {op.batch_stride, op.row_stride, op.col_stride};
  const std::uint32_t extents[3] = {batch, rows, cols};
  TP_CHECK_VALUE(strides[0] >= 0 && strides[1] >= 0 && strides[2] >= 0, "vulkan::bmm: operand ",
                 name, " has strides (", strides[0], ", ", strides[1], ", ", strides[2],
                 "); they must be non-negative");
  TP_CHECK_NOT_IMPLEMENTED(op.first <= UINT32_MAX, "vulkan::bmm: operand ", name,
                           " starts at element ", op.first, ", beyond 32-bit indices");
  std::uint64_t last = op.first;  // largest element read
  out[0] = static_cast<std::uint32_t>(op.first);
  for (int d = 0; d < 3; ++d) {
    const std::uint64_t span = extents[d] - 1;
    const auto stride = static_cast<std::uint64_t>(strides[d]);
    // Keeps `last` within 32 bits (so nothing wraps in 64).
    TP_CHECK_NOT_IMPLEMENTED(span == 0 || stride <= (UINT32_MAX - last) / span,
                             "vulkan::bmm: operand ", name, " (", batch, " x ", rows, " x ", cols,
                             " with strides ", strides[0], ", ", strides[1], ", ", strides[2],
                             " from element ", op.first, ") reaches beyond 32-bit indices");
    last += stride * span;
    out[d + 1] = span == 0 ? 0 : static_cast<std::uint32_t>(stride);
  }
  TP_CHECK_INDEX(last < op.buffer.size / itemsize, "vulkan::bmm: operand ", name,
                 " reads element ", last, " of a range of ", op.buffer.size / itemsize,
                 " elements");
}
}  // namespace detail

// [0]: shared-memory tiles; [1]: direct (specialization constant kDirect).
namespace detail {
constexpr ShaderInfo matmul_info(const char* name, const std::uint32_t* spirv, std::size_t bytes,
                                 std::uint32_t direct) {
  return {name, spirv, bytes, /*num_buffers=*/4, /*push_constant_bytes=*/sizeof(MatmulPush),
          /*local_size_x=*/256, /*specialized=*/true, /*specialization=*/direct};
}
}  // namespace detail
inline constexpr ShaderInfo matmul_shader[2] = {
    detail::matmul_info("matmul", shaders::matmul_spv, sizeof(shaders::matmul_spv), 0),
    detail::matmul_info("matmul", shaders::matmul_spv, sizeof(shaders::matmul_spv), 1)};
inline constexpr ShaderInfo matmul_f64_shader[2] = {
    detail::matmul_info("matmul_f64", shaders::matmul_f64_spv, sizeof(shaders::matmul_f64_spv), 0),
    detail::matmul_info("matmul_f64", shaders::matmul_f64_spv, sizeof(shaders::matmul_f64_spv), 1)};
inline constexpr ShaderInfo matmul_i32_shader[2] = {
    detail::matmul_info("matmul_i32", shaders::matmul_i32_spv, sizeof(shaders::matmul_i32_spv), 0),
    detail::matmul_info("matmul_i32", shaders::matmul_i32_spv, sizeof(shaders::matmul_i32_spv), 1)};
inline constexpr ShaderInfo matmul_i64_shader[2] = {
    detail::matmul_info("matmul_i64", shaders::matmul_i64_spv, sizeof(shaders::matmul_i64_spv), 0),
    detail::matmul_info("matmul_i64", shaders::matmul_i64_spv, sizeof(shaders::matmul_i64_spv), 1)};

// Whether this device has the product shader of dtype dt.
inline bool matmul_supports(DType dt) {
  if (dt == kFloat || dt == kInt) return true;
  if (dt == kDouble) return context().has_float64();
  return dt == kLong && context().has_int64();
}

// C[bi] = alpha * A[bi] @ B[bi] (+ beta * Bias[bi] when bias is not null) for bi < batch, with
// A[bi] m x k, B[bi] k x n and Bias[bi] m x n viewed through their MatmulOperands, and C
// written contiguously (batch x m x n) from element c_first of `c`. An empty C (batch, m or n
// 0) writes nothing. Offsets must fit 32-bit element indices. C must not overlap the inputs.
// Every operand has the element type `dt` (matmul_supports(dt)); alpha and beta are converted to
// it (integers truncate, as the CPU's Scalar conversion).
inline void bmm(const MatmulOperand& a, const MatmulOperand& b, std::uint32_t batch,
                std::uint32_t m, std::uint32_t n, std::uint32_t k, const BufferRange& c,
                std::size_t c_first, double alpha = 1, const MatmulOperand* bias = nullptr,
                double beta = 0, DType dt = kFloat) {
  TP_CHECK_TYPE(matmul_supports(dt), "vulkan::bmm computes in float32 and int32, and float64 and ",
                "int64 on a device with shaderFloat64 / shaderInt64; got ", scalar_type_name(dt));
  if (batch == 0 || m == 0 || n == 0) return;
  const std::size_t itemsize = dt == kDouble || dt == kLong ? 8 : 4;
  detail::MatmulPush push{};
  const std::uint64_t numel = std::uint64_t{batch} * m * n;
  TP_CHECK_NOT_IMPLEMENTED(c_first <= UINT32_MAX && c_first + numel <= UINT32_MAX,
                           "vulkan::bmm: ", batch, " x ", m, " x ", n, " results from element ",
                           c_first, " do not fit 32-bit indices");
  TP_CHECK_INDEX(c_first + numel <= c.size / itemsize, "vulkan::bmm: ", batch, " x ", m, " x ",
                 n, " results from element ", c_first, " do not fit a destination range of ",
                 c.size / itemsize, " elements");
  // With k == 0, A and B are not read (and may be empty ranges); nor is an ignored bias. `c`
  // stands in for them: every binding needs a valid range.
  if (k > 0) {
    detail::matmul_operand("a", a, batch, m, k, itemsize, push.a);
    detail::matmul_operand("b", b, batch, k, n, itemsize, push.b);
  }
  if (bias != nullptr) detail::matmul_operand("bias", *bias, batch, m, n, itemsize, push.bias);
  // beta == 0 in the element type (a float32 beta that rounds to 0 too) ignores the bias.
  const bool integral = dt == kInt || dt == kLong;
  const bool has_bias =
      bias != nullptr && (dt == kDouble  ? beta != 0
                          : integral     ? static_cast<std::int64_t>(beta) != 0
                                         : static_cast<float>(beta) != 0);
  push.c_first = static_cast<std::uint32_t>(c_first);
  push.m = m;
  push.n = n;
  push.k = k;
  push.batch = batch;
  const auto words = [dt, integral](double v, std::uint32_t out[2]) {
    const std::uint64_t bits =
        dt == kDouble ? std::bit_cast<std::uint64_t>(v)
        : integral    ? static_cast<std::uint64_t>(static_cast<std::int64_t>(v))
                      : std::bit_cast<std::uint32_t>(static_cast<float>(v));
    out[0] = static_cast<std::uint32_t>(bits);
    out[1] = static_cast<std::uint32_t>(bits >> 32);
  };
  words(alpha, push.alpha);
  words(beta, push.beta);
  push.has_bias = has_bias ? 1 : 0;
  const ShaderInfo* shaders = dt == kDouble ? matmul_f64_shader
                              : dt == kInt  ? matmul_i32_shader
                              : dt == kLong ? matmul_i64_shader
                                            : matmul_shader;
  const ShaderInfo& shader = shaders[k <= detail::kDirectMaxK ? 1 : 0];
  const BufferRange& a_range = k > 0 ? a.buffer : c;
  const BufferRange& b_range = k > 0 ? b.buffer : c;
  const BufferRange& bias_range = has_bias ? bias->buffer : c;

  const auto& limits = context().limits();
  const std::uint32_t tiles_x = (n - 1) / detail::kMatmulTile + 1;
  const std::uint32_t tiles_y = (m - 1) / detail::kMatmulTile + 1;
  const std::uint32_t max_x = limits.maxComputeWorkGroupCount[0];
  const std::uint32_t max_y = limits.maxComputeWorkGroupCount[1];
  const std::uint32_t max_z = limits.maxComputeWorkGroupCount[2];
  for (std::uint32_t z = 0; z < batch; z += std::min(max_z, batch - z)) {
    for (std::uint32_t y = 0; y < tiles_y; y += std::min(max_y, tiles_y - y)) {
      for (std::uint32_t x = 0; x < tiles_x; x += std::min(max_x, tiles_x - x)) {
        push.base_x = x;
        push.base_y = y;
        push.base_z = z;
        dispatch(shader, {a_range, b_range, bias_range, c}, push,
                 std::min(max_x, tiles_x - x), std::min(max_y, tiles_y - y),
                 std::min(max_z, batch - z));
      }
    }
  }
}

}  // namespace tensorplay::vulkan
