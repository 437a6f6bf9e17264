// Pinned (page-locked) host memory: PyTorch's CachingHostAllocator model, written once as a
// template over the runtime it draws memory from (HostMemory below): cudaHostAlloc for the
// process-wide allocator (allocator.hpp's PinnedMemoryAllocator), host memory with test-driven
// events in the tests. So this header includes no CUDA header.
//
// The rules are c10's (aten/src/ATen/cuda/CachingHostAllocator.cpp):
//  * Sizes round up to a power of two; freed blocks are cached by size and reused for the next
//    request of that size (page-locking is slow: cudaHostAlloc costs far more than a copy).
//  * A block a copy reads or writes asynchronously is marked with record_event(p, stream) by
//    the copy; when the block is freed, an event is recorded on each such stream and the block
//    is reused only once all of them have completed (polled at the start of every allocation),
//    so a non_blocking copy never sees its host buffer handed out again mid-flight.
//  * empty_cache() waits for nothing: it returns the cached free blocks to the runtime; blocks
//    waiting for their events stay until they are free.
// Thread safety: one mutex guards the blocks, free lists, events and stats. Event queries (which
// never wait) run under it; allocations, frees and event records of the runtime outside it.
#pragma once

#include <tensorplay/core/allocator.hpp>
#include <tensorplay/core/data_ptr.hpp>
#include <tensorplay/core/device.hpp>
#include <tensorplay/core/error.hpp>

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tensorplay::cuda {

// What the host allocator needs from a runtime: page-locked memory and the streams' events.
// The simulated device of the tests (tests/cuda/simulated_device.hpp) is one.
template <class M>
concept HostMemory = std::regular<typename M::stream_type> &&
    std::totally_ordered<typename M::stream_type> && std::copyable<typename M::event_type> &&
    requires(M& m, std::size_t n, void* p, const typename M::stream_type& s,
             const typename M::event_type& e) {
  // n bytes of page-locked host memory, or nullptr when refused.
  { m.malloc(n) } -> std::same_as<void*>;
  m.free(p);
  { m.create_event() } -> std::same_as<typename M::event_type>;
  m.record_event(e, s);
  { m.query_event(e) } -> std::same_as<bool>;
  m.destroy_event(e);
};

// The allocator's counters (bytes are rounded block sizes).
struct HostStats {
  std::int64_t allocated_bytes = 0;  // in blocks handed out and not yet freed
  std::int64_t peak_allocated_bytes = 0;
  std::int64_t reserved_bytes = 0;  // page-locked from the runtime
  std::int64_t peak_reserved_bytes = 0;
  std::int64_t num_host_alloc = 0;  // runtime allocations
  std::int64_t num_host_free = 0;
  std::int64_t num_allocs = 0;            // blocks handed out
  std::int64_t num_cached_allocs = 0;     // ... from the cache
  std::int64_t pending_event_blocks = 0;  // freed, waiting for their events
};

template <HostMemory M>
class CachingHostAllocatorT {
 public:
  using stream_type = typename M::stream_type;
  using event_type = typename M::event_type;

  explicit CachingHostAllocatorT(M memory) : m_(std::move(memory)) {}
  // Returns every block that is not handed out (cached, waiting for events, or leaked by a
  // failed event record) to the runtime. The allocator must outlive the DataPtrs it returned;
  // the process-wide one is never destroyed.
  ~CachingHostAllocatorT() {
    for (Pending& p : pending_) {
      for (const event_type& e : p.events) {
        try {
          m_.destroy_event(e);
        } catch (...) {  // a runtime already torn down: nothing left to release
        }
      }
    }
    for (auto& [p, b] : blocks_) {
      if (b.allocated) continue;
      try {
        m_.free(p);
      } catch (...) {
      }
    }
  }
  CachingHostAllocatorT(const CachingHostAllocatorT&) = delete;
  CachingHostAllocatorT& operator=(const CachingHostAllocatorT&) = delete;

  // The size a request of n bytes takes: the next power of two (0 stays 0).
  static std::size_t round_size(std::size_t n) noexcept { return n == 0 ? 0 : std::bit_ceil(n); }

  // A block of at least n bytes, as a DataPtr on the CPU whose deleter returns it here. Zero
  // bytes: a null DataPtr. Raises `on_refused(rounded)` (which must throw) when the runtime
  // refuses memory even after the cache was emptied.
  template <class OnRefused>
  DataPtr allocate(std::size_t n, OnRefused&& on_refused) {
    if (n == 0) return DataPtr(nullptr, Device(DeviceType::CPU));
    process_events();
    const std::size_t size = round_size(n);
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = free_.find(size); it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        hand_out(p, size, /*cached=*/true);
        return data_ptr(p);
      }
    }
    void* p = m_.malloc(size);
    if (p == nullptr) {
      empty_cache();
      p = m_.malloc(size);
      if (p == nullptr) on_refused(size);
    }
    const std::lock_guard<std::mutex> lock(mutex_);
    blocks_[p] = Block{this, p, size, false, {}};
    stats_.reserved_bytes += static_cast<std::int64_t>(size);
    stats_.peak_reserved_bytes = std::max(stats_.peak_reserved_bytes, stats_.reserved_bytes);
    ++stats_.num_host_alloc;
    hand_out(p, size, /*cached=*/false);
    return data_ptr(p);
  }

  // c10's CachingHostAllocator_recordEvent: `stream` reads or writes the block of `p` (a
  // pointer this allocator returned, or into its block: the DataPtr's data) asynchronously.
  // False when p is not from this allocator (nothing to protect: not pinned by it).
  bool record_stream(const void* p, const stream_type& stream) {
    const std::lock_guard<std::mutex> lock(mutex_);
    Block* b = find_block(p);
    if (b == nullptr || !b->allocated) return false;
    b->streams.insert(stream);
    return true;
  }

  // Whether p points into a block of this allocator that is handed out.
  bool owns(const void* p) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    const Block* b = const_cast<CachingHostAllocatorT*>(this)->find_block(p);
    return b != nullptr && b->allocated;
  }

  // Returns the cached free blocks to the runtime.
  void empty_cache() {
    std::vector<void*> release;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      for (auto& [size, list] : free_) {
        for (void* p : list) {
          release.push_back(p);
          blocks_.erase(p);
          stats_.reserved_bytes -= static_cast<std::int64_t>(size);
          ++stats_.num_host_free;
        }
        list.clear();
      }
    }
    for (void* p : release) m_.free(p);
  }

  HostStats stats() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

  // Frees a block (the DataPtr deleter's work). Never throws: a failing event record makes the
  // block wait for nothing it could know about, so it is leaked rather than reused early.
  void free(void* p) noexcept {
    std::set<stream_type> streams;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto it = blocks_.find(p);
      if (it == blocks_.end() || !it->second.allocated) return;
      Block& b = it->second;
      b.allocated = false;
      stats_.allocated_bytes -= static_cast<std::int64_t>(b.size);
      streams.swap(b.streams);
      if (streams.empty()) {
        free_[b.size].push_back(p);
        return;
      }
      stats_.pending_event_blocks += 1;
    }
    std::vector<event_type> events;
    try {
      for (const stream_type& s : streams) {
        event_type e = m_.create_event();
        m_.record_event(e, s);
        events.push_back(e);
      }
    } catch (...) {
      return;  // leaked: see above
    }
    const std::lock_guard<std::mutex> lock(mutex_);
    pending_.push_back(Pending{p, std::move(events)});
  }

  M& memory() noexcept { return m_; }

 private:
  struct Block {
    CachingHostAllocatorT* owner = nullptr;
    void* p = nullptr;
    std::size_t size = 0;
    bool allocated = false;
    std::set<stream_type> streams;  // used by asynchronous copies since it was handed out
  };
  struct Pending {
    void* p;
    std::vector<event_type> events;
  };

  // The DataPtr's context is the block's entry (std::map nodes do not move; a block handed out
  // is never erased), which knows its allocator.
  DataPtr data_ptr(void* p) {
    return DataPtr(p, &blocks_.at(p), &CachingHostAllocatorT::delete_block,
                   Device(DeviceType::CPU));
  }
  static void delete_block(void* ctx) noexcept {
    const Block* b = static_cast<const Block*>(ctx);
    b->owner->free(b->p);
  }

  void hand_out(void* p, std::size_t size, bool cached) {
    Block& b = blocks_.at(p);
    b.allocated = true;
    b.streams.clear();
    stats_.allocated_bytes += static_cast<std::int64_t>(size);
    stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
    ++stats_.num_allocs;
    if (cached) ++stats_.num_cached_allocs;
  }

  Block* find_block(const void* p) {
    auto it = blocks_.upper_bound(const_cast<void*>(p));
    if (it == blocks_.begin()) return nullptr;
    --it;
    const auto* base = static_cast<const char*>(it->first);
    const auto* q = static_cast<const char*>(p);
    return q >= base && q < base + it->second.size ? &it->second : nullptr;
  }

  // Blocks whose events have all completed go back to the free lists (in order: c10 stops at
  // the first block still pending, so reuse follows the streams' order).
  void process_events() {
    const std::lock_guard<std::mutex> lock(mutex_);  // queries do not wait
    while (!pending_.empty()) {
      Pending& front = pending_.front();
      for (const event_type& e : front.events) {
        if (!m_.query_event(e)) return;
      }
      for (const event_type& e : front.events) m_.destroy_event(e);
      free_[blocks_.at(front.p).size].push_back(front.p);
      stats_.pending_event_blocks -= 1;
      pending_.pop_front();
    }
  }

  M m_;
  mutable std::mutex mutex_;
  std::map<void*, Block> blocks_;                             // every block held, by address
  std::unordered_map<std::size_t, std::vector<void*>> free_;  // cached free blocks, by size
  std::deque<Pending> pending_;                               // freed, waiting for events
  HostStats stats_;
};

}  // namespace tensorplay::cuda
