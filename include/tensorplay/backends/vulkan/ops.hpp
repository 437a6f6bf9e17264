// The Vulkan kernels behind the device dispatch point (ops/device_dispatch.hpp):
//
//   copy_  the cross-device entry (copy_, to, clone, contiguous, cpu(), vulkan(), and the
//          materialisation of views): host -> device uploads, device -> host downloads, and
//          on-device copies (a buffer copy, or the gather shader for a strided source);
//   fill_  the fill shader for contiguous 32-bit dtypes, the cast shader for the others;
//   the elementwise ops (PointwiseOp): pointwise.hpp;
//   reductions, softmax and matrix products (ReduceOp, SoftmaxOp, ProductOp): kernels.hpp.
//
// Every dtype round-trips. Conversions, broadcasts and strided elements of 8 or 16 bits run the
// cast shader (cast.hpp); what has no shader (64-bit conversions and fills on a device without
// shaderInt64/shaderFloat64) takes the host road: the values are
// computed by the CPU kernels on a host copy and uploaded, so results are always the CPU's.
// Argument checks (shapes, broadcasting, dtype ranges) are the CPU kernels' own: a device path
// runs only where they cannot fail, everything else goes through them.
//
// The umbrella includes this header when TENSORPLAY_USE_VULKAN is on, so every translation unit
// of a program sees the same kernels.
#pragma once

#include <tensorplay/backends/vulkan/allocator.hpp>
#include <tensorplay/backends/vulkan/cast.hpp>
#include <tensorplay/backends/vulkan/copy.hpp>
#include <tensorplay/backends/vulkan/fill.hpp>
#include <tensorplay/backends/vulkan/gather.hpp>
#include <tensorplay/backends/vulkan/kernels.hpp>
#include <tensorplay/backends/vulkan/pointwise.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/factories.hpp>

#include <bit>
#include <cstdint>
#include <vector>

