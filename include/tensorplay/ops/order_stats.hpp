// Order statistics: kthvalue, median and nanmedian (all elements, or along a dim with indices),
// mode, quantile and nanquantile, with PyTorch 1.13's semantics, dtypes and messages (ATen's
// Sorting.cpp, TensorCompare.cpp and cpu/TensorCompareKernel.cpp).
//
// Order. NaN is larger than every number; equal elements are ordered by index, so the order is
// total and every index below is determined: kthvalue's is the k-th element's of that order,
// median(dim)'s the lower median's (PyTorch's kernel breaks ties by index the same way), or the
// first NaN's when the line has one (the median propagates NaN); nanmedian leaves NaNs out (an
// all-NaN line gives NaN, index of its first NaN). mode is the most frequent value (the smallest
// of equally frequent ones) and the last index where it occurs; each NaN counts as a value of its
// own, as in PyTorch, whose comparison never finds two NaNs equal.
//
// Each line along `dim` is copied into a buffer of (key, index) entries, widened to the compute
// dtype (int64, float or double: values unchanged), and selected there with std::nth_element
// (a full sort for mode); lines are spread over threads with parallel_for. The kernels run on the
// host only: another device's tensor gets the no-kernel error (quantile's through sort).
//
// quantile / nanquantile are composite as in PyTorch (sort, ranks, gather, lerp_), so their
// gradients and nodes are those ops' (SortBackward0, GatherBackward0, LerpBackward1,
// SqueezeBackward3); q gets a gradient through linear interpolation's weights, as in PyTorch.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <tensorplay/autograd/functions/order_stats.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/core/wrap_dim.hpp>
#include <tensorplay/ops/parallel.hpp>
#include <tensorplay/ops/reduce_ops.hpp>
#include <tensorplay/ops/shape_join.hpp>
#include <tensorplay/ops/sort.hpp>

