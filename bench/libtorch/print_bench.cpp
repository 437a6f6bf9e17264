// libtorch twin of bench/print_bench.cpp. libtorch's C++ operator<< is its only C++ printer; it
// prints a different format from Python's repr (and from ours) and always prints every element,
// so both cases here are the same call (see the notes in bench/print_bench.cpp).
#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

#include <cmath>
#include <sstream>

namespace {

at::Tensor make_100x100() {
  at::Tensor t = at::empty({100, 100});
  float* p = t.data_ptr<float>();
  for (int i = 0; i < 100 * 100; ++i) p[i] = static_cast<float>(std::sin(0.37 * i));
  return t;
}

void print_to_string(benchmark::State& state) {
  const at::Tensor t = make_100x100();
  for (auto _ : state) {
    std::ostringstream os;
    os << t;
    std::string s = std::move(os).str();
    benchmark::DoNotOptimize(s.data());
  }
}

}  // namespace

static void print_100x100(benchmark::State& state) { print_to_string(state); }
BENCHMARK(print_100x100)->Name("print_100x100@libtorch");

static void print_100x100_full(benchmark::State& state) { print_to_string(state); }
BENCHMARK(print_100x100_full)->Name("print_100x100_full@libtorch");
