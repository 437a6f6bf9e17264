// The run-time compiled kernels a process has looked up, per (device, kernel): every kernel family
// (elementwise, reductions, softmax) finds its CUfunction here, so that a launch after the
// first costs one hash lookup, and a miss is compiled for the device's architecture through
// kernel_cache() (NVRTC, memory and disk) and loaded through module_cache().
//
//   const std::uint64_t slot = kernel_slot(KernelFamily::Reduce, device, packed_key);
//   CUfunction f = kernel_function(device, slot, name, [&] { return source_of(key); }, options);
#pragma once

#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/backends/cuda/module.hpp>
#include <tensorplay/backends/cuda/nvrtc.hpp>
#include <tensorplay/core/device.hpp>
#include <tensorplay/core/error.hpp>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tensorplay::cuda {

// The kernel families (elementwise, reductions, softmax, scans, copies, random numbers), each
// with its own key packing
// (kernel_slot's `key`).
enum class KernelFamily : std::uint8_t { Pointwise, Reduce, Softmax, Scan, Cast, Random };

// (family, device, a family's key packed in 32 bits) in one word: the table's key.
constexpr std::uint64_t kernel_slot(KernelFamily family, DeviceIndex device,
                                    std::uint32_t key) noexcept {
  return std::uint64_t{key} |
         (static_cast<std::uint64_t>(static_cast<std::uint16_t>(device)) << 32) |
         (static_cast<std::uint64_t>(family) << 48);
}

namespace detail {

// The architecture to compile for on a device of compute capability `device_arch` (x10): the
// newest NVRTC supports that the device runs (PTX runs on its own and later architectures), or
// c10's "no kernel image" error for a device older than all of them.
inline int nvrtc_arch_for(int device_arch, const std::vector<int>& supported) {
  int best = -1;
  for (int a : supported) {
    if (a <= device_arch && a > best) best = a;
  }
  if (best < 0) {
    std::string list;
    for (int a : supported) list += (list.empty() ? "sm_" : ", sm_") + std::to_string(a);
    throw CUDAError(::tensorplay::detail::str_cat(
                        "CUDA error: no kernel image is available for execution on the device "
                        "(the device is sm_",
                        device_arch, "; NVRTC compiles for ", list, ")"),
                    cudaErrorNoKernelImageForDevice);
  }
  return best;
}

inline int device_arch(DeviceIndex device) {
  int major = 0, minor = 0;
  TP_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
                "reading the device's compute capability");
  TP_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device),
                "reading the device's compute capability");
  return major * 10 + minor;
}

// The kernels already looked up. Thread safe: guarded by its mutex; a miss is compiled and
// loaded outside it (kernel_cache() and module_cache() each do a kernel once).
struct KernelFunctions {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, CUfunction> functions;
};
inline KernelFunctions& kernel_functions() {
  static KernelFunctions* const table = new KernelFunctions();  // never destroyed
  return *table;
}

}  // namespace detail

// The kernel `name` of table slot `slot` on `device` (current, under the caller's CUDAGuard);
// on a miss, `source()` is its CUDA source (a program that defines `name`), compiled with NVRTC
// `options`.
template <class Source>
CUfunction kernel_function(DeviceIndex device, std::uint64_t slot, const std::string& name,
                           Source&& source, const std::vector<std::string>& options) {
  detail::KernelFunctions& table = detail::kernel_functions();
  {
    const std::lock_guard<std::mutex> lock(table.mutex);
    if (const auto it = table.functions.find(slot); it != table.functions.end()) return it->second;
  }
  const int arch = detail::nvrtc_arch_for(detail::device_arch(device), nvrtc_supported_archs());
  const KernelCache::Ptx ptx = kernel_cache().get(source(), name, arch, options);
  const CUfunction f = module_cache().function(device, ptx, name);
  const std::lock_guard<std::mutex> lock(table.mutex);
  table.functions.emplace(slot, f);
  return f;
}

}  // namespace tensorplay::cuda
