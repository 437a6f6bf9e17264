// Vulkan strided copy of 32-bit elements (float32, int32, uint32; wider ones as several words)
// from one strided view of a buffer to another. Vulkan buffers have no strided addressing, so
// this is the kernel as_strided uses to turn a view of a Vulkan tensor into real bytes (the
// spec's one materialising branch: contiguous_gather), and the one that writes into part of a
// tensor (cat, the gradient of a view). Shader: shaders/gather.comp.
#pragma once

#include <tensorplay/backends/vulkan/pipeline.hpp>
#include <tensorplay/backends/vulkan/shaders/gather.spv.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tensorplay::vulkan {

inline constexpr int kMaxGatherDims = 8;

namespace detail {
struct GatherPush {
  std::uint32_t ndim, numel, src_offset, dst_offset;
  std::uint32_t sizes[kMaxGatherDims];
  std::uint32_t src_strides[kMaxGatherDims];
  std::uint32_t dst_strides[kMaxGatherDims];
};
static_assert(sizeof(GatherPush) == 112);  // within the 128 bytes every device offers

// Checks one side's strides and offset and, when the view has elements, that they lie in a
// range of `range_words` words.
inline void check_side(const char* side, std::span<const std::int64_t> sizes,
                       std::span<const std::int64_t> strides, std::int64_t offset,
                       std::uint64_t numel, std::uint64_t range_words) {
  TP_CHECK_VALUE(sizes.size() == strides.size(), "vulkan::strided_copy: ", sizes.size(),
                 " sizes but ", strides.size(), " ", side, " strides");
  TP_CHECK_VALUE(offset >= 0, "vulkan::strided_copy: negative ", side, " offset ", offset);
  std::uint64_t last = static_cast<std::uint64_t>(offset);
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    TP_CHECK_VALUE(sizes[d] >= 0 && strides[d] >= 0, "vulkan::strided_copy: size ", sizes[d],
                   " / ", side, " stride ", strides[d], " of dimension ", d,
                   " must be non-negative");
    if (sizes[d] > 0) last += static_cast<std::uint64_t>(sizes[d] - 1) * strides[d];
    TP_CHECK(last <= UINT32_MAX,
             "vulkan::strided_copy: views over 2^32 elements are not supported");
  }
  TP_CHECK_INDEX(numel == 0 || last < range_words, "vulkan::strided_copy: the ", side,
                 " view reaches element ", last, " of a range of ", range_words, " elements");
}
}  // namespace detail

inline constexpr ShaderInfo gather_shader{"gather",
                                          shaders::gather_spv,
                                          sizeof(shaders::gather_spv),
                                          /*num_buffers=*/2,
                                          /*push_constant_bytes=*/sizeof(detail::GatherPush),
                                          /*local_size_x=*/256};

// dst[dst_offset + sum_d coord_d(i) * dst_strides[d]] =
// src[src_offset + sum_d coord_d(i) * src_strides[d]] for the row-major coordinates coord(i)
// of i in `sizes`. Sizes, strides and offsets count 32-bit elements and are non-negative (as in
// as_strided); the destination's elements must be distinct (the caller's overlap check). A
// 0-dim view (sizes empty) copies one element.
inline void strided_copy(const BufferRange& src, std::span<const std::int64_t> sizes,
                         std::span<const std::int64_t> src_strides, std::int64_t src_offset,
                         const BufferRange& dst, std::span<const std::int64_t> dst_strides,
                         std::int64_t dst_offset) {
  TP_CHECK_NOT_IMPLEMENTED(sizes.size() <= kMaxGatherDims,
                           "vulkan::strided_copy: ", sizes.size(), " dimensions; at most ",
                           kMaxGatherDims, " are supported");
  std::uint64_t numel = 1;
  for (const std::int64_t n : sizes) {
    numel *= static_cast<std::uint64_t>(n < 0 ? 0 : n);
    TP_CHECK(numel <= UINT32_MAX,
             "vulkan::strided_copy: views over 2^32 elements are not supported");
  }
  detail::check_side("source", sizes, src_strides, src_offset, numel, src.size / 4);
  detail::check_side("destination", sizes, dst_strides, dst_offset, numel, dst.size / 4);
  if (numel == 0) return;
  detail::GatherPush push{};
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    push.sizes[d] = static_cast<std::uint32_t>(sizes[d]);
    push.src_strides[d] = static_cast<std::uint32_t>(src_strides[d]);
    push.dst_strides[d] = static_cast<std::uint32_t>(dst_strides[d]);
  }
  push.ndim = static_cast<std::uint32_t>(sizes.size());
  push.numel = static_cast<std::uint32_t>(numel);
  push.src_offset = static_cast<std::uint32_t>(src_offset);
  push.dst_offset = static_cast<std::uint32_t>(dst_offset);
  dispatch_1d(gather_shader, {src, dst}, push, numel);
}

// The materialising case: the view's elements into a contiguous row-major array from element
// dst_first of dst.
inline void contiguous_gather(const BufferRange& src, std::span<const std::int64_t> sizes,
                              std::span<const std::int64_t> strides, std::int64_t storage_offset,
                              const BufferRange& dst, std::size_t dst_first = 0) {
  std::vector<std::int64_t> dst_strides(sizes.size());
  std::int64_t step = 1;
  for (std::size_t d = sizes.size(); d-- > 0;) {
    dst_strides[d] = step;
    step *= sizes[d] > 1 ? sizes[d] : 1;
  }
  strided_copy(src, sizes, strides, storage_offset, dst, dst_strides,
               static_cast<std::int64_t>(dst_first));
}

}  // namespace tensorplay::vulkan
