// libtorch twin of bench/copy_bench.cpp.
#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

static void clone_contiguous(benchmark::State& state) {
  at::Tensor x = at::empty({state.range(0)});
  x.fill_(1.5);
  for (auto _ : state) {
    at::Tensor c = x.clone();
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(x.nbytes()));
}
BENCHMARK(clone_contiguous)->Name("clone_2p20@libtorch")->Arg(1 << 20);
BENCHMARK(clone_contiguous)->Name("clone_2p24@libtorch")->Arg(1 << 24);

static void clone_transposed(benchmark::State& state) {
  const int64_t n = state.range(0);
  at::Tensor x = at::empty({n, n});
  x.fill_(1.5);
  at::Tensor t = x.t();
  for (auto _ : state) {
    at::Tensor c = t.clone(at::MemoryFormat::Contiguous);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(x.nbytes()));
}
BENCHMARK(clone_transposed)->Name("clone_t1024@libtorch")->Arg(1024);
BENCHMARK(clone_transposed)->Name("clone_t4096@libtorch")->Arg(4096);

static void copy_transposed(benchmark::State& state) {
  const int64_t n = state.range(0);
  at::Tensor x = at::empty({n, n});
  x.fill_(1.5);
  at::Tensor src = x.t();
  at::Tensor dst = at::empty({n, n});
  for (auto _ : state) {
    dst.copy_(src);
    benchmark::DoNotOptimize(dst.data_ptr());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(x.nbytes()));
}
BENCHMARK(copy_transposed)->Name("copy_t1024@libtorch")->Arg(1024);
