// Tests for include/tensorplay/memory/snapshot.hpp and history.hpp: segments and blocks of the
// CPU allocator (they sum to the reserved bytes, states follow allocate/free), the history
// ring buffer (order, wrap, actions, stacks), torch 2.x's _snapshot dict as JSON, the leak
// finder, and the errors.
#include <tensorplay/memory/history.hpp>
#include <tensorplay/memory/snapshot.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace memory_snapshot_test {

namespace mem = tensorplay::memory;

// Turns history off at scope exit, so a failed check leaves no recording behind.
struct HistoryOff {
  ~HistoryOff() { mem::_record_memory_history(false); }
};

inline std::uint64_t block_of(const tensorplay::DataPtr& p) {
  return reinterpret_cast<std::uintptr_t>(p.get()) - tensorplay::detail::kBlockHeaderBytes;
}

inline const mem::Block* find_block(const std::vector<mem::Segment>& segments,
                                    std::uint64_t address) {
  for (const mem::Segment& s : segments) {
    for (const mem::Block& b : s.blocks) {
      if (b.address == address) return &b;
    }
  }
  return nullptr;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace memory_snapshot_test

TEST_CASE("memory_snapshot: segments and blocks of the CPU allocator", "[memory][snapshot]") {
  namespace t = memory_snapshot_test;
  namespace mem = tensorplay::memory;
  auto& allocator = tensorplay::CachingAllocator::instance();
  allocator.empty_cache();
  tensorplay::DataPtr small = allocator.allocate(1000);
  tensorplay::DataPtr large = allocator.allocate(100 * 1024);
  tensorplay::DataPtr freed = allocator.allocate(3000);
  const std::uint64_t freed_addr = t::block_of(freed);
  freed = tensorplay::DataPtr();  // cached in this thread

  const std::vector<mem::Segment> segments = mem::memory_snapshot();
  std::uint64_t total = 0;
  std::uint64_t active = 0;
  for (const mem::Segment& s : segments) {
    REQUIRE(s.blocks.size() == 1);  // the CPU allocator never splits a system block
    const mem::Block& b = s.blocks[0];
    CHECK(b.address == s.address);
    CHECK(b.size == s.total_size);
    CHECK(s.stream == 0);
    CHECK(s.allocated_size == (b.state == "active_allocated" ? s.total_size : 0));
    CHECK((b.state == "active_allocated" || b.state == "inactive"));
    CHECK((b.state == "inactive") == (b.requested_size == 0));
    total += s.total_size;
    active += s.allocated_size;
  }
  // No other thread allocates here, so the snapshot agrees with the stats.
  const auto stats = mem::memory_stats();
  CHECK(static_cast<std::int64_t>(total) == stats.at("reserved_bytes.all.current"));
  CHECK(static_cast<std::int64_t>(active) == stats.at("allocated_bytes.all.current"));
  CHECK(static_cast<std::int64_t>(segments.size()) == stats.at("segment.all.current"));
  for (std::size_t i = 1; i < segments.size(); ++i) {
    CHECK(segments[i - 1].address < segments[i].address);
  }

  const mem::Block* b_small = t::find_block(segments, t::block_of(small));
  REQUIRE(b_small != nullptr);
  CHECK(b_small->state == "active_allocated");
  CHECK(b_small->requested_size == 1000);
  CHECK(b_small->size == tensorplay::detail::block_total(1000));
  const mem::Block* b_large = t::find_block(segments, t::block_of(large));
  REQUIRE(b_large != nullptr);
  CHECK(b_large->requested_size == 100 * 1024);
  const mem::Block* b_freed = t::find_block(segments, freed_addr);
  REQUIRE(b_freed != nullptr);
  CHECK(b_freed->state == "inactive");
  CHECK(b_freed->requested_size == 0);
  for (const mem::Segment& s : segments) {
    if (s.address == t::block_of(small)) CHECK(s.segment_type == "small");
    if (s.address == t::block_of(large)) CHECK(s.segment_type == "large");
  }

  // Back to the system: the segment is gone.
  allocator.empty_cache();
  CHECK(t::find_block(mem::memory_snapshot(), freed_addr) == nullptr);
  CHECK(t::find_block(mem::memory_snapshot("cpu"), t::block_of(small)) != nullptr);
}

TEST_CASE("_record_memory_history: the ring keeps the last events with their stacks",
          "[memory][history]") {
  namespace t = memory_snapshot_test;
  namespace mem = tensorplay::memory;
  t::HistoryOff off;
  auto& allocator = tensorplay::CachingAllocator::instance();
  allocator.empty_cache();
  mem::_record_memory_history(true, 1000);
  CHECK(allocator.recording());
  tensorplay::DataPtr p = allocator.allocate(5000);  // a system allocation: segment + alloc
  const std::uint64_t addr = t::block_of(p);
  p = tensorplay::DataPtr();     // free_requested + free_completed
  p = allocator.allocate(5000);  // from this thread's cache: alloc only
  CHECK(t::block_of(p) == addr);

  mem::Snapshot snap = mem::_snapshot();
  REQUIRE(snap.device_traces.size() == 1);
  const std::vector<mem::TraceEntry>& trace = snap.device_traces[0];
  REQUIRE(trace.size() == 5);
  const char* const expected[] = {"segment_alloc", "alloc", "free_requested", "free_completed",
                                  "alloc"};
  for (std::size_t i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(trace[i].action == expected[i]);
    CHECK(trace[i].addr == addr);
    CHECK(trace[i].size == tensorplay::detail::block_total(5000));
    CHECK(trace[i].stream == 0);
    CHECK(!trace[i].frames.empty());  // C++ stacks ("all")
    CHECK(!trace[i].frames[0].filename.empty());
    CHECK(!trace[i].frames[0].name.empty());
  }
  CHECK(trace[1].requested_size == 5000);
  CHECK(trace[1].time_us <= trace[4].time_us);
  // The live block remembers its allocation's stack.
  const mem::Block* b = t::find_block(snap.segments, addr);
  REQUIRE(b != nullptr);
  CHECK(b->has_frames);
  CHECK(b->frames.size() == trace[4].frames.size());

  // Wrap: a ring of 3 keeps the last 3 of 10 events, oldest first.
  mem::_record_memory_history(true, 3);
  for (int i = 0; i < 3; ++i) p = allocator.allocate(5000);  // each: alloc new, free old
  std::uint64_t recorded = 0;
  const auto events = mem::detail::HistoryRecorder::instance().events(&recorded);
  // The first allocation needs a new block (the old one is still held): segment_alloc too.
  CHECK(recorded == 10);
  REQUIRE(events.size() == 3);
  CHECK(events[0].action == mem::AllocatorAction::alloc);
  CHECK(events[1].action == mem::AllocatorAction::free_requested);
  CHECK(events[2].action == mem::AllocatorAction::free_completed);

  // "python" records no C++ frames; off records nothing but keeps what was recorded.
  mem::_record_memory_history(true, 10, "python");
  p = allocator.allocate(5000);
  const auto py = mem::_snapshot().device_traces[0];
  REQUIRE(!py.empty());
  CHECK(py[0].frames.empty());
  mem::_record_memory_history(false);
  CHECK(!allocator.recording());
  p = allocator.allocate(5000);
  CHECK(mem::_snapshot().device_traces[0].size() == py.size());
}

TEST_CASE("_record_memory_history: other threads are recorded too", "[memory][history]") {
  namespace t = memory_snapshot_test;
  namespace mem = tensorplay::memory;
  t::HistoryOff off;
  auto& allocator = tensorplay::CachingAllocator::instance();
  // A thread whose cache exists before recording starts must leave its fast path too.
  tensorplay::DataPtr warm = allocator.allocate(64);
  mem::_record_memory_history(true, 100);
  std::thread([&] { tensorplay::DataPtr q = allocator.allocate(777); }).join();
  std::size_t allocs = 0;
  const mem::Snapshot snap = mem::_snapshot();
  for (const mem::TraceEntry& e : snap.device_traces[0]) {
    if (e.action == "alloc" && e.requested_size == 777) ++allocs;
  }
  CHECK(allocs == 1);
}

TEST_CASE("_snapshot: torch 2.x's dict as JSON, and _dump_snapshot", "[memory][snapshot]") {
  namespace t = memory_snapshot_test;
  namespace mem = tensorplay::memory;
  namespace json = tensorplay::detail::json;
  t::HistoryOff off;
  mem::_record_memory_history(true, 100);
  auto& allocator = tensorplay::CachingAllocator::instance();
  tensorplay::DataPtr p = allocator.allocate(12345);
  const mem::Snapshot snap = mem::_snapshot();
  const json::Value v = json::parse(mem::snapshot_json(snap));
  const json::Value* segments = v.find("segments");
  const json::Value* traces = v.find("device_traces");
  REQUIRE(segments != nullptr);
  REQUIRE(traces != nullptr);
  CHECK(segments->as_array().size() == snap.segments.size());
  bool found = false;
  for (const json::Value& s : segments->as_array()) {
    for (const char* key : {"device", "address", "total_size", "allocated_size", "active_size",
                            "requested_size", "stream", "segment_type", "blocks"}) {
      CAPTURE(key);
      CHECK(s.find(key) != nullptr);
    }
    for (const json::Value& b : s.find("blocks")->as_array()) {
      if (b.find("address")->as_uint64() != t::block_of(p)) continue;
      found = true;
      CHECK(b.find("size")->as_uint64() == tensorplay::detail::block_total(12345));
      CHECK(b.find("requested_size")->as_uint64() == 12345);
      CHECK(b.find("state")->as_string() == "active_allocated");
      REQUIRE(b.find("frames") != nullptr);
      const json::Value& frame = b.find("frames")->as_array().at(0);
      CHECK(frame.find("filename") != nullptr);
      CHECK(frame.find("line") != nullptr);
      CHECK(frame.find("name") != nullptr);
      REQUIRE(b.find("history") != nullptr);
      CHECK(b.find("history")->as_array().at(0).find("real_size")->as_uint64() == 12345);
    }
  }
  CHECK(found);
  REQUIRE(traces->as_array().size() == 1);
  const json::Value& last = traces->as_array()[0].as_array().back();
  CHECK(last.find("action")->as_string() == "alloc");
  CHECK(last.find("addr")->as_uint64() == t::block_of(p));
  CHECK(last.find("stream")->as_int64() == 0);
  CHECK(!last.find("frames")->as_array().empty());

  // memory_snapshot()'s list alone.
  CHECK(json::parse(mem::snapshot_json(mem::memory_snapshot())).as_array().size() >= 1);

  const std::string path = "tensorplay_memory_snapshot_test.json";
  mem::_dump_snapshot(path);
  const json::Value dumped = json::parse(t::read_file(path));
  CHECK(dumped.find("segments") != nullptr);
  CHECK(dumped.find("device_traces") != nullptr);
  std::remove(path.c_str());
  CHECK_THROWS_WITH(mem::_dump_snapshot("/nonexistent-dir/x/snapshot.json"),
                    Catch::Contains("cannot open"));
}

TEST_CASE("compare: blocks alive after and not before, by allocation site", "[memory][snapshot]") {
  namespace t = memory_snapshot_test;
  namespace mem = tensorplay::memory;
  t::HistoryOff off;
  mem::_record_memory_history(true, 1000);
  auto& allocator = tensorplay::CachingAllocator::instance();
  const std::vector<mem::Segment> before = mem::memory_snapshot();
  std::vector<tensorplay::DataPtr> leaked;
  for (int i = 0; i < 3; ++i) leaked.push_back(allocator.allocate(2048));
  { tensorplay::DataPtr temporary = allocator.allocate(4096); }  // freed: no leak
  const std::vector<mem::Segment> after = mem::memory_snapshot();
  const std::vector<mem::SiteDiff> diff = mem::compare(before, after);
  REQUIRE(diff.size() == 1);  // one site: the loop above
  CHECK(diff[0].count == 3);
  CHECK(diff[0].bytes == 3 * tensorplay::detail::block_total(2048));
  CHECK(!diff[0].frames.empty());
  CHECK(mem::compare(after, after).empty());
  leaked.clear();
  CHECK(mem::compare(before, mem::memory_snapshot()).empty());
}

TEST_CASE("_record_memory_history: a frame provider's frames follow the C++ ones",
          "[memory][history]") {
  namespace t = memory_snapshot_test;
  namespace mem = tensorplay::memory;
  t::HistoryOff off;
  auto& recorder = mem::detail::HistoryRecorder::instance();
  struct ProviderOff {
    ~ProviderOff() { mem::detail::HistoryRecorder::instance().set_frame_provider(nullptr); }
  } provider_off;
  recorder.set_frame_provider([]() noexcept -> mem::detail::ExtraFrames {
    return std::make_shared<const std::vector<mem::Frame>>(
        std::vector<mem::Frame>{{"train.py", 42, "step"}});
  });
  auto& allocator = tensorplay::CachingAllocator::instance();
  for (const char* stacks : {"all", "python", "cpp"}) {
    CAPTURE(stacks);
    mem::_record_memory_history(true, 16, stacks);
    tensorplay::DataPtr p = allocator.allocate(333);
    const mem::Snapshot snap = mem::_snapshot();
    REQUIRE(!snap.device_traces[0].empty());
    const std::vector<mem::Frame>& frames = snap.device_traces[0].back().frames;
    const bool extra = std::string(stacks) != "cpp";
    const bool cpp = std::string(stacks) != "python";
    REQUIRE(frames.size() >= (extra ? 1u : 0u) + (cpp ? 1u : 0u));
    CHECK((frames.back().filename == "train.py") == extra);
    if (extra) {
      CHECK(frames.back().line == 42);
      CHECK(frames.back().name == "step");
    }
    CHECK((frames.size() > 1) == cpp);
    const mem::Block* b = t::find_block(snap.segments, t::block_of(p));
    REQUIRE(b != nullptr);
    CHECK(b->frames.size() == frames.size());
  }
}

TEST_CASE("memory history and snapshots: errors", "[memory][history]") {
  namespace t = memory_snapshot_test;
  namespace mem = tensorplay::memory;
  t::HistoryOff off;
  CHECK_THROWS_AS(mem::_record_memory_history(true, 10, "java"), tensorplay::ValueError);
  CHECK_THROWS_WITH(mem::_record_memory_history(true, 10, "java"),
                    Catch::Contains("stacks must be \"all\", \"cpp\" or \"python\""));
  CHECK_THROWS_AS(mem::_record_memory_history(true, 0), tensorplay::ValueError);
  CHECK_THROWS_WITH(mem::_record_memory_history(true, 10, "all", "device9"),
                    Catch::Contains("Expected one of cpu, cuda, vulkan"));
  CHECK_THROWS_AS(mem::_record_memory_history(true, 10, "all", "vulkan"),
                  tensorplay::NotImplementedError);
  CHECK_THROWS_AS(mem::memory_snapshot("vulkan"), tensorplay::NotImplementedError);
  CHECK_THROWS_AS(mem::_snapshot("vulkan:0"), tensorplay::NotImplementedError);
  CHECK(!tensorplay::CachingAllocator::instance().recording());
}
