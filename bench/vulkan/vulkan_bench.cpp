// The Vulkan backend against the CPU backend, in one binary (tensorplay_vulkan_bench, built with
// TENSORPLAY_USE_VULKAN and the benchmarks): what one dispatch costs the host, and what a few
// ops cost end to end (each Vulkan iteration waits for the device: vulkan::synchronize()).
// Every case has a CPU twin of the same shape; bench/compare.py-style ratios come from one run.
#include <tensorplay/tensorplay.hpp>

#include <benchmark/benchmark.h>

namespace tp = tensorplay;

namespace {

tp::Device device_of(int vulkan) { return vulkan ? tp::Device(tp::kVulkan) : tp::Device(tp::kCPU); }

bool ready(benchmark::State& state, int vulkan) {
  if (vulkan && !tp::is_vulkan_available()) {
    state.SkipWithError("Vulkan is not available");
    return false;
  }
  return true;
}

void finish(int vulkan) {
  if (vulkan) tp::vulkan::synchronize();
}

// Host cost of recording one tiny add: no wait per iteration (the stream submits in batches).
void BM_add_tiny_host(benchmark::State& state) {
  const int vk = int(state.range(0));
  if (!ready(state, vk)) return;
  const tp::Tensor a = tp::ones({2, 3}, device_of(vk)), b = tp::ones({2, 3}, device_of(vk));
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
  finish(vk);
}

template <class Op>
void run_synced(benchmark::State& state, int vk, const Op& op) {
  op();
  finish(vk);
  for (auto _ : state) {
    benchmark::DoNotOptimize(op());
    finish(vk);
  }
}

void BM_add_tiny(benchmark::State& state) {
  const int vk = int(state.range(0));
  if (!ready(state, vk)) return;
  const tp::Tensor a = tp::ones({2, 3}, device_of(vk)), b = tp::ones({2, 3}, device_of(vk));
  run_synced(state, vk, [&] { return a + b; });
}

void BM_add_2p20(benchmark::State& state) {
  const int vk = int(state.range(0));
  if (!ready(state, vk)) return;
  const tp::Tensor a = tp::rand({1 << 20}).to(device_of(vk));
  const tp::Tensor b = tp::rand({1 << 20}).to(device_of(vk));
  run_synced(state, vk, [&] { return a + b; });
  state.SetItemsProcessed(state.iterations() * (1 << 20));
}

void BM_sum_2p20(benchmark::State& state) {
  const int vk = int(state.range(0));
  if (!ready(state, vk)) return;
  const tp::Tensor a = tp::rand({1 << 20}).to(device_of(vk));
  run_synced(state, vk, [&] { return a.sum(); });
  state.SetItemsProcessed(state.iterations() * (1 << 20));
}

void BM_mm_512(benchmark::State& state) {
  const int vk = int(state.range(0));
  if (!ready(state, vk)) return;
  const tp::Tensor a = tp::rand({512, 512}).to(device_of(vk));
  const tp::Tensor b = tp::rand({512, 512}).to(device_of(vk));
  run_synced(state, vk, [&] { return a.mm(b); });
  state.SetItemsProcessed(state.iterations() * 2 * 512 * 512 * 512);
}

}  // namespace

// Argument 0: the CPU backend; 1: Vulkan.
BENCHMARK(BM_add_tiny_host)->ArgName("vulkan")->Arg(0)->Arg(1);
BENCHMARK(BM_add_tiny)->ArgName("vulkan")->Arg(0)->Arg(1);
BENCHMARK(BM_add_2p20)->ArgName("vulkan")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum_2p20)->ArgName("vulkan")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_mm_512)->ArgName("vulkan")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
