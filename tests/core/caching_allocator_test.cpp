// Tests for include/tensorplay/core/caching_allocator.hpp.
//
// Every test shares the one process-wide allocator, and tests run in random order, so they
// compare stats deltas rather than absolute values, and call empty_cache() where they need a
// clean state. The unit binary runs every test on one thread, so stats are exact here.
#include <tensorplay/core/caching_allocator.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace core_caching_allocator_test {

using tensorplay::Allocator;
using tensorplay::CachingAllocator;
using tensorplay::DataPtr;
using tensorplay::DeviceType;

namespace {

CachingAllocator& alloc() { return CachingAllocator::instance(); }

bool aligned64(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }

// Restores the default cap however the test exits.
struct CapGuard {
  ~CapGuard() { alloc().set_max_cached_bytes(TENSORPLAY_CPU_MAX_CACHED_BYTES); }
};

}  // namespace

TEST_CASE("CachingAllocator returns 64-byte aligned CPU blocks that can be written whole",
          "[core][allocator]") {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1; n <= 300; ++n) sizes.push_back(n);
  for (std::size_t n : {511, 512, 513, 4095, 4096, 4097, 32 * 1024 - 64, 32 * 1024 - 65,
                        32 * 1024, 32 * 1024 + 1, 100000, 1 << 20, (1 << 20) + 3})
    sizes.push_back(n);
  std::vector<DataPtr> live;
  for (std::size_t n : sizes) {
    DataPtr p = alloc().allocate(n);
    REQUIRE(p);
    CHECK(aligned64(p.get()));
    CHECK(p.device().type() == DeviceType::CPU);
    CHECK(p.get_context() == p.get());
    CHECK(p.get_deleter() == alloc().raw_deleter());
    // Every byte of the request is ours (AddressSanitizer reports anything past it).
    std::memset(p.get(), 0xAB, n);
    CHECK(static_cast<unsigned char*>(p.get())[n - 1] == 0xAB);
    live.push_back(std::move(p));
  }
  // Live blocks never overlap: each still holds its own fill after all were written.
  for (std::size_t i = 0; i < live.size(); ++i) {
    std::memset(live[i].get(), static_cast<int>(i & 0xFF), sizes[i]);
  }
  for (std::size_t i = 0; i < live.size(); ++i) {
    const auto* bytes = static_cast<const unsigned char*>(live[i].get());
    CHECK(bytes[0] == (i & 0xFF));
    CHECK(bytes[sizes[i] - 1] == (i & 0xFF));
  }
  // Reused blocks keep the alignment too.
  live.clear();
  for (std::size_t n : sizes) CHECK(aligned64(alloc().allocate(n).get()));
}

TEST_CASE("CachingAllocator rounds to 64-byte classes and reuses blocks LIFO",
          "[core][allocator]") {
  CHECK(tensorplay::detail::block_total(1) == 128);
  CHECK(tensorplay::detail::block_total(64) == 128);
  CHECK(tensorplay::detail::block_total(65) == 192);
  CHECK(tensorplay::detail::block_total(100) == 192);
  CHECK(tensorplay::detail::block_total(124) == 192);

  SECTION("100 and 124 bytes share a block") {
    void* first = nullptr;
    {
      DataPtr a = alloc().allocate(100);
      first = a.get();
    }
    DataPtr b = alloc().allocate(124);
    CHECK(b.get() == first);
  }
  SECTION("129 bytes is the next class and does not take a 192-byte block") {
    DataPtr a = alloc().allocate(100);
    void* first = a.get();
    a.clear();
    DataPtr b = alloc().allocate(129);
    CHECK(b.get() != first);
  }
  SECTION("last freed, first reused (small and large classes)") {
    for (std::size_t n : {std::size_t{1000}, std::size_t{3} << 20}) {
      DataPtr a = alloc().allocate(n);
      DataPtr b = alloc().allocate(n);
      void* pa = a.get();
      void* pb = b.get();
      a.clear();
      b.clear();
      DataPtr c = alloc().allocate(n);
      CHECK(c.get() == pb);
      DataPtr d = alloc().allocate(n);
      CHECK(d.get() == pa);
    }
  }
}

