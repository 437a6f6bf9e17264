// Vulkan caching allocator: sub-allocates ranges of VkBuffers from large VkDeviceMemory
// segments, for tensors (device-local memory) and for host<->device staging (host-visible).
//
// The DataPtr it returns never holds an address the CPU may dereference: its data pointer and
// context are both the BufferBlock record below (VkBuffer, offset, size), and its deleter
// returns the range to the cache. Kernels get the range with buffer_of(data_ptr) (or of a
// StorageImpl). Staging blocks are persistently mapped; mapped_ptr() gives their host address.
//
// Segments. Each segment is one vkAllocateMemory with one VkBuffer bound over all of it (usage
// storage + transfer src/dst), so a range is just an offset into that buffer. Like PyTorch's
// CUDA caching allocator there are two pools: requests up to kSmallRequestBytes (1 MiB) are cut
// from 2 MiB segments, larger ones from 64 MiB segments, and a request larger than half a large
// segment gets a segment of its own (rounded up to 2 MiB). When a full-size segment would cross
// the memory cap, a segment of just the request's size is tried instead. Every block size and
// offset is a multiple of the alignment (the largest of 256 bytes, the buffer's
// VkMemoryRequirements::alignment and minStorageBufferOffsetAlignment), so any block can be
// bound as a storage buffer.
//
// Best fit with split and coalesce: the free blocks of a pool are kept ordered by (size,
// segment, offset); an allocation takes the smallest that fits and splits off the rest as a
// new free block; a free merges the block with free neighbours in its segment. Segments are
// returned to Vulkan only by empty_cache() (or the out-of-memory retry), after synchronizing
// the stream: commands recorded before a range was freed may still use it (stream.hpp explains
// why handing a freed range to a new owner at once is nevertheless safe).
//
// Memory types are chosen from the buffer's memoryTypeBits: DEVICE_LOCAL for tensors
// (preferring types that are not also host-visible, so BAR memory stays free),
// HOST_VISIBLE|HOST_COHERENT for staging, preferring HOST_CACHED for readback. Nothing assumes
// device memory is host-visible.
//
// Out of memory: a segment that would take reserved bytes over the cap (max_reserved_bytes(),
// set directly or as a fraction of the device-local heap with set_memory_fraction), or that
// vkAllocateMemory refuses, makes the allocator empty its cache and retry once; then it throws
// tensorplay::OutOfMemoryError with PyTorch's CUDA message shape.
//
// Blocks are on Device(kVulkan, 0): a process uses one Vulkan device (the one context.hpp
// picked, see TENSORPLAY_VULKAN_DEVICE), which is "vulkan:0" to it.
//
// Stats use the CPU caching allocator's CachingAllocatorStats fields (byte counts in rounded
// block sizes; cached = free bytes inside segments; a cache miss is an allocation that needed a
// new segment; system allocs/frees count segments). Thread safety: one mutex per allocator
// guards its pools, segments and counters; Vulkan is only touched on allocate (not on
// construction), so DevicePolicy<kVulkan>::allocator() never throws.
#pragma once

#include <tensorplay/backends/vulkan/stream.hpp>
#include <tensorplay/core/allocator.hpp>
#include <tensorplay/core/caching_allocator.hpp>
#include <tensorplay/core/storage_impl.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <mutex>
#include <set>
#include <string>
#include <vector>

// Segment sizes of the small and large pools, and the largest request served by the small pool.
#ifndef TENSORPLAY_VULKAN_SMALL_SEGMENT_BYTES
#define TENSORPLAY_VULKAN_SMALL_SEGMENT_BYTES (std::size_t{2} << 20)
#endif
#ifndef TENSORPLAY_VULKAN_LARGE_SEGMENT_BYTES
#define TENSORPLAY_VULKAN_LARGE_SEGMENT_BYTES (std::size_t{64} << 20)
#endif
#ifndef TENSORPLAY_VULKAN_SMALL_REQUEST_BYTES
#define TENSORPLAY_VULKAN_SMALL_REQUEST_BYTES (std::size_t{1} << 20)
#endif

namespace tensorplay::vulkan {

// A range of a VkBuffer: what a kernel binds or a copy reads or writes.
struct BufferRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;  // bytes from the start of `buffer`
  VkDeviceSize size = 0;    // bytes

