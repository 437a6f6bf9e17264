// CUDA copies: the cross-device entry's CUDA kernel (copy_, to, cuda(), cpu(), clone,
// contiguous) and fill_.
//
// On one device, a copy is the copy kernel (cast_source.hpp) over a TensorIterator built as the
// CPU's copy builds it (its broadcast and overlap checks): any strides on either side, any two
// dtypes, no host staging; a copy of identical dense layouts with no shared bytes is one
// cudaMemcpyAsync. fill_ is the same kernel with the value as a constant operand.
//
// Between host and device, bytes move as one block of a dense device tensor (non-overlapping and
// dense: numel elements in one run from its data pointer, in any dimension order). The host side
// of a transfer is a CPU tensor with the device tensor's dtype and strides, so a host layout,
// dtype conversion or broadcast is done by the CPU copy on the host (before an upload, after a
// download), and a device tensor that is not dense goes through a dense one on the device (the
// copy kernel). Between two devices, a dense copy of one layout is cudaMemcpyPeerAsync; anything
// else is made dense on the source device first and finished by the copy kernel on the
// destination's. Transfers wait for their stream before returning (pageable host memory, and a
// host staging tensor must outlive the transfer), as a blocking cudaMemcpy does; kernels do not.
#pragma once

#include <tensorplay/backends/cuda/allocator.hpp>
#include <tensorplay/backends/cuda/cast_source.hpp>
#include <tensorplay/backends/cuda/device_kernels.hpp>
#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/backends/cuda/kernel_table.hpp>
#include <tensorplay/backends/cuda/module.hpp>
#include <tensorplay/backends/cuda/offset_calculator.hpp>
#include <tensorplay/backends/cuda/pointwise.hpp>
#include <tensorplay/backends/cuda/stream.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/copy_kernel.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace tensorplay {

namespace cuda::detail {

inline void* device_data(const Tensor& t) { return t.unsafeGetTensorImpl()->data(); }

// A CPU tensor laid out byte for byte like the dense device tensor t.
inline Tensor host_twin(const Tensor& t) {
  return empty_strided(t.sizes(), t.strides(), TensorOptions().dtype(t.dtype()));
}

// Moves nbytes on dst's device's current stream and waits for it.
inline void transfer(void* dst, const void* src, std::size_t nbytes, cudaMemcpyKind kind,
                     DeviceIndex device) {
  if (nbytes == 0) return;
  CUDAGuard guard(device);
  const CUDAStream stream = getCurrentCUDAStream(device);
  TP_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, kind, stream.stream()), "copying a tensor");
  stream.synchronize();
}

// The copy kernel's key and launch shape for iter (output 0 = the destination).
struct CastPlan {
  CastKernelKey key;
  LaunchShape shape;
  DeviceIndex device = -1;
};
template <class = void>
CastPlan plan_cast(const TensorIterator& iter) {
  TP_CHECK(iter.ntensors() == 2, "cuda: a copy has one output and one input, got ", iter.ntensors(),
           " operands");
  CastPlan plan;
  plan.key = CastKernelKey{iter.dtype(0), iter.input_dtype(0), !can_use_32bit_indexing(iter)};
  plan.shape = pointwise_launch_shape(iter.numel(), !plan.key.index64);
  plan.device = iter.tensor(0).device().index();
  return plan;
}

inline std::uint32_t pack_cast_key(const CastKernelKey& key) {
  return static_cast<std::uint32_t>(key.out) | static_cast<std::uint32_t>(key.in) << 4 |
         (key.index64 ? 1u : 0u) << 8;
}

// dst = src on dst's device by the copy kernel: any strides, dtypes and broadcast; src may be
// a CPU 0-d tensor (a constant).
template <class = void>
void cast_on_device(const Tensor& dst, const Tensor& src) {
  const TensorIterator iter = ::tensorplay::detail::copy_iterator(dst, src);
  const CastPlan plan = plan_cast(iter);
  if (plan.shape.grid == 0) return;
  CUDAGuard guard(plan.device);
  const DeviceIndex device = guard.current_device().index();
  const CUfunction function = kernel_function(
      device, kernel_slot(KernelFamily::Cast, device, pack_cast_key(plan.key)),
      cast_kernel_name(plan.key),
      [&] {
        return cast_kernel_source({&plan.key, 1});
      },
      pointwise_compile_options());
  const CUDAStream stream = getCurrentCUDAStream(device);
  const auto go = [&](auto params) {
    void* args[] = {&params};
    launch(function, dim3(static_cast<unsigned>(plan.shape.grid)), dim3(plan.shape.block), 0,
           stream.stream(), args);
  };
  if (plan.key.index64) {
    go(make_pointwise_operands<2, unsigned long long>(iter));
  } else {
    go(make_pointwise_operands<2, unsigned>(iter));
  }
}

}  // namespace cuda::detail

