// Vulkan transfers: host<->device and device<->device byte copies, and a byte memset, on the
// stream (stream.hpp), for any byte offsets and sizes.
//
//  * copy_host_to_device: the bytes are copied into host-visible staging blocks (at most
//    kStagingChunkBytes each) and a vkCmdCopyBuffer per chunk is recorded; it returns without
//    waiting (the staging block is kept alive until the copy ran), so `src` may be reused at
//    once, as after cudaMemcpy from pageable memory. A copy of more than
//    kStagingChunksInFlight chunks waits after each such group, bounding its staging memory.
//  * copy_device_to_host: records the copies into readback staging blocks, synchronizes, then
//    copies out; the data is complete when it returns.
//  * copy_device_to_device: vkCmdCopyBuffer. vkCmdCopyBuffer has no offset or size alignment
//    rule but forbids overlapping regions, so an overlapping copy inside one buffer goes through
//    a temporary block (memmove semantics).
//  * memset: vkCmdFillBuffer needs a 4-byte aligned offset and size, so it fills the aligned
//    middle and the (at most 3 + 3) bytes of the unaligned ends are copied from a staging block.
//
// Ordering and visibility come from the stream's barriers; nothing here needs its own.
// Thread safety: as the stream (any thread; commands are ordered by recording time).
#pragma once

#include <tensorplay/backends/vulkan/allocator.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#ifndef TENSORPLAY_VULKAN_STAGING_CHUNK_BYTES
#define TENSORPLAY_VULKAN_STAGING_CHUNK_BYTES (std::size_t{16} << 20)
#endif

