// tensorplay::memory snapshots in PyTorch's formats, so that its tools read ours:
//
//   memory_snapshot(device)   torch.cuda.memory_snapshot(): the list of segments, each
//                             {device address total_size allocated_size active_size
//                             requested_size stream segment_type blocks}, each block
//                             {address size requested_size state} and, for a block allocated
//                             while history was recorded, torch 1.13's "history"
//                             ([{addr real_size frames}]) and torch 2.x's "frames"
//   _snapshot(device)         torch 2.x's torch.cuda.memory._snapshot(): {segments,
//                             device_traces}, device_traces[0] the recorded events (oldest
//                             first), each {action addr size requested_size stream time_us
//                             frames}
//   snapshot_json(...)        either one as compact JSON; _dump_snapshot(path) writes
//                             _snapshot() so (the Python module writes torch's pickle)
//   compare(before, after)    the leak finder: blocks active in `after` and not in `before`,
//                             grouped by allocation site
//
// CPU allocator specifics: every block is its own segment (a system allocation), so each
// segment lists exactly one block, at the segment's address and of its total size, and the
// segment sizes sum to memory_reserved(). Addresses are the blocks' starts; a tensor's data
// pointer is 64 bytes (the block header, TENSORPLAY_CPU_ALIGNMENT) further. A block is
// "active_allocated" while handed out and "inactive" while cached; segment_type is "small" for
// blocks up to 32 KiB (the thread caches' direct-indexed size classes), "large" above. There
// are no streams: stream is 0. A snapshot is consistent when no other thread allocates or
// frees meanwhile.
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <tensorplay/core/caching_allocator.hpp>
#include <tensorplay/core/device.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/memory/history.hpp>
#include <tensorplay/memory/stats.hpp>
#include <tensorplay/serialize/json.hpp>

