// CUDA backend errors: the typed exceptions the backend throws and the check that turns a failed
// cudaError_t into one.
//
//  * cuda::CUDAError (derives from Error): a CUDA runtime call failed; error() is the
//    cudaError_t. The message is c10's ("CUDA error: invalid device ordinal").
//  * cuda::CUDAUnavailableError (derives from CUDAError): the backend cannot run on this machine
//    (no driver, no device); what() says why, in PyTorch's words.
//  * tensorplay::OutOfMemoryError (core/error.hpp): the caching allocator could not get memory
//    even after freeing its cache.
#pragma once

#include <tensorplay/config.hpp>

#if !TENSORPLAY_USE_CUDA
#error "tensorplay/backends/cuda/ headers need TENSORPLAY_USE_CUDA=1: link tensorplay::cuda"
#endif

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

#include <tensorplay/core/error.hpp>

namespace tensorplay::cuda {

class CUDAError : public Error {
 public:
  CUDAError(std::string msg, cudaError_t error) : Error(std::move(msg)), error_(error) {}
  cudaError_t error() const noexcept { return error_; }

 private:
  cudaError_t error_;
};

class CUDAUnavailableError : public CUDAError {
 public:
  using CUDAError::CUDAError;
};

namespace detail {

// c10's C10_CUDA_CHECK message; `when` (optional) says what was being done. The runtime's
// sticky "last error" is cleared so that one failure is not reported again by the next call.
[[noreturn]] inline void throw_cuda_error(cudaError_t error, const char* when = nullptr) {
  (void)cudaGetLastError();
  std::string msg = std::string("CUDA error: ") + cudaGetErrorString(error);
  if (when != nullptr) msg += std::string(" (") + cudaGetErrorName(error) + " when " + when + ")";
  throw CUDAError(std::move(msg), error);
}

}  // namespace detail
}  // namespace tensorplay::cuda

// TP_CUDA_CHECK(cudaCall(...), "what was being done"): throws cuda::CUDAError on failure.
#define TP_CUDA_CHECK(expr, when)                                         \
  do {                                                                    \
    const cudaError_t tp_cuda_err_ = (expr);                              \
    if (tp_cuda_err_ != cudaSuccess) {                                    \
      ::tensorplay::cuda::detail::throw_cuda_error(tp_cuda_err_, (when)); \
    }                                                                     \
  } while (false)
