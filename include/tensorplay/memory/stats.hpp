// tensorplay::memory: torch.cuda's memory statistics for every caching allocator of ours,
// taking the device as torch does ("cpu", "cuda:0", a Device; default "cpu").
//
//   memory_stats(device)            the dict torch.cuda.memory_stats() returns, same keys
//   memory_allocated / max_memory_allocated / memory_reserved / max_memory_reserved
//   reset_peak_memory_stats(device)
//
// The CPU allocator (core/caching_allocator.hpp) has no small/large pools, so its keys are the
// ".all." ones only, plus torch's counters. Its Stats map onto torch's as:
//   allocation / active          live blocks: allocated = allocations, freed = frees
//   allocated_bytes / active_bytes  rounded bytes in live blocks (a CPU block is active exactly
//                                   while it is allocated: there are no streams to wait for)
//   reserved_bytes / segment     system blocks (each block is its own segment)
//   inactive_split(_bytes)       always 0: a block is never split, so every free one can be
//                                returned by empty_cache()
// What is exact and when is the allocator's header comment (allocation.all.peak, the count of
// live blocks, is sampled: see peak_allocations there).
//
// CUDA (TENSORPLAY_USE_CUDA) forwards to tensorplay::cuda::memory_stats, whose allocator keeps
// c10's DeviceStats itself. Vulkan's allocator keeps only CachingAllocatorStats without the
// peak of allocated bytes, so the Vulkan device is refused with NotImplementedError (as is any
// device that has no allocator of ours, and a backend that is not compiled in).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <tensorplay/core/caching_allocator.hpp>
#include <tensorplay/core/device.hpp>
#include <tensorplay/core/device_stats.hpp>
#include <tensorplay/core/error.hpp>

#if TENSORPLAY_USE_CUDA
#include <tensorplay/backends/cuda/allocator.hpp>
#endif

namespace tensorplay::memory {

namespace detail {

// The device a memory function is about: CPU or a backend that is compiled in and has an
// allocator with torch's stats; anything else throws.
inline Device checked_device(const Device& device, const char* fn) {
  switch (device.type()) {
    case DeviceType::CPU: return device;
    case DeviceType::CUDA:
#if TENSORPLAY_USE_CUDA
      return device;
#else
      throw NotImplementedError(std::string(fn) + ": the CUDA backend is not compiled in; " +
                                "define TENSORPLAY_USE_CUDA to enable it");
#endif
    default: break;
  }
  throw NotImplementedError(std::string(fn) + ": device " + device.str() +
                            " has no caching allocator that reports memory statistics");
}

// The CPU allocator's counters in c10's layout ("all" only: it has no pools).
inline DeviceStats cpu_device_stats(const CachingAllocatorStats& s) {
  constexpr auto all = static_cast<std::size_t>(StatType::AGGREGATE);
  auto i64 = [](auto v) { return static_cast<std::int64_t>(v); };
  DeviceStats d;
  const std::int64_t live = i64(s.num_allocs) - i64(s.num_frees);
  d.allocation[all] = Stat{live, i64(s.peak_allocations), i64(s.num_allocs), i64(s.num_frees)};
  d.active[all] = d.allocation[all];
  const std::int64_t segments = i64(s.num_system_allocs) - i64(s.num_system_frees);
  d.segment[all] =
      Stat{segments, i64(s.peak_segments), i64(s.num_system_allocs), i64(s.num_system_frees)};
  d.allocated_bytes[all] = Stat{i64(s.allocated_bytes), i64(s.peak_allocated_bytes),
                                i64(s.total_allocated_bytes), i64(s.total_freed_bytes)};
  d.active_bytes[all] = d.allocated_bytes[all];
  d.reserved_bytes[all] = Stat{i64(s.reserved_bytes), i64(s.peak_reserved_bytes),
                               i64(s.total_reserved_bytes), i64(s.total_released_bytes)};
  d.num_alloc_retries = i64(s.num_alloc_retries);
  d.num_ooms = i64(s.num_ooms);
  d.num_device_alloc = i64(s.num_system_allocs);
  d.num_device_free = i64(s.num_system_frees);
  return d;
}

}  // namespace detail

// torch.cuda.memory_stats(device).
inline std::map<std::string, std::int64_t> memory_stats(const Device& device = Device("cpu")) {
  [[maybe_unused]] const Device d = detail::checked_device(device, "memory_stats");
#if TENSORPLAY_USE_CUDA
  if (d.is_cuda()) return cuda::memory_stats(d.index());
#endif
  return tensorplay::detail::memory_stats_map(
      detail::cpu_device_stats(CachingAllocator::instance().stats()),
      {/*pools=*/false, /*requested=*/false});
}

// torch.cuda.memory_allocated(device) and the others: one key of memory_stats().
inline std::int64_t memory_allocated(const Device& device = Device("cpu")) {
  return memory_stats(device).at("allocated_bytes.all.current");
}
inline std::int64_t max_memory_allocated(const Device& device = Device("cpu")) {
  return memory_stats(device).at("allocated_bytes.all.peak");
}
inline std::int64_t memory_reserved(const Device& device = Device("cpu")) {
  return memory_stats(device).at("reserved_bytes.all.current");
}
inline std::int64_t max_memory_reserved(const Device& device = Device("cpu")) {
  return memory_stats(device).at("reserved_bytes.all.peak");
}

// torch.cuda.reset_peak_memory_stats(device): every peak restarts from the current value.
inline void reset_peak_memory_stats(const Device& device = Device("cpu")) {
  [[maybe_unused]] const Device d = detail::checked_device(device, "reset_peak_memory_stats");
#if TENSORPLAY_USE_CUDA
  if (d.is_cuda()) return cuda::reset_peak_memory_stats(d.index());
#endif
  CachingAllocator::instance().reset_peak_stats();
}

}  // namespace tensorplay::memory