namespace tensorplay {
namespace detail::order_stats {

using sort_impl::Entry;
using sort_impl::is_nan_key;

enum class Pick { Kth, Median, NanMedian, Mode };

// The total order of the file's top comment: numbers ascending, then NaNs, ties by index.
template <class K>
bool entry_less(const Entry<K>& a, const Entry<K>& b) noexcept {
  const bool an = is_nan_key(a.key), bn = is_nan_key(b.key);
  if (an != bn) return bn;
  if (!an && a.key != b.key) return a.key < b.key;
  return a.index < b.index;
}

// The selected entry of one line; buf holds it in index order and is reordered.
template <class K>
Entry<K> pick_line(std::vector<Entry<K>>& buf, Pick what, int64_t k) {
  const auto n = static_cast<int64_t>(buf.size());
  auto nth = [&](int64_t at) {
    std::nth_element(buf.begin(), buf.begin() + at, buf.end(), entry_less<K>);
    return buf[std::size_t(at)];
  };
  switch (what) {
    case Pick::Kth: return nth(k - 1);
    case Pick::Median: {
      const auto nan =
          std::find_if(buf.begin(), buf.end(), [](const Entry<K>& e) { return is_nan_key(e.key); });
      return nan != buf.end() ? *nan : nth((n - 1) / 2);
    }
    case Pick::NanMedian: {
      const auto nans = std::count_if(buf.begin(), buf.end(),
                                      [](const Entry<K>& e) { return is_nan_key(e.key); });
      return nth(std::max<int64_t>(0, (n - int64_t(nans) - 1) / 2));  // all NaN: the first
    }
    case Pick::Mode: break;
  }
  std::sort(buf.begin(), buf.end(), entry_less<K>);
  Entry<K> best = buf[0];
  int64_t best_count = 0, count = 0;
  for (int64_t i = 0; i < n; ++i) {
    ++count;
    const Entry<K>& e = buf[std::size_t(i)];
    const bool run_ends = i == n - 1 || is_nan_key(e.key) || e.key != buf[std::size_t(i + 1)].key;
    if (!run_ends) continue;
    if (count > best_count) {  // strictly: the smallest of equally frequent values wins
      best = e;                // the run's last entry: the value's last index
      best_count = count;
    }
    count = 0;
  }
  return best;
}

// Selects one entry of each row of the contiguous [rows, n] `in`.
template <class K>
void pick_rows(const Tensor& in, int64_t rows, int64_t n, const Tensor& values,
               const Tensor& indices, Pick what, int64_t k) {
  const K* src = in.data_ptr<K>();
  K* val = values.data_ptr<K>();
  int64_t* idx = indices.data_ptr<int64_t>();
  parallel_for(0, rows, std::max<int64_t>(1, internal::GRAIN_SIZE / n), [&](int64_t b, int64_t e) {
    std::vector<Entry<K>> buf(static_cast<std::size_t>(n));
    for (int64_t r = b; r < e; ++r) {
      for (int64_t i = 0; i < n; ++i) buf[std::size_t(i)] = {src[r * n + i], i};
      const Entry<K> p = pick_line<K>(buf, what, k);
      val[r] = p.key;
      idx[r] = p.index;
    }
  });
}

// The kernel of the (values, indices) ops: the outputs (out= ones when defined) along `d`
// (wrapped), after the caller's checks.
template <class = void>
std::tuple<Tensor, Tensor> select_impl(const Tensor& self, int64_t d, bool keepdim,
                                       const Tensor& values_out, const Tensor& indices_out,
                                       Pick what, int64_t k) {
  NoGradGuard no_grad;  // the conversions and views below are the kernel's own
  const reduce_impl::DimMask mask = reduce_impl::single_dim_mask(d, self.dim());
  Tensor values = reduce_impl::reduction_result(values_out, self, mask, keepdim, self.dtype());
  Tensor indices = reduce_impl::reduction_result(indices_out, self, mask, keepdim, kLong);
  if (values.numel() > 0) {
    const DType compute = reduce_impl::compute_dtype(self.dtype());
    // The reduced dim last and contiguous: one row per output element, in the outputs' order.
    const Tensor x = self.dim() == 0 ? self.reshape({1, 1}) : self.movedim(d, -1);
    const Tensor in = x.to(compute).contiguous();
    const int64_t n = in.size(-1), rows = in.numel() / n;
    Tensor vc = empty({rows}, TensorOptions().dtype(compute)), ic = empty({rows}, kLong);
    dispatch_dtype(compute, [&]<class T>() {
      if constexpr (reduce_impl::kComputeType<T>) pick_rows<T>(in, rows, n, vc, ic, what, k);
    });
    std::vector<int64_t> moved(x.sizes().begin(), x.sizes().end());
    moved.back() = 1;
    auto back = [&](const Tensor& t) {
      return self.dim() == 0 ? t.reshape({}) : t.view(moved).movedim(-1, d);
    };
    copy_impl(reduce_impl::keepdim_view(values, self.sizes(), mask, keepdim), back(vc));
    copy_impl(reduce_impl::keepdim_view(indices, self.sizes(), mask, keepdim), back(ic));
  }
  reduce_impl::bump_out(values_out);
  reduce_impl::bump_out(indices_out);
  return {values, indices};
}

// The CPU kernels of kthvalue / median / nanmedian have no Bool or Half instantiation.
template <class = void>
void check_selectable(const Tensor& self, const char* kernel) {
  if (self.dtype() == kBool || self.dtype() == kHalf) dtype_not_implemented(kernel, self.dtype());
}

// A 0-d input reduces along dim 0 or -1 (maybe_wrap_dim's error otherwise); an empty dim has no
// median (PyTorch's zero_numel_check_dims).
template <class = void>
int64_t wrap_nonempty_dim(const Tensor& self, int64_t dim, const char* name) {
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  if (self.dim() > 0) reduce_impl::zero_numel_check_dim(self, d, name);
  return d;
}

template <class = void>
int64_t kthvalue_checks(const Tensor& self, int64_t k, int64_t dim, const Tensor& values_out,
                        const Tensor& indices_out) {
  reduce_impl::check_defined(self, "kthvalue");
  scatter_gather::host_only("kthvalue", {&self, &values_out, &indices_out});
  const int64_t d = wrap_nonempty_dim(self, dim, "kthvalue()");
  const int64_t slice = self.dim() == 0 ? 1 : self.size(d);
  TP_CHECK(k >= 1 && k <= slice, "kthvalue(): selected number k out of range for dimension ", d);
  if (values_out.defined()) {
    TP_CHECK(values_out.dtype() == self.dtype(), "output values must be of same type as input");
  }
  if (indices_out.defined()) {
    TP_CHECK(indices_out.dtype() == kLong, "output indices must be of scalar type Long");
  }
  if (self.dim() > 0) check_selectable(self, "kthvalue_cpu");  // PyTorch copies a 0-d input
  return d;
}

// median(dim) / nanmedian(dim): PyTorch's checkSameType / checkScalarType messages.
template <class = void>
int64_t median_checks(const Tensor& self, int64_t dim, const Tensor& values_out,
                      const Tensor& indices_out) {
  reduce_impl::check_defined(self, "median");
  scatter_gather::host_only("median", {&self, &values_out, &indices_out});
  const int64_t d = wrap_nonempty_dim(self, dim, "median()");
  if (indices_out.defined()) {
    TP_CHECK(indices_out.dtype() == kLong,
             "Expected tensor for argument #1 'indices' to have scalar type Long; but got "
             "tensorplay.",
             legacy_type_name(indices_out.dtype()),
             " instead (while checking arguments for median)");
  }
  if (values_out.defined()) {
    TP_CHECK(values_out.dtype() == self.dtype(),
             "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; "
             "but type tensorplay.",
             legacy_type_name(values_out.dtype()), " does not equal tensorplay.",
             legacy_type_name(self.dtype()), " (while checking arguments for median)");
  }
  check_selectable(self, "median_out");
  return d;
}

template <class = void>
int64_t mode_checks(const Tensor& self, int64_t dim, const Tensor& values_out,
                    const Tensor& indices_out) {
  reduce_impl::check_defined(self, "mode");
  scatter_gather::host_only("mode", {&self, &values_out, &indices_out});
  if (values_out.defined()) {
    TP_CHECK(values_out.dtype() == self.dtype(), "expected scalar type '",
             scalar_type_name(self.dtype()), "' but got '", scalar_type_name(values_out.dtype()),
             "' for values output");
  }
  if (indices_out.defined()) {
    TP_CHECK(indices_out.dtype() == kLong, "expected scalar type 'Long' but got '",
             scalar_type_name(indices_out.dtype()), "' for indices output");
  }
  return wrap_nonempty_dim(self, dim, "mode()");
}

// median() / nanmedian() of all elements: NaN for an empty input (PyTorch converts a NaN to the
// dtype: the lowest int64 for integers, which is what x86 makes of it).
template <class = void>
Tensor median_all(const Tensor& self, bool ignore_nan) {
  reduce_impl::check_defined(self, ignore_nan ? "nanmedian" : "median");
  scatter_gather::host_only(ignore_nan ? "nanmedian" : "median", {&self});
  check_selectable(self, "median_cpu");
  if (self.numel() == 0) {
    if (is_floating_point(self.dtype())) {
      return full({}, std::numeric_limits<double>::quiet_NaN(), self.options());
    }
    return full({}, std::numeric_limits<int64_t>::min(), self.options().dtype(kLong))
        .to(self.dtype());
  }
  const Pick what = ignore_nan ? Pick::NanMedian : Pick::Median;
  return std::get<0>(select_impl(self.reshape({-1}), 0, false, Tensor(), Tensor(), what, 0));
}

template <class NodeT>
std::tuple<Tensor, Tensor> median_dim(const Tensor& self, int64_t dim, bool keepdim,
                                      bool ignore_nan) {
  const int64_t d = median_checks(self, dim, Tensor(), Tensor());
  return autograd::detail::record_selecting<NodeT>(self, d, keepdim, [&] {
    return select_impl(self, d, keepdim, Tensor(), Tensor(),
                       ignore_nan ? Pick::NanMedian : Pick::Median, 0);
  });
}

// The out= forms of the (values, indices) ops: `checks(values, indices)` returns the wrapped dim.
template <class Checks>
std::tuple<const Tensor&, const Tensor&> select_out(const Tensor& values, const Tensor& indices,
                                                    const Tensor& self, bool keepdim,
                                                    const char* name, Pick what, int64_t k,
                                                    const Checks& checks) {
  const std::string out_name = std::string(name) + "_out";
  reduce_impl::check_defined(values, out_name.c_str());
  reduce_impl::check_defined(indices, out_name.c_str());
  autograd::detail::check_out_no_grad(name, self, values, indices);
  select_impl(self, checks(values, indices), keepdim, values, indices, what, k);
  return {values, indices};
}

enum class Interpolation { Linear, Lower, Higher, Midpoint, Nearest };

template <class = void>
Interpolation interpolation_mode(std::string_view s) {
  if (s == "linear") return Interpolation::Linear;
  if (s == "lower") return Interpolation::Lower;
  if (s == "higher") return Interpolation::Higher;
  if (s == "midpoint") return Interpolation::Midpoint;
  TP_CHECK(s == "nearest",
           "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
           "but got ",
           s);
  return Interpolation::Nearest;
}

template <class = void>
void quantile_checks(const Tensor& self, const Tensor& q) {
  reduce_impl::check_defined(self, "quantile");
  TP_CHECK(self.numel() > 0, "quantile() input tensor must be non-empty");
  TP_CHECK(q.dim() <= 1, "quantile() q must be a scalar or 1D tensor");
  TP_CHECK(self.dtype() == kFloat || self.dtype() == kDouble,
           "quantile() input tensor must be either float or double dtype");
  TP_CHECK(self.dtype() == q.dtype(), "quantile() q tensor must be same dtype as the input tensor");
  TP_CHECK(self.device() == q.device(),
           "quantile() q tensor must be on the same device as the input tensor");
}

// PyTorch 1.13's quantile_compute, step for step: the (moved and) sorted input viewed as
// [*reduced, n], one rank per q (NaN lines: the last rank, or the non-NaN count for
// nanquantile), the values at the ranks gathered and, for linear / midpoint, interpolated.
template <class = void>
Tensor quantile_impl(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     std::string_view interpolation, bool ignore_nan) {
  quantile_checks(self, q);
  const Interpolation mode = interpolation_mode(interpolation);
  const int64_t d = maybe_wrap_dim(dim.value_or(0), self.dim());
  {
    NoGradGuard no_grad;
    const bool in_range = q.ge(0).logical_and(q.le(1)).all().template item<bool>();
    TP_CHECK(in_range, "quantile() q values must be in the range [0, 1]");
  }
  std::vector<int64_t> reduced;  // the output shape without q's dimension
  if (dim && self.dim() > 0) {
    reduced = self.sizes().vec();
    if (keepdim) {
      reduced[std::size_t(d)] = 1;
    } else {
      reduced.erase(reduced.begin() + d);
    }
  } else if (keepdim) {
    reduced.assign(std::size_t(self.dim()), 1);
  }
  Tensor sorted = dim ? std::get<0>(self.unsqueeze(-1).transpose(d, -1).sort())
                      : std::get<0>(self.flatten().sort());
  std::vector<int64_t> in_shape = reduced;
  in_shape.push_back(sorted.size(-1));
  sorted = sorted.view(in_shape);
  TP_CHECK(sorted.size(-1) <= (int64_t(1) << 24), "quantile() input tensor is too large");
  const Tensor q1 = q.reshape({-1});
  // The ranks keep q's history: linear interpolation's weights (their fractional parts) carry
  // q's gradient, as PyTorch's; the integer ranks and the NaN masks are index arithmetic.
  Tensor ranks, nan_count, any_nan;
  {
    NoGradGuard no_grad;
    if (ignore_nan) {
      nan_count = sorted.isnan().logical_not().sum(-1, true).sub(1);
    } else {
      any_nan = sorted.isnan().any(-1, true);
    }
  }
  if (ignore_nan) {
    ranks = q1.mul(nan_count);
    ranks = ranks.masked_fill(ranks.lt(0), 0);
  } else {
    const int64_t last = sorted.size(-1) - 1;
    const std::vector<Tensor> b = broadcast_tensors({q1.mul(last), any_nan});
    ranks = b[0].masked_fill(b[1], last);
  }
  if (mode == Interpolation::Lower) ranks = ranks.floor();
  if (mode == Interpolation::Higher) ranks = ranks.ceil();
  if (mode == Interpolation::Nearest) ranks = ranks.round();
  Tensor ranks_below, ranks_above;
  {
    NoGradGuard no_grad;
    ranks_below = ranks.to(kLong);
    ranks_above = ranks.ceil().to(kLong);
  }
  Tensor values = sorted.gather(-1, ranks_below);
  if (mode == Interpolation::Linear || mode == Interpolation::Midpoint) {
    const Tensor weights =
        mode == Interpolation::Midpoint ? full_like(ranks, 0.5) : ranks.sub(ranks_below);
    values.lerp_(sorted.gather(-1, ranks_above), weights);
  }
  if (q.dim() == 0) {
    values.squeeze_(-1);
  } else {
    values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1);
  }
  return values;
}

template <class = void>
Tensor quantile_out_impl(const Tensor& out, const Tensor& self, const Tensor& q,
                         std::optional<int64_t> dim, bool keepdim, std::string_view interpolation,
                         bool ignore_nan) {
  reduce_impl::check_defined(out, ignore_nan ? "nanquantile_out" : "quantile_out");
  autograd::detail::check_out_no_grad(ignore_nan ? "nanquantile" : "quantile", self, q, out);
  // The write funnel: read-only storages, inference tensors (out='s own grad rule is
  // check_out_no_grad's).
  autograd::detail::check_inplace(out.unsafeGetTensorImpl(), /*records=*/false);
  quantile_checks(self, q);
  TP_CHECK(self.dtype() == out.dtype(),
           "quantile() out tensor must be same dtype as the input tensor");
  const Tensor r = quantile_impl(self, q, dim, keepdim, interpolation, ignore_nan);
  resize_output(out, r.sizes());
  copy_impl(out, r);
  reduce_impl::bump_out(out);
  return out;
}

template <class = void>
Tensor scalar_q(const Tensor& self, double q) {
  TP_CHECK(q >= 0 && q <= 1, "quantile() q must be in the range [0, 1] but got ", q);
  return full({}, q, self.options());
}

}  // namespace detail::order_stats

