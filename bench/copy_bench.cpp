// Copies: clone (contiguous and transposed), copy_ between layouts, and memcpy as the ceiling.
// libtorch twins: bench/libtorch/copy_bench.cpp.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <tensorplay/ops/copy.hpp>

namespace tp = tensorplay;

namespace {

// x.t() for a 2-d tensor (built directly so this file needs only ops/copy.hpp).
tp::Tensor transposed(const tp::Tensor& x) {
  auto impl = tp::make_intrusive<tp::TensorImpl>(
      x.storage(), x.dtype(), std::vector<int64_t>{x.size(1), x.size(0)},
      std::vector<int64_t>{x.stride(1), x.stride(0)}, x.storage_offset());
  impl->share_version_counter(*x.unsafeGetTensorImpl());
  return tp::Tensor(std::move(impl));
}

void set_bytes(benchmark::State& state, int64_t bytes) {
  state.SetBytesProcessed(int64_t(state.iterations()) * bytes);
}

}  // namespace

// Contiguous clone: a cached block and one memcpy.
static void clone_contiguous(benchmark::State& state) {
  tp::Tensor x = tp::empty({state.range(0)});
  x.fill_(1.5);
  for (auto _ : state) {
    tp::Tensor c = x.clone();
    benchmark::DoNotOptimize(c.data_ptr());
  }
  set_bytes(state, int64_t(x.nbytes()));
}
BENCHMARK(clone_contiguous)->Name("clone_2p20@tensorplay")->Arg(1 << 20);
BENCHMARK(clone_contiguous)->Name("clone_2p24@tensorplay")->Arg(1 << 24);

// Transposed input cloned to row-major (x.t().clone(contiguous_format)): a real transposition,
// walked in cache tiles by the iterator.
static void clone_transposed(benchmark::State& state) {
  const int64_t n = state.range(0);
  tp::Tensor x = tp::empty({n, n});
  x.fill_(1.5);
  tp::Tensor t = transposed(x);
  for (auto _ : state) {
    tp::Tensor c = t.clone(tp::MemoryFormat::Contiguous);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  set_bytes(state, int64_t(x.nbytes()));
}
BENCHMARK(clone_transposed)->Name("clone_t1024@tensorplay")->Arg(1024);
BENCHMARK(clone_transposed)->Name("clone_t4096@tensorplay")->Arg(4096);

// copy_ of a transposed source into a contiguous destination.
static void copy_transposed(benchmark::State& state) {
  const int64_t n = state.range(0);
  tp::Tensor x = tp::empty({n, n});
  x.fill_(1.5);
  tp::Tensor src = transposed(x);
  tp::Tensor dst = tp::empty({n, n});
  for (auto _ : state) {
    dst.copy_(src);
    benchmark::DoNotOptimize(dst.data_ptr());
  }
  set_bytes(state, int64_t(x.nbytes()));
}
BENCHMARK(copy_transposed)->Name("copy_t1024@tensorplay")->Arg(1024);

// The ceiling for a contiguous clone: memcpy between two warm buffers.
static void memcpy_floats(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  std::vector<float> a(n, 1.5f), b(n);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), n * sizeof(float));
    benchmark::DoNotOptimize(b.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state, int64_t(n * sizeof(float)));
}
BENCHMARK(memcpy_floats)->Name("memcpy_2p20@memcpy")->Arg(1 << 20);
