// Printing a 100x100 float32 tensor to a string, as repr() prints it.
//
// The libtorch twin (bench/libtorch/print_bench.cpp) is libtorch's C++ operator<<, the only
// printer libtorch has in C++. Its format differs from Python's repr (a column-block table with a
// common scale factor, followed by "[ CPUFloatType{100,100} ]") and it never summarises, so:
//  - print_100x100 is the everyday call on each side: ours prints the summarised repr (10000
//    elements > threshold 1000, so 6x6 shown), libtorch prints every element.
//  - print_100x100_full makes ours print every element too (the "full" profile), the closer
//    like-for-like comparison; libtorch's side is the same call as print_100x100.
#include <benchmark/benchmark.h>

#include <cmath>
#include <sstream>
#include <vector>

#include <tensorplay/core/empty.hpp>
#include <tensorplay/ops/print.hpp>

namespace tp = tensorplay;

namespace {

// The same values as the twin: sin(0.37 i), mixed signs, fixed mode.
tp::Tensor make_100x100() {
  tp::Tensor t = tp::empty({100, 100});
  float* p = t.data_ptr<float>();
  for (int i = 0; i < 100 * 100; ++i) p[i] = static_cast<float>(std::sin(0.37 * i));
  return t;
}

void print_to_string(benchmark::State& state, const tp::PrintOptions& options) {
  const tp::PrintOptions saved = tp::get_printoptions();
  tp::set_printoptions(options);
  const tp::Tensor t = make_100x100();
  for (auto _ : state) {
    std::ostringstream os;
    os << t;
    std::string s = std::move(os).str();
    benchmark::DoNotOptimize(s.data());
  }
  tp::set_printoptions(saved);
}

}  // namespace

static void print_100x100(benchmark::State& state) { print_to_string(state, tp::PrintOptions{}); }
BENCHMARK(print_100x100)->Name("print_100x100@tensorplay");

static void print_100x100_full(benchmark::State& state) {
  print_to_string(state, tp::PrintOptions{.threshold = std::numeric_limits<double>::infinity()});
}
BENCHMARK(print_100x100_full)->Name("print_100x100_full@tensorplay");