TEST_CASE("CachingAllocator zero-byte allocations are null and uncounted", "[core][allocator]") {
  const auto before = alloc().stats();
  {
    DataPtr p = alloc().allocate(0);
    CHECK_FALSE(p);
    CHECK(p.get() == nullptr);
    CHECK(p.get_deleter() == nullptr);
    CHECK(p.device().type() == DeviceType::CPU);
  }
  const auto after = alloc().stats();
  CHECK(after.num_allocs == before.num_allocs);
  CHECK(after.num_frees == before.num_frees);
  CHECK(after.reserved_bytes == before.reserved_bytes);
}

TEST_CASE("CachingAllocator rejects impossible sizes", "[core][allocator]") {
  CHECK_THROWS_AS(alloc().allocate(~std::size_t{0}), tensorplay::Error);
  CHECK_THROWS_AS(alloc().allocate(~std::size_t{0} - 100), tensorplay::Error);
}

TEST_CASE("CachingAllocator stats add up", "[core][allocator]") {
  alloc().empty_cache();
  alloc().reset_peak_stats();
  const auto s0 = alloc().stats();
  CHECK(s0.cached_bytes == 0);
  CHECK(s0.reserved_bytes == s0.allocated_bytes);
  CHECK(s0.peak_reserved_bytes == s0.reserved_bytes);

  constexpr std::size_t n = 5000;  // total 5120 (5000 + 64 header, rounded to 64)
  constexpr std::size_t total = 5120;
  STATIC_REQUIRE(tensorplay::detail::block_total(n) == total);

  DataPtr a = alloc().allocate(n);  // miss: a system allocation
  const auto s1 = alloc().stats();
  CHECK(s1.num_allocs == s0.num_allocs + 1);
  CHECK(s1.cache_misses == s0.cache_misses + 1);
  CHECK(s1.cache_hits == s0.cache_hits);
  CHECK(s1.num_system_allocs == s0.num_system_allocs + 1);
  CHECK(s1.allocated_bytes == s0.allocated_bytes + total);
  CHECK(s1.reserved_bytes == s0.reserved_bytes + total);
  CHECK(s1.cached_bytes == 0);
  CHECK(s1.peak_reserved_bytes == s1.reserved_bytes);

  a.clear();  // into this thread's cache
  const auto s2 = alloc().stats();
  CHECK(s2.num_frees == s1.num_frees + 1);
  CHECK(s2.allocated_bytes == s0.allocated_bytes);
  CHECK(s2.cached_bytes == total);
  CHECK(s2.reserved_bytes == s1.reserved_bytes);
  CHECK(s2.num_system_frees == s1.num_system_frees);

  DataPtr b = alloc().allocate(n + 50);  // same class (4993..5056 bytes): a hit
  const auto s3 = alloc().stats();
  CHECK(s3.cache_hits == s2.cache_hits + 1);
  CHECK(s3.cache_misses == s2.cache_misses);
  CHECK(s3.num_allocs == s2.num_allocs + 1);
  CHECK(s3.cached_bytes == 0);
  CHECK(s3.allocated_bytes == s0.allocated_bytes + total);
  CHECK(s3.reserved_bytes == s2.reserved_bytes);

  // Peak: a second live block raises it; freeing keeps it; reset brings it down to reserved.
  DataPtr c = alloc().allocate(n);
  const auto s4 = alloc().stats();
  CHECK(s4.peak_reserved_bytes == s0.reserved_bytes + 2 * total);
  b.clear();
  c.clear();
  alloc().empty_cache();
  const auto s5 = alloc().stats();
  CHECK(s5.num_system_frees == s4.num_system_frees + 2);
  CHECK(s5.reserved_bytes == s0.reserved_bytes);
  CHECK(s5.peak_reserved_bytes == s0.reserved_bytes + 2 * total);
  alloc().reset_peak_stats();
  CHECK(alloc().stats().peak_reserved_bytes == s0.reserved_bytes);

  // The identities hold in every quiescent snapshot.
  for (const auto& s : {s0, s1, s2, s3, s4, s5}) {
    CHECK(s.reserved_bytes == s.allocated_bytes + s.cached_bytes);
    CHECK(s.num_allocs == s.cache_hits + s.cache_misses);
    CHECK(s.cache_misses == s.num_system_allocs);
  }
}