  // The sub-range [offset + first, offset + first + n).
  BufferRange slice(VkDeviceSize first, VkDeviceSize n) const {
    TP_CHECK_INDEX(first <= size && n <= size - first, "BufferRange::slice: [", first, ", ",
                   first + n, ") is outside a range of ", size, " bytes");
    return BufferRange{buffer, offset + first, n};
  }
};

enum class MemoryKind : std::uint8_t {
  Device,    // DEVICE_LOCAL: tensors
  Upload,    // HOST_VISIBLE | HOST_COHERENT: host-to-device staging
  Readback,  // HOST_VISIBLE | HOST_COHERENT, HOST_CACHED preferred: device-to-host staging
};

class VulkanCachingAllocator;

namespace detail {

struct Segment;

// The record a DataPtr points at (data and context). `size` is the rounded block size;
// `requested` what the caller asked for. Links are in address order within the segment.
// Thread safety: guarded by the owning allocator's mutex (immutable while allocated, except
// for the links, which only the allocator reads).
struct BufferBlock {
  Segment* segment = nullptr;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;
  VkDeviceSize requested = 0;
  BufferBlock* prev = nullptr;
  BufferBlock* next = nullptr;
  bool allocated = false;
};

struct BlockOrder {
  bool operator()(const BufferBlock* a, const BufferBlock* b) const noexcept {
    if (a->size != b->size) return a->size < b->size;
    if (a->segment != b->segment) return std::less<const Segment*>()(a->segment, b->segment);
    return a->offset < b->offset;
  }
};

// One vkAllocateMemory and the VkBuffer over it.
struct Segment {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void* mapped = nullptr;  // host address of the whole segment (staging kinds only)
  bool small = false;      // which pool it belongs to
  VulkanCachingAllocator* owner = nullptr;
  BufferBlock* first = nullptr;
};

inline void free_buffer_block(void* ctx) noexcept;

// PyTorch's format_size: bytes, KiB, MiB or GiB with two decimals.
inline std::string format_size(std::uint64_t bytes) {
  char buf[64];
  if (bytes < (std::uint64_t{1} << 10)) {
    std::snprintf(buf, sizeof buf, "%" PRIu64 " bytes", bytes);
  } else if (bytes < (std::uint64_t{1} << 20)) {
    std::snprintf(buf, sizeof buf, "%.2f KiB", static_cast<double>(bytes) / 1024.0);
  } else if (bytes < (std::uint64_t{1} << 30)) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / 1048576.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / 1073741824.0);
  }
  return buf;
}

constexpr VkDeviceSize round_up(VkDeviceSize n, VkDeviceSize multiple) noexcept {
  return (n + multiple - 1) / multiple * multiple;
}

// The best memory type among `type_bits` that has all of `required`, ranked by how many of
// `preferred` it has and then how few of `avoided`; UINT32_MAX if none has `required`.
inline std::uint32_t find_memory_type(const VkPhysicalDeviceMemoryProperties& props,
                                      std::uint32_t type_bits, VkMemoryPropertyFlags required,
                                      VkMemoryPropertyFlags preferred,
                                      VkMemoryPropertyFlags avoided) noexcept {
  std::uint32_t best = UINT32_MAX;
  int best_score = std::numeric_limits<int>::min();
  for (std::uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags flags = props.memoryTypes[i].propertyFlags;
    if (!(type_bits & (1u << i)) || (flags & required) != required) continue;
    const int score =
        2 * __builtin_popcount(flags & preferred) - __builtin_popcount(flags & avoided);
    if (score > best_score) {
      best = i;
      best_score = score;
    }
  }
  return best;
}

}  // namespace detail

class VulkanCachingAllocator final : public Allocator {
 public:
  static constexpr std::size_t kSmallSegmentBytes = TENSORPLAY_VULKAN_SMALL_SEGMENT_BYTES;
  static constexpr std::size_t kLargeSegmentBytes = TENSORPLAY_VULKAN_LARGE_SEGMENT_BYTES;
  static constexpr std::size_t kSmallRequestBytes = TENSORPLAY_VULKAN_SMALL_REQUEST_BYTES;
  // Dedicated segments are rounded to this.
  static constexpr std::size_t kSegmentRounding = std::size_t{2} << 20;

