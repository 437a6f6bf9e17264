// SimulatedDevice: a DeviceMemory model in host memory for the CUDA caching allocator's tests
// (tests/cuda/caching_allocator_test.cpp and tests/stress/cuda_caching_allocator_stress.cpp), so
// they run in every build, without a GPU or the CUDA toolkit.
#pragma once

#include <tensorplay/backends/cuda/caching_allocator.hpp>

#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>

namespace cuda_simulated_device {

// A device in host memory. Copies of a SimulatedDevice share one state, so the test keeps a
// handle while the allocator owns another. Thread-safe, as DeviceMemory requires.
class SimulatedDevice {
 public:
  using stream_type = int;
  using event_type = int;

  explicit SimulatedDevice(std::size_t capacity = std::size_t{1} << 30, int index = 0)
      : s_(std::make_shared<State>()) {
    s_->capacity = capacity;
    s_->index = index;
  }

  void* malloc(std::size_t n) {
    const auto lock = locked();
    if (s_->failing_mallocs > 0) {
      --s_->failing_mallocs;
      throw std::runtime_error("simulated device: malloc failed");
    }
    if (n > s_->capacity - s_->used) {
      ++s_->failed_mallocs;
      return nullptr;
    }
    void* p = ::operator new(n, kAlignment);
    s_->live[p] = n;
    s_->used += n;
    ++s_->mallocs;
    return p;
  }
  void free(void* p) {
    const auto lock = locked();
    const auto it = s_->live.find(p);
    if (it == s_->live.end()) throw std::logic_error("simulated device: free of unknown memory");
    s_->used -= it->second;
    s_->live.erase(it);
    ::operator delete(p, kAlignment);
    ++s_->frees;
  }
  int create_event() {
    const auto lock = locked();
    s_->events[s_->next_event] = Event{};
    return s_->next_event++;
  }
  void record_event(int event, int stream) {
    const auto lock = locked();
    if (s_->failing_records > 0) {
      --s_->failing_records;
      throw std::runtime_error("simulated device: event record failed");
    }
    s_->events.at(event) = Event{stream, false};
  }
  bool query_event(int event) {
    const auto lock = locked();
    return s_->events.at(event).complete;
  }
  void synchronize_event(int event) {
    const auto lock = locked();
    s_->events.at(event).complete = true;  // waiting ends with the work done
  }
  void destroy_event(int event) {
    const auto lock = locked();
    if (s_->events.erase(event) != 1) throw std::logic_error("simulated device: unknown event");
  }
  void synchronize_device() {
    const auto lock = locked();
    for (auto& [id, e] : s_->events) e.complete = true;
    ++s_->device_syncs;
  }
  void mem_get_info(std::size_t& free_bytes, std::size_t& total_bytes) {
    const auto lock = locked();
    free_bytes = s_->capacity - s_->used;
    total_bytes = s_->capacity;
  }
  void copy(void* dst, const void* src, std::size_t n, int stream) {
    std::memmove(dst, src, n);
    const auto lock = locked();
    s_->last_copy_stream = stream;
  }
  int device_index() const { return s_->index; }

  // The test's controls and probes.
  void complete_all_events() {
    const auto lock = locked();
    for (auto& [id, e] : s_->events) e.complete = true;
  }
  void fail_next_mallocs(int n) {
    const auto lock = locked();
    s_->failing_mallocs = n;
  }
  void fail_next_event_records(int n) {
    const auto lock = locked();
    s_->failing_records = n;
  }
  int pending_events() const {
    const auto lock = locked();
    int n = 0;
    for (const auto& [id, e] : s_->events) n += e.complete ? 0 : 1;
    return n;
  }
  std::size_t live_events() const {
    const auto lock = locked();
    return s_->events.size();
  }
  std::size_t live_allocations() const {
    const auto lock = locked();
    return s_->live.size();
  }
  int mallocs() const {
    const auto lock = locked();
    return s_->mallocs;
  }
  int failed_mallocs() const {
    const auto lock = locked();
    return s_->failed_mallocs;
  }
  int frees() const {
    const auto lock = locked();
    return s_->frees;
  }
  int device_syncs() const {
    const auto lock = locked();
    return s_->device_syncs;
  }
  int last_copy_stream() const {
    const auto lock = locked();
    return s_->last_copy_stream;
  }

 private:
  static constexpr std::align_val_t kAlignment{512};
  struct Event {
    int stream = -1;
    bool complete = true;  // a new event has no work before it
  };
  struct State {
    std::mutex mutex;  // guards everything below
    std::size_t capacity = 0;
    std::size_t used = 0;
    int index = 0;
    std::map<void*, std::size_t> live;
    std::map<int, Event> events;
    int next_event = 1;
    int mallocs = 0;
    int failed_mallocs = 0;  // refused for lack of memory
    int frees = 0;
    int device_syncs = 0;
    int failing_mallocs = 0;  // the next ones throw
    int failing_records = 0;
    int last_copy_stream = -1;
  };
  std::unique_lock<std::mutex> locked() const { return std::unique_lock<std::mutex>(s_->mutex); }

  std::shared_ptr<State> s_;
};

static_assert(tensorplay::cuda::DeviceMemory<SimulatedDevice>);

}  // namespace cuda_simulated_device
