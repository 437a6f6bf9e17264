// Sorting: sort (with libtorch's `stable` overload), argsort, msort and topk, with PyTorch's
// semantics (ATen's Sorting.cpp, TensorCompare.cpp and cpu/SortingKernel.cpp).
//
// Order. NaN is larger than every number: last in ascending order, first in descending order
// (and first among topk's largest). Equal elements keep their original order whatever the
// `stable` flag says: the comparator breaks ties by index, so the order is total, std::sort
// returns the one answer std::stable_sort would, and a result never depends on the algorithm
// or the thread count. (PyTorch's unstable sort may order ties differently; a stable order is
// one of the orders it may return.) -0.0 and 0.0 compare equal, as with PyTorch.
//
// Layout. sort's outputs take self's strides when self is non-overlapping and dense, else
// dense strides in self's dimension order (empty_like); topk's are contiguous. Indices are
// int64. A 0-d tensor is one slice of one element (dim must be 0 or -1).
//
// Every 1-d slice along `dim` is gathered into a buffer of (key, index) pairs, ordered there and
// written back, so any strides work. Slices are spread over threads with parallel_for when
// there are enough elements; each slice is written by one task.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <tensorplay/autograd/functions/linalg.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/half.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/core/wrap_dim.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/parallel.hpp>

namespace tensorplay {
namespace detail::sort_impl {

// What elements are compared as: Half and BFloat16 as float (exact), everything else as itself.
template <class T>
using sort_key_t = std::conditional_t<ReducedFloatingPoint<T>, float, T>;

template <class K>
struct Entry {
  K key;
  int64_t index;
};

// A strict total order on entries that are not NaN: by key (descending when asked), ties by
// original index. The direction is a run-time flag (one well-predicted branch) rather than a
// template parameter, which would double the sort code instantiated per dtype in every TU.
template <class K>
struct EntryLess {
  bool descending;
  bool operator()(const Entry<K>& a, const Entry<K>& b) const noexcept {
    if (a.key != b.key) return descending ? a.key > b.key : a.key < b.key;
    return a.index < b.index;
  }
};

template <class K>
bool is_nan_key(K k) noexcept {
  if constexpr (std::is_floating_point_v<K>) {
    return k != k;
  } else {
    return false;
  }
}

// Orders the first `count` positions of buf, which holds a slice's entries in index order. NaNs
// are set aside first (after the numbers ascending, before them descending, in index order), so
// the comparator is a plain key compare; only the numbers that can reach the first `count`
// positions are sorted (partial_sort for topk).
template <class K>
void order_slice(std::vector<Entry<K>>& buf, int64_t count, bool descending) {
  auto nums_end = buf.end();
  if constexpr (std::is_floating_point_v<K>) {
    // A stable partition that allocates only when there are NaNs.
    std::vector<Entry<K>> nans;
    auto out = buf.begin();
    for (const Entry<K>& e : buf) {
      if (is_nan_key(e.key)) {
        nans.push_back(e);
      } else {
        *out++ = e;
      }
    }
    nums_end = std::copy(nans.begin(), nans.end(), out) - std::ptrdiff_t(nans.size());
  }
  auto first = buf.begin(), last = nums_end;
  if (descending) {
    const auto nans = buf.end() - nums_end;
    std::rotate(buf.begin(), nums_end, buf.end());
    first = buf.begin() + nans;
    last = buf.end();
  }
  const auto want = std::min<std::ptrdiff_t>(count - (first - buf.begin()), last - first);
  if (want <= 0) return;
  const EntryLess<K> less{descending};
  if (want < last - first) {
    std::partial_sort(first, first + want, last, less);
  } else {
    std::sort(first, last, less);
  }
}

// The geometry of a slice walk: `n` elements per slice along dim; the other dims enumerate the
// slices. Strides in elements, for self and the two outputs.
struct SliceWalk {
  int64_t n = 1;
  int64_t in_step = 0, val_step = 0, idx_step = 0;  // strides along dim
  std::vector<int64_t> outer_sizes, in_strides, val_strides, idx_strides;
  int64_t num_slices = 1;
};

template <class = void>
SliceWalk make_walk(const Tensor& self, const Tensor& values, const Tensor& indices, int64_t dim) {
  SliceWalk w;
  if (self.dim() == 0) return w;  // one slice of one element
  w.n = self.size(dim);
  w.in_step = self.stride(dim);
  w.val_step = values.stride(dim);
  w.idx_step = indices.stride(dim);
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d == dim) continue;
    w.outer_sizes.push_back(self.size(d));
    w.in_strides.push_back(self.stride(d));
    w.val_strides.push_back(values.stride(d));
    w.idx_strides.push_back(indices.stride(d));
    w.num_slices *= self.size(d);
  }
  return w;
}

