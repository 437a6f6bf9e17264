// CachingAllocator: the CPU allocator. Keeps freed blocks in free lists by size so that the
// training loop's "free it, then ask for the same size again" never reaches the system.
//
// Block layout (the spec's design). Every block starts with a TENSORPLAY_CPU_ALIGNMENT-byte
// (64) header that records the block's rounded total size; the data pointer is block + 64, so
// it is 64-byte aligned. A request of n bytes takes a block of round_up(n + 64, 64) bytes, so
// 100 and 124 bytes share a size class and a bucket exists only for sizes actually used. Free
// lists are LIFO (the block freed last is the one still hot in the CPU cache) and intrusive:
// the link lives in the free block's own header, so freeing allocates nothing. Release reads
// the size from the header and needs no table lookup.
//
// Two levels, like tcmalloc:
//  * A per-thread cache (thread_local, owner-only): the fast path, a hit or a free into it,
//    takes no lock and does no atomic read-modify-write. Lists for totals up to 32 KiB are a
//    direct-indexed array (index total / 64); larger totals go through a small hash map.
//    A block freed on another thread goes into the freeing thread's cache.
//  * A shared pool under one mutex: a thread-cache miss checks it before asking the system
//    (aligned_alloc, 64-byte alignment); an exiting thread's cache flushes into it.
//
// Caps. A thread cache holds at most min(TENSORPLAY_CPU_THREAD_CACHE_BYTES, max_cached_bytes())
// bytes: a free that would exceed it first evicts that thread's blocks (large sizes first) to
// the shared pool until the cache is at most half full. The pool holds at most
// max_cached_bytes() (default TENSORPLAY_CPU_MAX_CACHED_BYTES, set_max_cached_bytes() at run
// time); blocks beyond it go back to the system. So the bytes cached process-wide stay below
// max_cached_bytes() + (live threads) * min(TENSORPLAY_CPU_THREAD_CACHE_BYTES, max_cached_bytes()),
// and set_max_cached_bytes(0) turns caching off.
//
// empty_cache() returns the shared pool and the calling thread's cache to the system before
// it returns. Every other thread's cache is only asked to drop its blocks (a flag): the owner
// sees it with one relaxed load on its next allocate/free, or at thread exit, and then frees
// its blocks to the system. A thread that never touches the allocator again keeps its blocks
// until it exits. set_max_cached_bytes() trims the pool and the calling thread's cache at once;
// other threads' caches shrink on their next free that overflows the new limit. When the
// system refuses an allocation, the allocator runs empty_cache() and retries once before it
// throws tensorplay::Error.
//
// Stats: what is exact, and when.
//  * reserved_bytes, peak_reserved_bytes, num_system_allocs, num_system_frees and cache_misses
//    (== num_system_allocs: an allocation the caches could not serve) are each exact at any
//    time: they change only on the slow path, atomically, right after the system call (the
//    peak right after reserved, with a compare-exchange, so it is the exact high-water mark).
//    stats() reads them one by one, so under traffic two of them may be from different moments.
//  * cached_bytes, cache_hits, num_frees (and so num_allocs = hits + misses, and
//    allocated_bytes = reserved - cached) are sums of per-thread counters that each owner
//    writes without synchronisation (relaxed load + store). They are exact whenever no other
//    thread is inside allocate/free/thread exit while stats() runs (quiescent), and otherwise a
//    snapshot that may be off by the operations in flight.
//  * peak_allocated_bytes: each thread (and one shared record for exited threads and
//    cache-less calls) keeps its net share of allocated bytes (what it allocated minus what
//    it freed, owner-only as above) and that share's high-water mark; the peak is the sum of
//    those marks. The share is adj - cached_bytes with adj changed on the slow path only, so
//    the fast paths pay one compare (a hit lowering the cache's low-water mark) and one
//    counter (allocated bytes, on the hit path, for the totals); see ThreadCache. It is the exact
//    high-water mark of allocated bytes when one thread at a time allocates and frees since
//    the last reset (the others' differences stay constant), and otherwise an upper bound
//    (two threads' marks may come from different moments, and a thread that frees another's
//    blocks ends below its mark), clamped to peak_reserved_bytes. total_allocated_bytes and
//    total_freed_bytes are those sums, exact when quiescent like the other per-thread sums.
//  * peak_allocations (live blocks) is sampled, not tracked on the fast path: each thread
//    raises its mark on every slow-path call and whenever a hit takes its cache to a new low
//    of bytes (a new high of its allocated bytes). It is exact when the count peaks together
//    with the bytes or at a slow-path call (a training loop, whose every step allocates the
//    same blocks, is such a case), and a lower bound otherwise (many small blocks allocated
//    after a large one was freed). It is never below the current count.
//  * Byte counts are in rounded block sizes (header included), so a 100-byte tensor counts 192.
//  * Zero-byte allocations are not counted: they return a null DataPtr with no deleter (as
//    c10's CPU allocator does) and never reach the free lists.
//
// Seeing the memory (memory/ headers, opt-in). Every block is one segment, so the allocator
// keeps a registry of system blocks, linked through their headers under a mutex of its own
// that only system allocation and release take. Each header also holds the size the caller
// asked for while the block is handed out and 0 while it is cached: one relaxed store on each
// fast path (a plain move into the header line the path touches anyway), which gives a
// snapshot both the state and the requested size of every block.
// Memory history (set_observer) costs nothing while off: its flag is a bit of the per-thread
// word the fast paths already test for a pending drop, so while on, every allocate and free
// takes the slow path, which reports the event to the recorder.
// Cost, measured (callgrind, allocate + free of 64 B in a loop, -O3): 65 instructions per round
// trip before these instruments, 74 with them (the requested-size stores, the low-water
// compare, the allocated-bytes counter); recording off adds none of them.
//
// Lifetime: instance() is never destroyed, and a block freed after its thread's cache was
// destroyed (a static tensor destroyed at exit, after main's thread_locals) goes to the pool.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <mutex>
#include <new>
#include <type_traits>
#include <vector>

#include <tensorplay/config.hpp>
#include <tensorplay/core/allocator.hpp>
#include <tensorplay/core/data_ptr.hpp>
#include <tensorplay/core/device.hpp>
#include <tensorplay/core/error.hpp>

