// Streams, events and guards with c10's names: CUDAStream, getDefaultCUDAStream,
// getCurrentCUDAStream, setCurrentCUDAStream, getStreamFromPool, CUDAStreamGuard, CUDAGuard,
// CUDAEvent.
//
// As in c10: each device has its default (legacy, null) stream, and a pool of 32 non-blocking
// streams per priority, created on first use and handed out round robin by getStreamFromPool;
// the current stream is per thread and per device and starts as the default stream. The caching
// allocator allocates on the current stream, and a block used on another stream is protected
// with record_stream (allocator.hpp). Every call needs a device: without one it throws
// CUDAUnavailableError (runtime.hpp).
#pragma once

#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/backends/cuda/runtime.hpp>
#include <tensorplay/core/device.hpp>

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <utility>
#include <vector>

namespace tensorplay::cuda {

// A CUDA stream of a device: a value (copying it copies the handle, not the stream).
class CUDAStream {
 public:
  CUDAStream(DeviceIndex device, cudaStream_t stream) noexcept : device_(device), stream_(stream) {}

  cudaStream_t stream() const noexcept { return stream_; }
  operator cudaStream_t() const noexcept { return stream_; }
  DeviceIndex device_index() const noexcept { return device_; }
  Device device() const noexcept { return Device(DeviceType::CUDA, device_); }
  // Whether all work queued on the stream has completed (does not wait).
  bool query() const {
    const cudaError_t error = cudaStreamQuery(stream_);
    if (error == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    TP_CUDA_CHECK(error, "querying a stream");
    return true;
  }
  // Waits until all work queued on the stream has completed.
  void synchronize() const {
    TP_CUDA_CHECK(cudaStreamSynchronize(stream_), "synchronizing a stream");
  }
  int priority() const {
    int p = 0;
    TP_CUDA_CHECK(cudaStreamGetPriority(stream_, &p), "reading a stream's priority");
    return p;
  }

  friend bool operator==(const CUDAStream& a, const CUDAStream& b) noexcept {
    return a.device_ == b.device_ && a.stream_ == b.stream_;
  }
  friend std::ostream& operator<<(std::ostream& os, const CUDAStream& s) {
    return os << "stream " << static_cast<const void*>(s.stream_)
              << " on device cuda:" << int(s.device_);
  }

 private:
  DeviceIndex device_;
  cudaStream_t stream_;
};

namespace detail {

inline constexpr int kStreamsPerPool = 32;  // c10's kStreamsPerPool

// One device's pools: created on first use, never destroyed (streams outlive static tensors).
struct StreamPools {
  std::once_flag once;
  std::array<cudaStream_t, kStreamsPerPool> low{};
  std::array<cudaStream_t, kStreamsPerPool> high{};
  std::atomic<unsigned> next_low{0};
  std::atomic<unsigned> next_high{0};
};

inline StreamPools& stream_pools(DeviceIndex device) {
  static const auto all = [] {
    auto* pools = new std::vector<std::unique_ptr<StreamPools>>();
    for (int i = 0; i < device_count(); ++i) pools->push_back(std::make_unique<StreamPools>());
    return pools;
  }();
  return *(*all)[static_cast<std::size_t>(device)];
}

// The current stream of each device, for this thread (null: the default stream).
inline cudaStream_t& current_stream_slot(DeviceIndex device) {
  thread_local std::vector<cudaStream_t> current;
  if (current.size() <= static_cast<std::size_t>(device)) {
    current.resize(static_cast<std::size_t>(device) + 1, nullptr);
  }
  return current[static_cast<std::size_t>(device)];
}

inline DeviceIndex checked_device(DeviceIndex device) {
  return resolve_device(Device(DeviceType::CUDA, device));
}

}  // namespace detail

// The device's default (legacy, null) stream.
inline CUDAStream getDefaultCUDAStream(DeviceIndex device = -1) {
  return CUDAStream(detail::checked_device(device), nullptr);
}

// This thread's current stream on the device (the default stream until set).
inline CUDAStream getCurrentCUDAStream(DeviceIndex device = -1) {
  const DeviceIndex d = detail::checked_device(device);
  return CUDAStream(d, detail::current_stream_slot(d));
}

// Makes `stream` this thread's current stream on its device (not the current device).
inline void setCurrentCUDAStream(const CUDAStream& stream) {
  const DeviceIndex d = detail::checked_device(stream.device_index());
  detail::current_stream_slot(d) = stream.stream();
}

// A stream from the device's pool (round robin over 32 per priority), created non-blocking.
inline CUDAStream getStreamFromPool(bool isHighPriority = false, DeviceIndex device = -1) {
  const DeviceIndex d = detail::checked_device(device);
  detail::StreamPools& pools = detail::stream_pools(d);
  std::call_once(pools.once, [&] {
    int least = 0, greatest = 0;  // numerically: greatest is the highest priority
    const DeviceIndex previous = current_device();
    if (previous != d) set_device(d);
    TP_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest), "reading priorities");
    for (int i = 0; i < detail::kStreamsPerPool; ++i) {
      TP_CUDA_CHECK(cudaStreamCreateWithPriority(&pools.low[static_cast<std::size_t>(i)],
                                                 cudaStreamNonBlocking, least),
                    "creating a stream");
      TP_CUDA_CHECK(cudaStreamCreateWithPriority(&pools.high[static_cast<std::size_t>(i)],
                                                 cudaStreamNonBlocking, greatest),
                    "creating a stream");
    }
    if (previous != d) set_device(previous);
  });
  auto& next = isHighPriority ? pools.next_high : pools.next_low;
  const auto& pool = isHighPriority ? pools.high : pools.low;
  const unsigned i = next.fetch_add(1, std::memory_order_relaxed) % detail::kStreamsPerPool;
  return CUDAStream(d, pool[i]);
}

