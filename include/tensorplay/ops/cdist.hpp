// cdist (ATen's Distance.cpp, torch 1.13): p-norm distances between the rows of x1 [B..., P, M]
// and x2 [B..., R, M], batch dimensions broadcast, result [B..., P, R]; p >= 0, with p = 0
// counting differing coordinates and p = inf the largest difference. Two paths, chosen as torch
// chooses them: for p = 2 with compute_mode 1 ("use_mm_for_euclid_dist") or 0
// ("use_mm_for_euclid_dist_if_necessary", the default) and more than 25 rows on either side, the
// matrix-product form |a|^2 - 2 a.b + |b|^2 (_euclidean_dist: fast, less exact for near points;
// EuclideanDistBackward0 under a ViewBackward0); otherwise the direct kernel (_cdist_forward,
// CdistBackward0, whose backward is a kernel too). Float and Double, as torch's CPU kernel.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include <tensorplay/autograd/functions/cdist.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/compare.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/join.hpp>
#include <tensorplay/ops/linalg.hpp>
#include <tensorplay/ops/parallel.hpp>
#include <tensorplay/ops/reduce_ops.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>
#include <tensorplay/ops/unary.hpp>
#include <tensorplay/ops/views.hpp>

namespace tensorplay {
namespace detail::cdist_impl {

// Which formula a p selects, in the order torch's kernels test them.
enum class Norm { Zero, One, LessThanTwo, Two, Inf, General };
inline Norm norm_of(double p) {
  if (p == 0) return Norm::Zero;
  if (p == 1) return Norm::One;
  if (p < 2) return Norm::LessThanTwo;
  if (p == 2) return Norm::Two;
  if (std::isinf(p)) return Norm::Inf;
  return Norm::General;
}

template <class T>
T sign(T v) {
  return T((T(0) < v) - (v < T(0)));
}

// f.template operator()<N>() with the norm as a constant, so each kernel's inner loop is
// specialised (no switch per coordinate).
template <class F>
void with_norm(Norm norm, const F& f) {
  switch (norm) {
    case Norm::Zero: return f.template operator()<Norm::Zero>();
    case Norm::One: return f.template operator()<Norm::One>();
    case Norm::LessThanTwo: return f.template operator()<Norm::LessThanTwo>();
    case Norm::Two: return f.template operator()<Norm::Two>();
    case Norm::Inf: return f.template operator()<Norm::Inf>();
    default: return f.template operator()<Norm::General>();
  }
}

// One coordinate's difference d = |a - b| folded into the running value (a sum, or the max).
template <Norm N, class T>
T fold(T agg, T d, T p) {
  if constexpr (N == Norm::Zero) return agg + T(d != T(0));
  if constexpr (N == Norm::One) return agg + d;
  if constexpr (N == Norm::Two) return agg + d * d;
  if constexpr (N == Norm::Inf) return std::max(agg, d);
  if constexpr (N == Norm::LessThanTwo || N == Norm::General) return agg + std::pow(d, p);
}

// The distance of two rows of m coordinates. Eight running values, one per lane of a vector
// register (as ATen's Vec kernels keep them), combined at the end: the compiler vectorises the
// lanes, and the summation order is a fixed function of m.
template <Norm N, class T>
T distance(const T* a, const T* b, int64_t m, T p) {
  constexpr int kLanes = 8;
  T lanes[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= m; k += kLanes) {
    for (int l = 0; l < kLanes; ++l) lanes[l] = fold<N>(lanes[l], std::abs(a[k + l] - b[k + l]), p);
  }
  T agg = lanes[0];
  for (int l = 1; l < kLanes; ++l) agg = N == Norm::Inf ? std::max(agg, lanes[l]) : agg + lanes[l];
  for (; k < m; ++k) agg = fold<N>(agg, std::abs(a[k] - b[k]), p);
  if constexpr (N == Norm::Two) return std::sqrt(agg);
  if constexpr (N == Norm::LessThanTwo || N == Norm::General) return std::pow(agg, T(1) / p);
  return agg;
}

// d dist / d a[k] times grad, for diff = a[k] - b[k] (torch's *_calc::backward).
template <Norm N, class T>
T distance_grad(T diff, T grad, T dist, T p) {
  if constexpr (N == Norm::Zero) return T(0);
  if constexpr (N == Norm::One) return grad * sign(diff);
  if constexpr (N == Norm::LessThanTwo) {
    if (dist == T(0) || (diff == T(0) && p < T(1))) return T(0);
    return sign(diff) * std::pow(std::abs(diff), p - 1) * grad / std::pow(dist, p - 1);
  }
  if constexpr (N == Norm::Two) return dist == T(0) ? T(0) : grad * diff / dist;
  if constexpr (N == Norm::Inf) return std::abs(diff) == dist ? grad * sign(diff) : T(0);
  if constexpr (N == Norm::General) {
    if (dist == T(0)) return T(0);
    return diff * std::pow(std::abs(diff), p - 2) * grad / std::pow(dist, p - 1);
  }
}

// The broadcast batch shape, the sizes x1 and x2 expand to, and the result's (torch's cdist_impl).
struct Shapes {
  std::vector<int64_t> batch, x1, x2, out;
  int64_t batch_product = 1;
};
template <class = void>
Shapes shapes_of(const Tensor& x1, const Tensor& x2) {
  Shapes s;
  const IntArrayRef s1 = x1.sizes(), s2 = x2.sizes();
  s.batch = detail::infer_size(s1.slice(0, s1.size() - 2), s2.slice(0, s2.size() - 2));
  for (const int64_t b : s.batch) s.batch_product *= b;
  s.x1 = s.batch, s.x2 = s.batch;
  s.x1.insert(s.x1.end(), {x1.size(-2), x1.size(-1)});
  s.x2.insert(s.x2.end(), {x2.size(-2), x2.size(-1)});
  s.out = s.batch;
  s.out.insert(s.out.end(), {x1.size(-2), x2.size(-2)});
  return s;
}

// Both operands floating, p >= 0, the mode known, dtypes equal: the checks of torch's cdist_impl.
template <class = void>
void check_operands(const Tensor& x1, const Tensor& x2, double p,
                    std::optional<int64_t> compute_mode) {
  TP_CHECK(is_floating_point(x1.dtype()),
           "cdist only supports floating-point dtypes, X1 got: ", scalar_type_name(x1.dtype()));
  TP_CHECK(is_floating_point(x2.dtype()),
           "cdist only supports floating-point dtypes, X2 got: ", scalar_type_name(x2.dtype()));
  TP_CHECK(p >= 0, "cdist only supports non-negative p values");
  const int64_t mode = compute_mode.value_or(0);
  TP_CHECK(mode >= 0 && mode <= 2, "possible modes: 0, 1, 2, but was: ", mode);
  TP_CHECK(x1.dtype() == x2.dtype(), "expected scalar type ", scalar_type_name(x1.dtype()),
           " but found ", scalar_type_name(x2.dtype()));
}

template <class = void>
bool uses_mm(double p, std::optional<int64_t> compute_mode, int64_t r1, int64_t r2) {
  const int64_t mode = compute_mode.value_or(0);
  return p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)));
}

