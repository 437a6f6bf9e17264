// Vulkan contiguous gather: materialises a strided view of 32-bit elements (float32, int32,
// uint32) into a contiguous row-major buffer. Vulkan buffers have no strided addressing, so
// this is the kernel as_strided uses to turn a view of a Vulkan tensor into real bytes (the
// spec's one materialising branch). Shader: shaders/gather.comp.
#pragma once

#include <tensorplay/backends/vulkan/pipeline.hpp>
#include <tensorplay/backends/vulkan/shaders/gather.spv.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace tensorplay::vulkan {

inline constexpr int kMaxGatherDims = 8;

namespace detail {
struct GatherPush {
  std::uint32_t ndim, numel, src_offset, dst_first;
  std::uint32_t sizes[kMaxGatherDims];
  std::uint32_t strides[kMaxGatherDims];
};
static_assert(sizeof(GatherPush) == 80);
}  // namespace detail

inline constexpr ShaderInfo gather_shader{"gather",
                                          shaders::gather_spv,
                                          sizeof(shaders::gather_spv),
                                          /*num_buffers=*/2,
                                          /*push_constant_bytes=*/sizeof(detail::GatherPush),
                                          /*local_size_x=*/256};

// dst[dst_first + i] = src[storage_offset + sum_d coord_d(i) * strides[d]] for the row-major
// coordinates coord(i) of i in `sizes`. Sizes, strides and offsets count 32-bit elements;
// strides must be non-negative (as in as_strided). A 0-dim view (sizes empty) copies one
// element.
inline void contiguous_gather(const BufferRange& src, std::span<const std::int64_t> sizes,
                              std::span<const std::int64_t> strides, std::int64_t storage_offset,
                              const BufferRange& dst, std::size_t dst_first = 0) {
  TP_CHECK_VALUE(sizes.size() == strides.size(), "vulkan::contiguous_gather: ", sizes.size(),
                 " sizes but ", strides.size(), " strides");
  TP_CHECK_NOT_IMPLEMENTED(sizes.size() <= kMaxGatherDims,
                           "vulkan::contiguous_gather: ", sizes.size(), " dimensions; at most ",
                           kMaxGatherDims, " are supported");
  TP_CHECK_VALUE(storage_offset >= 0, "vulkan::contiguous_gather: negative storage offset ",
                 storage_offset);
  detail::GatherPush push{};
  std::uint64_t numel = 1;
  std::uint64_t last = static_cast<std::uint64_t>(storage_offset);  // largest element read
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    TP_CHECK_VALUE(sizes[d] >= 0 && strides[d] >= 0, "vulkan::contiguous_gather: size ", sizes[d],
                   " / stride ", strides[d], " of dimension ", d, " must be non-negative");
    numel *= static_cast<std::uint64_t>(sizes[d]);
    if (sizes[d] > 0) last += static_cast<std::uint64_t>(sizes[d] - 1) * strides[d];
    TP_CHECK(numel <= UINT32_MAX && last <= UINT32_MAX,
             "vulkan::contiguous_gather: views over 2^32 elements are not supported");
    push.sizes[d] = static_cast<std::uint32_t>(sizes[d]);
    push.strides[d] = static_cast<std::uint32_t>(strides[d]);
  }
  if (numel == 0) return;
  TP_CHECK_INDEX(last < src.size / 4, "vulkan::contiguous_gather: the view reads element ", last,
                 " of a source range of ", src.size / 4, " elements");
  TP_CHECK_INDEX(dst_first <= dst.size / 4 && numel <= dst.size / 4 - dst_first,
                 "vulkan::contiguous_gather: ", numel, " elements from ", dst_first,
                 " do not fit a destination range of ", dst.size / 4, " elements");
  push.ndim = static_cast<std::uint32_t>(sizes.size());
  push.numel = static_cast<std::uint32_t>(numel);
  push.src_offset = static_cast<std::uint32_t>(storage_offset);
  push.dst_first = static_cast<std::uint32_t>(dst_first);
  dispatch_1d(gather_shader, {src, dst}, push, numel);
}

}  // namespace tensorplay::vulkan
