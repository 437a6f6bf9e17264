// CUDA caching allocator: PyTorch's c10 CUDACachingAllocator model (one device, its streams,
// best-fit blocks carved from cached segments), written once as a template over the runtime it
// draws memory from: any type that satisfies DeviceMemory below. The CUDA runtime (cudaMalloc,
// cudaEvent*, cudaMemGetInfo) will be one model; the tests use a simulated device in host
// memory. So this header includes no CUDA header and does not need TENSORPLAY_USE_CUDA.
//
// The rules are c10's (c10/cuda/CUDACachingAllocator.cpp):
//  * Sizes round up to a multiple of 512 bytes (at least 512). Requests up to 1 MiB use the
//    small pool, carved from 2 MiB segments; larger ones use the large pool: a 20 MiB segment
//    below 10 MiB, else a segment of their own, rounded up to 2 MiB.
//  * A block belongs to the stream it was allocated on, and only that stream reuses it once it
//    is free: work queued on one stream runs in order, so the next owner's kernels start after
//    the last owner's have finished, with no synchronisation. Free blocks are ordered by
//    (stream, size, address) and an allocation takes the smallest that fits (best fit).
//  * A larger block is split when the rest is worth keeping (small pool: at least 512 bytes;
//    large pool: more than 1 MiB, so that large segments do not shatter into slivers), and a
//    freed block merges with the free neighbours in its segment.
//  * record_stream(p, s) notes that stream s also uses p's block. When p is freed, an event is
//    recorded on each such stream and the block returns to its pool only when all of them have
//    completed; events are polled at the start of every allocation (c10's process_events).
//    Meanwhile the block counts as active but no longer as allocated.
//  * When the device refuses a segment (malloc returns null, or set_memory_fraction's cap would
//    be crossed), the allocator returns the cached whole segments of the request's pool and
//    stream, largest first, until the segment could fit, and retries; then it waits for every
//    pending event, returns every cached whole segment and retries once more (num_alloc_retries
//    counts this); then it throws OutOfMemoryError with PyTorch 1.13's message.
// Left out: PYTORCH_CUDA_ALLOC_CONF (max_split_size and the oversize stats, power-of-two
// rounding, garbage collection, expandable segments), CUDA graph pools, IPC and history.
//
// Stats have c10's layout and meaning (DeviceStats): allocated_bytes drops when a block is
// freed, active_bytes only when it is back in its pool (after its events); inactive_split counts
// the free blocks inside split segments; requested_bytes sums what callers asked for. Byte counts
// are rounded block sizes. memory_stats() spells the keys as torch.cuda.memory_stats() does.
//
// Threading: one mutex guards the pools, blocks, event queues and stats. Calls that may wait on
// the device (event and device synchronisation, returning segments) run with it released, and
// so do the event records of a free, so a DataPtr deleter never holds the lock across a device
// call. A new segment is allocated under the lock, as c10 does by default, so that the cap
// check and the malloc are one step.
//
// Lifetime: the allocator must outlive every DataPtr it returned (their deleters call into it).
// The process-wide CUDA allocator will be a never-destroyed singleton; tests own theirs.
#pragma once

#include <array>
#include <cinttypes>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <tensorplay/core/allocator.hpp>
#include <tensorplay/core/caching_allocator.hpp>
#include <tensorplay/core/data_ptr.hpp>
#include <tensorplay/core/device.hpp>
#include <tensorplay/core/device_stats.hpp>
#include <tensorplay/core/error.hpp>