TEST_CASE("CachingAllocator empty_cache returns every cached byte to the system",
          "[core][allocator]") {
  std::vector<DataPtr> blocks;
  for (std::size_t n : {10, 200, 3000, 40000, 1 << 20}) blocks.push_back(alloc().allocate(n));
  // Some blocks in the shared pool too: freed on a thread that then exits.
  std::thread([] {
    for (std::size_t n : {77, 5000, 70000}) DataPtr p = alloc().allocate(n);
  }).join();
  blocks.clear();
  const auto before = alloc().stats();
  CHECK(before.cached_bytes > 0);
  alloc().empty_cache();
  const auto after = alloc().stats();
  // No other live thread holds cached blocks in this binary, so nothing is left.
  CHECK(after.cached_bytes == 0);
  CHECK(after.reserved_bytes == before.reserved_bytes - before.cached_bytes);
  CHECK(after.allocated_bytes == before.allocated_bytes);
  CHECK(after.num_system_frees > before.num_system_frees);
}

TEST_CASE("CachingAllocator respects max_cached_bytes", "[core][allocator]") {
  CapGuard restore;
  CHECK(alloc().max_cached_bytes() == TENSORPLAY_CPU_MAX_CACHED_BYTES);
  alloc().empty_cache();

  SECTION("a small cap bounds the pool and the thread cache") {
    constexpr std::size_t cap = 256 << 10;
    alloc().set_max_cached_bytes(cap);
    CHECK(alloc().max_cached_bytes() == cap);
    const std::size_t bound =
        cap + std::min<std::size_t>(TENSORPLAY_CPU_THREAD_CACHE_BYTES, cap);
    std::mt19937 rng(42);
    std::uniform_int_distribution<std::size_t> size(1, 64 << 10);
    for (int round = 0; round < 4; ++round) {
      std::vector<DataPtr> blocks;
      for (int i = 0; i < 100; ++i) blocks.push_back(alloc().allocate(size(rng)));
      // Free in an order unlike allocation, checking the bound after every free.
      std::shuffle(blocks.begin(), blocks.end(), rng);
      while (!blocks.empty()) {
        blocks.pop_back();
        const auto s = alloc().stats();
        REQUIRE(s.cached_bytes <= bound);
        REQUIRE(s.reserved_bytes == s.allocated_bytes + s.cached_bytes);
      }
    }
    // A block freed on an exiting thread lands in the (capped) pool.
    std::thread([] {
      std::vector<DataPtr> v;
      for (int i = 0; i < 20; ++i) v.push_back(alloc().allocate(50000));
    }).join();
    CHECK(alloc().stats().cached_bytes <= bound);
  }

  SECTION("lowering the cap trims what is cached now") {
    {
      std::vector<DataPtr> blocks;
      for (int i = 0; i < 16; ++i) blocks.push_back(alloc().allocate(100000));
    }
    CHECK(alloc().stats().cached_bytes >= 16 * 100000);
    alloc().set_max_cached_bytes(150000);
    CHECK(alloc().stats().cached_bytes <= 2 * 150000);
  }

  SECTION("a cap of zero disables caching") {
    alloc().set_max_cached_bytes(0);
    const auto before = alloc().stats();
    for (int i = 0; i < 10; ++i) DataPtr p = alloc().allocate(4096);
    const auto after = alloc().stats();
    CHECK(after.cached_bytes == 0);
    CHECK(after.num_system_allocs == before.num_system_allocs + 10);
    CHECK(after.num_system_frees == before.num_system_frees + 10);
    CHECK(after.reserved_bytes == before.reserved_bytes);
  }
}

