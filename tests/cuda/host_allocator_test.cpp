// Tests for include/tensorplay/backends/cuda/host_allocator.hpp (pinned host memory, c10's
// CachingHostAllocator model) on the simulated device of caching_allocator_test.cpp: the logic
// needs no GPU and no CUDA toolkit, so every build runs these (the unit binary). Then pinned
// memory from a user's side where the backend is not compiled in: TensorOptions::pinned_memory,
// Tensor::pin_memory and is_pinned, with a stand-in pinned allocator.
#include <tensorplay/backends/cuda/host_allocator.hpp>
#include <tensorplay/tensorplay.hpp>

#include "simulated_device.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace cuda_host_allocator_test {

namespace tp = tensorplay;
using cuda_simulated_device::SimulatedDevice;
using Host = tp::cuda::CachingHostAllocatorT<SimulatedDevice>;

static_assert(tp::cuda::HostMemory<SimulatedDevice>);
static_assert(!tp::cuda::HostMemory<int>);

[[noreturn]] void refuse(std::size_t n) {
  throw tp::OutOfMemoryError("refused " + std::to_string(n));
}

TEST_CASE("pinned memory: sizes round to powers of two, freed blocks are reused",
          "[cuda][pinned]") {
  SimulatedDevice dev;
  Host host(dev);
  CHECK(Host::round_size(0) == 0);
  CHECK(Host::round_size(1) == 1);
  CHECK(Host::round_size(1000) == 1024);
  CHECK(Host::round_size(4096) == 4096);
  void* first = nullptr;
  {
    const tp::DataPtr p = host.allocate(1000, refuse);
    REQUIRE(p.get() != nullptr);
    CHECK(p.device().is_cpu());
    std::memset(p.get(), 7, 1024);  // the whole rounded block is ours
    first = p.get();
    CHECK(host.owns(p.get()));
    CHECK(host.owns(static_cast<char*>(p.get()) + 1023));
    CHECK_FALSE(host.owns(static_cast<char*>(p.get()) + 1024));
    const tp::cuda::HostStats s = host.stats();
    CHECK(s.allocated_bytes == 1024);
    CHECK(s.reserved_bytes == 1024);
    CHECK(s.num_host_alloc == 1);
  }
  CHECK(host.stats().allocated_bytes == 0);
  CHECK(host.stats().reserved_bytes == 1024);            // cached
  const tp::DataPtr again = host.allocate(600, refuse);  // rounds to 1024: the cached block
  CHECK(again.get() == first);
  CHECK(host.stats().num_cached_allocs == 1);
  CHECK(dev.mallocs() == 1);
  const tp::DataPtr other = host.allocate(2000, refuse);  // another size: a new block
  CHECK(dev.mallocs() == 2);
  CHECK(host.allocate(0, refuse).get() == nullptr);
  CHECK(host.stats().peak_allocated_bytes == 1024 + 2048);
}

TEST_CASE("pinned memory: a block used by an asynchronous copy waits for it", "[cuda][pinned]") {
  SimulatedDevice dev;
  Host host(dev);
  void* block = nullptr;
  {
    const tp::DataPtr p = host.allocate(256, refuse);
    block = p.get();
    CHECK(host.record_stream(static_cast<char*>(p.get()) + 10, 3));  // a copy on stream 3
    CHECK(host.record_stream(p.get(), 5));
  }
  // Freed, but two events (streams 3 and 5) are pending: not reused.
  CHECK(dev.pending_events() == 2);
  CHECK(host.stats().pending_event_blocks == 1);
  const tp::DataPtr other = host.allocate(256, refuse);
  CHECK(other.get() != block);
  dev.complete_all_events();
  const tp::DataPtr reused = host.allocate(256, refuse);  // events polled first
  CHECK(reused.get() == block);
  CHECK(dev.live_events() == 0);  // destroyed once complete
  CHECK(host.stats().pending_event_blocks == 0);
  // A pointer the allocator never returned is not protected, and says so.
  int local = 0;
  CHECK_FALSE(host.record_stream(&local, 1));
}

TEST_CASE("pinned memory: empty_cache returns free blocks, not pending ones", "[cuda][pinned]") {
  SimulatedDevice dev;
  Host host(dev);
  {
    const tp::DataPtr a = host.allocate(64, refuse);
    const tp::DataPtr b = host.allocate(128, refuse);
    host.record_stream(b.get(), 1);
  }
  host.empty_cache();
  CHECK(dev.frees() == 1);  // a's block; b's waits for its event
  CHECK(host.stats().reserved_bytes == 128);
  dev.complete_all_events();
  const tp::DataPtr keep = host.allocate(4096, refuse);  // polls: b's block returns to the cache
  host.empty_cache();
  CHECK(dev.frees() == 2);
  CHECK(host.stats().num_host_free == 2);
}