namespace tensorplay::cuda {

// What the allocator needs from a device runtime. Members may be called from several threads
// at once (the CUDA runtime allows it). Failures other than "out of memory" throw and reach the
// caller, except in a DataPtr deleter (see free() below); blocks and segments the allocator was
// waiting for or returning when a call failed stay out of its pools.
template <class M>
concept DeviceMemory =
    // A queue of work (an integer id, or a handle such as cudaStream_t): a value, ordered so
    // that the pools can sort by it. stream_type{} is the default stream.
    std::regular<typename M::stream_type> && std::totally_ordered<typename M::stream_type> &&
    // A marker recorded into a stream (cudaEvent_t).
    std::copyable<typename M::event_type> &&
    requires(M& m, const M& cm, std::size_t n, void* p, const void* cp,
             const typename M::stream_type& s, const typename M::event_type& e,
             std::size_t& bytes) {
  // n bytes of device memory, or nullptr when the device is out of memory.
  { m.malloc(n) } -> std::same_as<void*>;
  // Returns memory from malloc. Called after synchronize_device(), so no work still uses it.
  m.free(p);
  // A new event; record_event marks the current end of the stream's queued work with it.
  { m.create_event() } -> std::same_as<typename M::event_type>;
  m.record_event(e, s);
  // Whether the work before the event has completed; does not wait.
  { m.query_event(e) } -> std::same_as<bool>;
  // Waits until the work before the event has completed.
  m.synchronize_event(e);
  m.destroy_event(e);
  // Waits until all work on every stream of the device has completed.
  m.synchronize_device();
  // The device's free and total memory in bytes (cudaMemGetInfo), for messages and the cap.
  m.mem_get_info(bytes, bytes);
  // n bytes from cp to p, both device memory, ordered on the stream (cudaMemcpyAsync).
  m.copy(p, cp, n, s);
  // The CUDA device index the memory belongs to.
  { cm.device_index() } -> std::convertible_to<int>;
};

// Stat, StatType, StatArray, DeviceStats and the torch.cuda key spelling live in
// core/device_stats.hpp, shared by every caching allocator's memory_stats().
using tensorplay::DeviceStats;
using tensorplay::Stat;
using tensorplay::StatArray;
using tensorplay::StatType;
namespace detail {
using tensorplay::detail::format_size;
using tensorplay::detail::memory_stats_map;
}  // namespace detail

template <DeviceMemory M>
class CachingAllocatorT final : public Allocator {
 public:
  using stream_type = typename M::stream_type;
  using event_type = typename M::event_type;

  static constexpr std::size_t kMinBlockSize = 512;                     // sizes round to this
  static constexpr std::size_t kSmallSize = std::size_t{1} << 20;       // largest small request
  static constexpr std::size_t kSmallBuffer = std::size_t{2} << 20;     // small-pool segment
  static constexpr std::size_t kLargeBuffer = std::size_t{20} << 20;    // shared large segment
  static constexpr std::size_t kMinLargeAlloc = std::size_t{10} << 20;  // own segment from here
  static constexpr std::size_t kRoundLarge = std::size_t{2} << 20;      // own segments round to
  // Larger requests cannot be rounded without overflow, and no device has that much memory:
  // they fail as out of memory at once.
  static constexpr std::size_t kMaxRequestBytes = std::numeric_limits<std::size_t>::max() / 2;

