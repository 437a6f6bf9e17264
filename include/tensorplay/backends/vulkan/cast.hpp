// Vulkan dtype conversion: dst = src converted to dst's dtype, over a TensorIterator's iteration
// space (any strides, a broadcast source), with the CPU's conversion rules (core/convert.hpp).
// The kernel behind a device-to-device copy_/to() that changes the dtype, or copies elements of
// 8 or 16 bits through strides, and behind the ops that compute a narrow dtype in a wider one
// (pointwise.hpp's compute_wide). Shaders: shaders/cast.comp (the dtypes of 32 bits and less,
// no shader feature needed) and shaders/cast_wide.comp (every dtype, where the device reports
// shaderInt64 and shaderFloat64), one pipeline per pair of dtypes.
#pragma once

#include <tensorplay/backends/vulkan/pipeline.hpp>
#include <tensorplay/backends/vulkan/shaders/cast.spv.hpp>
#include <tensorplay/backends/vulkan/shaders/cast_wide.spv.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace tensorplay::vulkan {

inline constexpr int kMaxCastDims = 8;

namespace detail {
struct CastPush {
  std::uint32_t numel, ndim;
  std::uint32_t offsets[2];  // elements: destination, source
  std::uint32_t sizes[kMaxCastDims];
  std::uint32_t strides[2 * kMaxCastDims];  // destination's, then the source's
};
static_assert(sizeof(CastPush) == 112, "push constants must fit the guaranteed 128 bytes");

inline constexpr std::size_t kCastPairs = kNumDTypes * kNumDTypes;

template <std::size_t... I>
constexpr std::array<ShaderInfo, kCastPairs> cast_shaders(const char* name,
                                                          const std::uint32_t* spirv,
                                                          std::size_t bytes,
                                                          std::index_sequence<I...>) {
  return {ShaderInfo{name, spirv, bytes, /*num_buffers=*/2, sizeof(CastPush),
                     /*local_size_x=*/256, /*specialized=*/true,
                     /*specialization=*/static_cast<std::uint32_t>(I)}...};
}
}  // namespace detail

// Indexed by source dtype * kNumDTypes + destination dtype (the shader's specialization).
inline constexpr std::array<ShaderInfo, detail::kCastPairs> cast_shader =
    detail::cast_shaders("cast", shaders::cast_spv, sizeof(shaders::cast_spv),
                         std::make_index_sequence<detail::kCastPairs>());
inline constexpr std::array<ShaderInfo, detail::kCastPairs> cast_wide_shader =
    detail::cast_shaders("cast_wide", shaders::cast_wide_spv, sizeof(shaders::cast_wide_spv),
                         std::make_index_sequence<detail::kCastPairs>());

// Whether this device converts between a and b: always, unless one of them is 64 bits wide
// (which needs shaderInt64 and shaderFloat64).
inline bool converts_on_device(DType a, DType b) {
  if (itemsize(a) < 8 && itemsize(b) < 8) return true;
  return context().has_int64() && context().has_float64();
}

namespace detail {
// The storage of t as a buffer range from its first byte, rounded up to whole words (the shader
// reads and writes 32-bit words; allocations are 256-byte blocks, so the word is there).
inline BufferRange cast_range(const Tensor& t) {
  BufferRange r = buffer_of(t.storage().data_ptr());
  r.size = (std::min<VkDeviceSize>(r.size, t.storage().nbytes()) + 3) / 4 * 4;
  return r;
}
inline std::uint32_t cast_u32(int64_t v) {
  TP_CHECK_NOT_IMPLEMENTED(v >= 0 && v <= int64_t{UINT32_MAX}, "vulkan: a conversion over ", v,
                           " elements does not fit the kernels' 32-bit indices");
  return static_cast<std::uint32_t>(v);
}
}  // namespace detail

