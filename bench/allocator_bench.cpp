// Allocate + free round trips: the CPU CachingAllocator against glibc malloc/free.
//
// Case names are `<case>@<impl>` and stable, so runs can be compared side by side. The
// `/threads:2` variants run the same loop on two threads at once: with per-thread caches the
// time per round trip should stay close to the single-threaded one.
// Build with -O3 -DNDEBUG -march=x86-64-v3; BENCHMARK_MAIN lives in another file.
#include <tensorplay/core/caching_allocator.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdlib>

namespace {

template <std::size_t N>
void alloc_free_tensorplay(benchmark::State& state) {
  auto& allocator = tensorplay::CachingAllocator::instance();
  for (auto _ : state) {
    tensorplay::DataPtr p = allocator.allocate(N);
    benchmark::DoNotOptimize(p.get());  // the block escapes: neither call can be elided
  }
}

template <std::size_t N>
void alloc_free_malloc(benchmark::State& state) {
  for (auto _ : state) {
    void* p = std::malloc(N);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * kKiB;

}  // namespace

#define TP_ALLOC_BENCH(bytes, label)                                                   \
  BENCHMARK(alloc_free_tensorplay<bytes>)->Name("alloc_free_" label "@tensorplay");   \
  BENCHMARK(alloc_free_malloc<bytes>)->Name("alloc_free_" label "@malloc");           \
  BENCHMARK(alloc_free_tensorplay<bytes>)                                              \
      ->Name("alloc_free_" label "@tensorplay")                                        \
      ->Threads(2);                                                                    \
  BENCHMARK(alloc_free_malloc<bytes>)->Name("alloc_free_" label "@malloc")->Threads(2)

TP_ALLOC_BENCH(64, "64B");
TP_ALLOC_BENCH(4 * kKiB, "4KiB");
TP_ALLOC_BENCH(1 * kMiB, "1MiB");
TP_ALLOC_BENCH(64 * kMiB, "64MiB");

#undef TP_ALLOC_BENCH