  static constexpr std::size_t round_size(std::size_t nbytes) noexcept {
    return nbytes < kMinBlockSize ? kMinBlockSize
                                  : (nbytes + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
  }
  // The segment a request of `size` (rounded) bytes asks the device for when no block fits.
  static constexpr std::size_t allocation_size(std::size_t size) noexcept {
    if (size <= kSmallSize) return kSmallBuffer;
    if (size < kMinLargeAlloc) return kLargeBuffer;
    return (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
  }

  explicit CachingAllocatorT(M memory = M())
      : memory_(std::move(memory)),
        device_(DeviceType::CUDA, static_cast<DeviceIndex>(memory_.device_index())) {}
  CachingAllocatorT(const CachingAllocatorT&) = delete;
  CachingAllocatorT& operator=(const CachingAllocatorT&) = delete;
  // Returns the cache to the device. Every DataPtr must be gone by now; a device error here has
  // nowhere to go, since a destructor cannot throw.
  ~CachingAllocatorT() override {
    try {
      empty_cache();
    } catch (...) {
    }
  }

  Device device() const noexcept { return device_; }

  // The stream that allocate(nbytes) and copy_data use; stream_type{} until set. A stand-in
  // for CUDA's per-thread current stream until the runtime is plugged in.
  void set_current_stream(stream_type stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    current_stream_ = std::move(stream);
  }
  stream_type current_stream() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return current_stream_;
  }

  using Allocator::allocate;  // keep the (nbytes, device) overload visible
  DataPtr allocate(std::size_t nbytes) const override {
    auto* self = const_cast<CachingAllocatorT*>(this);
    return self->allocate(nbytes, self->current_stream());
  }

  // A block that `stream` may use at once, and that is reused by `stream` only after it is
  // freed. Zero bytes give a null DataPtr.
  DataPtr allocate(std::size_t nbytes, stream_type stream) {
    if (nbytes == 0) return DataPtr(nullptr, device_);
    std::unique_lock<std::mutex> lock(mutex_);
    if (nbytes > kMaxRequestBytes) throw_out_of_memory(lock, nbytes);
    process_events_locked();
    const std::size_t size = round_size(nbytes);
    const bool small = size <= kSmallSize;
    const std::size_t alloc_size = allocation_size(size);
    Block* block = take_free_block_locked(small, stream, size);
    if (block == nullptr) block = alloc_block_locked(small, stream, alloc_size);
    if (block == nullptr && release_available_cached_blocks(lock, small, stream, alloc_size)) {
      block = alloc_block_locked(small, stream, alloc_size);
    }
    if (block == nullptr) {
      release_cached_blocks(lock);
      ++stats_.num_alloc_retries;
      block = alloc_block_locked(small, stream, alloc_size);
    }
    if (block == nullptr) throw_out_of_memory(lock, alloc_size);
    activate_locked(block, size, nbytes);
    return DataPtr(block->ptr, block, &delete_block, device_);
  }

  // On the device, ordered on the current stream (a storage that grows keeps its bytes).
  void copy_data(const DataPtr& dst, const DataPtr& src, std::size_t nbytes) const override {
    copy_data(dst, src, nbytes, current_stream());
  }
  void copy_data(const DataPtr& dst, const DataPtr& src, std::size_t nbytes,
                 const stream_type& stream) const {
    if (nbytes == 0) return;
    const_cast<CachingAllocatorT*>(this)->memory_.copy(dst.get(), src.get(), nbytes, stream);
  }

  // c10's recordStream: `stream` uses p's block too, so when p is freed the block is not reused
  // before the work queued on `stream` until then has completed. A no-op for a null DataPtr (an
  // empty tensor) and for the block's own stream, whose work is ordered before any reuse.
  void record_stream(const DataPtr& p, stream_type stream) {
    if (!p) return;
    Block* block = p.cast_context<Block>(&delete_block);
    TP_CHECK_VALUE(block != nullptr && block->owner == this, "record_stream: the DataPtr (device ",
                   p.device(), ") was not allocated by this CUDA caching allocator");
    std::lock_guard<std::mutex> lock(mutex_);
    if (stream == block->stream) return;
    for (const stream_type& s : block->stream_uses) {
      if (s == stream) return;
    }
    block->stream_uses.push_back(std::move(stream));
  }

  // torch.cuda.set_per_process_memory_fraction: reserved bytes may not exceed `fraction` of
  // the device's total memory; a segment that would cross the cap fails as out of memory.
  void set_memory_fraction(double fraction) {
    TP_CHECK_VALUE(fraction >= 0.0 && fraction <= 1.0, "Invalid fraction value: ", fraction,
                   ". Allowed range: 0~1");
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    memory_.mem_get_info(free_bytes, total_bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    allowed_bytes_ = static_cast<std::size_t>(fraction * static_cast<double>(total_bytes));
    fraction_set_ = true;
  }

  // torch.cuda.empty_cache: waits for the pending events, then returns every whole free
  // segment. Free blocks of a segment that still has a live block stay (inactive_split_bytes).
  void empty_cache() {
    std::unique_lock<std::mutex> lock(mutex_);
    release_cached_blocks(lock);
  }

  DeviceStats device_stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  std::map<std::string, std::int64_t> memory_stats() const {
    return detail::memory_stats_map(device_stats());
  }
  // The fields every TensorPlay caching allocator reports (core/caching_allocator.hpp): a hit is
  // an allocation served from the cache, a miss one that needed a device allocation.
  CachingAllocatorStats stats() const {
    const DeviceStats s = device_stats();
    CachingAllocatorStats out;
    out.allocated_bytes = static_cast<std::size_t>(s.allocated_bytes[kAll].current);
    out.reserved_bytes = static_cast<std::size_t>(s.reserved_bytes[kAll].current);
    out.cached_bytes = out.reserved_bytes - out.allocated_bytes;
    out.peak_reserved_bytes = static_cast<std::size_t>(s.reserved_bytes[kAll].peak);
    out.num_allocs = static_cast<std::uint64_t>(s.allocation[kAll].allocated);
    out.num_frees = static_cast<std::uint64_t>(s.allocation[kAll].freed);
    out.cache_misses = static_cast<std::uint64_t>(s.num_device_alloc);
    out.cache_hits = out.num_allocs - out.cache_misses;
    out.num_system_allocs = static_cast<std::uint64_t>(s.num_device_alloc);
    out.num_system_frees = static_cast<std::uint64_t>(s.num_device_free);
    return out;
  }

  std::int64_t memory_allocated() const { return aggregate(&DeviceStats::allocated_bytes).current; }
  std::int64_t max_memory_allocated() const {
    return aggregate(&DeviceStats::allocated_bytes).peak;
  }
  std::int64_t memory_reserved() const { return aggregate(&DeviceStats::reserved_bytes).current; }
  std::int64_t max_memory_reserved() const { return aggregate(&DeviceStats::reserved_bytes).peak; }

  void reset_peak_memory_stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    for_each_stat([](Stat& s) { s.peak = s.current; });
  }
  void reset_accumulated_memory_stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    for_each_stat([](Stat& s) { s.allocated = s.freed = 0; });
    stats_.num_alloc_retries = stats_.num_ooms = stats_.num_sync_all_streams = 0;
    stats_.num_device_alloc = stats_.num_device_free = 0;
  }

