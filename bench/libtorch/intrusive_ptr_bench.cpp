// libtorch twin of bench/intrusive_ptr_bench.cpp: the same cases on c10::intrusive_ptr, named
// "...@libtorch" so results line up side by side.
#include <benchmark/benchmark.h>

#include <c10/util/intrusive_ptr.h>

namespace {

struct Payload : c10::intrusive_ptr_target {
  int value = 0;
};

void BM_intrusive_ptr_copy_libtorch(benchmark::State& state) {
  const auto original = c10::make_intrusive<Payload>();
  for (auto _ : state) {
    c10::intrusive_ptr<Payload> copy = original;
    benchmark::DoNotOptimize(copy);
    benchmark::ClobberMemory();
  }
}

void BM_intrusive_ptr_make_libtorch(benchmark::State& state) {
  for (auto _ : state) {
    auto p = c10::make_intrusive<Payload>();
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
  }
}

void BM_intrusive_ptr_weak_lock_libtorch(benchmark::State& state) {
  const auto original = c10::make_intrusive<Payload>();
  const c10::weak_intrusive_ptr<Payload> weak(original);
  for (auto _ : state) {
    auto locked = weak.lock();
    benchmark::DoNotOptimize(locked);
    benchmark::ClobberMemory();
  }
}

}  // namespace

BENCHMARK(BM_intrusive_ptr_copy_libtorch)->Name("intrusive_ptr_copy@libtorch");
BENCHMARK(BM_intrusive_ptr_make_libtorch)->Name("intrusive_ptr_make@libtorch");
BENCHMARK(BM_intrusive_ptr_weak_lock_libtorch)->Name("intrusive_ptr_weak_lock@libtorch");