// For every slice: order its n elements and write the first `count` of them (values and
// original indices) to the outputs, whose size along dim is `count`. With count < n (topk) only
// those are ordered (partial_sort); the order is total, so they come out as a full sort's would.
template <class T>
void sort_slices(const Tensor& self, const Tensor& values, const Tensor& indices, int64_t dim,
                 int64_t count, bool descending) {
  using K = sort_key_t<T>;
  const SliceWalk w = make_walk(self, values, indices, dim);
  if (w.num_slices == 0 || w.n == 0 || count == 0) return;
  const T* in = static_cast<const T*>(self.data_ptr());
  T* val = static_cast<T*>(values.data_ptr());
  int64_t* idx = static_cast<int64_t*>(indices.data_ptr());
  const std::size_t nd = w.outer_sizes.size();
  auto run = [&](int64_t begin, int64_t end) {
    std::vector<Entry<K>> buf(static_cast<std::size_t>(w.n));
    std::vector<int64_t> pos(nd, 0);
    int64_t oi = 0, ov = 0, ox = 0;
    for (int64_t rem = begin, d = int64_t(nd) - 1; d >= 0; --d) {
      pos[d] = rem % w.outer_sizes[d];
      rem /= w.outer_sizes[d];
      oi += pos[d] * w.in_strides[d];
      ov += pos[d] * w.val_strides[d];
      ox += pos[d] * w.idx_strides[d];
    }
    for (int64_t s = begin; s < end; ++s) {
      for (int64_t i = 0; i < w.n; ++i) {
        buf[std::size_t(i)] = {static_cast<K>(in[oi + i * w.in_step]), i};
      }
      order_slice<K>(buf, count, descending);
      for (int64_t i = 0; i < count; ++i) {
        const Entry<K>& e = buf[std::size_t(i)];
        val[ov + i * w.val_step] = static_cast<T>(e.key);
        idx[ox + i * w.idx_step] = e.index;
      }
      for (int64_t d = int64_t(nd) - 1; d >= 0; --d) {
        oi += w.in_strides[d];
        ov += w.val_strides[d];
        ox += w.idx_strides[d];
        if (++pos[d] < w.outer_sizes[d]) break;
        oi -= w.in_strides[d] * w.outer_sizes[d];
        ov -= w.val_strides[d] * w.outer_sizes[d];
        ox -= w.idx_strides[d] * w.outer_sizes[d];
        pos[d] = 0;
      }
    }
  };
  // About GRAIN_SIZE elements per task (n log n comparisons each: a generous grain).
  parallel_for(0, w.num_slices, std::max<int64_t>(1, internal::GRAIN_SIZE / w.n), run);
}

}  // namespace detail::sort_impl

// Sorts along `dim`; returns (values, indices) with indices int64. `stable` is accepted for
// libtorch's signature: the order is always stable (see the top of this file).
template <class = void>
std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim = -1,
                                bool descending = false) {
  (void)stable;
  dim = maybe_wrap_dim(dim, self.dim());
  if (!self.is_cpu()) detail::throw_no_device_kernel("aten::sort", self.device().type(), true);
  return autograd::detail::record_selecting<autograd::SortBackward0>(self, dim, true, [&] {
    // Dense strides like self's (PyTorch's sort meta function: self's strides when self is
    // non-overlapping and dense, else inferred dense ones), which is empty_like's rule.
    Tensor values = empty_like(self);
    Tensor indices = empty_like(self, TensorOptions().dtype(kLong));
    const int64_t n = self.dim() == 0 ? 1 : self.size(dim);
    dispatch_dtype(self.dtype(), [&]<class T>() {
      detail::sort_impl::sort_slices<T>(self, values, indices, dim, n, descending);
    });
    return std::tuple<Tensor, Tensor>(values, indices);
  });
}