 private:
  // A range of a segment. The blocks of a segment are chained by prev/next in address order, so
  // a block with neither is a whole segment. Guarded by the allocator's mutex.
  struct Block {
    char* ptr = nullptr;
    std::size_t size = 0;       // rounded
    std::size_t requested = 0;  // what the caller asked for
    stream_type stream{};       // the one stream that reuses it
    bool small = false;         // its pool
    bool allocated = false;
    int event_count = 0;  // events (or event records under way) it still waits for
    Block* prev = nullptr;
    Block* next = nullptr;
    std::vector<stream_type> stream_uses;  // other streams that used it, no duplicates
    CachingAllocatorT* owner = nullptr;    // whose deleter frees it

    bool is_split() const noexcept { return prev != nullptr || next != nullptr; }
  };

  // Orders free blocks by (stream, size, address); a Key finds the first of a (stream, size).
  struct Key {
    const stream_type& stream;
    std::size_t size;
  };
  struct Order {
    using is_transparent = void;
    static bool less(const stream_type& sa, std::size_t a, const stream_type& sb, std::size_t b) {
      const std::less<stream_type> lt;
      return lt(sa, sb) || (!lt(sb, sa) && a < b);
    }
    bool operator()(const Block* a, const Block* b) const {
      if (less(a->stream, a->size, b->stream, b->size)) return true;
      if (less(b->stream, b->size, a->stream, a->size)) return false;
      return std::less<const char*>()(a->ptr, b->ptr);
    }
    bool operator()(const Block* a, const Key& k) const {
      return less(a->stream, a->size, k.stream, k.size);
    }
    bool operator()(const Key& k, const Block* b) const {
      return less(k.stream, k.size, b->stream, b->size);
    }
  };
  using FreeSet = std::set<Block*, Order>;
  // Per stream, the events of freed blocks in the order they were recorded, which is the order
  // they complete in: polling stops at the first incomplete one of each stream.
  using EventQueues = std::map<stream_type, std::deque<std::pair<event_type, Block*>>>;

  static void delete_block(void* ctx) noexcept {
    auto* block = static_cast<Block*>(ctx);
    block->owner->free(block);
  }

  FreeSet& pool_of(bool small) noexcept { return small ? small_pool_ : large_pool_; }

