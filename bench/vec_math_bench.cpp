// The elementwise functions of ops/vec_trig.hpp through the public API, one thread: sin cos tan
// asin acos atan sinh cosh on 2^20 floats, exp log sin cos on 2^20 doubles, each over evenly
// spaced values in a range where the function is finite (and, for sin cos tan, where PyTorch's
// Sleef functions take their fast path). Twins: bench/libtorch/vec_math_bench.cpp. Run, e.g.:
//   OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 tensorplay_bench --benchmark_filter='^vm_'
//   --benchmark_enable_random_interleaving=true --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <cstdint>

#include <tensorplay/tensorplay.hpp>

namespace tp = tensorplay;

namespace {

// fn over state.range(0) evenly spaced values in [lo, hi] of the case's dtype.
template <class Fn>
void unary(benchmark::State& state, Fn fn, double lo, double hi, tp::DType dtype) {
  tp::set_num_threads(int(state.range(1)));
  const tp::Tensor a = tp::linspace(lo, hi, state.range(0), tp::TensorOptions().dtype(dtype));
  for (auto _ : state) {
    tp::Tensor c = fn(a);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

// id names the case, "vm_<id>_2p20_t1", and its function; fn is the op.
#define TP_VEC_MATH_BENCH(id, fn, lo, hi, dtype)                              \
  void id##_(benchmark::State& state) {                                       \
    unary(                                                                    \
        state, [](const tp::Tensor& a) { return tp::fn(a); }, lo, hi, dtype); \
  }                                                                           \
  BENCHMARK(id##_)->Name("vm_" #id "_2p20_t1@tensorplay")->Args({1 << 20, 1})

TP_VEC_MATH_BENCH(sin_f32, sin, -10.0, 10.0, tp::kFloat);
TP_VEC_MATH_BENCH(cos_f32, cos, -10.0, 10.0, tp::kFloat);
TP_VEC_MATH_BENCH(tan_f32, tan, -10.0, 10.0, tp::kFloat);
TP_VEC_MATH_BENCH(asin_f32, asin, -1.0, 1.0, tp::kFloat);
TP_VEC_MATH_BENCH(acos_f32, acos, -1.0, 1.0, tp::kFloat);
TP_VEC_MATH_BENCH(atan_f32, atan, -10.0, 10.0, tp::kFloat);
TP_VEC_MATH_BENCH(sinh_f32, sinh, -10.0, 10.0, tp::kFloat);
TP_VEC_MATH_BENCH(cosh_f32, cosh, -10.0, 10.0, tp::kFloat);
TP_VEC_MATH_BENCH(exp_f64, exp, -10.0, 10.0, tp::kDouble);
TP_VEC_MATH_BENCH(log_f64, log, 0.01, 100.0, tp::kDouble);
TP_VEC_MATH_BENCH(sin_f64, sin, -10.0, 10.0, tp::kDouble);
TP_VEC_MATH_BENCH(cos_f64, cos, -10.0, 10.0, tp::kDouble);

}  // namespace
