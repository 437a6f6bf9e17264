// unique and unique_consecutive (PyTorch's Unique.cpp): the distinct elements (or, with dim, the
// distinct slices along dim), with the inverse indices that rebuild the input and the counts.
// unique sorts (a stable sort: NaN last, each NaN distinct, since NaN != NaN); sorted=false is
// allowed an unspecified order by torch and gets the sorted one here. Not differentiable.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/core/wrap_dim.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/scatter_gather.hpp>  // host_only, index_select
#include <tensorplay/ops/views.hpp>

namespace tensorplay {
namespace detail::unique_impl {

// a < b with NaN after every number (and not less than another NaN).
template <class T>
bool less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return !std::isnan(a) && (std::isnan(b) || a < b);
  } else {
    return a < b;
  }
}

// (output, inverse, counts) of the rows of `rows` ([n, m], contiguous), grouped when equal;
// `sort` orders the rows first (lexicographically), else only neighbours group.
template <class = void>
std::tuple<Tensor, Tensor, Tensor> unique_rows(const Tensor& rows, bool sort) {
  const int64_t n = rows.size(0), m = rows.size(1);
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  Tensor inverse = empty({n}, kLong);
  std::vector<int64_t> firsts, counts;
  dispatch_dtype(rows.dtype(), [&]<class T>() {
    using M = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;
    const T* p = rows.data_ptr<T>();
    auto row_less = [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < m; ++k) {
        const M x = static_cast<M>(p[a * m + k]), y = static_cast<M>(p[b * m + k]);
        if (less(x, y)) return true;
        if (less(y, x)) return false;
        if constexpr (std::is_floating_point_v<M>) {
          if (std::isnan(x) && std::isnan(y)) return a < b;  // NaNs: keep input order
        }
      }
      return false;
    };
    auto row_equal = [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < m; ++k) {
        if (!(static_cast<M>(p[a * m + k]) == static_cast<M>(p[b * m + k]))) return false;
      }
      return true;
    };
    if (sort) std::stable_sort(order.begin(), order.end(), row_less);
    int64_t* inv = inverse.data_ptr<int64_t>();
    for (int64_t k = 0; k < n; ++k) {
      const int64_t r = order[std::size_t(k)];
      if (k == 0 || !row_equal(order[std::size_t(k - 1)], r)) {
        firsts.push_back(r);
        counts.push_back(0);
      }
      ++counts.back();
      inv[r] = int64_t(firsts.size()) - 1;
    }
  });
  NoGradGuard no_grad;
  return {rows.index_select(0, tensor(firsts, kLong)), inverse, tensor(counts, kLong)};
}

template <class = void>
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool sort, bool return_inverse,
                                          bool return_counts, std::optional<int64_t> dim) {
  scatter_gather::host_only(sort ? "unique" : "unique_consecutive", {&self});
  NoGradGuard no_grad;
  Tensor out, inverse, counts;
  if (!dim) {
    std::tie(out, inverse, counts) = unique_rows(self.reshape({-1, 1}).contiguous(), sort);
    out = out.reshape({-1});
    inverse = inverse.view(self.sizes());
  } else {
    const int64_t d = maybe_wrap_dim(*dim, self.dim());
    const int64_t n = self.dim() == 0 ? 1 : self.size(d);
    TP_CHECK(n == 0 || self.numel() > 0,
             "There are 0 sized dimensions, and they aren't selected, so unique cannot be "
             "applied");
    const Tensor moved = self.dim() == 0 ? self.reshape({1}) : self.transpose(d, 0);
    std::tie(out, inverse, counts) =
        unique_rows(moved.reshape({n, n == 0 ? 0 : -1}).contiguous(), sort);
    std::vector<int64_t> shape = moved.sizes().vec();
    shape[0] = out.size(0);
    out = out.reshape(shape);
    if (self.dim() > 0) out = out.transpose(0, d);  // PyTorch's layout
  }
  if (!return_inverse) inverse = empty({0}, kLong);
  if (!return_counts) counts = empty({0}, kLong);
  return {out, inverse, counts};
}

}  // namespace detail::unique_impl

// torch.unique: (output, inverse_indices, counts); the last two are empty unless asked for.
template <class = void>
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool sorted = true,
                                          bool return_inverse = false, bool return_counts = false,
                                          std::optional<int64_t> dim = std::nullopt) {
  (void)sorted;  // an unspecified order may be the sorted one
  return detail::unique_impl::unique(self, true, return_inverse, return_counts, dim);
}
template <class = void>
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self,
                                                      bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt) {
  return detail::unique_impl::unique(self, false, return_inverse, return_counts, dim);
}

}  // namespace tensorplay