// ---- kthvalue -------------------------------------------------------------------------------

// The k-th smallest element (k from 1) along dim and its index.
template <class = void>
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim = -1,
                                    bool keepdim = false) {
  namespace os = detail::order_stats;
  const int64_t d = os::kthvalue_checks(self, k, dim, Tensor(), Tensor());
  return autograd::detail::record_selecting<autograd::KthvalueBackward0>(self, d, keepdim, [&] {
    return os::select_impl(self, d, keepdim, Tensor(), Tensor(), os::Pick::Kth, k);
  });
}
// libtorch's order: (values, indices) outputs first.
template <class = void>
std::tuple<const Tensor&, const Tensor&> kthvalue_out(const Tensor& values, const Tensor& indices,
                                                      const Tensor& self, int64_t k,
                                                      int64_t dim = -1, bool keepdim = false) {
  namespace os = detail::order_stats;
  return os::select_out(
      values, indices, self, keepdim, "kthvalue", os::Pick::Kth, k,
      [&](const Tensor& v, const Tensor& i) { return os::kthvalue_checks(self, k, dim, v, i); });
}

// ---- median, nanmedian ----------------------------------------------------------------------

// The lower median of all elements (NaN if there is one), 0-d.
template <class = void>
Tensor median(const Tensor& self) {
  return detail::reduce_impl::amax_diff<autograd::MedianBackward0>(
      self, {}, false, [&] { return detail::order_stats::median_all(self, false); });
}
// The lower median of the non-NaN elements (NaN if there is none), 0-d.
template <class = void>
Tensor nanmedian(const Tensor& self) {
  return detail::reduce_impl::amax_diff<autograd::NanmedianBackward0>(
      self, {}, false, [&] { return detail::order_stats::median_all(self, true); });
}
template <class = void>
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false) {
  return detail::order_stats::median_dim<autograd::MedianBackward1>(self, dim, keepdim, false);
}
template <class = void>
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim = false) {
  return detail::order_stats::median_dim<autograd::NanmedianBackward1>(self, dim, keepdim, true);
}
template <class = void>
std::tuple<const Tensor&, const Tensor&> median_out(const Tensor& values, const Tensor& indices,
                                                    const Tensor& self, int64_t dim,
                                                    bool keepdim = false) {
  namespace os = detail::order_stats;
  return os::select_out(
      values, indices, self, keepdim, "median", os::Pick::Median, 0,
      [&](const Tensor& v, const Tensor& i) { return os::median_checks(self, dim, v, i); });
}
template <class = void>
std::tuple<const Tensor&, const Tensor&> nanmedian_out(const Tensor& values, const Tensor& indices,
                                                       const Tensor& self, int64_t dim,
                                                       bool keepdim = false) {
  namespace os = detail::order_stats;
  return os::select_out(
      values, indices, self, keepdim, "nanmedian", os::Pick::NanMedian, 0,
      [&](const Tensor& v, const Tensor& i) { return os::median_checks(self, dim, v, i); });
}