namespace tensorplay::vulkan {

inline constexpr std::size_t kStagingChunkBytes = TENSORPLAY_VULKAN_STAGING_CHUNK_BYTES;
// A host-to-device copy waits after this many chunks, so it never holds more staging memory.
inline constexpr std::size_t kStagingChunksInFlight = 4;

namespace detail {
inline void check_range(const BufferRange& r, std::size_t nbytes, const char* what) {
  TP_CHECK(r.buffer != VK_NULL_HANDLE || nbytes == 0, what, ": null Vulkan buffer");
  TP_CHECK_INDEX(nbytes <= r.size, what, ": ", nbytes, " bytes do not fit a range of ", r.size,
                 " bytes");
}
inline void record_copy(VkBuffer src, VkDeviceSize src_offset, VkBuffer dst,
                        VkDeviceSize dst_offset, VkDeviceSize n) {
  Stream::get().record([&](const CommandBuffer& cb) {
    const VkBufferCopy region{src_offset, dst_offset, n};
    context().fn().vkCmdCopyBuffer(cb.handle(), src, dst, 1, &region);
  });
}
}  // namespace detail

inline void copy_host_to_device(const void* src, const BufferRange& dst, std::size_t nbytes) {
  detail::check_range(dst, nbytes, "copy_host_to_device");
  TP_CHECK(src != nullptr || nbytes == 0, "copy_host_to_device: null source");
  auto& upload = VulkanCachingAllocator::get(MemoryKind::Upload);
  for (std::size_t done = 0; done < nbytes;) {
    const std::size_t n = std::min(kStagingChunkBytes, nbytes - done);
    DataPtr staging = upload.allocate(n);
    std::memcpy(mapped_ptr(staging), static_cast<const char*>(src) + done, n);
    const BufferRange s = buffer_of(staging);
    detail::record_copy(s.buffer, s.offset, dst.buffer, dst.offset + done, n);
    Stream::get().keep_alive(std::move(staging));
    done += n;
    // Bound the staging memory of a large copy: let every kStagingChunksInFlight chunks finish
    // (their blocks then return to the cache and are reused by the next chunks).
    if (done < nbytes && done % (kStagingChunksInFlight * kStagingChunkBytes) == 0) {
      Stream::get().synchronize();
    }
  }
}

inline void copy_device_to_host(const BufferRange& src, void* dst, std::size_t nbytes) {
  detail::check_range(src, nbytes, "copy_device_to_host");
  TP_CHECK(dst != nullptr || nbytes == 0, "copy_device_to_host: null destination");
  auto& readback = VulkanCachingAllocator::get(MemoryKind::Readback);
  for (std::size_t done = 0; done < nbytes;) {
    const std::size_t n = std::min(kStagingChunkBytes, nbytes - done);
    DataPtr staging = readback.allocate(n);
    const BufferRange s = buffer_of(staging);
    detail::record_copy(src.buffer, src.offset + done, s.buffer, s.offset, n);
    Stream::get().synchronize();  // the stream's final barrier made the bytes host-visible
    std::memcpy(static_cast<char*>(dst) + done, mapped_ptr(staging), n);
    done += n;
  }
}

inline void copy_device_to_device(const BufferRange& src, const BufferRange& dst,
                                  std::size_t nbytes) {
  detail::check_range(src, nbytes, "copy_device_to_device");
  detail::check_range(dst, nbytes, "copy_device_to_device");
  if (nbytes == 0 || (src.buffer == dst.buffer && src.offset == dst.offset)) return;
  const bool overlap = src.buffer == dst.buffer && src.offset < dst.offset + nbytes &&
                       dst.offset < src.offset + nbytes;
  if (!overlap) {
    detail::record_copy(src.buffer, src.offset, dst.buffer, dst.offset, nbytes);
    return;
  }
  // The temporary goes back to the cache at once; the barriers order its reuse.
  DataPtr tmp = VulkanCachingAllocator::instance().allocate(nbytes);
  const BufferRange t = buffer_of(tmp);
  detail::record_copy(src.buffer, src.offset, t.buffer, t.offset, nbytes);
  detail::record_copy(t.buffer, t.offset, dst.buffer, dst.offset, nbytes);
}

// Sets nbytes bytes of dst to `value`.
inline void memset(const BufferRange& dst, std::uint8_t value, std::size_t nbytes) {
  detail::check_range(dst, nbytes, "vulkan::memset");
  if (nbytes == 0) return;
  const VkDeviceSize begin = dst.offset;
  const VkDeviceSize end = dst.offset + nbytes;
  const VkDeviceSize mid_begin = std::min(end, (begin + 3) / 4 * 4);
  const VkDeviceSize mid_end = std::max(mid_begin, end / 4 * 4);
  if (mid_end > mid_begin) {
    const std::uint32_t pattern = 0x01010101u * value;
    Stream::get().record([&](const CommandBuffer& cb) {
      context().fn().vkCmdFillBuffer(cb.handle(), dst.buffer, mid_begin, mid_end - mid_begin,
                                     pattern);
    });
  }
  const std::size_t head = static_cast<std::size_t>(mid_begin - begin);
  const std::size_t tail = static_cast<std::size_t>(end - mid_end);
  if (head + tail > 0) {
    const std::uint8_t bytes[8] = {value, value, value, value, value, value, value, value};
    if (head > 0) copy_host_to_device(bytes, dst, head);
    if (tail > 0) copy_host_to_device(bytes, dst.slice(mid_end - begin, tail), tail);
  }
}

// DataPtr forms: `offset` is in bytes from the start of the allocation.
inline void copy_host_to_device(const void* src, const DataPtr& dst, std::size_t nbytes,
                                std::size_t dst_offset = 0) {
  const BufferRange r = buffer_of(dst);
  copy_host_to_device(src, r.slice(dst_offset, r.size - std::min<VkDeviceSize>(r.size, dst_offset)),
                      nbytes);
}
inline void copy_device_to_host(const DataPtr& src, void* dst, std::size_t nbytes,
                                std::size_t src_offset = 0) {
  const BufferRange r = buffer_of(src);
  copy_device_to_host(r.slice(src_offset, r.size - std::min<VkDeviceSize>(r.size, src_offset)), dst,
                      nbytes);
}
inline void copy_device_to_device(const DataPtr& src, const DataPtr& dst, std::size_t nbytes,
                                  std::size_t src_offset = 0, std::size_t dst_offset = 0) {
  const BufferRange s = buffer_of(src);
  const BufferRange d = buffer_of(dst);
  copy_device_to_device(s.slice(src_offset, s.size - std::min<VkDeviceSize>(s.size, src_offset)),
                        d.slice(dst_offset, d.size - std::min<VkDeviceSize>(d.size, dst_offset)),
                        nbytes);
}

}  // namespace tensorplay::vulkan