template <class = void>
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1, bool descending = false) {
  return sort(self, std::optional<bool>(false), dim, descending);
}

template <class = void>
Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false) {
  return std::get<1>(sort(self, dim, descending));
}

template <class = void>
Tensor argsort(const Tensor& self, bool stable, int64_t dim = -1, bool descending = false) {
  return std::get<1>(sort(self, std::optional<bool>(stable), dim, descending));
}

// An int dim matches neither overload above exactly (int -> int64_t and int -> bool are both
// conversions), so libtorch's pair makes argsort(t, 1) ambiguous; this one resolves it.
template <class = void>
Tensor argsort(const Tensor& self, int dim, bool descending = false) {
  return argsort(self, int64_t{dim}, descending);
}

// Sorts along the first dimension; returns the values (torch.msort).
template <class = void>
Tensor msort(const Tensor& self) {
  return std::get<0>(sort(self, 0, false));
}

// The k largest (or smallest) elements along `dim` and their indices, in order (largest first
// for largest=true). `sorted` = false lets PyTorch return them in any order; here they are
// always sorted, ties by index. Bool is refused, as PyTorch's topk_cpu kernel refuses it.
template <class = void>
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1,
                                bool largest = true, bool sorted = true) {
  (void)sorted;
  dim = maybe_wrap_dim(dim, self.dim());
  if (!self.is_cpu()) detail::throw_no_device_kernel("aten::topk", self.device().type(), true);
  const int64_t slice = self.dim() > 0 ? self.size(dim) : 1;
  TP_CHECK(k >= 0 && k <= slice, "selected index k out of range");
  return autograd::detail::record_selecting<autograd::TopkBackward0>(self, dim, true, [&] {
    std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
    if (!shape.empty()) shape[std::size_t(dim)] = k;
    Tensor values = empty(shape, self.options());
    Tensor indices = empty(shape, self.options().dtype(kLong));
    if (self.dim() == 0) {  // PyTorch copies a 0-d input whatever k is (0 or 1)
      detail::copy_impl(values, self);
      indices.zero_();
      return std::tuple<Tensor, Tensor>(values, indices);
    }
    dispatch_dtype(self.dtype(), [&]<class T>() {
      if constexpr (std::is_same_v<T, bool>) {
        detail::dtype_not_implemented("topk_cpu", kBool);
      } else {
        detail::sort_impl::sort_slices<T>(self, values, indices, dim, k, largest);
      }
    });
    return std::tuple<Tensor, Tensor>(values, indices);
  });
}

// ---- Tensor methods -----------------------------------------------------------------------------

template <class>
std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return tensorplay::sort(*this, dim, descending);
}
template <class>
std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool> stable, int64_t dim,
                                        bool descending) const {
  return tensorplay::sort(*this, stable, dim, descending);
}
template <class>
Tensor Tensor::argsort(int64_t dim, bool descending) const {
  return tensorplay::argsort(*this, dim, descending);
}
template <class>
Tensor Tensor::argsort(bool stable, int64_t dim, bool descending) const {
  return tensorplay::argsort(*this, stable, dim, descending);
}
template <class>
Tensor Tensor::argsort(int dim, bool descending) const {
  return tensorplay::argsort(*this, int64_t{dim}, descending);
}
template <class>
Tensor Tensor::msort() const {
  return tensorplay::msort(*this);
}
template <class>
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return tensorplay::topk(*this, k, dim, largest, sorted);
}

}  // namespace tensorplay

// Last, after every definition above: scatter_add, which the selecting ops' gradients use
// (value_selecting_backward); it includes headers that include this one.
#include <tensorplay/ops/scatter_gather.hpp>
