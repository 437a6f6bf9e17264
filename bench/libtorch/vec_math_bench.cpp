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

#define TP_VEC_MATH_BENCH(fn, name, lo, hi, dtype)                            \
  void fn##_(benchmark::State& state) {                                       \
    unary(                                                                    \
        state, [](const at::Tensor& a) { return at::fn(a); }, lo, hi, dtype); \
  }                                                                           \
  BENCHMARK(fn##_)->Name(name "_2p20_t1@libtorch")->Args({1 << 20, 1})

TP_VEC_MATH_BENCH(sin, "vm_sin_f32", -10.0, 10.0, at::kFloat);
TP_VEC_MATH_BENCH(cos, "vm_cos_f32", -10.0, 10.0, at::kFloat);
TP_VEC_MATH_BENCH(tan, "vm_tan_f32", -10.0, 10.0, at::kFloat);
TP_VEC_MATH_BENCH(asin, "vm_asin_f32", -1.0, 1.0, at::kFloat);
TP_VEC_MATH_BENCH(acos, "vm_acos_f32", -1.0, 1.0, at::kFloat);
TP_VEC_MATH_BENCH(atan, "vm_atan_f32", -10.0, 10.0, at::kFloat);
TP_VEC_MATH_BENCH(sinh, "vm_sinh_f32", -10.0, 10.0, at::kFloat);
TP_VEC_MATH_BENCH(cosh, "vm_cosh_f32", -10.0, 10.0, at::kFloat);
TP_VEC_MATH_BENCH(exp, "vm_exp_f64", -10.0, 10.0, at::kDouble);
TP_VEC_MATH_BENCH(log, "vm_log_f64", 0.01, 100.0, at::kDouble);

}  // namespace
