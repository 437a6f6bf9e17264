// Helpers the CUDA backend's host-side tests share: "fake" CUDA tensors (host memory labelled
// cuda:0, whose "device" pointers a host emulation of a kernel can read), whether the binary is
// sanitized, and NVRTC programs compiled on both cores.
#pragma once

#include <tensorplay/backends/cuda/nvrtc.hpp>
#include <tensorplay/backends/cuda/pointwise_source.hpp>
#include <tensorplay/tensorplay.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace cuda_test_support {

namespace tp = tensorplay;

// Tensors on cuda:0 over host memory: an op on them reaches the CUDA kernel step, which the tests
// stop before it touches a device (or emulate on the host).
inline const tp::TensorOptions kFakeCuda = tp::TensorOptions().device(tp::Device(tp::kCUDA, 0));

// Storage shared by a fake CUDA tensor and its CPU twin, filled with value(i).
template <class T>
struct Blob {
  std::vector<T> host;
  tp::Tensor cuda, cpu;
  Blob(std::vector<int64_t> sizes, tp::DType dt, const std::function<T(std::size_t)>& value) {
    std::size_t n = 1;
    for (int64_t s : sizes) n *= std::size_t(s);
    host.resize(std::max<std::size_t>(n, 1));
    for (std::size_t i = 0; i < n; ++i) host[i] = value(i);
    cuda = tp::from_blob(host.data(), sizes, kFakeCuda.dtype(dt));
    cpu = tp::from_blob(host.data(), sizes, tp::TensorOptions().dtype(dt));
  }
};

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// One NVRTC program to compile (uncached, with the kernels' options) and what came of it.
struct Program {
  std::string source, name;
  int arch = 80;
  std::string ptx, error;
};

// Compiles `programs` on two threads pulling from a shared index (both cores of a CI machine):
// a few large programs spare NVRTC's per-program cost.
inline void compile_all(std::vector<Program>& programs) {
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < programs.size(); i = next++) {
      Program& p = programs[i];
      try {
        p.ptx = tensorplay::cuda::compile_to_ptx_uncached(
            p.source, p.name, p.arch, tensorplay::cuda::pointwise_compile_options());
      } catch (const std::exception& e) {
        p.error = e.what();
      }
    }
  };
  std::thread helper(work);
  work();
  helper.join();
}

}  // namespace cuda_test_support
