// tensorplay::memory::_record_memory_history(enabled, max_entries, stacks, device): torch's
// memory history for the CPU caching allocator. While on, every allocation, free and system
// allocation/release is appended to a ring buffer of the last `max_entries` events (torch's
// trace actions: alloc, free_requested, free_completed, segment_alloc, segment_free), each with
// the C++ call stack, and each live block allocated meanwhile remembers its allocation's stack
// (the snapshot's per-block frames).
//
// Stacks are captured with backtrace() as raw return addresses (cheap: no symbol lookup while
// recording) and symbolised only when a snapshot is exported (dladdr + demangling, memoised per
// address; a function of the executable has a name only when it is linked with -rdynamic,
// otherwise its frame reads "<file>+0x<offset>"). stacks: "cpp" records the C++ frames,
// "python" only the frames of a FrameProvider (the Python module installs one that reads the
// interpreter's stack), "all" both, C++ frames first (they are the inner ones).
//
// Cost: off, nothing (the allocator's fast path tests one flag word it tested before); on,
// every allocate/free takes the allocator's slow path plus a backtrace() and a mutex here.
//
// Thread safety: HistoryRecorder's state is guarded by its mutex; events are recorded on the
// thread that allocates or frees, outside the allocator's locks. The recorder is a
// never-destroyed singleton, so an event racing with _record_memory_history(false) is either
// recorded or dropped, never lost in a destroyed buffer.
#pragma once

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <tensorplay/core/caching_allocator.hpp>
#include <tensorplay/core/device.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/memory/stats.hpp>

namespace tensorplay::memory {

using AllocatorAction = tensorplay::detail::AllocatorAction;

// torch's spelling of a trace action.
inline const char* action_name(AllocatorAction a) noexcept {
  switch (a) {
    case AllocatorAction::alloc: return "alloc";
    case AllocatorAction::free_requested: return "free_requested";
    case AllocatorAction::free_completed: return "free_completed";
    case AllocatorAction::segment_alloc: return "segment_alloc";
    case AllocatorAction::segment_free: return "segment_free";
  }
  return "?";
}

// One symbolised stack frame, torch's {filename, line, name}. C++ frames have no line (0).
struct Frame {
  std::string filename;
  std::int64_t line = 0;
  std::string name;
};

namespace detail {

// Deepest C++ stack kept per event (innermost frames first, as torch lists them).
inline constexpr int kMaxFrames = 32;

// A raw stack: return addresses, symbolised on export.
struct RawStack {
  int depth = 0;
  void* pcs[kMaxFrames];
};

// Frames from another language's stack (Python's), innermost first: captured at the event by
// the provider the binding installs, already symbolised.
using ExtraFrames = std::shared_ptr<const std::vector<Frame>>;
// Called on the allocating thread while recording; returns nullptr when it has nothing (no
// Python stack on this thread, or the GIL is not held). Must not throw.
using FrameProvider = ExtraFrames (*)() noexcept;

struct RawEvent {
  AllocatorAction action;
  std::uintptr_t addr;
  std::size_t size;
  std::size_t requested;
  std::int64_t time_us;
  RawStack stack;
  ExtraFrames extra;  // the provider's frames (outer to the C++ ones), or nullptr
};
// A live block's allocation stacks.
struct BlockStacks {
  RawStack stack;
  ExtraFrames extra;
};

// Symbolises one return address: the function (demangled) and its object file.
inline Frame symbolise(void* pc) {
  Frame f;
  Dl_info info{};
  if (dladdr(pc, &info) != 0) {
    if (info.dli_fname != nullptr) f.filename = info.dli_fname;
    if (info.dli_sname != nullptr) {
      int status = 0;
      char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
      f.name = status == 0 && demangled != nullptr ? demangled : info.dli_sname;
      std::free(demangled);
    }
  }
  if (f.name.empty()) {
    const auto base = reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    char buf[64];
    std::snprintf(buf, sizeof buf, "+0x%zx",
                  static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(pc) - base));
    const std::string& file = f.filename;
    f.name = file.substr(file.find_last_of('/') + 1) + buf;
  }
  if (f.filename.empty()) f.filename = "??";
  return f;
}

// The process-wide recorder. Thread-safe: every member below is guarded by mutex_.
class HistoryRecorder {
 public:
  static HistoryRecorder& instance() {
    static HistoryRecorder* const recorder = new HistoryRecorder();
    return *recorder;
  }

