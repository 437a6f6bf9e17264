// CUDA copies: the cross-device entry's CUDA kernel (copy_, to, cuda(), cpu(), clone,
// contiguous) and fill_, as byte transfers on the current stream.
//
// A device tensor's bytes move as one block when its elements are dense (non-overlapping and
// dense: numel elements in one run from its data pointer, in any dimension order). The host side
// of a transfer is a CPU tensor with the device tensor's dtype and strides, so any host layout,
// dtype conversion or broadcast is done by the CPU copy on the host (before an upload, after a
// download). The copies wait for their stream before returning (pageable host memory, and the
// host staging tensor must outlive the transfer), as a blocking cudaMemcpy does.
//
// Not yet (NotImplementedError, until the strided copy kernel lands): device-to-device copies
// that convert the dtype or change the layout, and copies to or from a device tensor that is not
// dense (a strided view such as x.cuda().t()[0]); PyTorch runs its copy kernel for those.
#pragma once

#include <tensorplay/backends/cuda/device_kernels.hpp>
#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/backends/cuda/stream.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/copy.hpp>

#include <cuda_runtime_api.h>

namespace tensorplay {

namespace cuda::detail {

inline void* device_data(const Tensor& t) { return t.unsafeGetTensorImpl()->data(); }

[[noreturn]] inline void throw_needs_copy_kernel(const Tensor& dst, const Tensor& src) {
  ::tensorplay::detail::throw_error<NotImplementedError>(
      "Could not run 'aten::copy_' with arguments from the 'CUDA' backend: TensorPlay's CUDA "
      "backend copies only dense device tensors (and converts dtypes on the host side) until its "
      "strided copy kernel lands; here dst is ",
      dst.dtype(), " ", dst.sizes(), " with strides ", dst.strides(), " on ", dst.device(),
      " and src is ", src.dtype(), " ", src.sizes(), " with strides ", src.strides(), " on ",
      src.device());
}

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

}  // namespace cuda::detail

template <class>
void DeviceKernel<CopyOp, DeviceType::CUDA>::run(const Tensor& dst, const Tensor& src) {
  using namespace cuda::detail;
  if (dst.numel() == 0) return;
  const bool same_layout =
      dst.dtype() == src.dtype() && dst.sizes() == src.sizes() && dst.strides() == src.strides();
  if (dst.is_cuda() && src.is_cuda()) {
    if (!same_layout || !dst.is_non_overlapping_and_dense()) throw_needs_copy_kernel(dst, src);
    if (dst.device() == src.device()) {
      transfer(device_data(dst), device_data(src), dst.nbytes(), cudaMemcpyDeviceToDevice,
               dst.device().index());
      return;
    }
    cuda::CUDAGuard guard(dst.device().index());
    const cuda::CUDAStream stream = cuda::getCurrentCUDAStream(dst.device().index());
    TP_CUDA_CHECK(cudaMemcpyPeerAsync(device_data(dst), dst.device().index(), device_data(src),
                                      src.device().index(), dst.nbytes(), stream.stream()),
                  "copying a tensor between devices");
    stream.synchronize();
    return;
  }
  if (dst.is_cuda()) {  // upload: the host side is made dst's layout and dtype first
    if (!dst.is_non_overlapping_and_dense()) throw_needs_copy_kernel(dst, src);
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
  if (!src.is_non_overlapping_and_dense()) throw_needs_copy_kernel(dst, src);
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

// fill_: the value written on the host into a twin of the (dense) tensor, then uploaded.
template <class>
void DeviceKernel<FillOp, DeviceType::CUDA>::run(const Tensor& self, const Scalar& value) {
  using namespace cuda::detail;
  if (self.numel() == 0) return;
  if (!self.is_non_overlapping_and_dense()) throw_needs_copy_kernel(self, self);
  Tensor staged = host_twin(self);
  staged.fill_(value);
  transfer(device_data(self), staged.data_ptr(), self.nbytes(), cudaMemcpyHostToDevice,
           self.device().index());
}

}  // namespace tensorplay