// iter: one output and one input, both Vulkan tensors whose storages differ (converts_on_device of
// their dtypes holds). More than kMaxCastDims dimensions (after the iterator's coalescing) run as
// one dispatch per index of the outer ones.
inline void cast_into(const TensorIterator& iter) {
  TP_CHECK(iter.noutputs() == 1 && iter.ninputs() == 1,
           "vulkan::cast_into: expects one output "
           "and one input");
  const Tensor& dst = iter.tensor(0);
  const Tensor& src = iter.tensor(1);
  TP_CHECK(dst.is_vulkan() && src.is_vulkan(),
           "vulkan::cast_into: both tensors must be on the "
           "Vulkan device");
  if (iter.numel() == 0) return;
  const DType from = src.dtype(), to = dst.dtype();
  const bool wide = itemsize(from) == 8 || itemsize(to) == 8;
  TP_CHECK_TYPE(!wide || converts_on_device(from, to), "converting ", scalar_type_name(from),
                " to ", scalar_type_name(to),
                " on the Vulkan device needs shaderInt64 and shaderFloat64, "
                "which '",
                context().device_name(), "' does not report");
  const std::size_t pair =
      static_cast<std::size_t>(from) * kNumDTypes + static_cast<std::size_t>(to);
  const ShaderInfo& shader = wide ? cast_wide_shader[pair] : cast_shader[pair];
  const BufferRange dst_range = detail::cast_range(dst), src_range = detail::cast_range(src);
  detail::cast_u32(static_cast<int64_t>(dst.storage().nbytes() / dst.itemsize()));
  detail::cast_u32(static_cast<int64_t>(src.storage().nbytes() / src.itemsize()));

  const int ndim = iter.ndim();
  const int inner = ndim < kMaxCastDims ? ndim : kMaxCastDims;
  detail::CastPush push{};
  push.ndim = static_cast<std::uint32_t>(inner);
  std::uint64_t numel = 1;
  for (int d = 0; d < inner; ++d) {
    push.sizes[d] = detail::cast_u32(iter.shape()[d]);
    push.strides[d] = detail::cast_u32(iter.stride(0, d) / iter.element_size(0));
    push.strides[kMaxCastDims + d] = detail::cast_u32(iter.stride(1, d) / iter.element_size(1));
    numel *= push.sizes[d];
  }
  push.numel = detail::cast_u32(static_cast<int64_t>(numel));
  // The outer dimensions (dimension 0 is the innermost): an odometer of dispatches.
  std::array<int64_t, 64> idx{};
  for (;;) {
    int64_t off_dst = dst.storage_offset(), off_src = src.storage_offset();
    for (int d = inner; d < ndim; ++d) {
      off_dst += idx[d] * (iter.stride(0, d) / iter.element_size(0));
      off_src += idx[d] * (iter.stride(1, d) / iter.element_size(1));
    }
    push.offsets[0] = detail::cast_u32(off_dst);
    push.offsets[1] = detail::cast_u32(off_src);
    dispatch_1d(shader, {dst_range, src_range}, push, numel);
    int d = inner;
    for (; d < ndim; ++d) {
      if (++idx[d] < iter.shape()[d]) break;
      idx[d] = 0;
    }
    if (d == ndim) return;
  }
}

// dst = src converted (and broadcast), both on the Vulkan device, their storages distinct; the
// CPU copy's checks (shapes, overlap) are the iterator's.
inline void cast_copy(const Tensor& dst, const Tensor& src) {
  const TensorIterator iter = TensorIteratorConfig()
                                  .add_output(dst)
                                  .add_input(src)
                                  .check_all_same_dtype(false)
                                  .resize_outputs(false)
                                  .build();
  cast_into(iter);
}

// self converted to `dtype`: a new contiguous tensor on the device.
inline Tensor cast_to(const Tensor& self, DType dtype) {
  Tensor out = empty(self.sizes(), self.options().dtype(dtype));
  cast_copy(out, self);
  return out;
}

}  // namespace tensorplay::vulkan
