// The intra-op pool's costs: the overhead of one parallel_for whose chunks do nothing (wake,
// hand out, wait), and a memory-bound loop on 1 and 2 threads (the speed-up a bandwidth-bound
// elementwise op can expect). No libtorch twin: at::parallel_for is not part of the C++ API's
// stable surface, and its pool differs by build (OpenMP or native).
// Build with -O3 -DNDEBUG -march=x86-64-v3; BENCHMARK_MAIN lives in another file.
#include <tensorplay/ops/parallel.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace {

// Restores the thread count after a case, so cases do not leak settings into each other.
struct NumThreadsGuard {
  int saved = tensorplay::get_num_threads();
  ~NumThreadsGuard() { tensorplay::set_num_threads(saved); }
};

// 2^20 elements, grain 2^15, 2 threads: two chunks, one for the caller and one for a worker.
void parallel_for_overhead(benchmark::State& state) {
  NumThreadsGuard restore;
  tensorplay::set_num_threads(2);
  for (auto _ : state) {
    tensorplay::parallel_for(0, int64_t{1} << 20, int64_t{1} << 15, [](int64_t b, int64_t e) {
      benchmark::DoNotOptimize(b);
      benchmark::DoNotOptimize(e);
    });
  }
}

// a[i] = b[i] + c[i] over 2^24 floats (192 MiB touched per pass); range(0) is the thread count.
void parallel_add_2p24(benchmark::State& state) {
  NumThreadsGuard restore;
  tensorplay::set_num_threads(static_cast<int>(state.range(0)));
  const int64_t n = int64_t{1} << 24;
  std::vector<float> a(n), b(n, 1.0f), c(n, 2.0f);
  float* pa = a.data();
  const float* pb = b.data();
  const float* pc = c.data();
  for (auto _ : state) {
    tensorplay::parallel_for(0, n, tensorplay::internal::GRAIN_SIZE, [=](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) pa[i] = pb[i] + pc[i];
    });
    benchmark::DoNotOptimize(pa);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 3 * int64_t{sizeof(float)});
}

}  // namespace

BENCHMARK(parallel_for_overhead)->Name("parallel_for_overhead@tensorplay")->UseRealTime();
BENCHMARK(parallel_add_2p24)
    ->Name("parallel_add_2p24@tensorplay")
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