namespace tensorplay {
namespace vulkan::detail {

// The buffer range of t's elements: its storage's range from element storage_offset on.
inline BufferRange element_range(const Tensor& t) {
  BufferRange r = buffer_of(*t.storage().unsafeGetStorageImpl());
  const auto skip = static_cast<VkDeviceSize>(t.storage_offset()) * t.itemsize();
  TP_CHECK(skip <= r.size, "vulkan: storage offset ", t.storage_offset(),
           " is past the end of the tensor's storage");
  r.offset += skip;
  r.size -= skip;
  return r;
}

// A CPU tensor over a host copy of all of t's storage bytes, with t's dtype and geometry.
inline Tensor host_view_of_storage(const Tensor& t) {
  const StorageImpl& s = *t.storage().unsafeGetStorageImpl();
  Tensor bytes = empty({static_cast<int64_t>(s.nbytes())}, TensorOptions().dtype(kByte));
  if (s.nbytes() > 0) copy_device_to_host(buffer_of(s), bytes.data_ptr(), s.nbytes());
  auto impl = make_intrusive<TensorImpl>(bytes.storage(), t.dtype());
  impl->set_sizes_and_strides(t.sizes(), t.strides());
  impl->set_storage_offset(t.storage_offset());
  return Tensor(std::move(impl));
}

// Writes a host tensor made by host_view_of_storage back into t's storage.
inline void upload_storage(const Tensor& host_view, const Tensor& t) {
  const StorageImpl& s = *t.storage().unsafeGetStorageImpl();
  if (s.nbytes() > 0) copy_host_to_device(host_view.storage().data(), buffer_of(s), s.nbytes());
}

// Whether the gather shader (32-bit words) can read t: 4- or 8-byte elements (an 8-byte element
// is two words, an extra innermost dimension) and few enough dimensions.
inline bool gatherable(const Tensor& t) {
  const int64_t words = t.itemsize() / 4;
  return (t.itemsize() == 4 || t.itemsize() == 8) &&
         t.dim() + (words > 1 ? 1 : 0) <= kMaxGatherDims;
}

// dst = src, both on the device with one dtype and shape and any strides (dst's elements
// distinct), by the gather shader: an 8-byte element is two words, an extra innermost dim.
inline void gather_into(const Tensor& dst, const Tensor& src) {
  const int64_t words = src.itemsize() / 4;
  std::vector<int64_t> sizes(src.sizes().begin(), src.sizes().end());
  std::vector<int64_t> src_strides(src.strides().begin(), src.strides().end());
  std::vector<int64_t> dst_strides(dst.strides().begin(), dst.strides().end());
  for (auto& s : src_strides) s *= words;
  for (auto& s : dst_strides) s *= words;
  if (words > 1) {
    sizes.push_back(words);
    src_strides.push_back(1);
    dst_strides.push_back(1);
  }
  strided_copy(buffer_of(*src.storage().unsafeGetStorageImpl()), sizes, src_strides,
               src.storage_offset() * words, buffer_of(*dst.storage().unsafeGetStorageImpl()),
               dst_strides, dst.storage_offset() * words);
}

// src's values in a CPU tensor of src's shape and dtype.
inline Tensor to_host(const Tensor& src) {
  if (!src.is_contiguous()) {
    if (!gatherable(src) && !converts_on_device(src.dtype(), src.dtype())) {
      return host_view_of_storage(src);
    }
    Tensor packed = empty(src.sizes(), src.options());  // on the device, contiguous
    if (gatherable(src)) {
      gather_into(packed, src);
    } else {
      cast_copy(packed, src);
    }
    return to_host(packed);
  }
  Tensor host = empty(src.sizes(), TensorOptions().dtype(src.dtype()));
  if (src.numel() > 0) copy_device_to_host(element_range(src), host.data_ptr(), host.nbytes());
  return host;
}

// dst (Vulkan) = src (CPU), with the CPU copy's conversion, broadcasting and checks.
inline void upload_into(const Tensor& dst, const Tensor& src) {
  if (!dst.is_contiguous()) {
    Tensor host = host_view_of_storage(dst);
    ::tensorplay::detail::copy_impl(host, src);
    upload_storage(host, dst);
    return;
  }
  Tensor host = src;
  if (src.dtype() != dst.dtype() || src.sizes() != dst.sizes() || !src.is_contiguous()) {
    host = empty(dst.sizes(), TensorOptions().dtype(dst.dtype()));
    ::tensorplay::detail::copy_impl(host, src);
  }
  if (dst.numel() > 0) copy_host_to_device(host.data_ptr(), element_range(dst), dst.nbytes());
}

}  // namespace vulkan::detail

template <class>
void DeviceKernel<CopyOp, DeviceType::Vulkan>::run(const Tensor& dst, const Tensor& src) {
  using namespace vulkan::detail;
  if (dst.is_cpu()) {
    ::tensorplay::detail::copy_impl(dst, to_host(src));
    return;
  }
  if (src.is_cpu()) {
    upload_into(dst, src);
    return;
  }
  TP_CHECK(src.is_vulkan() && dst.is_vulkan(), "copy_: copying from ", src.device(), " to ",
           dst.device(), " is not supported");
  // On the device when nothing converts, broadcasts or overlaps (views of a Vulkan tensor are
  // copies, so two tensors share a storage only inside as_strided's materialisation).
  // A strided destination is a kernel writing through an alias (cat's slices, the gradient
  // of a view: ops/as_strided.hpp's AliasingViewsGuard); one that overlaps itself takes the
  // host road, whose CPU copy raises PyTorch's error.
  const bool same_storage = dst.storage().is_alias_of(src.storage());
  if (src.dtype() == dst.dtype() && src.sizes() == dst.sizes() && !same_storage &&
      (dst.is_contiguous() || autograd::detail::is_non_overlapping(dst.sizes(), dst.strides()))) {
    if (src.numel() == 0) return;
    if (src.is_contiguous() && dst.is_contiguous()) {
      copy_device_to_device(element_range(src), element_range(dst), dst.nbytes());
      return;
    }
    if (gatherable(src)) {
      gather_into(dst, src);
      return;
    }
  }
  // Conversions, broadcasts and elements of 8 or 16 bits: the cast shader (the iterator
  // checks shapes and a destination that overlaps itself, with the CPU copy's messages).
  if (!same_storage && vulkan::converts_on_device(src.dtype(), dst.dtype())) {
    vulkan::cast_copy(dst, src);
    return;
  }
  upload_into(dst, to_host(src));
}

template <class>
void DeviceKernel<FillOp, DeviceType::Vulkan>::run(const Tensor& self, const Scalar& value) {
  using namespace vulkan::detail;
  if (self.numel() == 0) {
    // The value is still checked, as the CPU fill checks it.
    dispatch_dtype(self.dtype(), [&]<class T>() { (void)value.to<T>(); });
    return;
  }
  if (self.is_contiguous() && (self.dtype() == kFloat || self.dtype() == kInt)) {
    // value.to<T>() checks that the dtype holds the value, as the CPU fill does.
    const std::uint32_t bits = self.dtype() == kFloat
                                   ? std::bit_cast<std::uint32_t>(value.to<float>())
                                   : std::bit_cast<std::uint32_t>(value.to<int32_t>());
    vulkan::fill_bits_(vulkan::buffer_of(*self.storage().unsafeGetStorageImpl()), bits,
                       static_cast<std::size_t>(self.numel()),
                       static_cast<std::size_t>(self.storage_offset()));
    return;
  }
  // Other dtypes and strided tensors: the value (converted and checked by the CPU fill) as
  // one element on the device, broadcast into self by the cast shader.
  Tensor one = empty({}, TensorOptions().dtype(self.dtype()));
  ::tensorplay::detail::fill_impl(one, value);
  if (vulkan::converts_on_device(self.dtype(), self.dtype())) {
    vulkan::cast_copy(self, one.to(self.device()));
    return;
  }
  Tensor host = empty(self.sizes(), TensorOptions().dtype(self.dtype()));
  ::tensorplay::detail::fill_impl(host, value);
  upload_into(self, host);
}

}  // namespace tensorplay
