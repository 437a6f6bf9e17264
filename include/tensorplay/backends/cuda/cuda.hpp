// The CUDA backend's tensor-level API (included by <tensorplay/tensorplay.hpp> when
// TENSORPLAY_USE_CUDA is 1): everything below core that a CUDA user names - devices
// (runtime.hpp), streams, events and guards (stream.hpp), the allocator and torch.cuda's memory
// functions (allocator.hpp), the copy and fill kernels (copy.hpp), the elementwise kernels
// (pointwise.hpp), reductions, softmax and scans (reduce.hpp), matrix products (blas.hpp),
// random numbers and their generators (random.hpp), DLPack's stream protocol (dlpack.hpp) - and
// record_stream.
#pragma once

#include <tensorplay/backends/cuda/allocator.hpp>
#include <tensorplay/backends/cuda/blas.hpp>
#include <tensorplay/backends/cuda/copy.hpp>
#include <tensorplay/backends/cuda/dlpack.hpp>
#include <tensorplay/backends/cuda/pointwise.hpp>
#include <tensorplay/backends/cuda/random.hpp>
#include <tensorplay/backends/cuda/reduce.hpp>
#include <tensorplay/backends/cuda/runtime.hpp>
#include <tensorplay/backends/cuda/stream.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay::cuda {

// Tensor::record_stream (c10's recordStream): `stream` uses t's memory too, so when the last
// tensor on that memory dies, the allocator does not hand it out again before the work queued
// on `stream` until then has completed.
inline void record_stream(const Tensor& t, const CUDAStream& stream) {
  TP_CHECK_VALUE(t.is_cuda(), "record_stream: expected a CUDA tensor, got a tensor on ",
                 t.device());
  const DataPtr& p = t.storage().data_ptr();
  CUDACachingAllocator::instance().of(t.device().index()).record_stream(p, stream.stream());
}

}  // namespace tensorplay::cuda
