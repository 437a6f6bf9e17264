// The process-wide CUDA allocator: the caching allocator (caching_allocator.hpp, c10's model)
// over the CUDA runtime, one per device, behind the one Allocator that getAllocator(kCUDA)
// returns, and torch.cuda's memory functions.
//
// RuntimeMemory is the DeviceMemory model of one device: cudaMalloc/cudaFree, events created
// without timing, cudaMemGetInfo, cudaMemcpyAsync; each call runs with its device current (and
// restores the caller's). Streams are cudaStream_t; the default (legacy) stream is nullptr, which
// the default stream of c10's model; blocks are allocated on the thread's current stream
// (stream.hpp).
//
// Touching no device before the first allocation: allocator() (the device table entry) never
// throws; the first allocate() probes the runtime and throws CUDAUnavailableError where there is
// no driver or no GPU, even for zero bytes, as PyTorch's lazy initialisation does.
#pragma once

#include <tensorplay/backends/cuda/caching_allocator.hpp>
#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/backends/cuda/host_allocator.hpp>
#include <tensorplay/backends/cuda/runtime.hpp>
#include <tensorplay/backends/cuda/stream.hpp>
#include <tensorplay/core/allocator.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tensorplay::cuda {

namespace detail {

// Makes `device` current for a scope (c10's CUDAGuard, minus the stream).
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    TP_CUDA_CHECK(cudaGetDevice(&previous_), "reading the current device");
    if (previous_ != device) TP_CUDA_CHECK(cudaSetDevice(device), "selecting a device");
  }
  ~DeviceScope() {
    int now = previous_;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_) (void)cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace detail

// The runtime's events (created without timing), with a device current around the calls that
// need one (-1: the caller's current device); shared by the device and the pinned memory models.
class RuntimeEvents {
 public:
  using stream_type = cudaStream_t;
  using event_type = cudaEvent_t;

  explicit RuntimeEvents(int device) noexcept : device_(device) {}

  event_type create_event() {
    const Scope scope(device_);
    cudaEvent_t event = nullptr;
    TP_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "creating an event");
    return event;
  }
  void record_event(const event_type& event, const stream_type& stream) {
    const Scope scope(device_);
    TP_CUDA_CHECK(cudaEventRecord(event, stream), "recording an event");
  }
  bool query_event(const event_type& event) {
    const cudaError_t error = cudaEventQuery(event);
    if (error == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    TP_CUDA_CHECK(error, "querying an event");
    return true;
  }
  void synchronize_event(const event_type& event) {
    TP_CUDA_CHECK(cudaEventSynchronize(event), "waiting for an event");
  }
  void destroy_event(const event_type& event) {
    const Scope scope(device_);
    TP_CUDA_CHECK(cudaEventDestroy(event), "destroying an event");
  }
  int device_index() const noexcept { return device_; }

 protected:
  // DeviceScope for a device, nothing for -1.
  class Scope {
   public:
    explicit Scope(int device) {
      if (device >= 0) scope_.emplace(device);
    }

   private:
    std::optional<detail::DeviceScope> scope_;
  };
  int device_;
};

// DeviceMemory over the CUDA runtime, for one device.
class RuntimeMemory : public RuntimeEvents {
 public:
  explicit RuntimeMemory(int device = 0) noexcept : RuntimeEvents(device) {}

  void* malloc(std::size_t n) {
    detail::DeviceScope scope(device_);
    void* p = nullptr;
    const cudaError_t error = cudaMalloc(&p, n);
    if (error == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky: the caller frees its cache and retries
      return nullptr;
    }
    TP_CUDA_CHECK(error, "allocating device memory");
    return p;
  }
  void free(void* p) {
    detail::DeviceScope scope(device_);
    TP_CUDA_CHECK(cudaFree(p), "freeing device memory");
  }
  void synchronize_device() {
    detail::DeviceScope scope(device_);
    TP_CUDA_CHECK(cudaDeviceSynchronize(), "synchronizing the device");
  }
  void mem_get_info(std::size_t& free, std::size_t& total) {
    detail::DeviceScope scope(device_);
    TP_CUDA_CHECK(cudaMemGetInfo(&free, &total), "reading the device's memory");
  }
  void copy(void* dst, const void* src, std::size_t n, const stream_type& stream) {
    detail::DeviceScope scope(device_);
    TP_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, stream),
                  "copying on the device");
  }
};
static_assert(DeviceMemory<RuntimeMemory>);

using DeviceCachingAllocator = CachingAllocatorT<RuntimeMemory>;

// What getAllocator(kCUDA) returns: routes each request to its device's caching allocator.
class CUDACachingAllocator final : public Allocator {
 public:
  // Never destroyed: tensors freed during static destruction still find their allocator.
  static CUDACachingAllocator& instance() noexcept {
    static CUDACachingAllocator* const allocator = new CUDACachingAllocator();
    return *allocator;
  }

  using Allocator::allocate;
  DataPtr allocate(std::size_t nbytes) const override {
    return allocate(nbytes, Device(DeviceType::CUDA));
  }
  // On the thread's current stream of the device.
  DataPtr allocate(std::size_t nbytes, const Device& device) const override {
    const DeviceIndex d = resolve_device(device);
    return of(d).allocate(nbytes, detail::current_stream_slot(d));
  }
  // On the thread's current stream of dst's device.
  void copy_data(const DataPtr& dst, const DataPtr& src, std::size_t nbytes) const override {
    const DeviceIndex d = dst.device().index();
    of(d).copy_data(dst, src, nbytes, detail::current_stream_slot(d));
  }