  // Starts recording into a fresh ring of `max_entries` events (the old one is dropped).
  void enable(std::size_t max_entries, bool cpp_frames, bool extra_frames) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ring_.assign(max_entries, RawEvent{});
      next_ = 0;
      size_ = 0;
      recorded_ = 0;
      live_.clear();
      cpp_frames_ = cpp_frames;
      extra_frames_ = extra_frames;
      enabled_ = true;
    }
    // The first backtrace() may load libgcc_s and allocate: do it here, not in a deleter.
    void* warm[2];
    (void)backtrace(warm, 2);
    CachingAllocator::instance().set_observer(&observe);
  }

  // Stops recording; what was recorded stays readable until the next enable().
  void disable() {
    CachingAllocator::instance().set_observer(nullptr);
    std::lock_guard<std::mutex> lock(mutex_);
    enabled_ = false;
  }

  bool enabled() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return enabled_;
  }

  // The events kept, oldest first, and how many were recorded in all (more than kept once the
  // ring wrapped).
  std::vector<RawEvent> events(std::uint64_t* recorded = nullptr) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<RawEvent> out;
    out.reserve(size_);
    const std::size_t cap = ring_.size();
    for (std::size_t i = 0; i < size_; ++i) out.push_back(ring_[(next_ + cap - size_ + i) % cap]);
    if (recorded != nullptr) *recorded = recorded_;
    return out;
  }

  // Installs (or, with nullptr, removes) the provider of extra frames; see FrameProvider.
  void set_frame_provider(FrameProvider provider) noexcept {
    provider_.store(provider, std::memory_order_relaxed);
  }

  // The allocation stacks of the live block at `addr`, if it was allocated while recording.
  bool block_stack(std::uintptr_t addr, BlockStacks& out) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(addr);
    if (it == live_.end()) return false;
    out = it->second;
    return true;
  }

  void record(AllocatorAction action, void* addr, std::size_t size,
              std::size_t requested) noexcept {
    RawEvent e;
    e.action = action;
    e.addr = reinterpret_cast<std::uintptr_t>(addr);
    e.size = size;
    e.requested = requested;
    e.time_us = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
    // The provider runs before the lock: it may take the interpreter's locks and allocate.
    FrameProvider provider = provider_.load(std::memory_order_relaxed);
    if (provider != nullptr && extra_frames_.load(std::memory_order_relaxed)) e.extra = provider();
    std::lock_guard<std::mutex> lock(mutex_);
    if (!enabled_ || ring_.empty()) return;
    if (cpp_frames_) {
      // Skips this function and the observer trampoline.
      void* pcs[kMaxFrames + 2];
      const int n = backtrace(pcs, kMaxFrames + 2);
      e.stack.depth = n > 2 ? n - 2 : 0;
      for (int i = 0; i < e.stack.depth; ++i) e.stack.pcs[i] = pcs[i + 2];
    }
    ring_[next_] = e;
    next_ = (next_ + 1) % ring_.size();
    if (size_ < ring_.size()) ++size_;
    ++recorded_;
    try {
      if (action == AllocatorAction::alloc) {
        live_[e.addr] = BlockStacks{e.stack, e.extra};
      } else if (action == AllocatorAction::free_completed) {
        live_.erase(e.addr);
      }
    } catch (...) {
      // Out of memory for the map: the block's stack is lost, the event is kept.
    }
  }

 private:
  HistoryRecorder() = default;

  static void observe(AllocatorAction action, void* addr, std::size_t size,
                      std::size_t requested) noexcept {
    instance().record(action, addr, size, requested);
  }

  mutable std::mutex mutex_;
  std::vector<RawEvent> ring_;  // the last ring_.size() events; next_ is the slot to write
  std::size_t next_ = 0;
  std::size_t size_ = 0;                                  // slots filled
  std::uint64_t recorded_ = 0;                            // events recorded since enable()
  std::unordered_map<std::uintptr_t, BlockStacks> live_;  // live blocks allocated while recording
  bool cpp_frames_ = true;
  bool enabled_ = false;
  // Read before the lock in record(): relaxed atomics (a change races with at most the events
  // in flight).
  std::atomic<bool> extra_frames_{false};
  std::atomic<FrameProvider> provider_{nullptr};
};

// Symbolises stacks, each address once per exporter.
class Symboliser {
 public:
  // The C++ frames (innermost first), then the extra (Python) frames, which are outer.
  std::vector<Frame> frames(const RawStack& stack, const ExtraFrames& extra = nullptr) {
    std::vector<Frame> out;
    out.reserve(static_cast<std::size_t>(stack.depth) + (extra ? extra->size() : 0));
    for (int i = 0; i < stack.depth; ++i) {
      auto [it, inserted] = cache_.try_emplace(stack.pcs[i]);
      if (inserted) it->second = symbolise(stack.pcs[i]);
      out.push_back(it->second);
    }
    if (extra) out.insert(out.end(), extra->begin(), extra->end());
    return out;
  }

 private:
  std::unordered_map<void*, Frame> cache_;
};

}  // namespace detail

// The default ring size (torch's is unbounded; a ring of this many events is about 30 MiB).
inline constexpr std::size_t kDefaultMaxEntries = 100000;

// torch.cuda.memory._record_memory_history(enabled, max_entries=, stacks=, device=). Recording
// is process-wide for the CPU allocator; stacks is "all", "cpp" or "python".
inline void _record_memory_history(bool enabled, std::size_t max_entries = kDefaultMaxEntries,
                                   const std::string& stacks = "all",
                                   const Device& device = Device("cpu")) {
  const Device d = detail::checked_device(device, "_record_memory_history");
  if (!d.is_cpu()) {
    throw NotImplementedError(
        "_record_memory_history: memory history is recorded for the CPU allocator only");
  }
  TP_CHECK_VALUE(stacks == "all" || stacks == "cpp" || stacks == "python",
                 "_record_memory_history: stacks must be \"all\", \"cpp\" or \"python\", got \"",
                 stacks, "\"");
  detail::HistoryRecorder& recorder = detail::HistoryRecorder::instance();
  if (!enabled) {
    recorder.disable();
    return;
  }
  TP_CHECK_VALUE(max_entries > 0, "_record_memory_history: max_entries must be positive");
  recorder.enable(max_entries, stacks != "python", stacks != "cpp");
}

}  // namespace tensorplay::memory
