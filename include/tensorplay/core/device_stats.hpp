// DeviceStats: c10's allocator statistics (a Stat per counter, for all pools together and for
// each pool) and their spelling as torch.cuda.memory_stats() keys. Shared by every caching
// allocator's memory_stats(): the CUDA allocator keeps a DeviceStats, the CPU one's counters
// are mapped onto it by memory/stats.hpp.
#pragma once

#include <array>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>

namespace tensorplay {

// c10's Stat: a gauge with its high-water mark and the totals it went up and down by.
struct Stat {
  std::int64_t current = 0;
  std::int64_t peak = 0;
  std::int64_t allocated = 0;
  std::int64_t freed = 0;

  void increase(std::size_t amount) noexcept {
    current += static_cast<std::int64_t>(amount);
    peak = current > peak ? current : peak;
    allocated += static_cast<std::int64_t>(amount);
  }
  void decrease(std::size_t amount) noexcept {
    current -= static_cast<std::int64_t>(amount);
    freed += static_cast<std::int64_t>(amount);
  }
};

// The index of a StatArray: every counter is kept for both pools together and for each one.
enum class StatType : std::size_t { AGGREGATE = 0, SMALL_POOL = 1, LARGE_POOL = 2, NUM_TYPES = 3 };
using StatArray = std::array<Stat, static_cast<std::size_t>(StatType::NUM_TYPES)>;

// c10's DeviceStats (without the oversize counters, see the header comment).
struct DeviceStats {
  StatArray allocation;      // blocks handed out and not yet freed
  StatArray segment;         // device allocations held
  StatArray active;          // blocks allocated or waiting for their events
  StatArray inactive_split;  // free blocks inside split segments
  StatArray allocated_bytes;
  StatArray reserved_bytes;  // in segments
  StatArray active_bytes;
  StatArray inactive_split_bytes;         // what empty_cache() cannot return
  StatArray requested_bytes;              // as asked for by callers, before rounding
  std::int64_t num_alloc_retries = 0;     // full cache flushes before a retried device allocation
  std::int64_t num_ooms = 0;              // OutOfMemoryErrors thrown
  std::int64_t num_sync_all_streams = 0;  // waits for every pending event
  std::int64_t num_device_alloc = 0;      // segments allocated (successful mallocs)
  std::int64_t num_device_free = 0;       // segments returned
};

namespace detail {

// PyTorch's format_size: bytes, then KiB, MiB or GiB with two decimals. Like c10 (and unlike
// vulkan::detail::format_size, which could share this one) a unit starts above its size:
// 1024 bytes prints as "1024 bytes".
inline std::string format_size(std::uint64_t bytes) {
  char buf[64];
  if (bytes <= (std::uint64_t{1} << 10)) {
    std::snprintf(buf, sizeof buf, "%" PRIu64 " bytes", bytes);
  } else if (bytes <= (std::uint64_t{1} << 20)) {
    std::snprintf(buf, sizeof buf, "%.2f KiB", static_cast<double>(bytes) / 1024.0);
  } else if (bytes <= (std::uint64_t{1} << 30)) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / 1048576.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / 1073741824.0);
  }
  return buf;
}

// Which of torch's key groups an allocator has: the "small_pool"/"large_pool" rows (CUDA's
// two pools; the CPU allocator has none) and requested_bytes (torch 2.x; CUDA only).
struct StatsLayout {
  bool pools = true;
  bool requested = true;
};

// torch.cuda.memory_stats(): "<stat>.<pool>.<field>" for every Stat, then the counters. The
// oversize_* stats are torch's and always 0 here, as in torch while max_split_size is unset
// (no allocator of ours has that knob); torch's memory_summary reads them.
inline std::map<std::string, std::int64_t> memory_stats_map(const DeviceStats& s,
                                                            StatsLayout layout = {}) {
  const std::pair<const char*, const StatArray*> arrays[] = {
      {"allocation", &s.allocation},
      {"segment", &s.segment},
      {"active", &s.active},
      {"inactive_split", &s.inactive_split},
      {"allocated_bytes", &s.allocated_bytes},
      {"reserved_bytes", &s.reserved_bytes},
      {"active_bytes", &s.active_bytes},
      {"inactive_split_bytes", &s.inactive_split_bytes},
      {"requested_bytes", &s.requested_bytes}};
  const char* const pools[] = {"all", "small_pool", "large_pool"};
  std::map<std::string, std::int64_t> out;
  auto put = [&out](const std::string& prefix, const Stat& stat) {
    out[prefix + "current"] = stat.current;
    out[prefix + "peak"] = stat.peak;
    out[prefix + "allocated"] = stat.allocated;
    out[prefix + "freed"] = stat.freed;
  };
  for (const auto& [name, array] : arrays) {
    if (!layout.requested && array == &s.requested_bytes) continue;
    for (std::size_t i = 0; i < (layout.pools ? array->size() : 1); ++i) {
      put(std::string(name) + "." + pools[i] + ".", (*array)[i]);
    }
  }
  put("oversize_allocations.", Stat{});
  put("oversize_segments.", Stat{});
  out["num_alloc_retries"] = s.num_alloc_retries;
  out["num_ooms"] = s.num_ooms;
  out["num_sync_all_streams"] = s.num_sync_all_streams;
  out["num_device_alloc"] = s.num_device_alloc;
  out["num_device_free"] = s.num_device_free;
  return out;
}

}  // namespace detail

}  // namespace tensorplay