  // The caching allocator of a device (checked; the devices are probed on first use).
  DeviceCachingAllocator& of(DeviceIndex device) const {
    const std::vector<std::unique_ptr<DeviceCachingAllocator>>& all = devices();
    TP_CHECK_INDEX(device >= 0 && static_cast<std::size_t>(device) < all.size(),
                   "CUDA error: invalid device ordinal (device ", int(device), " of ", all.size(),
                   ")");
    return *all[static_cast<std::size_t>(device)];
  }

  // Every device's allocator that exists (none before the first use).
  void empty_cache() const {
    if (!cuda::is_available()) return;
    for (const auto& a : devices()) a->empty_cache();
  }

 private:
  CUDACachingAllocator() = default;
  ~CUDACachingAllocator() override = default;

  const std::vector<std::unique_ptr<DeviceCachingAllocator>>& devices() const {
    std::call_once(once_, [this] {
      ::tensorplay::cuda::detail::require_cuda();
      for (int i = 0, n = device_count(); i < n; ++i) {
        devices_.push_back(std::make_unique<DeviceCachingAllocator>(RuntimeMemory(i)));
      }
    });
    return devices_;
  }

  mutable std::once_flag once_;
  mutable std::vector<std::unique_ptr<DeviceCachingAllocator>> devices_;
};

// ---- pinned host memory --------------------------------------------------------------------

namespace detail {

// HostMemory over the CUDA runtime: cudaHostAlloc (portable: usable with every device) and
// events recorded on any device's streams.
class RuntimeHostMemory : public RuntimeEvents {
 public:
  RuntimeHostMemory() noexcept : RuntimeEvents(-1) {}

  void* malloc(std::size_t n) {
    void* p = nullptr;
    const cudaError_t error = cudaHostAlloc(&p, n, cudaHostAllocPortable);
    if (error == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return nullptr;
    }
    TP_CUDA_CHECK(error, "allocating pinned host memory");
    return p;
  }
  void free(void* p) { TP_CUDA_CHECK(cudaFreeHost(p), "freeing pinned host memory"); }
};
static_assert(HostMemory<RuntimeHostMemory>);

}  // namespace detail

using PinnedCachingAllocator = CachingHostAllocatorT<detail::RuntimeHostMemory>;

// What getPinnedMemoryAllocator() returns with the CUDA backend (c10's
// getPinnedMemoryAllocator()): page-locked CPU memory from the caching host allocator. Like the
// device allocator, it touches no device until its first allocation, which raises
// CUDAUnavailableError where there is no driver or no GPU.
class PinnedMemoryAllocator final : public Allocator {
 public:
  static PinnedMemoryAllocator& instance() noexcept {
    static PinnedMemoryAllocator* const allocator = new PinnedMemoryAllocator();
    return *allocator;
  }

  using Allocator::allocate;
  DataPtr allocate(std::size_t nbytes) const override {
    ::tensorplay::cuda::detail::require_cuda();
    return cache_.allocate(nbytes, [](std::size_t rounded) {
      throw OutOfMemoryError(::tensorplay::detail::str_cat(
          "CUDA out of memory. Tried to allocate ", rounded,
          " bytes of pinned host memory (cudaHostAlloc refused it, the cache emptied)"));
    });
  }
  DataPtr allocate(std::size_t nbytes, const Device& device) const override {
    TP_CHECK(device.is_cpu(), "pinned memory is CPU memory; asked for ", device);
    return allocate(nbytes);
  }

  // The caching host allocator itself: stats, empty_cache, record_stream.
  PinnedCachingAllocator& cache() const noexcept { return cache_; }

 private:
  PinnedMemoryAllocator() : cache_(detail::RuntimeHostMemory()) {}
  ~PinnedMemoryAllocator() override = default;
  mutable PinnedCachingAllocator cache_;
};

// ---- torch.cuda's memory functions (device -1: the current device) ------------------------
namespace detail {
inline DeviceCachingAllocator& device_allocator(DeviceIndex device) {
  return CUDACachingAllocator::instance().of(resolve_device(Device(DeviceType::CUDA, device)));
}
}  // namespace detail

inline std::map<std::string, std::int64_t> memory_stats(DeviceIndex device = -1) {
  return detail::device_allocator(device).memory_stats();
}
inline std::int64_t memory_allocated(DeviceIndex device = -1) {
  return detail::device_allocator(device).memory_allocated();
}
inline std::int64_t max_memory_allocated(DeviceIndex device = -1) {
  return detail::device_allocator(device).max_memory_allocated();
}
inline std::int64_t memory_reserved(DeviceIndex device = -1) {
  return detail::device_allocator(device).memory_reserved();
}
inline std::int64_t max_memory_reserved(DeviceIndex device = -1) {
  return detail::device_allocator(device).max_memory_reserved();
}
inline void reset_peak_memory_stats(DeviceIndex device = -1) {
  detail::device_allocator(device).reset_peak_memory_stats();
}
// torch.cuda.set_per_process_memory_fraction.
inline void set_per_process_memory_fraction(double fraction, DeviceIndex device = -1) {
  detail::device_allocator(device).set_memory_fraction(fraction);
}
// Returns the cached, unused segments of every device to the driver.
inline void empty_cache() { CUDACachingAllocator::instance().empty_cache(); }

}  // namespace tensorplay::cuda
