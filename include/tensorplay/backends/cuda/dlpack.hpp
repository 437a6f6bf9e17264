// DLPack's stream protocol for CUDA tensors (the array API's __dlpack__(stream=...) and
// from_dlpack, as PyTorch implements them): a consumer names the stream it will use the tensor
// on, and the producer makes that stream wait for the work already queued on the tensor's
// device's current stream, so no synchronisation of the whole device is needed.
//
// DLPack's stream values for CUDA: 1 the legacy default stream, 2 the per-thread default
// stream, -1 "do not synchronise", any other value a cudaStream_t; 0 is refused (ambiguous
// between the two defaults, as the standard says).
#pragma once

#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/backends/cuda/stream.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tensorplay::cuda {

// The stream a DLPack stream value names (not -1, which names none).
inline cudaStream_t dlpack_stream_handle(int64_t value) {
  TP_CHECK_VALUE(value != 0,
                 "__dlpack__: stream 0 is ambiguous for CUDA; use 1 for the legacy default "
                 "stream or 2 for the per-thread default stream");
  TP_CHECK_VALUE(value != -1, "__dlpack__: stream -1 names no stream");
  if (value == 1) return cudaStreamLegacy;
  if (value == 2) return cudaStreamPerThread;
  return reinterpret_cast<cudaStream_t>(static_cast<std::intptr_t>(value));
}

// The producer's side: `consumer` (a DLPack stream value) waits for t's device's current
// stream; nothing for -1, or when it is that stream.
inline void dlpack_sync_producer(const Tensor& t, int64_t consumer) {
  if (consumer == -1 || !t.is_cuda()) return;
  const cudaStream_t target = dlpack_stream_handle(consumer);
  CUDAGuard guard(t.device().index());
  const CUDAStream current = getCurrentCUDAStream(t.device().index());
  if (current.stream() == target) return;
  CUDAEvent event;
  event.record(current);
  TP_CUDA_CHECK(cudaStreamWaitEvent(target, event.event(), 0),
                "making a DLPack consumer's stream wait for the producer");
}

// The consumer's side: the stream value to pass to a producer of a tensor on `device`, the
// device's current stream (1 for the legacy default stream, as torch.from_dlpack passes it).
inline int64_t dlpack_consumer_stream(DeviceIndex device) {
  const cudaStream_t s = getCurrentCUDAStream(device).stream();
  return s == nullptr || s == cudaStreamLegacy
             ? 1
             : static_cast<int64_t>(reinterpret_cast<std::intptr_t>(s));
}

}  // namespace tensorplay::cuda