TEST_CASE("pinned memory: a refused allocation empties the cache, retries, then raises",
          "[cuda][pinned]") {
  SimulatedDevice dev(4096);
  Host host(dev);
  { const tp::DataPtr a = host.allocate(2048, refuse); }  // cached, 2048 of 4096 bytes
  const tp::DataPtr b = host.allocate(4096, refuse);      // fits after the cache is emptied
  CHECK(dev.frees() == 1);
  CHECK_THROWS_MATCHES(host.allocate(1, refuse), tp::OutOfMemoryError, Catch::Message("refused 1"));
}

TEST_CASE("pinned memory: a failed event record leaks the block rather than reuse it early",
          "[cuda][pinned]") {
  SimulatedDevice dev;
  Host host(dev);
  void* block = nullptr;
  {
    const tp::DataPtr p = host.allocate(512, refuse);
    block = p.get();
    host.record_stream(p.get(), 2);
    dev.fail_next_event_records(1);
  }
  dev.complete_all_events();
  const tp::DataPtr next = host.allocate(512, refuse);
  CHECK(next.get() != block);
}

TEST_CASE("pinned memory: threads allocate, mark and free concurrently", "[cuda][pinned]") {
  SimulatedDevice dev;
  Host host(dev);
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        const tp::DataPtr p = host.allocate(std::size_t(64) << (i % 5), refuse);
        if (p.get() == nullptr) ++errors;
        if (i % 3 == 0) host.record_stream(p.get(), t);
        if (i % 50 == 0) dev.complete_all_events();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(errors == 0);
  CHECK(host.stats().allocated_bytes == 0);
}

// ---- from a user's side ----------------------------------------------------------------------

// A stand-in for the CUDA backend's pinned allocator: plain CPU memory it can recognise.
class FakePinned final : public tp::Allocator {
 public:
  using tp::Allocator::allocate;
  tp::DataPtr allocate(std::size_t n) const override { return tp::getCPUAllocator()->allocate(n); }
};

// Installs the stand-in for a scope, restoring what was there.
struct PinnedScope {
  FakePinned fake;
  tp::Allocator* saved = tp::detail::allocator_table().pinned.load();
  PinnedScope() { tp::setPinnedMemoryAllocator(&fake); }
  ~PinnedScope() { tp::setPinnedMemoryAllocator(saved); }
};

TEST_CASE("pin_memory, is_pinned and TensorOptions::pinned_memory", "[cuda][pinned]") {
  const tp::Tensor t = tp::arange(6, tp::kFloat).reshape({2, 3});
  CHECK_FALSE(t.is_pinned());
  if (!tp::is_compiled_in<tp::DeviceType::CUDA>) {
    // Without the CUDA backend there is no pinned memory, and the error says what to define.
    CHECK_THROWS_WITH(t.pin_memory(), Catch::Matchers::Contains("TENSORPLAY_USE_CUDA"));
    CHECK_THROWS_WITH(tp::empty({2}, tp::TensorOptions().pinned_memory(true)),
                      Catch::Matchers::Contains("no pinned-memory allocator"));
  }
  CHECK_THROWS_WITH(tp::empty({2}, tp::TensorOptions().device(tp::kCUDA).pinned_memory(true)),
                    "Only dense CPU tensors can be pinned");
  PinnedScope scope;
  const tp::Tensor p = t.t().pin_memory();
  CHECK(p.is_pinned());
  CHECK(p.strides() == t.t().strides());  // a dense layout is kept
  CHECK(tp::equal(p, t.t()));
  CHECK(p._version() == 0);
  CHECK(p.pin_memory().is_same(p));  // pinned already: itself
  CHECK_FALSE(p.clone().is_pinned());
  const tp::Tensor e = tp::empty({4}, tp::TensorOptions().pinned_memory(true));
  CHECK(e.is_pinned());
  CHECK(tp::empty_like(t, tp::TensorOptions().pinned_memory(true)).is_pinned());
  // Differentiable, as a copy.
  const tp::Tensor x = tp::ones({3}, tp::kDouble).requires_grad_();
  (x.pin_memory() * 2).sum().backward();
  CHECK(tp::equal(x.grad(), tp::full({3}, 2.0, tp::kDouble)));
  // non_blocking CPU copies are synchronous and give the same values.
  const tp::Tensor dst = tp::empty({2, 3});
  dst.copy_(t, /*non_blocking=*/true);
  CHECK(tp::equal(dst, t));
  CHECK(tp::equal(t.to(tp::kDouble, /*non_blocking=*/true), t.to(tp::kDouble)));
}

}  // namespace cuda_host_allocator_test
