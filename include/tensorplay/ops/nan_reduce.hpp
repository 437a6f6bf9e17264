// Reductions that skip elements: count_nonzero, nansum and nanmean (NaN counted as zero and left
// out of the mean's count), and the running extremes cummax/cummin with their indices, with
// PyTorch's dtypes, messages and nodes (NansumBackward0; nanmean composes nansum / count, hence
// DivBackward0; CummaxBackward0 / CumminBackward0 scatter the gradient back to the indices).
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include <tensorplay/autograd/functions/indexing.hpp>
#include <tensorplay/autograd/functions/reduce.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/core/wrap_dim.hpp>
#include <tensorplay/ops/compare.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/reduce_ops.hpp>
#include <tensorplay/ops/scatter_gather.hpp>

namespace tensorplay {

// ---- count_nonzero ------------------------------------------------------------------------------

// An empty list counts over every dimension (t.count_nonzero(), t.count_nonzero(1),
// t.count_nonzero({0, 1})).
template <class = void>
Tensor count_nonzero(const Tensor& self, IntArrayRef dim = {}) {
  NoGradGuard no_grad;  // an int64 count: no gradient
  return self.ne(0).sum(dim, false, kLong);
}
template <class>
Tensor Tensor::count_nonzero(IntArrayRef dim) const {
  return tensorplay::count_nonzero(*this, dim);
}

// ---- nansum, nanmean ----------------------------------------------------------------------------

template <class = void>
Tensor nansum(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false,
              std::optional<DType> dtype = std::nullopt) {
  return autograd::detail::differentiable<autograd::NansumBackward0>(
      [&] {
        const Tensor clean =
            is_floating_point(self.dtype()) ? self.masked_fill(self.isnan(), 0) : self;
        return clean.sum(dim, keepdim, dtype);
      },
      [&](autograd::NansumBackward0& fn, const Tensor&) {
        fn.self_ = autograd::SavedVariable(self, false);
        fn.dim_ = dim.vec();
        fn.keepdim_ = keepdim;
      },
      self);
}
template <class>
Tensor Tensor::nansum(IntArrayRef dim, bool keepdim, std::optional<DType> dtype) const {
  return tensorplay::nansum(*this, dim, keepdim, dtype);
}

template <class = void>
Tensor nanmean(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false,
               std::optional<DType> dtype = std::nullopt) {
  TP_CHECK(is_floating_point(self.dtype()),
           "nanmean(): expected input to have floating point dtype but got ",
           scalar_type_name(self.dtype()));
  Tensor count;
  {
    NoGradGuard no_grad;
    count = self.isnan().logical_not().sum(dim, keepdim);
  }
  return nansum(self, dim, keepdim, dtype).div(count);
}
template <class>
Tensor Tensor::nanmean(IntArrayRef dim, bool keepdim, std::optional<DType> dtype) const {
  return tensorplay::nanmean(*this, dim, keepdim, dtype);
}

// ---- cummax, cummin -----------------------------------------------------------------------------

namespace detail {
// The running extreme along dim and where it was reached: ties move the index forward (>=, as
// PyTorch), and a NaN, once met, stays (with its index).
template <bool Max>
std::tuple<Tensor, Tensor> cum_extreme(const Tensor& self, int64_t dim) {
  scatter_gather::host_only(Max ? "cummax" : "cummin", {&self});
  const Tensor x = self.dim() == 0 ? self.reshape({1}) : self.contiguous();
  dim = self.dim() == 0 ? 0 : maybe_wrap_dim(dim, self.dim());
  Tensor values = empty(x.sizes(), self.options()), indices = empty(x.sizes(), kLong);
  const autograd::detail::Lines l = autograd::detail::lines_of(x.sizes(), dim);
  dispatch_dtype(self.dtype(), [&]<class T>() {
    const T* in = x.data_ptr<T>();
    T* out = values.data_ptr<T>();
    int64_t* idx = indices.data_ptr<int64_t>();
    for (int64_t a = 0; a < l.outer; ++a) {
      for (int64_t i = 0; i < l.inner; ++i) {
        const int64_t base = a * l.n * l.inner + i;
        if (l.n == 0) continue;
        T best = in[base];
        int64_t at = 0;
        for (int64_t j = 0; j < l.n; ++j) {
          const T v = in[base + j * l.inner];
          const double dv = static_cast<double>(v), db = static_cast<double>(best);
          if (!std::isnan(db) && (std::isnan(dv) || (Max ? dv >= db : dv <= db))) {
            best = v;
            at = j;
          }
          out[base + j * l.inner] = best;
          idx[base + j * l.inner] = at;
        }
      }
    }
  });
  if (self.dim() == 0) return {values.reshape({}), indices.reshape({})};
  return {values, indices};
}

template <class NodeT, bool Max>
std::tuple<Tensor, Tensor> cum_extreme_recorded(const Tensor& self, int64_t dim) {
  std::shared_ptr<NodeT> fn = autograd::detail::make_node<NodeT>(self);
  if (!fn) return cum_extreme<Max>(self, dim);
  std::tuple<Tensor, Tensor> r;
  {
    AutoGradMode off(false);
    r = cum_extreme<Max>(self, dim);
  }
  autograd::detail::set_history(std::get<0>(r), fn);
  autograd::detail::set_history(std::get<1>(r), fn);
  fn->self_sizes_ = self.sizes().vec();
  fn->dim_ = self.dim() == 0 ? 0 : maybe_wrap_dim(dim, self.dim());
  fn->indices_ = autograd::SavedVariable(std::get<1>(r), true);
  return r;
}
}  // namespace detail

template <class = void>
std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) {
  return detail::cum_extreme_recorded<autograd::CummaxBackward0, true>(self, dim);
}
template <class = void>
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) {
  return detail::cum_extreme_recorded<autograd::CumminBackward0, false>(self, dim);
}
template <class>
std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const {
  return tensorplay::cummax(*this, dim);
}
template <class>
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const {
  return tensorplay::cummin(*this, dim);
}

}  // namespace tensorplay