// f(row, x1 row, first row of the matching x2 batch) over the rows of the contiguous [B, r1, m]
// operand a (b: [B, r2, m]) in parallel, each row written by one task.
template <class T, class F>
void for_each_row(const Tensor& a, const Tensor& b, int64_t rows, int64_t r1, int64_t r2, int64_t m,
                  const F& f) {
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  parallel_for(0, rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, r2 * m)),
               [&](int64_t begin, int64_t end) {
                 for (int64_t row = begin; row < end; ++row) {
                   f(row, pa + row * m, pb + (row / r1) * r2 * m);
                 }
               });
}

// The direct kernel: one output row (a row of x1 against every row of x2) per task.
template <class = void>
Tensor cdist_forward(const Tensor& x1, const Tensor& x2, double p) {
  check_host_only("_cdist_forward", x1, x2);
  const Shapes s = shapes_of(x1, x2);
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2), m = x1.size(-1);
  if (r1 == 0 || r2 == 0 || s.batch_product == 0) return empty(s.out, x1.options());
  if (m == 0) return zeros(s.out, x1.options());
  TP_CHECK(x1.dtype() == kFloat || x1.dtype() == kDouble, "\"cdist\" not implemented for '",
           scalar_type_name(x1.dtype()), "'");
  const Tensor a = x1.expand(s.x1).contiguous(), b = x2.expand(s.x2).contiguous();
  Tensor result = empty(s.out, x1.options());
  dispatch_dtype(x1.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      T* out = result.data_ptr<T>();
      with_norm(norm_of(p), [&]<Norm N>() {
        for_each_row<T>(a, b, s.batch_product * r1, r1, r2, m,
                        [&](int64_t row, const T* xa, const T* xb) {
                          for (int64_t j = 0; j < r2; ++j) {
                            out[row * r2 + j] = distance<N>(xa, xb + j * m, m, T(p));
                          }
                        });
      });
    }
  });
  return result;
}

}  // namespace detail::cdist_impl

