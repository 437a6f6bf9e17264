// Vulkan softmax and log_softmax over the rows of a contiguous float32 (or float64, where the
// device reports shaderFloat64) matrix (the kernel behind softmax/log_softmax along the last
// dimension once the input is made contiguous). Shaders: shaders/softmax.comp and
// softmax_f64.comp (one body, shaders/softmax_body.glsl).
//
// Numerically stable: the row's max m is subtracted first, softmax = exp(x - m) / s and
// log_softmax = (x - m) - log(s) with s = sum exp(x - m). One workgroup of 256 invocations per
// row (rows beyond maxComputeWorkGroupCount[0] fold into y, as dispatch_1d does), with
// shared-memory tree reductions in a fixed order: results are deterministic. As in PyTorch, a
// NaN anywhere in a row makes that whole output row NaN.
#pragma once

#include <tensorplay/backends/vulkan/pipeline.hpp>
#include <tensorplay/backends/vulkan/shaders/softmax.spv.hpp>
#include <tensorplay/backends/vulkan/shaders/softmax_f64.spv.hpp>
#include <tensorplay/core/dtype.hpp>

#include <cstddef>
#include <cstdint>

namespace tensorplay::vulkan {

namespace detail {
struct SoftmaxPush {
  std::uint32_t src_first, rows, cols, log_softmax, dst_first, serial;
};
static_assert(sizeof(SoftmaxPush) == 24);
// Rows up to this long are done by one invocation each (no shared memory, no barriers).
inline constexpr std::uint32_t kSerialSoftmaxMax = 128;
}  // namespace detail

inline constexpr ShaderInfo softmax_shader{"softmax",
                                           shaders::softmax_spv,
                                           sizeof(shaders::softmax_spv),
                                           /*num_buffers=*/2,
                                           /*push_constant_bytes=*/sizeof(detail::SoftmaxPush),
                                           /*local_size_x=*/256};
inline constexpr ShaderInfo softmax_f64_shader{"softmax_f64",
                                               shaders::softmax_f64_spv,
                                               sizeof(shaders::softmax_f64_spv),
                                               /*num_buffers=*/2,
                                               /*push_constant_bytes=*/sizeof(detail::SoftmaxPush),
                                               /*local_size_x=*/256};

// Writes softmax (log == false) or log_softmax (log == true) of each row of the rows x cols
// matrix of dtype `dt` (kFloat, or kDouble on a device with shaderFloat64) at element src_first
// of `src` to the rows x cols matrix at element dst_first of `dst`. rows == 0 or cols == 0
// writes nothing. Offsets must fit 32-bit element indices. The source and destination elements
// must not overlap.
inline void softmax_rows(const BufferRange& src, std::size_t src_first, std::uint32_t rows,
                         std::uint32_t cols, bool log, const BufferRange& dst,
                         std::size_t dst_first, DType dt = kFloat) {
  TP_CHECK_TYPE(dt == kFloat || (dt == kDouble && context().has_float64()),
                "vulkan::softmax_rows computes in float32, or float64 on a device with "
                "shaderFloat64; got ", scalar_type_name(dt));
  const std::uint64_t numel = std::uint64_t{rows} * cols;
  if (numel == 0) return;
  const std::size_t itemsize = dt == kDouble ? 8 : 4;
  check_elements("vulkan::softmax_rows", "source", src, src_first, numel, itemsize);
  check_elements("vulkan::softmax_rows", "result", dst, dst_first, numel, itemsize);
  const bool serial = cols <= detail::kSerialSoftmaxMax;
  const detail::SoftmaxPush push{static_cast<std::uint32_t>(src_first), rows, cols, log ? 1u : 0u,
                                 static_cast<std::uint32_t>(dst_first), serial ? 1u : 0u};
  // One invocation per short row, else one workgroup per row (dispatch_1d's fold of rows * 256
  // invocations).
  dispatch_1d(dt == kDouble ? softmax_f64_shader : softmax_shader, {src, dst}, push,
              serial ? rows : std::uint64_t{rows} * softmax_shader.local_size_x);
}

}  // namespace tensorplay::vulkan