// Under AddressSanitizer, cached blocks and the rounding slack behind each allocation are
// poisoned, so a use after free or an overflow into a cached block is still reported even
// though the memory never went back to malloc.
#if defined(__SANITIZE_ADDRESS__)
#define TENSORPLAY_DETAIL_ASAN_ 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TENSORPLAY_DETAIL_ASAN_ 1
#endif
#endif
#ifdef TENSORPLAY_DETAIL_ASAN_
#include <sanitizer/asan_interface.h>
#endif

namespace tensorplay {

// A snapshot of the allocator's counters; see the header comment for what is exact and when.
struct CachingAllocatorStats {
  std::size_t allocated_bytes = 0;      // in live blocks (rounded sizes, headers included)
  std::size_t cached_bytes = 0;         // in free lists: thread caches + shared pool
  std::size_t reserved_bytes = 0;       // held from the system = allocated + cached
  std::size_t peak_reserved_bytes = 0;  // high-water mark of reserved since the last reset
  std::uint64_t num_allocs = 0;         // non-zero-byte allocations = cache_hits + cache_misses
  std::uint64_t num_frees = 0;
  std::uint64_t cache_hits = 0;    // served from a thread cache or the shared pool
  std::uint64_t cache_misses = 0;  // needed a system allocation
  std::uint64_t num_system_allocs = 0;
  std::uint64_t num_system_frees = 0;
  // torch.cuda.memory_stats()'s remaining fields (memory/stats.hpp spells them as torch does).
  std::size_t peak_allocated_bytes = 0;     // high-water mark of allocated since the last reset
  std::uint64_t total_allocated_bytes = 0;  // summed over every allocation (rounded sizes)
  std::uint64_t total_freed_bytes = 0;      // summed over every free
  std::uint64_t total_reserved_bytes = 0;   // summed over every system allocation
  std::uint64_t total_released_bytes = 0;   // summed over every system free
  std::uint64_t peak_segments = 0;          // high-water mark of system blocks held
  std::uint64_t peak_allocations = 0;       // high-water mark of live blocks (sampled, see above)
  std::uint64_t num_alloc_retries = 0;      // cache flushes before a retried system allocation
  std::uint64_t num_ooms = 0;               // out-of-memory errors thrown
};

class CachingAllocator;

namespace detail {

inline constexpr std::size_t kCpuAlignment = TENSORPLAY_CPU_ALIGNMENT;
static_assert(kCpuAlignment >= 16 && (kCpuAlignment & (kCpuAlignment - 1)) == 0,
              "TENSORPLAY_CPU_ALIGNMENT must be a power of two of at least 16 (the header "
              "holds the block size and the free-list link)");
// The header is one alignment unit, so the data pointer keeps the block's alignment.
inline constexpr std::size_t kBlockHeaderBytes = kCpuAlignment;
// Totals up to this use the direct-indexed list array; larger ones the hash map. 32 KiB keeps
// the array at 4 KiB per thread while covering every shape-sized tensor of a typical model.
inline constexpr std::size_t kSmallTotalLimit = std::size_t{32} << 10;
inline constexpr std::size_t kNumSmallClasses = kSmallTotalLimit / kCpuAlignment;
// Nothing larger can be allocated anyway; bounding requests keeps the rounding overflow-free.
inline constexpr std::size_t kMaxRequestBytes = std::numeric_limits<std::size_t>::max() / 2;

// Lives in the first bytes of every block. `total` is written once, when the block comes from
// the system; `next` is meaningful only while the block sits in a free list.
struct BlockHeader {
  BlockHeader(std::size_t total_, std::size_t requested_) noexcept
      : total(total_), next(nullptr), requested(requested_) {}

