// The CUDA devices this process sees, with c10's and torch.cuda's names: device_count(),
// is_available(), current_device(), set_device(), synchronize().
//
// The runtime (libcudart) is linked; the driver (libcuda.so.1) is not: the runtime opens it on
// first use. On a machine without a driver or a GPU, device_count() is 0 and is_available() is
// false (neither throws), and anything that needs a device throws CUDAUnavailableError saying
// why in PyTorch's words ("Found no NVIDIA driver on your system...", "No CUDA GPUs are
// available"). The count is read once per process, as c10 does.
#pragma once

#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/core/device.hpp>

#include <cuda_runtime_api.h>

#include <string>

namespace tensorplay::cuda {

namespace detail {

struct DeviceProbe {
  int count = 0;
  std::string unavailable_reason;  // empty when count > 0
};

inline std::string describe_unavailable(cudaError_t error) {
  switch (error) {
    case cudaErrorInsufficientDriver: {
      int driver = 0;
      (void)cudaDriverGetVersion(&driver);
      if (driver == 0) {
        return "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
               "and installed a driver from http://www.nvidia.com/Download/index.aspx";
      }
      return "The NVIDIA driver on your system is too old (found version " +
             std::to_string(driver) + "); this program's CUDA runtime needs a newer one";
    }
    case cudaErrorNoDevice: return "No CUDA GPUs are available";
    default: return std::string("CUDA error: ") + cudaGetErrorString(error);
  }
}

inline const DeviceProbe& probe() {
  static const DeviceProbe result = [] {
    DeviceProbe p;
    const cudaError_t error = cudaGetDeviceCount(&p.count);
    if (error != cudaSuccess) {
      (void)cudaGetLastError();
      p.count = 0;
      p.unavailable_reason = describe_unavailable(error);
    } else if (p.count == 0) {
      p.unavailable_reason = describe_unavailable(cudaErrorNoDevice);
    }
    return p;
  }();
  return result;
}

}  // namespace detail

// The number of CUDA devices (0 without a driver or a GPU). Never throws.
inline DeviceIndex device_count() noexcept {
  try {
    return static_cast<DeviceIndex>(detail::probe().count);
  } catch (...) {  // only std::bad_alloc building the reason
    return 0;
  }
}

// torch.cuda.is_available(): false, never an exception, where there is no driver or no device.
inline bool is_available() noexcept { return device_count() > 0; }

// Why is_available() is false (empty when it is true).
inline std::string unavailable_reason() { return detail::probe().unavailable_reason; }

namespace detail {

// Throws CUDAUnavailableError unless a device exists.
inline void require_cuda() {
  const DeviceProbe& p = probe();
  if (p.count == 0) throw CUDAUnavailableError(p.unavailable_reason, cudaErrorNoDevice);
}

}  // namespace detail

inline DeviceIndex current_device() {
  detail::require_cuda();
  int index = 0;
  TP_CUDA_CHECK(cudaGetDevice(&index), "reading the current device");
  return static_cast<DeviceIndex>(index);
}

inline void set_device(DeviceIndex index) {
  detail::require_cuda();
  TP_CUDA_CHECK(cudaSetDevice(index), "selecting a device");
}

// The device a Device names: its index, or the current device for "cuda". Checks the index
// against the devices present (c10's "CUDA error: invalid device ordinal").
inline DeviceIndex resolve_device(const Device& device) {
  detail::require_cuda();
  if (!device.has_index()) return current_device();
  if (device.index() >= device_count()) detail::throw_cuda_error(cudaErrorInvalidDevice);
  return device.index();
}

// torch.cuda.synchronize(device): waits for all work on the device.
inline void synchronize(const Device& device = Device(DeviceType::CUDA)) {
  const DeviceIndex index = resolve_device(device);
  const DeviceIndex previous = current_device();
  if (index != previous) set_device(index);
  const cudaError_t error = cudaDeviceSynchronize();
  if (index != previous) set_device(previous);
  TP_CUDA_CHECK(error, "synchronizing the device");
}

}  // namespace tensorplay::cuda
