// Vulkan fill kernel: writes one 32-bit pattern to consecutive 32-bit elements of a buffer
// range (the kernel behind fill_/zero_ for float32, int32 and uint32 tensors). Shader:
// shaders/fill.comp.
#pragma once

#include <tensorplay/backends/vulkan/pipeline.hpp>
#include <tensorplay/backends/vulkan/shaders/fill.spv.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>

namespace tensorplay::vulkan {

inline constexpr ShaderInfo fill_shader{"fill",
                                        shaders::fill_spv,
                                        sizeof(shaders::fill_spv),
                                        /*num_buffers=*/1,
                                        /*push_constant_bytes=*/12,
                                        /*local_size_x=*/256};

// Writes `pattern` to elements [first, first + numel) of `dst`, viewed as 32-bit words.
// dst.offset must be a multiple of minStorageBufferOffsetAlignment (every allocation's is).
inline void fill_bits_(const BufferRange& dst, std::uint32_t pattern, std::size_t numel,
                       std::size_t first = 0) {
  if (numel == 0) return;
  TP_CHECK_INDEX(first <= dst.size / 4 && numel <= dst.size / 4 - first,
                 "vulkan::fill_: ", "elements [", first, ", ", first + numel,
                 ") are outside a range of ", dst.size / 4, " 32-bit elements");
  TP_CHECK(first + numel <= UINT32_MAX, "vulkan::fill_: more than 2^32 elements");
  struct {
    std::uint32_t first, count, pattern;
  } push{static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(numel), pattern};
  static_assert(sizeof(push) == 12);
  dispatch_1d(fill_shader, {dst}, push, numel);
}

inline void fill_(const BufferRange& dst, float value, std::size_t numel, std::size_t first = 0) {
  fill_bits_(dst, std::bit_cast<std::uint32_t>(value), numel, first);
}

}  // namespace tensorplay::vulkan