// c10::cuda::CUDAGuard: makes a device current for a scope and restores the previous one.
class CUDAGuard {
 public:
  explicit CUDAGuard(DeviceIndex device)
      : original_(::tensorplay::cuda::current_device()), current_(detail::checked_device(device)) {
    if (current_ != original_) set_device(current_);
  }
  explicit CUDAGuard(const Device& device) : CUDAGuard(cuda_index(device)) {}
  ~CUDAGuard() {
    if (current_ != original_) (void)cudaSetDevice(original_);
  }
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;

  void set_index(DeviceIndex device) {
    current_ = detail::checked_device(device);
    set_device(current_);
  }
  Device current_device() const noexcept { return Device(DeviceType::CUDA, current_); }
  Device original_device() const noexcept { return Device(DeviceType::CUDA, original_); }

 private:
  static DeviceIndex cuda_index(const Device& device) {
    TP_CHECK_VALUE(device.is_cuda(), "CUDAGuard: expected a CUDA device, got ", device);
    return device.index();
  }

  DeviceIndex original_;
  DeviceIndex current_;
};

// c10::cuda::CUDAStreamGuard: makes a stream current on its device, and its device current,
// for a scope; restores both.
class CUDAStreamGuard {
 public:
  explicit CUDAStreamGuard(const CUDAStream& stream)
      : device_guard_(stream.device_index()),
        original_(getCurrentCUDAStream(stream.device_index())),
        current_(stream) {
    setCurrentCUDAStream(stream);
  }
  ~CUDAStreamGuard() { detail::current_stream_slot(original_.device_index()) = original_.stream(); }
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;

  CUDAStream original_stream() const noexcept { return original_; }
  CUDAStream current_stream() const noexcept { return current_; }

 private:
  CUDAGuard device_guard_;
  CUDAStream original_;
  CUDAStream current_;
};

// c10's CUDAEvent: created on its first record (on the recording stream's device), move-only;
// timing is off unless asked for (cudaEventDefault).
class CUDAEvent {
 public:
  explicit CUDAEvent(unsigned flags = cudaEventDisableTiming) noexcept : flags_(flags) {}
  CUDAEvent(CUDAEvent&& other) noexcept { *this = std::move(other); }
  CUDAEvent& operator=(CUDAEvent&& other) noexcept {
    if (this != &other) {
      destroy();
      flags_ = other.flags_;
      event_ = std::exchange(other.event_, nullptr);
      device_ = other.device_;
    }
    return *this;
  }
  CUDAEvent(const CUDAEvent&) = delete;
  CUDAEvent& operator=(const CUDAEvent&) = delete;
  ~CUDAEvent() { destroy(); }

  bool isCreated() const noexcept { return event_ != nullptr; }
  cudaEvent_t event() const noexcept { return event_; }

  // Marks the current end of the stream's queued work (the current stream by default).
  void record() { record(getCurrentCUDAStream()); }
  void record(const CUDAStream& stream) {
    CUDAGuard guard(stream.device_index());
    if (event_ == nullptr) {
      TP_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags_), "creating an event");
      device_ = stream.device_index();
    }
    TP_CHECK_VALUE(device_ == stream.device_index(), "Event device ", int(device_),
                   " does not match recording stream's device ", int(stream.device_index()), ".");
    TP_CUDA_CHECK(cudaEventRecord(event_, stream.stream()), "recording an event");
  }
  // Makes future work on `stream` wait for the recorded work (no host wait).
  void block(const CUDAStream& stream) const {
    if (event_ == nullptr) return;
    CUDAGuard guard(stream.device_index());
    TP_CUDA_CHECK(cudaStreamWaitEvent(stream.stream(), event_, 0), "waiting on an event");
  }
  // Whether the recorded work has completed (true for an event never recorded).
  bool query() const {
    if (event_ == nullptr) return true;
    const cudaError_t error = cudaEventQuery(event_);
    if (error == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    TP_CUDA_CHECK(error, "querying an event");
    return true;
  }
  void synchronize() const {
    if (event_ != nullptr) TP_CUDA_CHECK(cudaEventSynchronize(event_), "waiting for an event");
  }
  // Milliseconds from this event to `end` (both recorded, with timing enabled).
  float elapsed_time(const CUDAEvent& end) const {
    TP_CHECK(isCreated() && end.isCreated(),
             "Both events must be recorded before calculating elapsed time.");
    float ms = 0.0f;
    TP_CUDA_CHECK(cudaEventElapsedTime(&ms, event_, end.event_), "timing events");
    return ms;
  }

 private:
  void destroy() noexcept {
    if (event_ != nullptr) (void)cudaEventDestroy(event_);
    event_ = nullptr;
  }

  unsigned flags_ = cudaEventDisableTiming;
  cudaEvent_t event_ = nullptr;
  DeviceIndex device_ = -1;
};

}  // namespace tensorplay::cuda