  static constexpr auto kAll = static_cast<std::size_t>(StatType::AGGREGATE);
  static constexpr std::size_t pool_stat(bool small) noexcept {
    return static_cast<std::size_t>(small ? StatType::SMALL_POOL : StatType::LARGE_POOL);
  }
  // The aggregate stat and the stat of the block's pool move together.
  static void increase(StatArray& stat, bool small, std::size_t amount) noexcept {
    stat[kAll].increase(amount);
    stat[pool_stat(small)].increase(amount);
  }
  static void decrease(StatArray& stat, bool small, std::size_t amount) noexcept {
    stat[kAll].decrease(amount);
    stat[pool_stat(small)].decrease(amount);
  }
  static void adjust(StatArray& stat, bool small, std::int64_t delta) noexcept {
    if (delta > 0) increase(stat, small, static_cast<std::size_t>(delta));
    if (delta < 0) decrease(stat, small, static_cast<std::size_t>(-delta));
  }
  Stat aggregate(StatArray DeviceStats::*which) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return (stats_.*which)[kAll];
  }
  template <class F>
  void for_each_stat(F f) {
    for (StatArray* array :
         {&stats_.allocation, &stats_.segment, &stats_.active, &stats_.inactive_split,
          &stats_.allocated_bytes, &stats_.reserved_bytes, &stats_.active_bytes,
          &stats_.inactive_split_bytes, &stats_.requested_bytes}) {
      for (Stat& s : *array) f(s);
    }
  }

  // Best fit among the pool's free blocks of this stream.
  Block* take_free_block_locked(bool small, const stream_type& stream, std::size_t size) {
    FreeSet& pool = pool_of(small);
    const auto it = pool.lower_bound(Key{stream, size});
    if (it == pool.end() || (*it)->stream != stream) return nullptr;
    Block* block = *it;
    pool.erase(it);
    return block;
  }

  // A new segment as one free block, or null when the cap or the device refuses it.
  Block* alloc_block_locked(bool small, const stream_type& stream, std::size_t alloc_size) {
    const auto reserved = static_cast<std::size_t>(stats_.reserved_bytes[kAll].current);
    if (fraction_set_ && reserved + alloc_size > allowed_bytes_) return nullptr;
    auto block = std::make_unique<Block>();  // first, so that a bad_alloc leaks no segment
    void* ptr = memory_.malloc(alloc_size);
    if (ptr == nullptr) return nullptr;
    block->ptr = static_cast<char*>(ptr);
    block->size = alloc_size;
    block->stream = stream;
    block->small = small;
    block->owner = this;
    increase(stats_.segment, small, 1);
    increase(stats_.reserved_bytes, small, alloc_size);
    ++stats_.num_device_alloc;
    return block.release();
  }

  // c10's alloc_found_block: splits off the rest of a larger block and counts the allocation.
  void activate_locked(Block* block, std::size_t size, std::size_t requested) {
    const bool already_split = block->is_split();
    const std::size_t rest_size = block->size - size;
    if (block->small ? rest_size >= kMinBlockSize : rest_size > kSmallSize) {
      auto* rest = new Block();
      rest->ptr = block->ptr + size;
      rest->size = rest_size;
      rest->stream = block->stream;
      rest->small = block->small;
      rest->owner = this;
      rest->prev = block;
      rest->next = block->next;
      if (rest->next != nullptr) rest->next->prev = rest;
      block->next = rest;
      block->size = size;
      pool_of(block->small).insert(rest);
      if (already_split) {
        // A free block of a split segment shrank by `size`.
        decrease(stats_.inactive_split_bytes, block->small, size);
      } else {
        // A whole segment became split: its rest is a new inactive split block.
        increase(stats_.inactive_split_bytes, block->small, rest_size);
        increase(stats_.inactive_split, block->small, 1);
      }
    } else if (already_split) {
      decrease(stats_.inactive_split_bytes, block->small, block->size);
      decrease(stats_.inactive_split, block->small, 1);
    }
    block->allocated = true;
    block->requested = requested;
    increase(stats_.allocation, block->small, 1);
    increase(stats_.allocated_bytes, block->small, block->size);
    increase(stats_.active, block->small, 1);
    increase(stats_.active_bytes, block->small, block->size);
    increase(stats_.requested_bytes, block->small, requested);
  }

