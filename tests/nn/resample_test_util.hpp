// Helpers shared by the padding and upsampling tests (functional_padding_test.cpp,
// functional_upsampling_test.cpp): the torch-generated case tables and their check, and the
// gradcheck of an op on contiguous and strided leaves with its second derivative.
#pragma once

#include <tensorplay/autograd/gradcheck.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace tensorplay::testing {

using ResampleValues = std::vector<double>;

inline ResampleValues resample_values(const Tensor& t) {
  Tensor c = t.to(kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return ResampleValues(p, p + c.numel());
}

inline void resample_require_close(const ResampleValues& got, const ResampleValues& want,
                                   double tol) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    REQUIRE(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}

inline std::string resample_node(const Tensor& t) {
  return t.grad_fn() ? t.grad_fn()->name() : "None";
}

// x = 2 sin(1.3 k) shaped as the case says; the output weights cos(0.7 k).
inline Tensor resample_input(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return arange(n, dtype(kDouble)).mul(1.3).sin().mul(2).reshape(shape);
}

struct ResampleCase {
  const char* name;
  std::vector<int64_t> shape;
  std::function<Tensor(const Tensor&)> fn;
  ResampleValues out, grad;
  const char* node;
};

// Each case against torch 1.13's y = <op>(x) and the gradient of (y * weights).sum(), in float64
// (and the values again in float32, to float_tol).
inline void check_resample_cases(const std::vector<ResampleCase>& cases, double float_tol) {
  for (const ResampleCase& c : cases) {
    INFO(c.name);
    const Tensor x = resample_input(c.shape).requires_grad_();
    const Tensor y = c.fn(x);
    resample_require_close(resample_values(y), c.out, 1e-9);
    CHECK(resample_node(y) == c.node);
    const Tensor w = arange(y.numel(), dtype(kDouble)).mul(0.7).cos().reshape(y.sizes());
    y.mul(w).sum().backward();
    resample_require_close(resample_values(x.grad()), c.grad, 1e-9);
    resample_require_close(resample_values(c.fn(resample_input(c.shape).to(kFloat))), c.out,
                           float_tol);
  }
}

// gradcheck of fn (of one [4, 5] float64 leaf) on a contiguous and a transposed leaf, and of its
// backward as a function of the output gradient (the backward kernel is itself differentiable).
inline void check_resample_grads(const std::function<Tensor(const std::vector<Tensor>&)>& fn) {
  const Tensor a = randn({4, 5}, dtype(kDouble)).requires_grad_();
  const Tensor b = randn({5, 4}, dtype(kDouble)).t().requires_grad_();
  CHECK(autograd::gradcheck(fn, {a}));
  CHECK(autograd::gradcheck(fn, {b}));
  const Tensor go = randn(fn({a}).sizes(), dtype(kDouble)).requires_grad_();
  CHECK(autograd::gradcheck(
      [&](const std::vector<Tensor>& v) {
        AutoGradMode on(true);
        return autograd::grad({fn({a})}, {a}, {v[0]}, true, true)[0];
      },
      {go}));
}

}  // namespace tensorplay::testing
