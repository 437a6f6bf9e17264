// Vulkan row reductions of float32, int32, int64 or float64 matrices: sum, mean, prod, amax, amin
// (results of the input's dtype) and argmax, argmin (int64 results), one result per row of a
// contiguous rows x cols matrix. The kernel behind full and last-dimension reductions once the
// input is made contiguous. Shaders: shaders/reduce_body.glsl, compiled per dtype (reduce.comp
// for float32, reduce_i32/_i64/_f64.comp; the 64-bit ones where the device has shaderInt64 /
// shaderFloat64).
//
// One workgroup of 256 invocations per row (rows beyond maxComputeWorkGroupCount[0] fold into
// y, as dispatch_1d does); each invocation strides through the row and a shared-memory tree
// combines the partial results in a fixed order, so the results are deterministic (no
// atomics). Semantics follow PyTorch: the sum of an empty row is 0, its prod 1 and its mean
// NaN; amax and amin propagate NaN; argmax and argmin give the index of the first NaN if there
// is one, else of the first maximum (minimum). Amax/amin/argmax/argmin of an empty row is an
// IndexError.
#pragma once

#include <tensorplay/backends/vulkan/pipeline.hpp>
#include <tensorplay/backends/vulkan/shaders/reduce.spv.hpp>
#include <tensorplay/backends/vulkan/shaders/reduce_f64.spv.hpp>
#include <tensorplay/backends/vulkan/shaders/reduce_i32.spv.hpp>
#include <tensorplay/backends/vulkan/shaders/reduce_i64.spv.hpp>
#include <tensorplay/core/dtype.hpp>

#include <cstddef>
#include <cstdint>

namespace tensorplay::vulkan {

enum class ReduceKind : std::uint32_t { Sum, Mean, Amax, Amin, Argmax, Argmin, Prod };

inline const char* reduce_kind_name(ReduceKind kind) noexcept {
  switch (kind) {
    case ReduceKind::Sum: return "sum";
    case ReduceKind::Mean: return "mean";
    case ReduceKind::Amax: return "amax";
    case ReduceKind::Amin: return "amin";
    case ReduceKind::Argmax: return "argmax";
    case ReduceKind::Argmin: return "argmin";
    case ReduceKind::Prod: return "prod";
  }
  return "?";
}

namespace detail {
struct ReducePush {
  std::uint32_t src_first, rows, cols, kind, dst_first, serial;
};
static_assert(sizeof(ReducePush) == 24);
// Rows up to this long are reduced by one invocation each: a workgroup's shared-memory tree and
// barriers cost more than such rows' work.
inline constexpr std::uint32_t kSerialRowMax = 128;
}  // namespace detail

namespace detail {
constexpr ShaderInfo reduce_shader_info(const char* name, const std::uint32_t* spirv,
                                        std::size_t bytes) {
  return ShaderInfo{name, spirv, bytes, /*num_buffers=*/2,
                    /*push_constant_bytes=*/sizeof(ReducePush), /*local_size_x=*/256};
}
}  // namespace detail

inline constexpr ShaderInfo reduce_shader =
    detail::reduce_shader_info("reduce", shaders::reduce_spv, sizeof(shaders::reduce_spv));
inline constexpr ShaderInfo reduce_i32_shader = detail::reduce_shader_info(
    "reduce_i32", shaders::reduce_i32_spv, sizeof(shaders::reduce_i32_spv));
inline constexpr ShaderInfo reduce_i64_shader = detail::reduce_shader_info(
    "reduce_i64", shaders::reduce_i64_spv, sizeof(shaders::reduce_i64_spv));
inline constexpr ShaderInfo reduce_f64_shader = detail::reduce_shader_info(
    "reduce_f64", shaders::reduce_f64_spv, sizeof(shaders::reduce_f64_spv));

// Whether reduce_rows runs on `dt` on this device (int64 and float64 need the device's 64-bit
// shader features).
inline bool reduce_supports(DType dt) {
  if (dt == kFloat || dt == kInt) return true;
  if (dt == kLong) return context().has_int64();
  return dt == kDouble && context().has_float64();
}

// Reduces each row r of the rows x cols matrix of `dt` (reduce_supports) at elements
// [src_first + r * cols, src_first + (r + 1) * cols) of `src` into element dst_first + r of
// `dst`: `dt` for Sum/Mean/Prod/Amax/Amin, int64 for Argmax/Argmin (dst_first then counts int64
// elements). rows == 0 writes nothing. Offsets must fit 32-bit element indices.
inline void reduce_rows(const BufferRange& src, std::size_t src_first, std::uint32_t rows,
                        std::uint32_t cols, ReduceKind kind, const BufferRange& dst,
                        std::size_t dst_first, DType dt = kFloat) {
  const auto k = static_cast<std::uint32_t>(kind);
  TP_CHECK_VALUE(k <= static_cast<std::uint32_t>(ReduceKind::Prod),
                 "vulkan::reduce_rows: unknown reduction kind ", k);
  TP_CHECK_INDEX(cols > 0 || kind == ReduceKind::Sum || kind == ReduceKind::Mean ||
                     kind == ReduceKind::Prod,
                 "vulkan::reduce_rows: ", reduce_kind_name(kind),
                 "() of an empty row: Expected reduction dim to have non-zero size.");
  TP_CHECK_TYPE(reduce_supports(dt), "vulkan::reduce_rows: no ", scalar_type_name(dt),
                " reduction on this device");
  const ShaderInfo& shader = dt == kFloat  ? reduce_shader
                             : dt == kInt  ? reduce_i32_shader
                             : dt == kLong ? reduce_i64_shader
                                           : reduce_f64_shader;
  if (rows == 0) return;
  const bool index_out = kind == ReduceKind::Argmax || kind == ReduceKind::Argmin;
  const std::uint64_t numel = std::uint64_t{rows} * cols;
  const std::size_t size = itemsize(dt);
  check_elements("vulkan::reduce_rows", "source", src, src_first, numel, size);
  check_elements("vulkan::reduce_rows", index_out ? "int64 result" : "result", dst, dst_first,
                 rows, index_out ? 8 : size);
  const bool serial = cols <= detail::kSerialRowMax;
  const detail::ReducePush push{static_cast<std::uint32_t>(src_first), rows, cols, k,
                                static_cast<std::uint32_t>(dst_first), serial ? 1u : 0u};
  // One invocation per short row, else one workgroup per row (dispatch_1d's fold of rows * 256
  // invocations). With cols == 0 (sum/mean/prod only) nothing is read; `dst` stands in for the
  // empty source.
  const BufferRange& in = numel == 0 ? dst : src;
  dispatch_1d(shader, {in, dst}, push,
              serial ? rows : std::uint64_t{rows} * shader.local_size_x);
}

}  // namespace tensorplay::vulkan