  // The DataPtr deleter's work (c10's free): the block stops being allocated at once, and goes
  // back to its pool at once or, after record_stream, when the events recorded here complete.
  void free(Block* block) noexcept {
    std::vector<stream_type> uses;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      block->allocated = false;
      decrease(stats_.allocation, block->small, 1);
      decrease(stats_.allocated_bytes, block->small, block->size);
      if (block->stream_uses.empty()) {
        free_block_locked(block);
        return;
      }
      uses.swap(block->stream_uses);
      // Keeps the block out of its pool and out of its neighbours' merges until the events
      // are queued.
      block->event_count = static_cast<int>(uses.size());
    }
    std::vector<std::pair<stream_type, event_type>> recorded;
    try {
      recorded.reserve(uses.size());
      for (const stream_type& s : uses) {
        recorded.emplace_back(s, memory_.create_event());
        memory_.record_event(recorded.back().second, s);
      }
    } catch (...) {
      // An event could not be recorded: wait for the whole device instead, which ends every
      // use of the block. If even that fails, the block never returns to its pool: lost to
      // the cache, but never handed out while a stream may still use it.
      bool idle = false;
      try {
        memory_.synchronize_device();
        idle = true;
      } catch (...) {
      }
      for (const auto& r : recorded) destroy_event_quietly(r.second);
      std::lock_guard<std::mutex> lock(mutex_);
      if (idle) {
        block->event_count = 0;
        free_block_locked(block);
      }
      return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [stream, event] : recorded) events_[stream].emplace_back(event, block);
  }

  void destroy_event_quietly(const event_type& event) noexcept {
    try {
      memory_.destroy_event(event);
    } catch (...) {
    }
  }

  // c10's free_block: back into the pool, merged with free neighbours (a neighbour that still
  // waits for events is not free), with the inactive_split stats following.
  void free_block_locked(Block* block) {
    const std::size_t freed_size = block->size;
    std::int64_t split_blocks = 0;  // net change of inactive_split and inactive_split_bytes
    std::int64_t split_bytes = 0;
    FreeSet& pool = pool_of(block->small);
    for (Block* other : {block->prev, block->next}) {
      if (other == nullptr || other->allocated || other->event_count > 0) continue;
      pool.erase(other);
      if (other == block->prev) {
        block->ptr = other->ptr;
        block->prev = other->prev;
        if (block->prev != nullptr) block->prev->next = block;
      } else {
        block->next = other->next;
        if (block->next != nullptr) block->next->prev = block;
      }
      block->size += other->size;
      split_blocks -= 1;
      split_bytes -= static_cast<std::int64_t>(other->size);
      delete other;
    }
    pool.insert(block);
    if (block->is_split()) {
      split_blocks += 1;
      split_bytes += static_cast<std::int64_t>(block->size);
    }
    adjust(stats_.inactive_split, block->small, split_blocks);
    adjust(stats_.inactive_split_bytes, block->small, split_bytes);
    decrease(stats_.active, block->small, 1);
    decrease(stats_.active_bytes, block->small, freed_size);
    decrease(stats_.requested_bytes, block->small, block->requested);
  }

  // c10's process_events: blocks whose events have all completed go back to their pools.
  void process_events_locked() {
    for (auto it = events_.begin(); it != events_.end();) {
      auto& queue = it->second;
      while (!queue.empty() && memory_.query_event(queue.front().first)) {
        const auto [event, block] = queue.front();
        queue.pop_front();
        if (--block->event_count == 0) free_block_locked(block);
        memory_.destroy_event(event);
      }
      it = queue.empty() ? events_.erase(it) : std::next(it);
    }
  }

  // Returns whole free segments to the device: unlinked and uncounted under the lock, then,
  // without it, freed once the device is idle, since work queued on a block's own stream before
  // it was freed may still be running (c10 relies on cudaFree synchronizing the device).
  void release_segments(std::unique_lock<std::mutex>& lock, const std::vector<Block*>& doomed) {
    if (doomed.empty()) return;
    for (Block* block : doomed) {
      pool_of(block->small).erase(block);
      decrease(stats_.segment, block->small, 1);
      decrease(stats_.reserved_bytes, block->small, block->size);
      ++stats_.num_device_free;
    }
    lock.unlock();
    memory_.synchronize_device();
    for (Block* block : doomed) {
      void* ptr = block->ptr;
      delete block;
      memory_.free(ptr);
    }
    lock.lock();
  }

  // c10's release_available_cached_blocks: the first remedy for a refused segment returns this
  // pool's whole free segments of the stream, largest first, until `alloc_size` bytes are back.
  // (None is that large: a block of the requested size would have been reused.)
  bool release_available_cached_blocks(std::unique_lock<std::mutex>& lock, bool small,
                                       const stream_type& stream, std::size_t alloc_size) {
    FreeSet& pool = pool_of(small);
    std::vector<Block*> doomed;
    std::size_t released = 0;
    const Key past_stream{stream, std::numeric_limits<std::size_t>::max()};
    for (auto it = std::make_reverse_iterator(pool.lower_bound(past_stream));
         it != pool.rend() && (*it)->stream == stream && released < alloc_size; ++it) {
      if ((*it)->is_split()) continue;
      doomed.push_back(*it);
      released += (*it)->size;
    }
    release_segments(lock, doomed);
    return released >= alloc_size;
  }

  // c10's release_cached_blocks: waits for every pending event (without the lock), so that
  // blocks freed after record_stream are back in their pools, then returns every whole free
  // segment. The last remedy for a refused segment, and empty_cache().
  void release_cached_blocks(std::unique_lock<std::mutex>& lock) {
    ++stats_.num_sync_all_streams;
    EventQueues pending = std::exchange(events_, EventQueues());
    lock.unlock();
    for (const auto& [stream, queue] : pending) {
      for (const auto& [event, block] : queue) {
        memory_.synchronize_event(event);
        memory_.destroy_event(event);
      }
    }
    lock.lock();
    for (const auto& [stream, queue] : pending) {
      for (const auto& [event, block] : queue) {
        if (--block->event_count == 0) free_block_locked(block);
      }
    }
    std::vector<Block*> doomed;
    for (const FreeSet* pool : {&small_pool_, &large_pool_}) {
      for (Block* block : *pool) {
        if (!block->is_split()) doomed.push_back(block);
      }
    }
    release_segments(lock, doomed);
  }

  // PyTorch 1.13's message. "Tried to allocate" names the segment that was refused, as c10's
  // does; "allowed" appears under set_memory_fraction.
  [[noreturn]] void throw_out_of_memory(std::unique_lock<std::mutex>& lock,
                                        std::size_t alloc_size) {
    ++stats_.num_ooms;
    const auto allocated = static_cast<std::uint64_t>(stats_.allocated_bytes[kAll].current);
    const auto reserved = static_cast<std::uint64_t>(stats_.reserved_bytes[kAll].current);
    const std::string allowed =
        fraction_set_ ? detail::format_size(allowed_bytes_) + " allowed; " : std::string();
    lock.unlock();
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    memory_.mem_get_info(free_bytes, total_bytes);
    throw OutOfMemoryError(::tensorplay::detail::str_cat(
        "CUDA out of memory. Tried to allocate ", detail::format_size(alloc_size), " (GPU ",
        memory_.device_index(), "; ", detail::format_size(total_bytes), " total capacity; ",
        detail::format_size(allocated), " already allocated; ", detail::format_size(free_bytes),
        " free; ", allowed, detail::format_size(reserved), " reserved in total by TensorPlay)"));
  }

  M memory_;  // thread-safe itself (see DeviceMemory)
  const Device device_;
  mutable std::mutex mutex_;  // guards everything below and every Block
  stream_type current_stream_{};
  FreeSet small_pool_;
  FreeSet large_pool_;
  EventQueues events_;
  bool fraction_set_ = false;
  std::size_t allowed_bytes_ = 0;  // the cap on reserved bytes, once fraction_set_
  DeviceStats stats_;
};

}  // namespace tensorplay::cuda