namespace tensorplay::memory {

struct Block {
  std::uint64_t address = 0;
  std::uint64_t size = 0;
  std::uint64_t requested_size = 0;
  std::string state;        // "active_allocated" or "inactive"
  bool has_frames = false;  // allocated while history was recorded
  std::vector<Frame> frames;
};

struct Segment {
  std::int64_t device = 0;
  std::uint64_t address = 0;
  std::uint64_t total_size = 0;
  std::uint64_t allocated_size = 0;
  std::uint64_t active_size = 0;
  std::uint64_t requested_size = 0;
  std::int64_t stream = 0;
  std::string segment_type;  // "small" or "large"
  std::vector<Block> blocks;
};

struct TraceEntry {
  std::string action;
  std::uint64_t addr = 0;
  std::uint64_t size = 0;
  std::uint64_t requested_size = 0;
  std::int64_t stream = 0;
  std::int64_t time_us = 0;
  std::vector<Frame> frames;
};

struct Snapshot {
  std::vector<Segment> segments;
  std::vector<std::vector<TraceEntry>> device_traces;  // one list per device (CPU: one)
};

namespace detail {

inline Device snapshot_device(const Device& device, const char* fn) {
  const Device d = checked_device(device, fn);
  if (!d.is_cpu()) {
    throw NotImplementedError(std::string(fn) +
                              ": snapshots are taken of the CPU allocator only for now");
  }
  return d;
}

inline std::vector<Segment> cpu_segments(Symboliser& symboliser) {
  std::vector<Segment> out;
  const HistoryRecorder& recorder = HistoryRecorder::instance();
  for (const CachingAllocator::SegmentInfo& s : CachingAllocator::instance().segments()) {
    Segment seg;
    seg.address = reinterpret_cast<std::uintptr_t>(s.address);
    seg.total_size = s.total_size;
    seg.allocated_size = s.active ? s.total_size : 0;
    seg.active_size = seg.allocated_size;
    seg.requested_size = s.requested_size;
    seg.segment_type = s.total_size <= tensorplay::detail::kSmallTotalLimit ? "small" : "large";
    Block b;
    b.address = seg.address;
    b.size = s.total_size;
    b.requested_size = s.requested_size;
    b.state = s.active ? "active_allocated" : "inactive";
    BlockStacks stacks;
    if (s.active && recorder.block_stack(seg.address, stacks)) {
      b.has_frames = true;
      b.frames = symboliser.frames(stacks.stack, stacks.extra);
    }
    seg.blocks.push_back(std::move(b));
    out.push_back(std::move(seg));
  }
  return out;
}

namespace json = tensorplay::detail::json;

inline json::Value frames_json(const std::vector<Frame>& frames) {
  json::Value::Array out;
  for (const Frame& f : frames) {
    out.push_back(json::Value::object({{"filename", json::Value::string(f.filename)},
                                       {"line", json::Value::integer(f.line)},
                                       {"name", json::Value::string(f.name)}}));
  }
  return json::Value::array(std::move(out));
}

inline json::Value segments_json(const std::vector<Segment>& segments) {
  auto u = [](std::uint64_t v) { return json::Value::unsigned_integer(v); };
  json::Value::Array out;
  for (const Segment& s : segments) {
    json::Value::Array blocks;
    for (const Block& b : s.blocks) {
      json::Value::Object block{{"address", u(b.address)},
                                {"size", u(b.size)},
                                {"requested_size", u(b.requested_size)},
                                {"state", json::Value::string(b.state)}};
      if (b.has_frames) {
        block.emplace_back("frames", frames_json(b.frames));
        block.emplace_back(
            "history",
            json::Value::array({json::Value::object({{"addr", u(b.address)},
                                                     {"real_size", u(b.requested_size)},
                                                     {"frames", frames_json(b.frames)}})}));
      }
      blocks.push_back(json::Value::object(std::move(block)));
    }
    out.push_back(json::Value::object({{"device", json::Value::integer(s.device)},
                                       {"address", u(s.address)},
                                       {"total_size", u(s.total_size)},
                                       {"allocated_size", u(s.allocated_size)},
                                       {"active_size", u(s.active_size)},
                                       {"requested_size", u(s.requested_size)},
                                       {"stream", json::Value::integer(s.stream)},
                                       {"segment_type", json::Value::string(s.segment_type)},
                                       {"blocks", json::Value::array(std::move(blocks))}}));
  }
  return json::Value::array(std::move(out));
}

}  // namespace detail

// torch.cuda.memory_snapshot().
inline std::vector<Segment> memory_snapshot(const Device& device = Device("cpu")) {
  detail::snapshot_device(device, "memory_snapshot");
  detail::Symboliser symboliser;
  return detail::cpu_segments(symboliser);
}

// torch.cuda.memory._snapshot() (torch 2.x's dict).
inline Snapshot _snapshot(const Device& device = Device("cpu")) {
  detail::snapshot_device(device, "_snapshot");
  detail::Symboliser symboliser;
  Snapshot snap;
  snap.segments = detail::cpu_segments(symboliser);
  std::vector<TraceEntry> trace;
  for (const detail::RawEvent& e : detail::HistoryRecorder::instance().events()) {
    TraceEntry t;
    t.action = action_name(e.action);
    t.addr = e.addr;
    t.size = e.size;
    t.requested_size = e.requested;
    t.time_us = e.time_us;
    t.frames = symboliser.frames(e.stack, e.extra);
    trace.push_back(std::move(t));
  }
  snap.device_traces.push_back(std::move(trace));
  return snap;
}

// Compact JSON of memory_snapshot()'s list or of _snapshot()'s dict.
inline std::string snapshot_json(const std::vector<Segment>& segments) {
  return tensorplay::detail::json::dump(detail::segments_json(segments));
}
inline std::string snapshot_json(const Snapshot& snap) {
  namespace json = tensorplay::detail::json;
  auto u = [](std::uint64_t v) { return json::Value::unsigned_integer(v); };
  json::Value::Array traces;
  for (const std::vector<TraceEntry>& device_trace : snap.device_traces) {
    json::Value::Array entries;
    for (const TraceEntry& t : device_trace) {
      entries.push_back(json::Value::object({{"action", json::Value::string(t.action)},
                                             {"addr", u(t.addr)},
                                             {"size", u(t.size)},
                                             {"requested_size", u(t.requested_size)},
                                             {"stream", json::Value::integer(t.stream)},
                                             {"time_us", json::Value::integer(t.time_us)},
                                             {"frames", detail::frames_json(t.frames)}}));
    }
    traces.push_back(json::Value::array(std::move(entries)));
  }
  return json::dump(
      json::Value::object({{"segments", detail::segments_json(snap.segments)},
                           {"device_traces", json::Value::array(std::move(traces))}}));
}

// Writes _snapshot(device) as JSON to `filename` (torch writes a pickle; from Python,
// tensorplay.memory._dump_snapshot does too).
inline void _dump_snapshot(const std::string& filename = "dump_snapshot.json",
                           const Device& device = Device("cpu")) {
  const std::string text = snapshot_json(_snapshot(device));
  std::ofstream out(filename, std::ios::binary | std::ios::trunc);
  TP_CHECK(out.good(), "_dump_snapshot: cannot open ", filename, " for writing");
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  TP_CHECK(!out.fail(), "_dump_snapshot: writing ", filename, " failed");
}

// One allocation site in compare()'s answer: the stack (innermost first; empty when the block
// was allocated while history was off), and the blocks allocated there.
struct SiteDiff {
  std::vector<Frame> frames;
  std::size_t count = 0;
  std::uint64_t bytes = 0;  // summed block sizes
};

// The leak finder: the blocks active in `after` that were not active in `before` (matched by
// address and size), grouped by allocation site, largest total first.
inline std::vector<SiteDiff> compare(const std::vector<Segment>& before,
                                     const std::vector<Segment>& after) {
  std::map<std::pair<std::uint64_t, std::uint64_t>, bool> old_active;
  for (const Segment& s : before) {
    for (const Block& b : s.blocks) {
      if (b.state == "active_allocated") old_active[{b.address, b.size}] = true;
    }
  }
  auto site_key = [](const Block& b) {
    std::string key;
    for (const Frame& f : b.frames) key += f.filename + ":" + f.name + "\n";
    return key;
  };
  std::map<std::string, SiteDiff> sites;
  for (const Segment& s : after) {
    for (const Block& b : s.blocks) {
      if (b.state != "active_allocated" || old_active.count({b.address, b.size}) != 0) continue;
      SiteDiff& site = sites[site_key(b)];
      site.frames = b.frames;
      ++site.count;
      site.bytes += b.size;
    }
  }
  std::vector<SiteDiff> out;
  for (auto& [key, site] : sites) out.push_back(std::move(site));
  std::stable_sort(out.begin(), out.end(),
                   [](const SiteDiff& x, const SiteDiff& y) { return x.bytes > y.bytes; });
  return out;
}

}  // namespace tensorplay::memory