  // The tensor allocator (what getAllocator(kVulkan) returns) and the two staging allocators.
  // Never destroyed; constructing them touches no Vulkan.
  static VulkanCachingAllocator& instance() noexcept { return get(MemoryKind::Device); }
  static VulkanCachingAllocator& get(MemoryKind kind) noexcept {
    // Never destroyed: blocks freed during static destruction still find their allocator.
    static VulkanCachingAllocator* const all[3] = {
        new VulkanCachingAllocator(MemoryKind::Device),
        new VulkanCachingAllocator(MemoryKind::Upload),
        new VulkanCachingAllocator(MemoryKind::Readback)};
    return *all[static_cast<int>(kind)];
  }

  using Allocator::allocate;
  DataPtr allocate(std::size_t nbytes) const override {
    if (nbytes == 0) return DataPtr(nullptr, Device(DeviceType::Vulkan, 0));
    return const_cast<VulkanCachingAllocator*>(this)->allocate_block(nbytes);
  }

  // On the device, in stream order (a growing storage keeps its bytes: resize_, out=).
  void copy_data(const DataPtr& dst, const DataPtr& src, std::size_t nbytes) const override;

  MemoryKind kind() const noexcept { return kind_; }

  CachingAllocatorStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    CachingAllocatorStats s = stats_;
    s.cached_bytes = s.reserved_bytes - s.allocated_bytes;
    return s;
  }
  // Restarts the high-water mark at the current reserved bytes.
  void reset_peak_stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.peak_reserved_bytes = stats_.reserved_bytes;
  }

  // Returns every entirely free segment to Vulkan (after synchronizing the stream).
  void empty_cache() {
    std::vector<detail::Segment*> doomed;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      detach_free_segments_locked(doomed);
    }
    release_segments(doomed);
  }

  // The cap on reserved bytes (segments); SIZE_MAX (the default) means none.
  void set_max_reserved_bytes(std::size_t bytes) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    max_reserved_bytes_ = bytes;
  }
  std::size_t max_reserved_bytes() const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    return max_reserved_bytes_;
  }
  // torch.cuda.set_per_process_memory_fraction: caps reserved bytes at `fraction` of the
  // device-local heap's size.
  void set_memory_fraction(double fraction) {
    TP_CHECK_VALUE(fraction >= 0.0 && fraction <= 1.0, "Invalid fraction value: ", fraction,
                   ". Allowed range: 0~1");
    set_max_reserved_bytes(static_cast<std::size_t>(fraction * static_cast<double>(capacity())));
  }
  // The size of the memory heap this allocator's memory type lives in ("total capacity").
  std::size_t capacity() {
    const Context& ctx = context();
    std::lock_guard<std::mutex> lock(mutex_);
    init_locked(ctx);
    return heap_size_;
  }
  // Alignment of every block's offset and size.
  VkDeviceSize alignment() {
    const Context& ctx = context();
    std::lock_guard<std::mutex> lock(mutex_);
    init_locked(ctx);
    return alignment_;
  }

 private:
  friend void detail::free_buffer_block(void* ctx) noexcept;
  using BufferBlock = detail::BufferBlock;
  using Segment = detail::Segment;
  using FreeSet = std::set<BufferBlock*, detail::BlockOrder>;

  explicit VulkanCachingAllocator(MemoryKind kind) noexcept : kind_(kind) {}
  ~VulkanCachingAllocator() override = default;

  static constexpr VkBufferUsageFlags kUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                               VK_BUFFER_USAGE_TRANSFER_DST_BIT;

  // The memory type and alignment, found once with a probe buffer's requirements.
  void init_locked(const Context& ctx) {
    if (memory_type_ != UINT32_MAX) return;
    const auto& fn = ctx.fn();
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = kSmallSegmentBytes;
    info.usage = kUsage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer probe = VK_NULL_HANDLE;
    TP_VK_CHECK(fn.vkCreateBuffer(ctx.device(), &info, nullptr, &probe));
    VkMemoryRequirements req{};
    fn.vkGetBufferMemoryRequirements(ctx.device(), probe, &req);
    fn.vkDestroyBuffer(ctx.device(), probe, nullptr);
    type_bits_ = req.memoryTypeBits;
    alignment_ =
        std::max<VkDeviceSize>({256, req.alignment, ctx.limits().minStorageBufferOffsetAlignment});
    const auto& props = ctx.memory_properties();
    std::uint32_t type = UINT32_MAX;
    switch (kind_) {
      case MemoryKind::Device:
        type = detail::find_memory_type(props, type_bits_, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0,
                                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
        // A device without device-local memory for buffers (unusual): take any usable type.
        if (type == UINT32_MAX) type = detail::find_memory_type(props, type_bits_, 0, 0, 0);
        break;
      case MemoryKind::Upload:
        type = detail::find_memory_type(
            props, type_bits_,
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0,
            VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
        break;
      case MemoryKind::Readback:
        type = detail::find_memory_type(
            props, type_bits_,
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
            VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0);
        break;
    }
    TP_CHECK(type != UINT32_MAX, "Vulkan: the device '", ctx.device_name(),
             "' has no host-visible, host-coherent memory type for staging buffers");
    memory_type_ = type;
    heap_size_ =
        static_cast<std::size_t>(props.memoryHeaps[props.memoryTypes[type].heapIndex].size);
  }

  DataPtr allocate_block(std::size_t nbytes) {
    const Context& ctx = context();
    std::vector<Segment*> doomed;
    BufferBlock* block = nullptr;
    bool retried = false;
    for (;;) {
      std::string failure;  // why a new segment could not be had
      {
        std::lock_guard<std::mutex> lock(mutex_);
        init_locked(ctx);
        block = try_allocate_locked(ctx, nbytes, failure);
        if (block != nullptr || retried) {
          if (block == nullptr) throw_oom_locked(ctx, nbytes, failure);
          break;
        }
        // Free the cached segments (outside the lock, after synchronizing) and try once more.
        detach_free_segments_locked(doomed);
      }
      release_segments(doomed);
      doomed.clear();
      retried = true;
    }
    return DataPtr(block, block, &detail::free_buffer_block, Device(DeviceType::Vulkan, 0));
  }

  FreeSet& pool_of(bool small) noexcept { return small ? small_free_ : large_free_; }

  // Best fit from the pool, else a new segment; null (with `failure` set) when the cap or
  // Vulkan refuses the segment.
  BufferBlock* try_allocate_locked(const Context& ctx, std::size_t nbytes, std::string& failure) {
    const VkDeviceSize size = detail::round_up(nbytes, alignment_);
    const bool small = nbytes <= kSmallRequestBytes;
    FreeSet& pool = pool_of(small);
    BufferBlock key;
    key.size = size;
    auto it = pool.lower_bound(&key);  // null segment and offset 0 sort first among equals
    BufferBlock* block = nullptr;
    if (it != pool.end()) {
      block = *it;
      pool.erase(it);
      ++stats_.cache_hits;
    } else {
      block = new_segment_locked(ctx, size, small, failure);
      if (block == nullptr) return nullptr;
      ++stats_.cache_misses;
    }
    // Split: the tail stays free for the next request.
    if (block->size - size >= alignment_) {
      auto* rest = new BufferBlock();
      rest->segment = block->segment;
      rest->buffer = block->buffer;
      rest->offset = block->offset + size;
      rest->size = block->size - size;
      rest->prev = block;
      rest->next = block->next;
      if (block->next != nullptr) block->next->prev = rest;
      block->next = rest;
      block->size = size;
      pool.insert(rest);
    }
    block->allocated = true;
    block->requested = nbytes;
    ++stats_.num_allocs;
    stats_.allocated_bytes += block->size;
    return block;
  }

  BufferBlock* new_segment_locked(const Context& ctx, VkDeviceSize size, bool small,
                                  std::string& failure) {
    VkDeviceSize want = small                           ? kSmallSegmentBytes
                        : size > kLargeSegmentBytes / 2 ? detail::round_up(size, kSegmentRounding)
                                                        : kLargeSegmentBytes;
    // Under a cap, a segment of just the request may fit where a full one would not.
    if (stats_.reserved_bytes + want > max_reserved_bytes_) want = size;
    if (stats_.reserved_bytes + want > max_reserved_bytes_) {
      failure = "the memory cap of " + detail::format_size(max_reserved_bytes_) +
                " (set_max_reserved_bytes / set_memory_fraction) would be exceeded";
      return nullptr;
    }
    const auto& fn = ctx.fn();
    auto* seg = new Segment();
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = want;
    info.usage = kUsage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult r = fn.vkCreateBuffer(ctx.device(), &info, nullptr, &seg->buffer);
    VkMemoryRequirements req{};
    if (r == VK_SUCCESS) {
      fn.vkGetBufferMemoryRequirements(ctx.device(), seg->buffer, &req);
      if (!(req.memoryTypeBits & (1u << memory_type_))) r = VK_ERROR_FEATURE_NOT_PRESENT;
    }
    if (r == VK_SUCCESS) {
      VkMemoryAllocateInfo alloc{};
      alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
      alloc.allocationSize = req.size;
      alloc.memoryTypeIndex = memory_type_;
      r = fn.vkAllocateMemory(ctx.device(), &alloc, nullptr, &seg->memory);
    }
    if (r == VK_SUCCESS) r = fn.vkBindBufferMemory(ctx.device(), seg->buffer, seg->memory, 0);
    if (r == VK_SUCCESS && kind_ != MemoryKind::Device) {
      r = fn.vkMapMemory(ctx.device(), seg->memory, 0, VK_WHOLE_SIZE, 0, &seg->mapped);
    }
    if (r != VK_SUCCESS) {
      if (seg->memory != VK_NULL_HANDLE) fn.vkFreeMemory(ctx.device(), seg->memory, nullptr);
      if (seg->buffer != VK_NULL_HANDLE) fn.vkDestroyBuffer(ctx.device(), seg->buffer, nullptr);
      delete seg;
      if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
        failure = std::string("vkAllocateMemory returned ") + vk_result_name(r);
        return nullptr;
      }
      detail::throw_vk_error(r, "creating a Vulkan buffer segment");
    }
    seg->size = want;
    seg->small = small;
    seg->owner = this;
    auto* block = new BufferBlock();
    block->segment = seg;
    block->buffer = seg->buffer;
    block->size = want;
    seg->first = block;
    segments_.push_back(seg);
    ++stats_.num_system_allocs;
    stats_.reserved_bytes += want;
    stats_.peak_reserved_bytes = std::max(stats_.peak_reserved_bytes, stats_.reserved_bytes);
    return block;
  }

  [[noreturn]] void throw_oom_locked(const Context& ctx, std::size_t nbytes,
                                     const std::string& failure) const {
    const char* what = kind_ == MemoryKind::Device ? "Vulkan out of memory"
                                                   : "Vulkan out of host-visible staging memory";
    throw OutOfMemoryError(::tensorplay::detail::str_cat(
        what, ". Tried to allocate ", detail::format_size(nbytes), " (Vulkan device ",
        ctx.device_index(), " (", ctx.device_name(), "); ", detail::format_size(heap_size_),
        " total capacity; ", detail::format_size(stats_.allocated_bytes), " already allocated; ",
        detail::format_size(stats_.reserved_bytes), " reserved in total by TensorPlay; ", failure,
        ")"));
  }

  // Called by the DataPtr deleter: back to the pool, merged with free neighbours.
  void free_block(BufferBlock* block) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    FreeSet& pool = pool_of(block->segment->small);
    block->allocated = false;
    ++stats_.num_frees;
    stats_.allocated_bytes -= block->size;
    if (BufferBlock* prev = block->prev; prev != nullptr && !prev->allocated) {
      pool.erase(prev);
      prev->size += block->size;
      prev->next = block->next;
      if (block->next != nullptr) block->next->prev = prev;
      delete block;
      block = prev;
    }
    if (BufferBlock* next = block->next; next != nullptr && !next->allocated) {
      pool.erase(next);
      block->size += next->size;
      block->next = next->next;
      if (next->next != nullptr) next->next->prev = block;
      delete next;
    }
    pool.insert(block);
  }

  // Moves every segment that is one free block out of the pools (no one can allocate from it
  // any more); the caller releases them.
  void detach_free_segments_locked(std::vector<Segment*>& out) {
    std::size_t kept = 0;
    for (Segment* seg : segments_) {
      BufferBlock* b = seg->first;
      if (!b->allocated && b->next == nullptr) {
        pool_of(seg->small).erase(b);
        stats_.reserved_bytes -= seg->size;
        ++stats_.num_system_frees;
        out.push_back(seg);
      } else {
        segments_[kept++] = seg;
      }
    }
    segments_.resize(kept);
  }

  // Waits for the device (commands recorded before a range was freed may still use it), then
  // frees the segments.
  static void release_segments(const std::vector<Segment*>& segments) {
    if (segments.empty()) return;
    Stream::get().synchronize();
    const Context& ctx = context();
    for (Segment* seg : segments) {
      if (seg->mapped != nullptr) ctx.fn().vkUnmapMemory(ctx.device(), seg->memory);
      ctx.fn().vkDestroyBuffer(ctx.device(), seg->buffer, nullptr);
      ctx.fn().vkFreeMemory(ctx.device(), seg->memory, nullptr);
      delete seg->first;
      delete seg;
    }
  }

  const MemoryKind kind_;
  mutable std::mutex mutex_;  // guards everything below
  std::uint32_t memory_type_ = UINT32_MAX;
  std::uint32_t type_bits_ = 0;
  VkDeviceSize alignment_ = 256;
  std::size_t heap_size_ = 0;
  std::size_t max_reserved_bytes_ = std::numeric_limits<std::size_t>::max();
  FreeSet small_free_;
  FreeSet large_free_;
  std::vector<Segment*> segments_;
  CachingAllocatorStats stats_;  // cached_bytes derived in stats()
};