// ---- mode -----------------------------------------------------------------------------------

template <class = void>
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim = -1, bool keepdim = false) {
  namespace os = detail::order_stats;
  const int64_t d = os::mode_checks(self, dim, Tensor(), Tensor());
  return autograd::detail::record_selecting<autograd::ModeBackward0>(self, d, keepdim, [&] {
    return os::select_impl(self, d, keepdim, Tensor(), Tensor(), os::Pick::Mode, 0);
  });
}
template <class = void>
std::tuple<const Tensor&, const Tensor&> mode_out(const Tensor& values, const Tensor& indices,
                                                  const Tensor& self, int64_t dim = -1,
                                                  bool keepdim = false) {
  namespace os = detail::order_stats;
  return os::select_out(
      values, indices, self, keepdim, "mode", os::Pick::Mode, 0,
      [&](const Tensor& v, const Tensor& i) { return os::mode_checks(self, dim, v, i); });
}

// ---- quantile, nanquantile ------------------------------------------------------------------

// interpolation: "linear", "lower", "higher", "midpoint" or "nearest" (round half to even).
template <class = void>
Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, std::string_view interpolation = "linear") {
  return detail::order_stats::quantile_impl(self, q, dim, keepdim, interpolation, false);
}
template <class = void>
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, std::string_view interpolation = "linear") {
  return quantile(self, detail::order_stats::scalar_q(self, q), dim, keepdim, interpolation);
}
template <class = void>
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, std::string_view interpolation = "linear") {
  return detail::order_stats::quantile_impl(self, q, dim, keepdim, interpolation, true);
}
template <class = void>
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, std::string_view interpolation = "linear") {
  return nanquantile(self, detail::order_stats::scalar_q(self, q), dim, keepdim, interpolation);
}
template <class = void>
const Tensor& quantile_out(const Tensor& out, const Tensor& self, const Tensor& q,
                           std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                           std::string_view interpolation = "linear") {
  detail::order_stats::quantile_out_impl(out, self, q, dim, keepdim, interpolation, false);
  return out;
}
template <class = void>
const Tensor& quantile_out(const Tensor& out, const Tensor& self, double q,
                           std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                           std::string_view interpolation = "linear") {
  return quantile_out(out, self, detail::order_stats::scalar_q(self, q), dim, keepdim,
                      interpolation);
}
template <class = void>
const Tensor& nanquantile_out(const Tensor& out, const Tensor& self, const Tensor& q,
                              std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                              std::string_view interpolation = "linear") {
  detail::order_stats::quantile_out_impl(out, self, q, dim, keepdim, interpolation, true);
  return out;
}
template <class = void>
const Tensor& nanquantile_out(const Tensor& out, const Tensor& self, double q,
                              std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                              std::string_view interpolation = "linear") {
  return nanquantile_out(out, self, detail::order_stats::scalar_q(self, q), dim, keepdim,
                         interpolation);
}