namespace detail {

// torch's _cdist_backward: the gradient of cdist(x1, x2) for x1, each row's sum over the rows of
// x2 of the per-coordinate formula, then summed over the batch dimensions x1 was broadcast in.
template <class>
Tensor cdist_backward(const Tensor& grad_in, const Tensor& x1_in, const Tensor& x2_in, double p,
                      const Tensor& cdist_in) {
  using namespace cdist_impl;
  const Shapes s = shapes_of(x1_in, x2_in);
  const int64_t r1 = x1_in.size(-2), r2 = x2_in.size(-2), m = x1_in.size(-1);
  if (r1 == 0 || r2 == 0 || m == 0 || s.batch_product == 0) return zeros_like(x1_in);
  const Tensor x1 = x1_in.expand(s.x1).contiguous(), x2 = x2_in.expand(s.x2).contiguous();
  const Tensor grad = grad_in.contiguous(), dist = cdist_in.contiguous();
  Tensor out = empty(s.x1, x1.options());
  dispatch_dtype(x1.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T *pg = grad.data_ptr<T>(), *pd = dist.data_ptr<T>();
      T* po = out.data_ptr<T>();
      with_norm(norm_of(p), [&]<Norm N>() {
        for_each_row<T>(x1, x2, s.batch_product * r1, r1, r2, m,
                        [&](int64_t row, const T* xa, const T* xb) {
                          T* o = po + row * m;
                          std::fill(o, o + m, T(0));
                          for (int64_t j = 0; j < r2; ++j) {
                            const T g = pg[row * r2 + j], d = pd[row * r2 + j];
                            const T* xj = xb + j * m;
                            for (int64_t k = 0; k < m; ++k) {
                              o[k] += distance_grad<N>(T(xa[k] - xj[k]), g, d, T(p));
                            }
                          }
                        });
      });
    }
  });
  return out.sum_to_size(x1_in.sizes());
}

}  // namespace detail

// ATen's _cdist_forward: the direct kernel, recorded as CdistBackward0.
template <class = void>
Tensor _cdist_forward(const Tensor& x1, const Tensor& x2, double p,
                      std::optional<int64_t> compute_mode = std::nullopt) {
  detail::cdist_impl::check_operands(x1, x2, p, compute_mode);
  return autograd::detail::differentiable<autograd::CdistBackward0>(
      [&] { return detail::cdist_impl::cdist_forward(x1, x2, p); },
      [&](autograd::CdistBackward0& fn, const Tensor& result) {
        fn.x1_ = autograd::SavedVariable(x1, false);
        fn.x2_ = autograd::SavedVariable(x2, false);
        fn.result_ = autograd::SavedVariable(result, true);
        fn.p_ = p;
      },
      x1, x2);
}

// ATen's _euclidean_dist: sqrt(max(|a|^2 - 2 a.b + |b|^2, 0)) as one matmul of padded operands,
// [-2a, |a|^2, 1] . [b, 1, |b|^2], recorded as EuclideanDistBackward0.
template <class = void>
Tensor _euclidean_dist(const Tensor& x1, const Tensor& x2) {
  return autograd::detail::differentiable<autograd::EuclideanDistBackward0>(
      [&] {
        const Tensor x1_norm = x1.pow(2).sum({-1}, true), x2_norm = x2.pow(2).sum({-1}, true);
        const Tensor x1_ = cat({x1.mul(-2), x1_norm, ones_like(x1_norm)}, -1);
        const Tensor x2_ = cat({x2, ones_like(x2_norm), x2_norm}, -1);
        Tensor result = x1_.matmul(x2_.mT());
        result.clamp_min_(0).sqrt_();
        return result;
      },
      [&](autograd::EuclideanDistBackward0& fn, const Tensor& result) {
        fn.x1_ = autograd::SavedVariable(x1, false);
        fn.x2_ = autograd::SavedVariable(x2, false);
        fn.result_ = autograd::SavedVariable(result, true);
      },
      x1, x2);
}

// compute_mode: nullopt or 0 "use_mm_for_euclid_dist_if_necessary", 1 "use_mm_for_euclid_dist",
// 2 "donot_use_mm_for_euclid_dist" (the Python binding maps torch's strings to these).
template <class = void>
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2.0,
             std::optional<int64_t> compute_mode = std::nullopt) {
  TP_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  TP_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  TP_CHECK(x1.size(-1) == x2.size(-1),
           "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
           " X2: ", x2.size(-1));
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2);
  // Empty operands take the kernel's path, so the graph stays connected (as torch does).
  if (x1.numel() == 0 || x2.numel() == 0 || !detail::cdist_impl::uses_mm(p, compute_mode, r1, r2)) {
    return _cdist_forward(x1, x2, p, compute_mode);
  }
  detail::cdist_impl::check_operands(x1, x2, p, compute_mode);
  const detail::cdist_impl::Shapes s = detail::cdist_impl::shapes_of(x1, x2);
  const Tensor dist = s.batch_product == 1 ? _euclidean_dist(x1, x2)
                                           : _euclidean_dist(x1.expand(s.x1), x2.expand(s.x2));
  return dist.view(s.out);
}

}  // namespace tensorplay