  std::size_t total;
  BlockHeader* next;
  // What the caller asked for while the block is handed out, 0 while it is free (no request
  // is 0 bytes): the snapshot's state and requested_size. Written by whichever thread
  // allocates or frees the block (one relaxed store, a plain move), read by memory snapshots
  // on any thread.
  std::atomic<std::size_t> requested;
  // Registry of segments (every block is one system allocation): guarded by the allocator's
  // segment mutex; written only on system allocation and release.
  BlockHeader* seg_prev = nullptr;
  BlockHeader* seg_next = nullptr;
};
static_assert(sizeof(BlockHeader) <= kBlockHeaderBytes);

// The spec's rounding: request + header, up to a multiple of the alignment.
constexpr std::size_t block_total(std::size_t nbytes) noexcept {
  return (nbytes + kBlockHeaderBytes + kCpuAlignment - 1) & ~(kCpuAlignment - 1);
}
inline void* block_data(BlockHeader* b) noexcept {
  return reinterpret_cast<char*>(b) + kBlockHeaderBytes;
}
inline BlockHeader* block_header(void* data) noexcept {
  return reinterpret_cast<BlockHeader*>(static_cast<char*>(data) - kBlockHeaderBytes);
}

inline void asan_poison([[maybe_unused]] void* p, [[maybe_unused]] std::size_t n) noexcept {
#ifdef TENSORPLAY_DETAIL_ASAN_
  __asan_poison_memory_region(p, n);
#endif
}
inline void asan_unpoison([[maybe_unused]] void* p, [[maybe_unused]] std::size_t n) noexcept {
#ifdef TENSORPLAY_DETAIL_ASAN_
  __asan_unpoison_memory_region(p, n);
#endif
}

// Adds to a counter that only the calling thread writes: a relaxed load and store compile to
// plain moves (a locked RMW would cost ~20 cycles on the fast path), yet stats() may read the
// counter from another thread without a data race.
template <class T>
inline void owner_add(std::atomic<T>& counter, T delta) noexcept {
  counter.store(counter.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
}

// Open-addressing map from a block total to the head of its free list (linear probing, load at
// most 1/2). malloc-backed and noexcept, because frees run inside DataPtr's noexcept deleter: a
// failed growth returns nullptr and the caller sends the block elsewhere. An entry is created
// the first time a size is freed; entries whose list is empty are dropped when the table is
// rebuilt, so a thread cycling through many sizes does not grow it without bound.
// Not thread-safe: guarded by its owner (a thread cache, or the pool's mutex).
class SizeMap {
 public:
  constexpr SizeMap() noexcept = default;
  SizeMap(const SizeMap&) = delete;
  SizeMap& operator=(const SizeMap&) = delete;
  ~SizeMap() { std::free(slots_); }

  // The list head for `total`, or nullptr when the size was never freed here.
  BlockHeader** find(std::size_t total) noexcept {
    if (slots_ == nullptr) return nullptr;
    for (std::size_t i = slot_of(total);; i = (i + 1) & mask_) {
      if (slots_[i].total == total) return &slots_[i].head;
      if (slots_[i].total == 0) return nullptr;
    }
  }
  // The list head for `total`, creating an empty list; nullptr only when out of memory.
  // Invalidates the pointers returned before.
  BlockHeader** find_or_insert(std::size_t total) noexcept {
    if (BlockHeader** head = find(total)) return head;
    return insert(total);
  }
  template <class F>
  void for_each_list(F&& f) noexcept {
    for (std::size_t i = 0; slots_ != nullptr && i <= mask_; ++i) {
      if (slots_[i].total != 0) f(slots_[i].head);
    }
  }

 private:
  struct Slot {
    std::size_t total;  // 0 = empty slot (no block has total 0)
    BlockHeader* head;
  };

  // Fibonacci hashing: totals are multiples of 64, so use the high bits of a multiply.
  std::size_t slot_of(std::size_t total) const noexcept {
    return static_cast<std::size_t>(
        (static_cast<std::uint64_t>(total / kCpuAlignment) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  [[gnu::noinline]] BlockHeader** insert(std::size_t total) noexcept {
    if (slots_ == nullptr || (used_ + 1) * 2 > mask_ + 1) {
      if (!rebuild()) return nullptr;
    }
    std::size_t i = slot_of(total);
    while (slots_[i].total != 0) i = (i + 1) & mask_;
    slots_[i] = Slot{total, nullptr};
    ++used_;
    return &slots_[i].head;
  }

  // Rehashes the non-empty lists into a table with room for 4x their number (grows or shrinks).
  bool rebuild() noexcept {
    const std::size_t old_capacity = slots_ != nullptr ? mask_ + 1 : 0;
    std::size_t live = 0;
    for (std::size_t i = 0; i < old_capacity; ++i) live += slots_[i].head != nullptr;
    std::size_t capacity = 16;
    unsigned bits = 4;
    while (capacity < 4 * (live + 1)) {
      capacity *= 2;
      ++bits;
    }
    auto* fresh = static_cast<Slot*>(std::calloc(capacity, sizeof(Slot)));
    if (fresh == nullptr) return false;
    Slot* old = slots_;
    slots_ = fresh;
    mask_ = capacity - 1;
    shift_ = 64 - bits;
    used_ = 0;
    for (std::size_t j = 0; j < old_capacity; ++j) {
      if (old[j].head == nullptr) continue;
      std::size_t i = slot_of(old[j].total);
      while (slots_[i].total != 0) i = (i + 1) & mask_;
      slots_[i] = old[j];
      ++used_;
    }
    std::free(old);
    return true;
  }

  Slot* slots_ = nullptr;
  std::size_t mask_ = 0;  // capacity - 1
  unsigned shift_ = 63;   // 64 - log2(capacity)
  std::size_t used_ = 0;  // occupied slots, empty lists included
};

// Segregated LIFO free lists threaded through the free blocks' headers.
// Not thread-safe: guarded by its owner (a thread cache, or the pool's mutex).
struct FreeLists {
  BlockHeader* small[kNumSmallClasses + 1] = {};  // index total / kCpuAlignment
  SizeMap large;                                  // totals above kSmallTotalLimit

  BlockHeader** find(std::size_t total) noexcept {
    return total <= kSmallTotalLimit ? &small[total / kCpuAlignment] : large.find(total);
  }
  BlockHeader** find_or_insert(std::size_t total) noexcept {
    return total <= kSmallTotalLimit ? &small[total / kCpuAlignment] : large.find_or_insert(total);
  }
  // Unlinks blocks, large sizes first, until at least `want` bytes are taken (or none are
  // left); returns them chained through `next` and adds their bytes to `taken`.
  BlockHeader* take(std::size_t want, std::size_t& taken) noexcept {
    BlockHeader* chain = nullptr;
    auto grab = [&](BlockHeader*& head) {
      while (head != nullptr && taken < want) {
        BlockHeader* b = head;
        head = b->next;
        b->next = chain;
        chain = b;
        taken += b->total;
      }
    };
    large.for_each_list(grab);
    for (std::size_t i = kNumSmallClasses; i > 0 && taken < want; --i) grab(small[i]);
    return chain;
  }
};

// One thread's private cache. Aligned to a cache line so that two threads' counters never
// share one (the fast path writes them on every call).
struct alignas(64) ThreadCache {
  // Written only by the owner thread (owner_add), read by stats() on any thread.
  std::atomic<std::size_t> cached_bytes{0};
  std::atomic<std::uint64_t> hits{0};
  std::atomic<std::uint64_t> frees{0};
  // The thread's share of allocated bytes, net = (bytes it allocated) - (bytes it freed), is
  // kept as adj - cached_bytes: adj changes only on the slow path (a block from the pool or
  // the system: +total; a free that bypasses the cache: -total; blocks leaving the cache:
  // -their bytes), so the fast paths update nothing new for it. Its high-water mark is
  // max(high_net, adj - low_cached): the fast hit path lowers low_cached, the slow path folds
  // the mark into high_net before it changes adj (see change_adj). Written by the owner only
  // (reset_peak_stats aside, see there); rounded bytes.
  std::atomic<std::uint64_t> alloc_bytes{0};  // every allocation by this thread (totals)
  std::atomic<std::int64_t> adj{0};
  std::atomic<std::size_t> low_cached{0};
  std::atomic<std::int64_t> high_net{0};
  // Reasons to leave the fast path: kDropRequested (set by empty_cache() on any thread, cleared
  // by the owner) and kRecording (memory history on: every allocate/free takes the slow path,
  // which records it). One relaxed load of the whole word on each fast path tests both.
  std::atomic<unsigned> slow_flags{0};
  // The live-block count's high-water mark, sampled (sample_count) on the slow path and when a
  // hit finds a new low of cached bytes; misses: system allocations made by this thread.
  // Owner-only writes (reset_peak_stats aside), read by stats().
  std::atomic<std::uint64_t> misses{0};
  std::atomic<std::int64_t> high_count{0};
  // Registry links: guarded by CachingAllocator's registry mutex.
  ThreadCache* prev = nullptr;
  ThreadCache* next = nullptr;
  // Owner-only: no other thread touches the lists.
  FreeLists lists;
};

// This thread's cache. Trivially destructible on purpose: it stays readable after the thread's
// thread_local destructors have run (a static tensor freed at exit, after main's
// thread_locals), and `dead` then routes the thread's traffic to the shared pool.
// Thread-local: only its thread reads or writes it.
struct TlsState {
  ThreadCache* cache;
  bool dead;
};
static_assert(std::is_trivially_destructible_v<TlsState>);
inline TlsState& tls_state() noexcept {
  static thread_local constinit TlsState state{nullptr, false};
  return state;
}

// The one thread_local with a destructor, created on a thread's first slow-path call: at
// thread exit it retires the cache (flush into the pool, fold the counters into the totals).
struct ThreadCacheOwner {
  ThreadCache* cache = nullptr;
  ~ThreadCacheOwner();
};

// The cap on the shared pool. A namespace-scope constinit atomic rather than a member so the
// free fast path reads it without going through instance()'s initialisation guard; padded to
// a cache line of its own, since every free reads it and no frequently written data may
// share the line. Thread-safe: relaxed atomic; written by set_max_cached_bytes().
struct alignas(64) CacheLineSize {
  std::atomic<std::size_t> value;
};
inline constinit CacheLineSize g_cpu_max_cached_bytes{TENSORPLAY_CPU_MAX_CACHED_BYTES};

// The bound on one thread cache: never more than the pool may hold, so that
// set_max_cached_bytes(0) turns caching off everywhere.
inline std::size_t thread_cache_limit() noexcept {
  return std::min<std::size_t>(TENSORPLAY_CPU_THREAD_CACHE_BYTES,
                               g_cpu_max_cached_bytes.value.load(std::memory_order_relaxed));
}

inline constexpr unsigned kDropRequested = 1;
inline constexpr unsigned kRecording = 2;

// What the allocator tells a history recorder (memory/history.hpp), torch's trace actions.
enum class AllocatorAction : std::uint8_t {
  alloc,
  free_requested,
  free_completed,
  segment_alloc,
  segment_free,
};
// The recorder: called on the calling thread, outside the allocator's locks, only while
// recording is on; `addr` is the block (its header: the system pointer, the data pointer is
// addr + kBlockHeaderBytes), `size` the rounded size, `requested` what the caller asked for. Must
// not throw (frees run inside noexcept deleters) and must not allocate through the CPU allocator.
// Set by CachingAllocator::set_observer().
using AllocatorObserver = void (*)(AllocatorAction action, void* addr, std::size_t size,
                                   std::size_t requested) noexcept;

}  // namespace detail

class CachingAllocator final : public Allocator {
 public:
  using Stats = CachingAllocatorStats;

  // The process-wide CPU allocator. Heap-allocated on first use and never destroyed, so it
  // outlives every tensor, static ones included.
  static CachingAllocator& instance() noexcept {
    static CachingAllocator* const allocator = new CachingAllocator();
    return *allocator;
  }

  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  using Allocator::allocate;  // keep the (nbytes, device) overload visible
  DataPtr allocate(std::size_t nbytes) const override {
    // One unsigned compare rejects both 0 (wraps to max) and oversized requests.
    if (__builtin_expect(nbytes - 1 >= detail::kMaxRequestBytes, 0)) {
      TP_CHECK(nbytes == 0, "CachingAllocator: cannot allocate ", nbytes, " bytes");
      return DataPtr(nullptr, Device(DeviceType::CPU));
    }
    void* data = allocate_block(nbytes);
    detail::asan_unpoison(data, nbytes);  // the slack behind the request stays poisoned
    return DataPtr(data, &deleter, Device(DeviceType::CPU));
  }

  DeleterFnPtr raw_deleter() const noexcept override { return &deleter; }

  // Frees a block returned by allocate(): header read, push onto this thread's list. Static
  // and lookup-free, so DataPtr carries a plain function pointer and ctx == data.
  static void deleter(void* data) noexcept {
    detail::BlockHeader* b = detail::block_header(data);
    const std::size_t total = b->total;
    detail::asan_poison(data, total - detail::kBlockHeaderBytes);
    detail::ThreadCache* c = detail::tls_state().cache;
    if (__builtin_expect(c != nullptr, 1) && c->slow_flags.load(std::memory_order_relaxed) == 0) {
      const std::size_t cached = c->cached_bytes.load(std::memory_order_relaxed) + total;
      if (__builtin_expect(cached <= detail::thread_cache_limit(), 1)) {
        if (detail::BlockHeader** head = c->lists.find_or_insert(total)) {
          b->next = *head;
          *head = b;
          b->requested.store(0, std::memory_order_relaxed);
          c->cached_bytes.store(cached, std::memory_order_relaxed);
          detail::owner_add<std::uint64_t>(c->frees, 1);
          return;
        }
      }
    }
    instance().free_slow(b);
  }

  // One system allocation (the CPU allocator never splits one): its block and whether it is
  // handed out. For memory snapshots.
  struct SegmentInfo {
    const void* address;         // the system block (the data pointer is address + 64)
    std::size_t total_size;      // rounded, header included
    std::size_t requested_size;  // what the caller asked for; 0 when inactive
    bool active;                 // handed out (else cached in a free list)
  };
  // Every segment held, by address. Consistent with the allocator when no other thread is
  // inside allocate/free (a block allocated or freed meanwhile shows either state).
  std::vector<SegmentInfo> segments() const {
    std::vector<SegmentInfo> out;
    {
      std::lock_guard<std::mutex> lock(segment_mutex_);
      out.reserve(num_segments_);
      for (const detail::BlockHeader* b = segments_; b != nullptr; b = b->seg_next) {
        const std::size_t req = b->requested.load(std::memory_order_relaxed);
        out.push_back(SegmentInfo{b, b->total, req, req != 0});
      }
    }
    std::sort(out.begin(), out.end(), [](const SegmentInfo& x, const SegmentInfo& y) {
      return std::less<const void*>()(x.address, y.address);
    });
    return out;
  }

  // Turns memory history on (a non-null recorder) or off (nullptr). While on, every
  // allocate/free of every thread takes the slow path and reports to the recorder; off, the
  // fast path is untouched (the flag shares the word it already tests). A thread inside
  // allocate/free while this runs may report one event more or less.
  void set_observer(detail::AllocatorObserver observer) noexcept {
    std::lock_guard<std::mutex> lock(registry_mutex_);
    observer_.store(observer, std::memory_order_relaxed);
    recording_.store(observer != nullptr, std::memory_order_relaxed);
    for (detail::ThreadCache* c = registry_; c != nullptr; c = c->next) {
      if (observer != nullptr) {
        c->slow_flags.fetch_or(detail::kRecording, std::memory_order_relaxed);
      } else {
        c->slow_flags.fetch_and(~detail::kRecording, std::memory_order_relaxed);
      }
    }
  }
  bool recording() const noexcept { return recording_.load(std::memory_order_relaxed); }

  Stats stats() const noexcept {
    Stats s;
    std::size_t cached = 0;
    std::int64_t high = 0;
    std::int64_t high_count = 0;
    {
      std::lock_guard<std::mutex> lock(registry_mutex_);
      high_count = retired_high_count_.load(std::memory_order_relaxed);
      s.cache_hits = retired_hits_;
      s.num_frees = retired_frees_;
      s.total_allocated_bytes = retired_alloc_bytes_.load(std::memory_order_relaxed);
      s.total_freed_bytes = retired_free_bytes_.load(std::memory_order_relaxed);
      high = retired_high_net_.load(std::memory_order_relaxed);
      for (const detail::ThreadCache* c = registry_; c != nullptr; c = c->next) {
        const std::size_t thread_cached = c->cached_bytes.load(std::memory_order_relaxed);
        const std::uint64_t allocated = c->alloc_bytes.load(std::memory_order_relaxed);
        const std::int64_t adj = c->adj.load(std::memory_order_relaxed);
        cached += thread_cached;
        s.cache_hits += c->hits.load(std::memory_order_relaxed);
        s.num_frees += c->frees.load(std::memory_order_relaxed);
        // freed by the thread = allocated by it - its net share
        s.total_allocated_bytes += allocated;
        s.total_freed_bytes +=
            allocated - static_cast<std::uint64_t>(adj - static_cast<std::int64_t>(thread_cached));
        high += std::max(
            c->high_net.load(std::memory_order_relaxed),
            adj - static_cast<std::int64_t>(c->low_cached.load(std::memory_order_relaxed)));
        high_count += c->high_count.load(std::memory_order_relaxed);
      }
    }
    {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      cached += pool_bytes_;
    }
    s.num_system_allocs = num_system_allocs_.load();
    s.num_system_frees = num_system_frees_.load();
    s.reserved_bytes = reserved_bytes_.load();
    s.peak_reserved_bytes = peak_reserved_bytes_.load();
    s.cache_misses = s.num_system_allocs;
    s.num_allocs = s.cache_hits + s.cache_misses;
    s.cached_bytes = cached;
    // Derived, so the identity reserved == allocated + cached holds by construction; the clamp
    // only matters for a snapshot taken while other threads are mid-operation.
    s.allocated_bytes = s.reserved_bytes > cached ? s.reserved_bytes - cached : 0;
    // Each thread's high-water mark of its own net bytes, summed: the exact peak when one
    // thread at a time allocates and frees, an upper bound otherwise, never above the (exact)
    // reserved peak. See the header comment.
    s.peak_allocated_bytes = std::min<std::size_t>(
        std::max<std::size_t>(high > 0 ? static_cast<std::size_t>(high) : 0, s.allocated_bytes),
        s.peak_reserved_bytes);
    s.total_reserved_bytes = total_reserved_bytes_.load();
    s.total_released_bytes = total_released_bytes_.load();
    s.peak_segments = peak_segments_.load();
    const std::uint64_t live = s.num_allocs - s.num_frees;
    s.peak_allocations =
        std::max<std::uint64_t>(high_count > 0 ? static_cast<std::uint64_t>(high_count) : 0, live);
    s.num_alloc_retries = num_alloc_retries_.load();
    s.num_ooms = num_ooms_.load();
    return s;
  }

  // Sets the peaks to the current values. The second update closes the race with a
  // concurrent system allocation (seq_cst on both counters), so the reserved peak stays exact.
  // The allocated peak restarts from every thread's current net bytes: a thread allocating
  // meanwhile may lose the part of its new high-water mark it reached during the reset.
  void reset_peak_stats() noexcept {
    peak_reserved_bytes_.store(reserved_bytes_.load());
    raise_peak(reserved_bytes_.load());
    const std::uint64_t segs = num_system_allocs_.load() - num_system_frees_.load();
    peak_segments_.store(segs);
    raise_peak(peak_segments_, num_system_allocs_.load() - num_system_frees_.load());
    std::lock_guard<std::mutex> lock(registry_mutex_);
    retired_high_net_.store(
        static_cast<std::int64_t>(retired_alloc_bytes_.load() - retired_free_bytes_.load()));
    // The live blocks no live thread accounts for (exited threads, cache-less calls): their
    // allocations (cache-less hits and system allocations by no live thread) minus frees.
    std::int64_t others =
        static_cast<std::int64_t>(retired_hits_.load() + num_system_allocs_.load()) -
        static_cast<std::int64_t>(retired_frees_.load());
    for (detail::ThreadCache* c = registry_; c != nullptr; c = c->next) {
      const std::size_t cached = c->cached_bytes.load(std::memory_order_relaxed);
      c->low_cached.store(cached, std::memory_order_relaxed);
      c->high_net.store(c->adj.load(std::memory_order_relaxed) - static_cast<std::int64_t>(cached),
                        std::memory_order_relaxed);
      c->high_count.store(thread_count(c), std::memory_order_relaxed);
      others -= static_cast<std::int64_t>(c->misses.load(std::memory_order_relaxed));
    }
    retired_high_count_.store(others);
  }

  // See the header comment: the pool and this thread's cache now, other threads' caches on
  // their next allocate/free or at their exit.
  void empty_cache() noexcept {
    detail::TlsState& tls = detail::tls_state();
    {
      std::lock_guard<std::mutex> lock(registry_mutex_);
      for (detail::ThreadCache* c = registry_; c != nullptr; c = c->next) {
        if (c != tls.cache)
          c->slow_flags.fetch_or(detail::kDropRequested, std::memory_order_relaxed);
      }
    }
    if (tls.cache != nullptr) drop_thread_cache(tls.cache);
    trim_pool(0);
  }

  // The cap on the shared pool (and on each thread cache, with the thread-cache knob).
  // Lowering it trims the pool and the calling thread's cache immediately.
  void set_max_cached_bytes(std::size_t bytes) noexcept {
    detail::g_cpu_max_cached_bytes.value.store(bytes, std::memory_order_relaxed);
    trim_pool(bytes);
    if (detail::ThreadCache* c = detail::tls_state().cache) {
      const std::size_t cached = c->cached_bytes.load(std::memory_order_relaxed);
      const std::size_t limit = detail::thread_cache_limit();
      if (cached > limit) evict_to_pool(c, cached - limit);
    }
  }
  std::size_t max_cached_bytes() const noexcept {
    return detail::g_cpu_max_cached_bytes.value.load(std::memory_order_relaxed);
  }

 private:
  friend struct detail::ThreadCacheOwner;
  using BlockHeader = detail::BlockHeader;
  using ThreadCache = detail::ThreadCache;

  CachingAllocator() noexcept = default;

  // Fast path: pop this thread's list for the request's size class. Anything else is the
  // slow path.
  static void* allocate_block(std::size_t nbytes) {
    const std::size_t total = detail::block_total(nbytes);
    ThreadCache* c = detail::tls_state().cache;
    if (__builtin_expect(c != nullptr, 1) && c->slow_flags.load(std::memory_order_relaxed) == 0) {
      if (BlockHeader* b = pop_cached(c, total, nbytes); __builtin_expect(b != nullptr, 1)) {
        return detail::block_data(b);
      }
    }
    return instance().allocate_slow(total, nbytes);
  }

  // Owner only: a block of `total` bytes from the thread's lists, or nullptr.
  static BlockHeader* pop_cached(ThreadCache* c, std::size_t total, std::size_t nbytes) noexcept {
    BlockHeader** head = c->lists.find(total);
    if (__builtin_expect(head == nullptr || *head == nullptr, 0)) return nullptr;
    BlockHeader* b = *head;
    *head = b->next;
    b->requested.store(nbytes, std::memory_order_relaxed);
    const std::size_t cached = c->cached_bytes.load(std::memory_order_relaxed) - total;
    c->cached_bytes.store(cached, std::memory_order_relaxed);
    detail::owner_add<std::uint64_t>(c->hits, 1);
    detail::owner_add<std::uint64_t>(c->alloc_bytes, total);
    // The thread's net share grows: a new high-water mark when cached is at a new low.
    if (__builtin_expect(cached < c->low_cached.load(std::memory_order_relaxed), 0)) {
      c->low_cached.store(cached, std::memory_order_relaxed);
      sample_count(c);
    }
    return b;
  }

  // The thread's share of live blocks: blocks it allocated minus blocks it freed.
  static std::int64_t thread_count(const ThreadCache* c) noexcept {
    return static_cast<std::int64_t>(c->hits.load(std::memory_order_relaxed) +
                                     c->misses.load(std::memory_order_relaxed)) -
           static_cast<std::int64_t>(c->frees.load(std::memory_order_relaxed));
  }
  // Owner only: raises the thread's count high-water mark to its current count.
  [[gnu::noinline]] static void sample_count(ThreadCache* c) noexcept {
    const std::int64_t count = thread_count(c);
    if (count > c->high_count.load(std::memory_order_relaxed)) {
      c->high_count.store(count, std::memory_order_relaxed);
    }
  }

  // Owner only, on the slow path: changes the thread's adj by `delta` after `cached_bytes`
  // was set to its new value. The high-water mark reached since the last change is folded
  // into high_net first, since the fast path's low_cached is relative to the old adj.
  static void change_adj(ThreadCache* c, std::int64_t delta) noexcept {
    const std::int64_t adj = c->adj.load(std::memory_order_relaxed);
    const std::int64_t mark =
        adj - static_cast<std::int64_t>(c->low_cached.load(std::memory_order_relaxed));
    if (mark > c->high_net.load(std::memory_order_relaxed)) {
      c->high_net.store(mark, std::memory_order_relaxed);
    }
    c->adj.store(adj + delta, std::memory_order_relaxed);
    const std::size_t cached = c->cached_bytes.load(std::memory_order_relaxed);
    c->low_cached.store(cached, std::memory_order_relaxed);
    const std::int64_t now = adj + delta - static_cast<std::int64_t>(cached);
    if (now > c->high_net.load(std::memory_order_relaxed)) {
      c->high_net.store(now, std::memory_order_relaxed);
    }
    sample_count(c);
  }
  // The same for calls that have no thread cache (thread exit), on shared atomics.
  void note_alloc_retired(std::size_t total) noexcept {
    const std::uint64_t allocated = retired_alloc_bytes_.fetch_add(total) + total;
    const auto net = static_cast<std::int64_t>(allocated - retired_free_bytes_.load());
    std::int64_t high = retired_high_net_.load();
    while (high < net && !retired_high_net_.compare_exchange_weak(high, net)) {
    }
  }

  // Thread-cache miss, a cache-less thread, or a flag set (drop request, recording): the
  // thread cache while recording, then the pool, then the system.
  [[gnu::noinline]] void* allocate_slow(std::size_t total, std::size_t nbytes) {
    ThreadCache* c = current_cache();
    void* data = allocate_uncached(c, total, nbytes);
    if (recording()) {
      notify(detail::AllocatorAction::alloc, detail::block_header(data), total, nbytes);
    }
    return data;
  }

  void* allocate_uncached(ThreadCache* c, std::size_t total, std::size_t nbytes) {
    if (c != nullptr) {
      if (BlockHeader* b = pop_cached(c, total, nbytes)) return detail::block_data(b);
    }
    BlockHeader* b = nullptr;
    {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      if (BlockHeader** head = pool_.find(total); head != nullptr && *head != nullptr) {
        b = *head;
        *head = b->next;
        pool_bytes_ -= total;
      }
    }
    if (b == nullptr) {
      b = system_alloc(total, nbytes);
      if (c != nullptr) detail::owner_add<std::uint64_t>(c->misses, 1);
    } else if (c != nullptr) {
      detail::owner_add<std::uint64_t>(c->hits, 1);
    } else {
      retired_hits_.fetch_add(1, std::memory_order_relaxed);
    }
    b->requested.store(nbytes, std::memory_order_relaxed);
    if (c != nullptr) {
      detail::owner_add<std::uint64_t>(c->alloc_bytes, total);
      change_adj(c, static_cast<std::int64_t>(total));
    } else {
      note_alloc_retired(total);
    }
    return detail::block_data(b);
  }

  void notify(detail::AllocatorAction action, void* addr, std::size_t size,
              std::size_t requested) const noexcept {
    if (detail::AllocatorObserver observer = observer_.load(std::memory_order_relaxed)) {
      observer(action, addr, size, requested);
    }
  }

  // Free that did not fit the fast path: no usable cache, a pending drop request, a full
  // cache (evict, then keep the freed block: it is the hottest one), or an out-of-memory map.
  [[gnu::noinline]] void free_slow(BlockHeader* b) noexcept {
    const std::size_t total = b->total;
    if (recording()) {
      // No stream to wait for on the CPU: the free completes as it is requested.
      const std::size_t requested = b->requested.load(std::memory_order_relaxed);
      notify(detail::AllocatorAction::free_requested, b, total, requested);
      notify(detail::AllocatorAction::free_completed, b, total, requested);
    }
    b->requested.store(0, std::memory_order_relaxed);
    ThreadCache* c = current_cache();
    if (c == nullptr) {
      retired_frees_.fetch_add(1, std::memory_order_relaxed);
      retired_free_bytes_.fetch_add(total);
      b->next = nullptr;
      push_to_pool(b);
      return;
    }
    detail::owner_add<std::uint64_t>(c->frees, 1);
    const std::size_t limit = detail::thread_cache_limit();
    if (total <= limit) {
      const std::size_t cached = c->cached_bytes.load(std::memory_order_relaxed);
      // Evict down to half the limit, so the next overflow is at least limit/2 bytes away.
      if (cached + total > limit) evict_to_pool(c, cached + total - limit / 2);
      if (BlockHeader** head = c->lists.find_or_insert(total)) {
        b->next = *head;
        *head = b;
        detail::owner_add(c->cached_bytes, total);  // net share -total, adj unchanged
        return;
      }
    }
    change_adj(c, -static_cast<std::int64_t>(total));  // freed past the cache
    b->next = nullptr;
    push_to_pool(b);
  }

  // This thread's cache, created on first use; nullptr after the thread's cache was retired
  // (or if it cannot be allocated). Honours a pending empty_cache() request first.
  ThreadCache* current_cache() noexcept {
    detail::TlsState& tls = detail::tls_state();
    ThreadCache* c = tls.cache;
    if (c == nullptr) {
      if (tls.dead) return nullptr;
      c = create_thread_cache();
      if (c == nullptr) return nullptr;
    }
    if (c->slow_flags.load(std::memory_order_relaxed) & detail::kDropRequested) {
      drop_thread_cache(c);
    }
    return c;
  }

  [[gnu::noinline]] ThreadCache* create_thread_cache() noexcept {
    auto* c = new (std::nothrow) ThreadCache();
    if (c == nullptr) return nullptr;
    {
      std::lock_guard<std::mutex> lock(registry_mutex_);
      c->next = registry_;
      if (registry_ != nullptr) registry_->prev = c;
      registry_ = c;
      if (recording()) c->slow_flags.store(detail::kRecording, std::memory_order_relaxed);
    }
    // Constructing it registers its destructor to run at this thread's exit.
    static thread_local detail::ThreadCacheOwner owner;
    owner.cache = c;
    detail::tls_state().cache = c;
    return c;
  }

  // Thread exit: later traffic from this thread bypasses the cache; blocks go to the pool (or
  // to the system if a drop was requested); counters fold into the totals under the registry
  // lock, so stats() never counts the thread twice or not at all.
  void retire(ThreadCache* c) noexcept {
    detail::TlsState& tls = detail::tls_state();
    tls.cache = nullptr;
    tls.dead = true;
    std::size_t taken = 0;
    BlockHeader* chain = c->lists.take(std::numeric_limits<std::size_t>::max(), taken);
    c->cached_bytes.store(0, std::memory_order_relaxed);
    change_adj(c, -static_cast<std::int64_t>(taken));
    if (c->slow_flags.load(std::memory_order_relaxed) & detail::kDropRequested) {
      release_to_system(chain);
    } else {
      push_to_pool(chain);
    }
    {
      std::lock_guard<std::mutex> lock(registry_mutex_);
      if (c->prev != nullptr) c->prev->next = c->next;
      if (c->next != nullptr) c->next->prev = c->prev;
      if (registry_ == c) registry_ = c->next;
      retired_hits_.fetch_add(c->hits.load(std::memory_order_relaxed), std::memory_order_relaxed);
      retired_frees_.fetch_add(c->frees.load(std::memory_order_relaxed), std::memory_order_relaxed);
      // The thread's bytes join the shared ones (its cache is empty: net = adj); adding its
      // high-water mark keeps the summed bound of stats() unchanged.
      const std::uint64_t allocated = c->alloc_bytes.load(std::memory_order_relaxed);
      retired_alloc_bytes_.fetch_add(allocated);
      retired_free_bytes_.fetch_add(
          allocated - static_cast<std::uint64_t>(c->adj.load(std::memory_order_relaxed)));
      retired_high_net_.fetch_add(c->high_net.load(std::memory_order_relaxed));
      retired_high_count_.fetch_add(c->high_count.load(std::memory_order_relaxed));
    }
    delete c;
  }

  // Owner only: clears a pending request first, so a request made during the drop survives.
  void drop_thread_cache(ThreadCache* c) noexcept {
    c->slow_flags.fetch_and(~detail::kDropRequested, std::memory_order_relaxed);
    std::size_t taken = 0;
    BlockHeader* chain = c->lists.take(std::numeric_limits<std::size_t>::max(), taken);
    c->cached_bytes.store(0, std::memory_order_relaxed);
    change_adj(c, -static_cast<std::int64_t>(taken));
    release_to_system(chain);
  }

  // Owner only: moves at least `want` bytes of the thread's blocks to the pool.
  void evict_to_pool(ThreadCache* c, std::size_t want) noexcept {
    std::size_t taken = 0;
    BlockHeader* chain = c->lists.take(want, taken);
    c->cached_bytes.store(c->cached_bytes.load(std::memory_order_relaxed) - taken,
                          std::memory_order_relaxed);
    change_adj(c, -static_cast<std::int64_t>(taken));
    push_to_pool(chain);
  }

  // Pushes a chain of blocks into the pool up to its cap; the rest go to the system, after
  // the lock is dropped so that munmap never runs inside the critical section.
  void push_to_pool(BlockHeader* chain) noexcept {
    BlockHeader* excess = nullptr;
    {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      const std::size_t cap = max_cached_bytes();
      while (chain != nullptr) {
        BlockHeader* b = chain;
        chain = b->next;
        BlockHeader** head =
            pool_bytes_ + b->total <= cap ? pool_.find_or_insert(b->total) : nullptr;
        if (head != nullptr) {
          b->next = *head;
          *head = b;
          pool_bytes_ += b->total;
        } else {
          b->next = excess;
          excess = b;
        }
      }
    }
    release_to_system(excess);
  }

  // Releases pool blocks until the pool holds at most `bytes`.
  void trim_pool(std::size_t bytes) noexcept {
    BlockHeader* chain = nullptr;
    {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      if (pool_bytes_ <= bytes) return;
      std::size_t taken = 0;
      chain = pool_.take(pool_bytes_ - bytes, taken);
      pool_bytes_ -= taken;
    }
    release_to_system(chain);
  }

  BlockHeader* system_alloc(std::size_t total, std::size_t nbytes) {
    void* raw = std::aligned_alloc(detail::kCpuAlignment, total);
    if (raw == nullptr) {
      // Cached blocks of other sizes may be all that stands between us and success.
      num_alloc_retries_.fetch_add(1);
      empty_cache();
      raw = std::aligned_alloc(detail::kCpuAlignment, total);
    }
    if (raw == nullptr) num_ooms_.fetch_add(1);
    TP_CHECK(raw != nullptr, "CachingAllocator: not enough memory: you tried to allocate ", nbytes,
             " bytes.");
    const std::uint64_t segments = num_system_allocs_.fetch_add(1) + 1;
    raise_peak(peak_segments_, segments - num_system_frees_.load());
    total_reserved_bytes_.fetch_add(total);
    raise_peak(reserved_bytes_.fetch_add(total) + total);
    detail::asan_poison(static_cast<char*>(raw) + detail::kBlockHeaderBytes,
                        total - detail::kBlockHeaderBytes);
    auto* b = ::new (raw) BlockHeader(total, nbytes);
    {
      std::lock_guard<std::mutex> lock(segment_mutex_);
      b->seg_next = segments_;
      if (segments_ != nullptr) segments_->seg_prev = b;
      segments_ = b;
      ++num_segments_;
    }
    if (recording()) notify(detail::AllocatorAction::segment_alloc, raw, total, nbytes);
    return b;
  }

  void release_to_system(BlockHeader* chain) noexcept {
    while (chain != nullptr) {
      BlockHeader* b = chain;
      chain = b->next;
      const std::size_t total = b->total;
      {
        std::lock_guard<std::mutex> lock(segment_mutex_);
        if (b->seg_prev != nullptr) b->seg_prev->seg_next = b->seg_next;
        if (b->seg_next != nullptr) b->seg_next->seg_prev = b->seg_prev;
        if (segments_ == b) segments_ = b->seg_next;
        --num_segments_;
      }
      if (recording()) notify(detail::AllocatorAction::segment_free, b, total, 0);
      detail::asan_unpoison(b, total);
      std::free(b);
      reserved_bytes_.fetch_sub(total);
      total_released_bytes_.fetch_add(total);
      num_system_frees_.fetch_add(1);
    }
  }

  void raise_peak(std::size_t reserved) noexcept { raise_peak(peak_reserved_bytes_, reserved); }
  template <class T>
  static void raise_peak(std::atomic<T>& peak_counter, T value) noexcept {
    T peak = peak_counter.load();
    while (peak < value && !peak_counter.compare_exchange_weak(peak, value)) {
    }
  }

  // Shared pool of free blocks: guarded by pool_mutex_.
  mutable std::mutex pool_mutex_;
  detail::FreeLists pool_;
  std::size_t pool_bytes_ = 0;  // guarded by pool_mutex_

  // Registry of live thread caches: guarded by registry_mutex_.
  mutable std::mutex registry_mutex_;
  ThreadCache* registry_ = nullptr;
  // Counters of exited threads and of cache-less calls: atomics (added to outside the lock by
  // cache-less calls); folding an exiting thread's counters happens under registry_mutex_.
  std::atomic<std::uint64_t> retired_hits_{0};
  std::atomic<std::uint64_t> retired_frees_{0};

  // System-level counters: seq_cst atomics, changed only on the slow path.
  std::atomic<std::size_t> reserved_bytes_{0};
  std::atomic<std::size_t> peak_reserved_bytes_{0};
  std::atomic<std::uint64_t> num_system_allocs_{0};
  std::atomic<std::uint64_t> num_system_frees_{0};
  std::atomic<std::uint64_t> total_reserved_bytes_{0};
  std::atomic<std::uint64_t> total_released_bytes_{0};
  std::atomic<std::uint64_t> peak_segments_{0};
  std::atomic<std::uint64_t> num_alloc_retries_{0};
  std::atomic<std::uint64_t> num_ooms_{0};
  // Bytes of exited threads and of cache-less calls, and their high-water mark (the part of
  // the allocated peak that no live thread holds): atomics.
  std::atomic<std::uint64_t> retired_alloc_bytes_{0};
  std::atomic<std::uint64_t> retired_free_bytes_{0};
  std::atomic<std::int64_t> retired_high_net_{0};
  std::atomic<std::int64_t> retired_high_count_{0};  // their live-block count's mark

  // Segment registry (every system block, linked through its header): guarded by
  // segment_mutex_, which is taken only on system allocation/release and by segments().
  mutable std::mutex segment_mutex_;
  BlockHeader* segments_ = nullptr;
  std::size_t num_segments_ = 0;

  // Memory history: the recorder and whether one is set (relaxed atomics, written under
  // registry_mutex_ together with every cache's kRecording flag).
  std::atomic<detail::AllocatorObserver> observer_{nullptr};
  std::atomic<bool> recording_{false};
};

namespace detail {
inline ThreadCacheOwner::~ThreadCacheOwner() {
  if (cache != nullptr) CachingAllocator::instance().retire(cache);
}
}  // namespace detail

}  // namespace tensorplay

#undef TENSORPLAY_DETAIL_ASAN_