template <class>
void DeviceKernel<CopyOp, DeviceType::CUDA>::run(const Tensor& dst, const Tensor& src) {
  using namespace cuda::detail;
  if (dst.numel() == 0) return;
  const bool same_layout =
      dst.dtype() == src.dtype() && dst.sizes() == src.sizes() && dst.strides() == src.strides();
  if (dst.is_cuda() && src.is_cuda()) {
    const bool shared = dst.storage().is_alias_of(src.storage());
    if (shared && same_layout && dst.storage_offset() == src.storage_offset()) return;  // itself
    const bool dense = dst.is_non_overlapping_and_dense() && src.is_non_overlapping_and_dense();
    if (dst.device() == src.device()) {
      if (same_layout && dense && !shared) {
        transfer(device_data(dst), device_data(src), dst.nbytes(), cudaMemcpyDeviceToDevice,
                 dst.device().index());
      } else {
        cast_on_device(dst, src);
      }
      return;
    }
    if (!(same_layout && dense)) {  // dense on src's device, then finished on dst's
      const Tensor packed = empty(src.sizes(), src.options());
      cast_on_device(packed, src);
      const Tensor moved = empty(src.sizes(), src.options().device(dst.device()));
      run(moved, packed);
      cast_on_device(dst, moved);
      return;
    }
    cuda::CUDAGuard guard(dst.device().index());
    const cuda::CUDAStream stream = cuda::getCurrentCUDAStream(dst.device().index());
    // The source's device must have finished writing src: its current stream is waited for.
    cuda::getCurrentCUDAStream(src.device().index()).synchronize();
    TP_CUDA_CHECK(cudaMemcpyPeerAsync(device_data(dst), dst.device().index(), device_data(src),
                                      src.device().index(), dst.nbytes(), stream.stream()),
                  "copying a tensor between devices");
    stream.synchronize();
    return;
  }
  if (dst.is_cuda()) {  // upload: the host side is made dst's layout and dtype first
    if (!dst.is_non_overlapping_and_dense()) {
      const Tensor packed = empty(dst.sizes(), dst.options());
      run(packed, src);
      cast_on_device(dst, packed);
      return;
    }
    Tensor staged = src;
    if (!same_layout || !src.is_non_overlapping_and_dense()) {
      staged = host_twin(dst);
      staged.copy_(src);  // the CPU's conversion and broadcasting
    }
    transfer(device_data(dst), staged.data_ptr(), dst.nbytes(), cudaMemcpyHostToDevice,
             dst.device().index());
    return;
  }
  // download: src's bytes into a host twin, then the CPU's copy into dst
  if (!src.is_non_overlapping_and_dense()) {
    const Tensor packed = empty(src.sizes(), src.options());
    cast_on_device(packed, src);
    run(dst, packed);
    return;
  }
  if (same_layout && dst.is_non_overlapping_and_dense()) {
    transfer(dst.data_ptr(), device_data(src), dst.nbytes(), cudaMemcpyDeviceToHost,
             src.device().index());
    return;
  }
  Tensor staged = host_twin(src);
  transfer(staged.data_ptr(), device_data(src), src.nbytes(), cudaMemcpyDeviceToHost,
           src.device().index());
  dst.copy_(staged);
}

// copy_(src, non_blocking=true) (and to(..., non_blocking=true)): an upload from, or a download
// into, pinned host memory of the device tensor's dtype and layout, both dense, is one
// cudaMemcpyAsync on the device's current stream that returns at once, and the pinned block is
// marked as used by that stream, so the host allocator does not hand it out again before the
// copy has completed (c10's CachingHostAllocator_recordEvent). As in PyTorch, the caller
// synchronises before reading a downloaded result or writing an uploaded source. Copies on the
// device never wait anyway; anything else is the blocking copy.
template <class>
void DeviceKernel<NonBlockingCopyOp, DeviceType::CUDA>::run(const Tensor& dst, const Tensor& src) {
  using namespace cuda::detail;
  if (dst.numel() == 0) return;
  const bool direct = dst.dtype() == src.dtype() && dst.sizes() == src.sizes() &&
                      dst.strides() == src.strides() && dst.is_non_overlapping_and_dense() &&
                      src.is_non_overlapping_and_dense();
  const bool upload = dst.is_cuda() && src.is_cpu() && src.is_pinned();
  const bool download = dst.is_cpu() && src.is_cuda() && dst.is_pinned();
  if (!direct || !(upload || download)) {
    DeviceKernel<CopyOp, DeviceType::CUDA>::run(dst, src);
    return;
  }
  const DeviceIndex device = (upload ? dst : src).device().index();
  cuda::CUDAGuard guard(device);
  const cuda::CUDAStream stream = cuda::getCurrentCUDAStream(device);
  const Tensor& host = upload ? src : dst;
  TP_CUDA_CHECK(
      cudaMemcpyAsync(upload ? device_data(dst) : dst.data_ptr(),
                      upload ? src.data_ptr() : device_data(src), dst.nbytes(),
                      upload ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, stream.stream()),
      "copying a tensor asynchronously");
  cuda::PinnedMemoryAllocator::instance().cache().record_stream(host.data_ptr(), stream.stream());
}

// fill_: the copy kernel with the value, converted on the host as the CPU's fill converts it, as
// a constant operand.
template <class>
void DeviceKernel<FillOp, DeviceType::CUDA>::run(const Tensor& self, const Scalar& value) {
  if (self.numel() == 0) return;
  cuda::detail::cast_on_device(self, scalar_tensor(value, TensorOptions().dtype(self.dtype())));
}

}  // namespace tensorplay