// ---- Tensor methods -------------------------------------------------------------------------

template <class>
std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  return tensorplay::kthvalue(*this, k, dim, keepdim);
}
template <class>
Tensor Tensor::median() const {
  return tensorplay::median(*this);
}
template <class>
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return tensorplay::median(*this, dim, keepdim);
}
template <class>
Tensor Tensor::nanmedian() const {
  return tensorplay::nanmedian(*this);
}
template <class>
std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return tensorplay::nanmedian(*this, dim, keepdim);
}
template <class>
std::tuple<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const {
  return tensorplay::mode(*this, dim, keepdim);
}
template <class>
Tensor Tensor::quantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                        std::string_view interpolation) const {
  return tensorplay::quantile(*this, q, dim, keepdim, interpolation);
}
template <class>
Tensor Tensor::quantile(double q, std::optional<int64_t> dim, bool keepdim,
                        std::string_view interpolation) const {
  return tensorplay::quantile(*this, q, dim, keepdim, interpolation);
}
template <class>
Tensor Tensor::nanquantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return tensorplay::nanquantile(*this, q, dim, keepdim, interpolation);
}
template <class>
Tensor Tensor::nanquantile(double q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return tensorplay::nanquantile(*this, q, dim, keepdim, interpolation);
}

}  // namespace tensorplay
