// Counting ops (PyTorch's SummaryOps.cpp, Histogram.cpp): bincount (occurrences of each
// non-negative integer, optionally weighted) and histc (equal-width bins over [min, max]).
// Neither is differentiable.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/reduce_ops.hpp>
#include <tensorplay/ops/scatter_gather.hpp>  // host_only

namespace tensorplay {

// counts[k] = how often k occurs in self (1-d, non-negative integers), or the sum of the weights
// at those positions; at least minlength entries. int64 counts; float weights keep their
// dtype, others count in double (PyTorch's rule).
template <class = void>
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights = std::nullopt,
                int64_t minlength = 0) {
  detail::scatter_gather::host_only("bincount", {&self});
  TP_CHECK(minlength >= 0, "minlength should be >= 0");
  TP_CHECK(is_integral(self.dtype(), /*include_bool=*/false),
           "\"bincount_cpu\" not implemented for '", scalar_type_name(self.dtype()), "'");
  NoGradGuard no_grad;
  const Tensor idx = self.to(kLong).contiguous();
  const int64_t* p = idx.data_ptr<int64_t>();
  bool ok = self.dim() == 1;
  int64_t top = -1;
  for (int64_t i = 0; ok && i < idx.numel(); ++i) {
    ok = p[i] >= 0;
    top = std::max(top, p[i]);
  }
  TP_CHECK(ok, "bincount only supports 1-d non-negative integral inputs.");
  const int64_t n = std::max(top + 1, minlength);
  if (!weights) {
    Tensor out = empty({n}, kLong).zero_();
    int64_t* o = out.data_ptr<int64_t>();
    for (int64_t i = 0; i < idx.numel(); ++i) ++o[p[i]];
    return out;
  }
  TP_CHECK(weights->dim() == 1 && weights->numel() == self.numel(),
           "weights should be 1-d and have the same length as input");
  const DType wt = weights->dtype() == kFloat ? kFloat : kDouble;
  const Tensor w = weights->to(kDouble).contiguous();
  Tensor out = empty({n}, kDouble).zero_();
  double* o = out.data_ptr<double>();
  const double* wp = w.data_ptr<double>();
  for (int64_t i = 0; i < idx.numel(); ++i) o[p[i]] += wp[i];
  return out.to(wt);
}
template <class>
Tensor Tensor::bincount(const std::optional<Tensor>& weights, int64_t minlength) const {
  return tensorplay::bincount(*this, weights, minlength);
}

// bins equal-width bins over [min, max] (the data's own range when min == max, widened by one
// either side if that is a single point); values outside are not counted, max falls in the last
// bin. self's floating dtype.
template <class = void>
Tensor histc(const Tensor& self, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0) {
  detail::scatter_gather::host_only("histc", {&self});
  TP_CHECK(is_floating_point(self.dtype()), "\"histogram_cpu\" not implemented for '",
           scalar_type_name(self.dtype()), "'");
  TP_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  NoGradGuard no_grad;
  const Tensor x = self.to(kDouble).contiguous();
  double lo = min.toDouble(), hi = max.toDouble();
  if (lo == hi && x.numel() > 0) {
    lo = x.min().item<double>();
    hi = x.max().item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TP_CHECK(lo < hi || std::isnan(lo) || std::isnan(hi), "torch.histc: max must be larger than min");
  TP_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", lo, ", ", hi,
           "] is not finite");
  Tensor out = empty({bins}, kDouble).zero_();
  double* o = out.data_ptr<double>();
  const double* p = x.data_ptr<double>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double v = p[i];
    if (!(v >= lo && v <= hi)) continue;
    int64_t b = static_cast<int64_t>((v - lo) * double(bins) / (hi - lo));
    if (b == bins) b = bins - 1;
    o[b] += 1;
  }
  return out.to(self.dtype());
}
template <class>
Tensor Tensor::histc(int64_t bins, const Scalar& min, const Scalar& max) const {
  return tensorplay::histc(*this, bins, min, max);
}

}  // namespace tensorplay
