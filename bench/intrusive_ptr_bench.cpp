// intrusive_ptr handle cost: copy a handle and destroy the copy, the work every Tensor copy and
// every shallow TensorImpl copy does (one relaxed increment, one acq_rel decrement that does not
// reach zero). std::shared_ptr is the off-the-shelf reference (its count lives in a control
// block); bench/libtorch/intrusive_ptr_bench.cpp is the c10::intrusive_ptr twin. Case names
// differ only after the '@'.
#include <benchmark/benchmark.h>

#include <memory>
#include <thread>

#include <tensorplay/core/intrusive_ptr.hpp>

namespace {

struct Payload : tensorplay::intrusive_ptr_target {
  int value = 0;
};
struct PlainPayload {
  int value = 0;
};

// libstdc++'s shared_ptr counts without atomics while the process has never started a thread
// (__libc_single_threaded). Every program that shares tensors across threads pays the atomic
// path, so start (and join) one thread before measuring it. intrusive_ptr is always atomic.
void leave_single_threaded_mode() {
  static const bool done = [] {
    std::thread([] {}).join();
    return true;
  }();
  (void)done;
}

template <class Ptr>
void copy_and_destroy(benchmark::State& state, const Ptr& original) {
  for (auto _ : state) {
    Ptr copy = original;             // increment
    benchmark::DoNotOptimize(copy);  // the copy escapes: it must really exist
    benchmark::ClobberMemory();      // and the count's update must really happen
  }                                  // decrement (not to zero: `original` still owns it)
}

template <class Weak>
void lock_and_destroy(benchmark::State& state, const Weak& weak) {
  for (auto _ : state) {
    auto locked = weak.lock();  // CAS loop that refuses a count of zero
    benchmark::DoNotOptimize(locked);
    benchmark::ClobberMemory();
  }
}

void BM_intrusive_ptr_copy_tensorplay(benchmark::State& state) {
  const auto original = tensorplay::make_intrusive<Payload>();
  copy_and_destroy(state, original);
}
void BM_intrusive_ptr_copy_shared_ptr(benchmark::State& state) {
  leave_single_threaded_mode();
  const auto original = std::make_shared<PlainPayload>();
  copy_and_destroy(state, original);
}
// make_intrusive + the last release: the path a temporary object takes (allocation included,
// plain new/delete on both sides), where copy_and_destroy measures the shared release.
void BM_intrusive_ptr_make_tensorplay(benchmark::State& state) {
  for (auto _ : state) {
    auto p = tensorplay::make_intrusive<Payload>();
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
  }
}
void BM_intrusive_ptr_make_shared_ptr(benchmark::State& state) {
  leave_single_threaded_mode();
  for (auto _ : state) {
    auto p = std::make_shared<PlainPayload>();
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
  }
}
void BM_intrusive_ptr_weak_lock_tensorplay(benchmark::State& state) {
  const auto original = tensorplay::make_intrusive<Payload>();
  const tensorplay::weak_intrusive_ptr<Payload> weak(original);
  lock_and_destroy(state, weak);
}
void BM_intrusive_ptr_weak_lock_shared_ptr(benchmark::State& state) {
  leave_single_threaded_mode();
  const auto original = std::make_shared<PlainPayload>();
  const std::weak_ptr<PlainPayload> weak(original);
  lock_and_destroy(state, weak);
}

}  // namespace

BENCHMARK(BM_intrusive_ptr_copy_tensorplay)->Name("intrusive_ptr_copy@tensorplay");
BENCHMARK(BM_intrusive_ptr_copy_shared_ptr)->Name("intrusive_ptr_copy@shared_ptr");
BENCHMARK(BM_intrusive_ptr_make_tensorplay)->Name("intrusive_ptr_make@tensorplay");
BENCHMARK(BM_intrusive_ptr_make_shared_ptr)->Name("intrusive_ptr_make@shared_ptr");
BENCHMARK(BM_intrusive_ptr_weak_lock_tensorplay)->Name("intrusive_ptr_weak_lock@tensorplay");
BENCHMARK(BM_intrusive_ptr_weak_lock_shared_ptr)->Name("intrusive_ptr_weak_lock@shared_ptr");