namespace detail {
inline void free_buffer_block(void* ctx) noexcept {
  auto* block = static_cast<BufferBlock*>(ctx);
  block->segment->owner->free_block(block);
}
}  // namespace detail

// The buffer range of a block from the Vulkan allocators: {VkBuffer, offset, requested bytes}.
inline BufferRange buffer_of(const DataPtr& p) {
  auto* block = p.cast_context<detail::BufferBlock>(&detail::free_buffer_block);
  TP_CHECK(block != nullptr && p.get() == block, "vulkan::buffer_of: the DataPtr (device ",
           p.device(), ") was not allocated by the Vulkan caching allocator");
  return BufferRange{block->buffer, block->offset, block->requested};
}
inline BufferRange buffer_of(const StorageImpl& storage) {
  BufferRange r = buffer_of(storage.data_ptr());
  r.size = std::min<VkDeviceSize>(r.size, storage.nbytes());
  return r;
}

inline void VulkanCachingAllocator::copy_data(const DataPtr& dst, const DataPtr& src,
                                              std::size_t nbytes) const {
  if (nbytes == 0) return;
  const BufferRange s = buffer_of(src), d = buffer_of(dst);
  TP_CHECK_INDEX(nbytes <= s.size && nbytes <= d.size, "vulkan: copy_data of ", nbytes,
                 " bytes between blocks of ", s.size, " and ", d.size, " bytes");
  Stream::get().record([&](const CommandBuffer& cb) {
    const VkBufferCopy region{s.offset, d.offset, nbytes};
    context().fn().vkCmdCopyBuffer(cb.handle(), s.buffer, d.buffer, 1, &region);
  });
}

// The host address of a staging block (null for device-local blocks).
inline void* mapped_ptr(const DataPtr& p) {
  auto* block = p.cast_context<detail::BufferBlock>(&detail::free_buffer_block);
  TP_CHECK(block != nullptr, "vulkan::mapped_ptr: not a Vulkan allocation");
  return block->segment->mapped != nullptr
             ? static_cast<char*>(block->segment->mapped) + block->offset
             : nullptr;
}

// torch.cuda-style free functions: the tensor allocator's stats; empty_cache() empties the
// tensor and the staging allocators.
inline CachingAllocatorStats memory_stats() { return VulkanCachingAllocator::instance().stats(); }
inline void empty_cache() {
  for (MemoryKind k : {MemoryKind::Device, MemoryKind::Upload, MemoryKind::Readback}) {
    VulkanCachingAllocator::get(k).empty_cache();
  }
}

}  // namespace tensorplay::vulkan