TEST_CASE("CachingAllocator blocks may be freed on another thread", "[core][allocator]") {
  alloc().empty_cache();
  constexpr std::size_t n = 7777;  // a size no other test uses

  SECTION("allocated elsewhere, freed here: lands in this thread's cache") {
    DataPtr p;
    std::thread([&] { p = alloc().allocate(n); }).join();
    void* block = p.get();
    const auto before = alloc().stats();
    p.clear();
    DataPtr q = alloc().allocate(n);
    const auto after = alloc().stats();
    CHECK(q.get() == block);
    CHECK(after.cache_hits == before.cache_hits + 1);
    CHECK(after.num_system_allocs == before.num_system_allocs);
    CHECK(after.num_frees == before.num_frees + 1);
  }

  SECTION("allocated here, freed on a thread that exits: reused from the shared pool") {
    DataPtr p = alloc().allocate(n);
    void* block = p.get();
    std::thread([&] { p.clear(); }).join();
    const auto before = alloc().stats();
    CHECK(before.cached_bytes == tensorplay::detail::block_total(n));
    DataPtr q = alloc().allocate(n);
    const auto after = alloc().stats();
    CHECK(q.get() == block);
    CHECK(after.cache_hits == before.cache_hits + 1);
    CHECK(after.num_system_allocs == before.num_system_allocs);
  }

  SECTION("freed by a thread_local destroyed after that thread's cache") {
    const auto before = alloc().stats();
    void* block = nullptr;
    std::thread([&] {
      // Constructed before the thread's cache, so destroyed after it at thread exit: its
      // free takes the dead-cache path into the shared pool.
      static thread_local DataPtr late;
      late = alloc().allocate(n);
      block = late.get();
    }).join();
    const auto mid = alloc().stats();
    CHECK(mid.num_frees == before.num_frees + 1);
    CHECK(mid.cached_bytes == before.cached_bytes + tensorplay::detail::block_total(n));
    DataPtr q = alloc().allocate(n);
    CHECK(q.get() == block);
  }
}

TEST_CASE("CachingAllocator works through the Allocator base", "[core][allocator]") {
  const Allocator& base = alloc();
  CHECK(base.raw_deleter() == &CachingAllocator::deleter);
  void* p = base.raw_allocate(1000);
  REQUIRE(p != nullptr);
  CHECK(aligned64(p));
  std::memset(p, 1, 1000);
  base.raw_deallocate(p);
  void* q = base.raw_allocate(1000);
  CHECK(q == p);  // the block came back through the raw deleter into the cache
  base.raw_deallocate(q);

  CHECK(base.raw_allocate(0) == nullptr);
  base.raw_deallocate(nullptr);

  DataPtr d = base.allocate(64, tensorplay::Device(DeviceType::CPU));
  CHECK(aligned64(d.get()));
}

TEST_CASE("CachingAllocator outlives static DataPtrs destroyed at exit", "[core][allocator]") {
  // Destroyed after main's thread_locals (so after this thread's cache): the free must take
  // the dead-cache path. A crash or sanitizer report at exit is the failure.
  static DataPtr kept = alloc().allocate(12345);
  REQUIRE(kept);
  std::memset(kept.get(), 0x5A, 12345);
  // A static whose destructor allocates and frees after the cache is gone.
  static struct AllocatesAtExit {
    ~AllocatesAtExit() {
      DataPtr p = CachingAllocator::instance().allocate(100);
      std::memset(p.get(), 0, 100);
    }
  } at_exit;
  (void)at_exit;
}

// Sanitizer runtimes abort on impossible allocation sizes instead of returning null.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TP_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define TP_TEST_SANITIZED 1
#endif
#endif

#ifndef TP_TEST_SANITIZED
TEST_CASE("CachingAllocator throws when the system is out of memory", "[core][allocator]") {
  const auto before = alloc().stats();
  const std::size_t huge = std::size_t{1} << 60;  // 1 EiB: no system can provide it
  try {
    (void)alloc().allocate(huge);
    FAIL("allocation of 1 EiB succeeded");
  } catch (const tensorplay::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("not enough memory") &&
                             Catch::Contains(std::to_string(huge)));
  }
  const auto after = alloc().stats();
  CHECK(after.num_allocs == before.num_allocs);
  CHECK(after.num_system_allocs == before.num_system_allocs);
  CHECK(after.reserved_bytes <= before.reserved_bytes);  // the retry emptied the caches
  CHECK(after.num_alloc_retries == before.num_alloc_retries + 1);
  CHECK(after.num_ooms == before.num_ooms + 1);
  // Still usable afterwards.
  DataPtr p = alloc().allocate(100);
  CHECK(p);
}
#endif

}  // namespace core_caching_allocator_test
