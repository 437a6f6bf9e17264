// libtorch twin of bench/vec_math_bench.cpp (same cases, same names with @libtorch).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>

#include <cstdint>

namespace {

// fn over state.range(0) evenly spaced values in [lo, hi] of the case's dtype.
template <class Fn>
void unary(benchmark::State& state, Fn fn, double lo, double hi, at::ScalarType dtype) {
  at::set_num_threads(int(state.range(1)));
  const at::Tensor a = at::linspace(lo, hi, state.range(0), at::TensorOptions().dtype(dtype));
  for (auto _ : state) {
    at::Tensor c = fn(a);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

// id names the case, "vm_<id>_2p20_t1", and its function; fn is the op.
#define TP_VEC_MATH_BENCH(id, fn, lo, hi, dtype)                              \
  void id##_(benchmark::State& state) {                                       \
    unary(                                                                    \
        state, [](const at::Tensor& a) { return at::fn(a); }, lo, hi, dtype); \
  }                                                                           \
  BENCHMARK(id##_)->Name("vm_" #id "_2p20_t1@libtorch")->Args({1 << 20, 1})

TP_VEC_MATH_BENCH(sin_f32, sin, -10.0, 10.0, at::kFloat);
TP_VEC_MATH_BENCH(cos_f32, cos, -10.0, 10.0, at::kFloat);
TP_VEC_MATH_BENCH(tan_f32, tan, -10.0, 10.0, at::kFloat);
TP_VEC_MATH_BENCH(asin_f32, asin, -1.0, 1.0, at::kFloat);
TP_VEC_MATH_BENCH(acos_f32, acos, -1.0, 1.0, at::kFloat);
TP_VEC_MATH_BENCH(atan_f32, atan, -10.0, 10.0, at::kFloat);
TP_VEC_MATH_BENCH(sinh_f32, sinh, -10.0, 10.0, at::kFloat);
TP_VEC_MATH_BENCH(cosh_f32, cosh, -10.0, 10.0, at::kFloat);
TP_VEC_MATH_BENCH(exp_f64, exp, -10.0, 10.0, at::kDouble);
TP_VEC_MATH_BENCH(log_f64, log, 0.01, 100.0, at::kDouble);
TP_VEC_MATH_BENCH(sin_f64, sin, -10.0, 10.0, at::kDouble);
TP_VEC_MATH_BENCH(cos_f64, cos, -10.0, 10.0, at::kDouble);

}  // namespace
