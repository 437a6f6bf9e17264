// The index families that address one dimension or the flat element order:
//   gather, scatter (src, value, reduce=), scatter_add, scatter_reduce      index shaped like self
//   index_select, index_add, index_copy                                      a 1-d index along dim
//   take, put                                                                flat (row-major) index
// with PyTorch's checks, messages, dtypes and autograd nodes (autograd/functions/indexing.hpp).
//
// One loop serves them all (for_each_line): the operands are seen with the index's shape and
// the indexed dimension collapsed to 1, so each position of the iteration is one line along
// `dim`, which the op walks itself. An index only moves an element along its own line, so
// lines never share an element of the written tensor: the lines run in parallel, with no
// atomics, and within a line the elements are combined in index order. Accumulation (scatter_add,
// index_add, put_ with accumulate) is therefore deterministic, as PyTorch documents for the CPU.
// Copies move bytes (one kernel per element size); the reductions dispatch on the dtype.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include <tensorplay/autograd/functions/indexing.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/core/wrap_dim.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/loops.hpp>  // opmath_t
#include <tensorplay/ops/parallel.hpp>
#include <tensorplay/ops/resize.hpp>  // resize_output
#include <tensorplay/ops/tensor_iterator.hpp>
#include <tensorplay/ops/views.hpp>

namespace tensorplay {
namespace detail::scatter_gather {

// These kernels address host memory; other devices get the dispatch point's error.
template <class = void>
void host_only(const char* op, std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts) {
    if (t) check_host_only(op, *t);
  }
}

// An unsigned type of each element size: copies need bytes moved, not values converted.
template <class F>
decltype(auto) dispatch_bytes(std::size_t size, F&& f) {
  switch (size) {
    case 1: return f.template operator()<uint8_t>();
    case 2: return f.template operator()<uint16_t>();
    case 4: return f.template operator()<uint32_t>();
    default: return f.template operator()<uint64_t>();
  }
}

// PyTorch treats a 0-d operand of these ops as one element along dimension 0.
template <class = void>
Tensor as_1d(const Tensor& t) {
  return t.dim() == 0 ? t.as_strided({1}, {1}) : t;
}

// ts[0] (written) and the inputs ts[1..], seen with `sizes` where dim is collapsed to 1:
// line(p) runs once per line with p[k] pointing at operand k's first element of it.
template <std::size_t N, class Line>
void for_each_line(const std::array<Tensor, N>& ts, IntArrayRef sizes, int64_t dim, Line&& line) {
  std::vector<int64_t> shape = sizes.vec();
  const int64_t n = shape[static_cast<std::size_t>(dim)];
  shape[static_cast<std::size_t>(dim)] = 1;
  TensorIteratorConfig cfg;
  cfg.set_check_mem_overlap(false).check_all_same_dtype(false).resize_outputs(false);
  cfg.add_output(ts[0].as_strided(shape, ts[0].strides(), ts[0].storage_offset()));
  for (std::size_t k = 1; k < N; ++k) {
    cfg.add_input(ts[k].as_strided(shape, ts[k].strides(), ts[k].storage_offset()));
  }
  const TensorIterator iter = cfg.build();
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t m) {
        std::array<char*, N> p;
        for (int64_t i = 0; i < m; ++i) {
          for (std::size_t k = 0; k < N; ++k) p[k] = data[k] + i * strides[k];
          line(p);
        }
      },
      std::max<int64_t>(1, internal::GRAIN_SIZE / std::max<int64_t>(n, 1)));
}

// A line's constants: its length, the indexed dim and its size, and the element strides along
// dim of the operand addressed by position j (out for gather, src for scatter), of the one
// addressed by index value k (self) and of the index.
struct LineConstants {
  int64_t n, dim, size, js, ks, is;
};

// f(c, js, ks, is) with the strides as compile-time 1s when all are 1 (the index's dim
// contiguous in every operand, the common case: the loop then addresses without
// multiplications), with the run-time strides otherwise; one loop body either way. The
// constants are handed over by value: read through a reference (or a lambda's captures) they
// are reloaded after every element written, as the compiler cannot prove that a byte-wise store
// leaves them unchanged (that made gather twice as slow).
template <class F>
void with_line_strides(LineConstants c, F&& f) {
  using One = std::integral_constant<int64_t, 1>;
  if (c.js == 1 && c.ks == 1 && c.is == 1) {
    f(c, One{}, One{}, One{});
  } else {
    f(c, c.js, c.ks, c.is);
  }
}

template <class = void>
[[noreturn]] void index_out_of_bounds(int64_t k, int64_t dim, int64_t size) {
  TP_ERROR("index ", k, " is out of bounds for dimension ", dim, " with size ", size);
}

// k itself when 0 <= k < size (one unsigned comparison), else PyTorch's error.
template <class = void>
int64_t checked_index(int64_t k, int64_t dim, int64_t size) {
  if (static_cast<uint64_t>(k) >= static_cast<uint64_t>(size)) [[unlikely]]
    index_out_of_bounds(k, dim, size);
  return k;
}

// ---- checks (PyTorch's ScatterGatherChecks) ---------------------------------------------------

template <class = void>
void check_index_long(const Tensor& index, const char* op) {
  TP_CHECK(index.dtype() == kLong, op, "(): Expected dtype int64 for index");
}

template <class = void>
void gather_shape_check(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  TP_CHECK(std::max<int64_t>(index.dim(), 1) == nd,
           "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t d = 0; d < nd; ++d) {
    if (d == dim || index.dim() == 0) continue;
    TP_CHECK(index.size(d) <= self.size(d), "Size does not match at dimension ", d,
             " expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
             " apart from dimension ", dim);
  }
}

template <class = void>
void scatter_shape_check(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  if (index.numel() == 0) return;
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  TP_CHECK(std::max<int64_t>(index.dim(), 1) == nd,
           "Index tensor must have the same number of dimensions as self tensor");
  if (src) {
    TP_CHECK(std::max<int64_t>(src->dim(), 1) == nd,
             "Index tensor must have the same number of dimensions as src tensor");
  }
  if (index.dim() == 0) return;
  bool fits = true;
  for (int64_t d = 0; d < nd; ++d) {
    if (d != dim && self.dim() > 0 && index.size(d) > self.size(d)) fits = false;
    if (src && src->dim() > 0 && index.size(d) > src->size(d)) fits = false;
  }
  if (src) {
    TP_CHECK(fits, "Expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
             " apart from dimension ", dim, " and to be smaller size than src ", src->sizes());
  } else {
    TP_CHECK(fits, "Expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
             " apart from dimension ", dim);
  }
}

// ---- gather -----------------------------------------------------------------------------------

// out (shaped like index) = self[..., index[...], ...] along dim.
template <class = void>
void gather_into(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  if (index.numel() == 0) return;
  const Tensor o = as_1d(out), s = as_1d(self), idx = as_1d(index);
  const int64_t n = idx.size(dim), size = s.size(dim);
  const int64_t os = o.stride(dim), ss = s.stride(dim), is = idx.stride(dim);
  dispatch_bytes(self.element_size(), [&]<class U>() {
    for_each_line<3>({o, s, idx}, idx.sizes(), dim, [&](const std::array<char*, 3>& p) {
      const LineConstants c{n, dim, size, os, ss, is};
      U* const op = reinterpret_cast<U*>(p[0]);
      const U* const sp = reinterpret_cast<const U*>(p[1]);
      const int64_t* const ip = reinterpret_cast<const int64_t*>(p[2]);
      with_line_strides(c, [&](const LineConstants l, auto js, auto ks, auto xs) {
        for (int64_t j = 0; j < l.n; ++j) {
          const int64_t k = checked_index(ip[j * xs], l.dim, l.size);
          std::memcpy(op + j * js, sp + k * ks, sizeof(U));
        }
      });
    });
  });
}

// ---- scatter, scatter_add, scatter_reduce ------------------------------------------------------

enum class Reduce { None, Sum, Prod, Max, Min };

// max/min that propagate NaN, as PyTorch's scatter_reduce does.
template <class M>
M reduce_pair(Reduce r, M a, M b) {
  if constexpr (std::is_same_v<M, bool>) {  // sum and prod of bools: or and and
    switch (r) {
      case Reduce::Sum: return a || b;
      case Reduce::Prod: return a && b;
      case Reduce::Max: return a || b;
      case Reduce::Min: return a && b;
      case Reduce::None: break;
    }
    return b;
  } else {
    switch (r) {
      case Reduce::Sum: return a + b;
      case Reduce::Prod: return a * b;
      case Reduce::Max:
        if constexpr (std::is_floating_point_v<M>) {
          if (a != a) return a;
          if (b != b) return b;
        }
        return b > a ? b : a;
      case Reduce::Min:
        if constexpr (std::is_floating_point_v<M>) {
          if (a != a) return a;
          if (b != b) return b;
        }
        return b < a ? b : a;
      case Reduce::None: break;
    }
    return b;
  }
}

// The identity of a reduction: what include_self=False writes first at the written positions.
template <class T>
T reduce_identity(Reduce r) {
  if (r == Reduce::Prod) return T(1);
  if (r == Reduce::Max || r == Reduce::Min) {
    const bool max = r == Reduce::Max;
    if constexpr (std::is_same_v<T, bool>) {
      return !max;
    } else if constexpr (std::numeric_limits<T>::has_infinity) {
      return max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    } else {
      return max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    }
  }
  return T(0);
}

// self[..., index[...], ...] (op)= src[...] (or the value), in place; no history, no version.
// `reset`: first write the reduction's identity at every written position (include_self=False).
template <class = void>
void scatter_into(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                  const Scalar* value, Reduce r, bool reset = false) {
  if (index.numel() == 0) return;
  const Tensor s = as_1d(self), idx = as_1d(index);
  const int64_t n = idx.size(dim), size = s.size(dim);
  const int64_t ss = s.stride(dim), is = idx.stride(dim);
  const Tensor v = src ? as_1d(*src) : Tensor();
  const int64_t vs = src ? v.stride(dim) : 1;  // a value: no stride, any will do
  // Each line's index values are checked as the line is written (PyTorch's order).
  if (r == Reduce::None && !reset) {  // a plain scatter moves bytes
    uint64_t bits = 0;                // the value as self's dtype stores it
    if (!src) {
      dispatch_dtype(self.dtype(), [&]<class T>() {
        const T x = value->to<T>();
        std::memcpy(&bits, &x, sizeof(T));
      });
    }
    dispatch_bytes(self.element_size(), [&]<class U>() {
      auto line = [&](char* sp_, const char* ip_, const char* vp_) {
        const LineConstants c{n, dim, size, vs, ss, is};
        U* const sp = reinterpret_cast<U*>(sp_);
        const U* const vp = reinterpret_cast<const U*>(vp_ ? vp_ : reinterpret_cast<char*>(&bits));
        const int64_t* const ip = reinterpret_cast<const int64_t*>(ip_);
        const bool has_src = vp_ != nullptr;
        with_line_strides(c, [&](const LineConstants l, auto js, auto ks, auto xs) {
          for (int64_t j = 0; j < l.n; ++j) {
            const int64_t k = checked_index(ip[j * xs], l.dim, l.size);
            std::memcpy(sp + k * ks, has_src ? vp + j * js : vp, sizeof(U));
          }
        });
      };
      if (src) {
        for_each_line<3>({s, v, idx}, idx.sizes(), dim,
                         [&](const std::array<char*, 3>& p) { line(p[0], p[2], p[1]); });
      } else {
        for_each_line<2>({s, idx}, idx.sizes(), dim,
                         [&](const std::array<char*, 2>& p) { line(p[0], p[1], nullptr); });
      }
    });
    return;
  }
  dispatch_dtype(self.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const T x = value ? value->to<T>() : T();
    const T id = reduce_identity<T>(r);
    // kSum: the reduction fixed at compile time for scatter_add's sum (the hot case, and the
    // gradient of gather), read at run time for the others.
    auto run = [&]<bool kSum>() {
      auto line = [&](char* sp_, const char* ip_, const char* vp_) {
        const LineConstants c{n, dim, size, vs, ss, is};
        const Reduce rr = kSum ? Reduce::Sum : r;
        const M xv = static_cast<M>(x);
        T* const sp = reinterpret_cast<T*>(sp_);
        const T* const vp = reinterpret_cast<const T*>(vp_);
        const int64_t* const ip = reinterpret_cast<const int64_t*>(ip_);
        with_line_strides(c, [&](const LineConstants l, auto js, auto ks, auto xs) {
          if (reset) {
            const T idv = id;
            for (int64_t j = 0; j < l.n; ++j)
              sp[checked_index(ip[j * xs], l.dim, l.size) * ks] = idv;
          }
          for (int64_t j = 0; j < l.n; ++j) {
            const M b = vp ? static_cast<M>(vp[j * js]) : xv;
            T& d = sp[checked_index(ip[j * xs], l.dim, l.size) * ks];
            d = static_cast<T>(reduce_pair<M>(rr, static_cast<M>(d), b));
          }
        });
      };
      if (src) {
        for_each_line<3>({s, v, idx}, idx.sizes(), dim,
                         [&](const std::array<char*, 3>& p) { line(p[0], p[2], p[1]); });
      } else {
        for_each_line<2>({s, idx}, idx.sizes(), dim,
                         [&](const std::array<char*, 2>& p) { line(p[0], p[1], nullptr); });
      }
    };
    if (r == Reduce::Sum) {
      run.template operator()<true>();
    } else {
      run.template operator()<false>();
    }
  });
}

// scatter's reduce= ("add", "multiply").
template <class = void>
Reduce scatter_reduce_arg(std::string_view reduce) {
  if (reduce == "add") return Reduce::Sum;
  TP_CHECK(reduce == "multiply", "reduce argument must be either add or multiply.");
  return Reduce::Prod;
}
// scatter_reduce's reduce ("sum", "prod", "mean", "amax", "amin"); mean is a sum then a division.
template <class = void>
Reduce scatter_reduce_two_arg(std::string_view reduce) {
  if (reduce == "sum" || reduce == "mean") return Reduce::Sum;
  if (reduce == "prod") return Reduce::Prod;
  if (reduce == "amax") return Reduce::Max;
  TP_CHECK(reduce == "amin", "reduce argument must be either sum, prod, mean, amax or amin.");
  return Reduce::Min;
}

// The checks every scatter makes, in PyTorch's order; returns the wrapped dim.
template <class = void>
int64_t scatter_checks(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  host_only("scatter", {&self, &index, src});
  dim = maybe_wrap_dim(dim, self.dim());
  check_index_long(index, "scatter");
  if (src)
    TP_CHECK(src->dtype() == self.dtype(),
             "scatter(): Expected self.dtype to be equal to src.dtype");
  scatter_shape_check(self, dim, index, src);
  assert_no_internal_overlap(self);
  assert_no_overlap(self, index);
  if (src) assert_no_overlap(self, *src);
  return dim;
}

// The whole of scatter_reduce on self, in place: include_self=False resets the written
// positions to the reduction's identity, mean divides by the count of what was combined.
template <class = void>
void scatter_reduce_into(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                         std::string_view reduce, bool include_self) {
  const Reduce r = scatter_reduce_two_arg(reduce);
  scatter_into(self, dim, index, &src, nullptr, r, /*reset=*/!include_self);
  if (reduce != "mean" || index.numel() == 0) return;
  Tensor count = empty(self.sizes(), self.options());
  count.fill_(include_self ? 1 : 0);
  Tensor one = empty(src.sizes(), self.options());
  one.fill_(1);
  scatter_into(count, dim, index, &one, nullptr, Reduce::Sum);
  count.masked_fill_(count.eq(0), 1);
  const Tensor mean = is_floating_point(self.dtype()) ? self.div(count)
                                                      : self.div(count, std::string_view("floor"));
  self.copy_(mean);
}

}  // namespace detail::scatter_gather

// ---- gather -----------------------------------------------------------------------------------

namespace detail::scatter_gather {
template <class = void>
int64_t gather_checks(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  host_only("gather", {&self, &index});
  TP_CHECK_NOT_IMPLEMENTED(!sparse_grad,
                           "gather(): sparse_grad=True needs sparse gradients, which tensorplay "
                           "does not have yet");
  dim = maybe_wrap_dim(dim, self.dim());
  check_index_long(index, "gather");
  if (index.numel() != 0) gather_shape_check(self, dim, index);
  return dim;
}
}  // namespace detail::scatter_gather

template <class = void>
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad = false) {
  namespace sg = detail::scatter_gather;
  const int64_t d = sg::gather_checks(self, dim, index, sparse_grad);
  return autograd::detail::differentiable<autograd::GatherBackward0>(
      [&] {
        Tensor out = empty(index.sizes(), self.options());
        sg::gather_into(out, self, d, index);
        return out;
      },
      [&](autograd::GatherBackward0& fn, const Tensor&) {
        fn.save(d, index);
        fn.self_sizes_ = self.sizes().vec();
      },
      self);
}
template <class = void>
const Tensor& gather_out(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index,
                         bool sparse_grad = false) {
  namespace sg = detail::scatter_gather;
  autograd::detail::check_out_no_grad("gather", self, out);
  const int64_t d = sg::gather_checks(self, dim, index, sparse_grad);
  sg::host_only("gather", {&out});
  detail::check_out_dtype(out, self.dtype());
  detail::resize_output(out, index.sizes());
  detail::assert_no_internal_overlap(out);
  detail::assert_no_overlap(out, self);
  detail::assert_no_overlap(out, index);
  sg::gather_into(out, self, d, index);
  out.unsafeGetTensorImpl()->bump_version();
  return out;
}
template <class>
Tensor Tensor::gather(int64_t dim, const Tensor& index, bool sparse_grad) const {
  impl("gather");
  return tensorplay::gather(*this, dim, index, sparse_grad);
}

// ---- scatter ----------------------------------------------------------------------------------
// In place, recorded with ScatterBackward0 (src) or ScatterBackward1 (value); with reduce=, with
// PyTorch's NotImplemented node (no derivative). Out of place: a contiguous clone, scattered.

namespace detail::scatter_gather {
// The in-place scatters' one shape: checks, then the write, recorded as NodeT.
template <class NodeT, class Write, class... Others>
const Tensor& scatter_inplace(const Tensor& self, int64_t dim, const Tensor& index,
                              const Tensor* src, const char* op, const Write& write,
                              const Others&... others) {
  const int64_t d = scatter_checks(self, dim, index, src);
  return autograd::detail::differentiable_inplace<NodeT>(
      self,
      [&] {
        write(d);
        self.unsafeGetTensorImpl()->bump_version();
      },
      [&](NodeT& fn) {
        if constexpr (std::is_base_of_v<autograd::DimIndexNode, NodeT>) {
          fn.save(d, index);
          if constexpr (requires { fn.src_sizes_; }) fn.src_sizes_ = src->sizes().vec();
        } else {
          fn.op_ = op;
        }
      },
      autograd::detail::kSaveNothing, others...);
}

}  // namespace detail::scatter_gather

template <class>
const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  impl("scatter_");
  namespace sg = detail::scatter_gather;
  return sg::scatter_inplace<autograd::ScatterBackward0>(
      *this, dim, index, &src, "aten::scatter",
      [&](int64_t d) { sg::scatter_into(*this, d, index, &src, nullptr, sg::Reduce::None); }, src);
}
template <class>
const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  impl("scatter_");
  namespace sg = detail::scatter_gather;
  return sg::scatter_inplace<autograd::ScatterBackward1>(
      *this, dim, index, nullptr, "aten::scatter",
      [&](int64_t d) { sg::scatter_into(*this, d, index, nullptr, &value, sg::Reduce::None); });
}
template <class>
const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src,
                               std::string_view reduce) const {
  impl("scatter_");
  namespace sg = detail::scatter_gather;
  const sg::Reduce r = sg::scatter_reduce_arg(reduce);
  return sg::scatter_inplace<autograd::NotImplemented>(
      *this, dim, index, &src, "aten::scatter",
      [&](int64_t d) { sg::scatter_into(*this, d, index, &src, nullptr, r); }, src);
}
template <class>
const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value,
                               std::string_view reduce) const {
  impl("scatter_");
  namespace sg = detail::scatter_gather;
  const sg::Reduce r = sg::scatter_reduce_arg(reduce);
  return sg::scatter_inplace<autograd::NotImplemented>(
      *this, dim, index, nullptr, "aten::scatter",
      [&](int64_t d) { sg::scatter_into(*this, d, index, nullptr, &value, r); });
}

template <class>
const Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const {
  impl("scatter_add_");
  namespace sg = detail::scatter_gather;
  return sg::scatter_inplace<autograd::ScatterAddBackward0>(
      *this, dim, index, &src, "aten::scatter_add",
      [&](int64_t d) { sg::scatter_into(*this, d, index, &src, nullptr, sg::Reduce::Sum); }, src);
}

template <class>
const Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                      std::string_view reduce, bool include_self) const {
  impl("scatter_reduce_");
  namespace sg = detail::scatter_gather;
  (void)sg::scatter_reduce_two_arg(reduce);  // a bad reduce fails before anything else
  const int64_t d = sg::scatter_checks(*this, dim, index, &src);
  return autograd::detail::differentiable_inplace<autograd::ScatterReduceBackward0>(
      *this,
      [&] {
        sg::scatter_reduce_into(*this, d, index, src, reduce, include_self);
        unsafeGetTensorImpl()->bump_version();
      },
      [&](autograd::ScatterReduceBackward0& fn) {
        fn.save(d, index);
        fn.reduce_ = std::string(reduce);
        fn.include_self_ = include_self;
        fn.src_sizes_ = src.sizes().vec();
        if (reduce == "sum" || reduce == "mean") return;  // their formulas need no values
        fn.src_ = autograd::SavedVariable(src, false);
        NoGradGuard no_grad;
        fn.self_ = autograd::SavedVariable(clone(), false);
      },
      [&](autograd::ScatterReduceBackward0& fn) {
        if (reduce == "sum" || reduce == "mean") return;
        fn.result_ = autograd::SavedVariable(*this, true);
      },
      src);
}

// Out of place: the in-place op on a clone that has self's history, so the node's self edge
// is self's (the clone itself adds CloneBackward0 before it, as an autograd-transparent copy).
template <class>
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  Tensor r = clone(MemoryFormat::Contiguous);
  r.scatter_(dim, index, src);
  return r;
}
template <class>
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  Tensor r = clone(MemoryFormat::Contiguous);
  r.scatter_(dim, index, value);
  return r;
}
template <class>
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src,
                       std::string_view reduce) const {
  Tensor r = clone(MemoryFormat::Contiguous);
  r.scatter_(dim, index, src, reduce);
  return r;
}
template <class>
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value,
                       std::string_view reduce) const {
  Tensor r = clone(MemoryFormat::Contiguous);
  r.scatter_(dim, index, value, reduce);
  return r;
}
template <class>
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  Tensor r = clone(MemoryFormat::Contiguous);
  r.scatter_add_(dim, index, src);
  return r;
}
template <class>
Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                              std::string_view reduce, bool include_self) const {
  Tensor r = clone(MemoryFormat::Contiguous);
  r.scatter_reduce_(dim, index, src, reduce, include_self);
  return r;
}

template <class = void>
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return self.scatter(dim, index, src);
}
template <class = void>
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return self.scatter(dim, index, value);
}
template <class = void>
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               std::string_view reduce) {
  return self.scatter(dim, index, src, reduce);
}
template <class = void>
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
               std::string_view reduce) {
  return self.scatter(dim, index, value, reduce);
}
template <class = void>
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return self.scatter_add(dim, index, src);
}
template <class = void>
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self = true) {
  return self.scatter_reduce(dim, index, src, reduce, include_self);
}

// ---- index_select, index_add, index_copy -------------------------------------------------------
// A 1-d (or 0-d) index along dim: select copies those slices out, add and copy write slices of
// source into them. The index is read once into an int64 vector and checked before any write.

namespace detail::scatter_gather {

template <class = void>
std::vector<int64_t> index_values(const Tensor& index) {
  NoGradGuard no_grad;
  const Tensor i = index.to(kLong).contiguous();
  const int64_t* p = i.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + i.numel());
}

// A contiguous tensor as [outer, size, inner] around dim: a slice is `outer` rows of `inner`
// elements, which the loops below move whole, index by index (cache friendly whatever dim is).
struct Rows {
  int64_t outer = 1, inner = 1;
};
template <class = void>
Rows rows_of(const Tensor& t, int64_t dim) {
  Rows r;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d < dim) r.outer *= t.size(d);
    if (d > dim) r.inner *= t.size(d);
  }
  return r;
}

// dst's slice idx[j] along dim (op)= src's slice j, for every j. Writes to one element follow
// the index order; threads split the elements of a slice, never the index.
template <class Op>
void index_slices(const Tensor& dst, const Tensor& src, int64_t dim,
                  const std::vector<int64_t>& idx, const Op& op) {
  const Tensor d = as_1d(dst), s = as_1d(src);
  const auto es = static_cast<int64_t>(dst.element_size());
  if (d.is_contiguous() && s.is_contiguous()) {
    const Rows r = rows_of(s, dim);
    const int64_t n = static_cast<int64_t>(idx.size()), size = d.size(dim);
    char* dp = static_cast<char*>(d.data_ptr());
    const char* sp = static_cast<const char*>(s.data_ptr());
    const int64_t grain =
        std::max<int64_t>(1, internal::GRAIN_SIZE / std::max<int64_t>(r.outer * n, 1));
    parallel_for(0, r.inner, grain, [&](int64_t b, int64_t e) {
      for (int64_t o = 0; o < r.outer; ++o) {
        for (int64_t j = 0; j < n; ++j) {
          char* drow = dp + ((o * size + idx[std::size_t(j)]) * r.inner) * es;
          const char* srow = sp + ((o * n + j) * r.inner) * es;
          for (int64_t i = b; i < e; ++i) op(drow + i * es, srow + i * es);
        }
      }
    });
    return;
  }
  const int64_t ds = d.stride(dim) * es, ss = s.stride(dim) * es;
  const int64_t n = static_cast<int64_t>(idx.size());
  // The iteration runs over src's shape (its slices match dst's) with dim collapsed.
  for_each_line<2>({d, s}, s.sizes(), dim, [&](const std::array<char*, 2>& p) {
    for (int64_t j = 0; j < n; ++j) op(p[0] + idx[std::size_t(j)] * ds, p[1] + j * ss);
  });
}

}  // namespace detail::scatter_gather

namespace detail::scatter_gather {
template <class = void>
void index_select_into(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  host_only("index_select", {&self, &index, &out});
  TP_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  TP_CHECK(index.dtype() == kLong || index.dtype() == kInt,
           "index_select(): Expected dtype int32 or int64 for index");
  dim = maybe_wrap_dim(dim, self.dim());
  std::vector<int64_t> idx = index_values(index);
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  for (int64_t& k : idx) {
    TP_CHECK_INDEX(k >= 0 && k < size, "index out of range in self");
  }
  if (self.dim() == 0) {
    TP_CHECK_INDEX(idx.size() == 1, "index_select(): Index to scalar can have only 1 value, got ",
                   idx.size(), " value(s)");
  }
  std::vector<int64_t> shape = self.sizes().vec();
  if (self.dim() > 0) shape[std::size_t(dim)] = int64_t(idx.size());
  resize_output(out, shape);
  if (out.numel() == 0) return;
  // The roles of index_slices swap: out's slice j takes self's slice idx[j].
  const Tensor o = as_1d(out), s = as_1d(self);
  const auto es = static_cast<int64_t>(self.element_size());
  if (o.is_contiguous() && s.is_contiguous()) {  // whole rows, copied in parallel
    const Rows r = rows_of(s, dim);
    const int64_t n = static_cast<int64_t>(idx.size()), size = s.size(dim), row = r.inner * es;
    char* op = static_cast<char*>(o.data_ptr());
    const char* sp = static_cast<const char*>(s.data_ptr());
    const int64_t grain =
        std::max<int64_t>(1, internal::GRAIN_SIZE / std::max<int64_t>(r.inner, 1));
    parallel_for(0, r.outer * n, grain, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        const int64_t a = k / n, j = k % n;
        std::memcpy(op + k * row, sp + (a * size + idx[std::size_t(j)]) * row, std::size_t(row));
      }
    });
    return;
  }
  const int64_t os = o.stride(dim) * es, ss = s.stride(dim) * es;
  const int64_t n = static_cast<int64_t>(idx.size());
  dispatch_bytes(std::size_t(es), [&]<class U>() {
    for_each_line<2>({o, s}, o.sizes(), dim, [&](const std::array<char*, 2>& p) {
      for (int64_t j = 0; j < n; ++j) {
        std::memcpy(p[0] + j * os, p[1] + idx[std::size_t(j)] * ss, sizeof(U));
      }
    });
  });
}
}  // namespace detail::scatter_gather

template <class = void>
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = self.dim() == 0 ? 0 : maybe_wrap_dim(dim, self.dim());
  return autograd::detail::differentiable<autograd::IndexSelectBackward0>(
      [&] {
        Tensor out = empty({0}, self.options());
        detail::scatter_gather::index_select_into(out, self, dim, index);
        return out;
      },
      [&](autograd::IndexSelectBackward0& fn, const Tensor&) {
        fn.save(d, index);
        fn.self_sizes_ = self.sizes().vec();
      },
      self);
}
template <class = void>
const Tensor& index_select_out(const Tensor& out, const Tensor& self, int64_t dim,
                               const Tensor& index) {
  autograd::detail::check_out_no_grad("index_select", self, out);
  // The write funnel: read-only storages, inference tensors (out='s own grad rule is
  // check_out_no_grad's).
  autograd::detail::check_inplace(out.unsafeGetTensorImpl(), /*records=*/false);
  detail::check_out_dtype(out, self.dtype());
  detail::assert_no_internal_overlap(out);
  detail::assert_no_overlap(out, self);
  detail::assert_no_overlap(out, index);
  detail::scatter_gather::index_select_into(out, self, dim, index);
  out.unsafeGetTensorImpl()->bump_version();
  return out;
}
template <class>
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  impl("index_select");
  return tensorplay::index_select(*this, dim, index);
}

namespace detail::scatter_gather {
// index_add_'s checks, in PyTorch's order; returns the wrapped dim and the checked indices.
template <class = void>
std::vector<int64_t> index_add_checks(const Tensor& self, int64_t& dim, const Tensor& index,
                                      const Tensor& source, const Scalar& alpha) {
  host_only("index_add", {&self, &index, &source});
  dim = maybe_wrap_dim(dim, self.dim());
  TP_CHECK_INDEX(index.dim() <= 1,
                 "index_add_(): Index is supposed to be a vector, but got dim: ", index.dim(),
                 " with type: ", scalar_type_name(index.dtype()), " and size: ", index.sizes());
  TP_CHECK(index.dtype() == kLong || index.dtype() == kInt,
           "index_add_(): Expected dtype int32/int64 for index but got: ",
           scalar_type_name(index.dtype()));
  TP_CHECK(self.dtype() == source.dtype(), "index_add_(): self (", scalar_type_name(self.dtype()),
           ") and source (", scalar_type_name(source.dtype()), ") must have the same scalar type");
  TP_CHECK(source.dim() == 0 || dim < source.dim(), "index_add_(): Indexing dim ", dim,
           " is out of bounds of the source tensor with dim ", source.dim());
  const int64_t n = index.numel();
  TP_CHECK(n == (source.dim() == 0 ? 1 : source.size(dim)), "index_add_(): Number of indices (", n,
           ") should be equal to source.size(dim): (", source.dim() == 0 ? 1 : source.size(dim),
           "), for dim: ", dim);
  if (self.dim() > 0 || source.dim() > 0) {
    const Tensor s1 = as_1d(self), v1 = as_1d(source);
    TP_CHECK(s1.dim() == v1.dim(), "index_add_(): self (", s1.dim(), "-d) and source (", v1.dim(),
             "-d) must have the same number of dimensions");
    for (int64_t d = 0; d < s1.dim(); ++d) {
      TP_CHECK(d == dim || s1.size(d) == v1.size(d), "index_add_(): source has size ", v1.size(d),
               " at dimension ", d, " where self has size ", s1.size(d), "; only dimension ", dim,
               " may differ");
    }
  }
  TP_CHECK(!(is_integral(self.dtype(), true) && alpha.isFloatingPoint()),
           "For integral input tensors, argument alpha must not be a floating point number.");
  std::vector<int64_t> idx = index_values(index);
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  for (int64_t k : idx) TP_CHECK_INDEX(k >= 0 && k < size, "index out of range in self");
  assert_no_internal_overlap(self);
  assert_no_overlap(self, index);
  assert_no_overlap(self, source);
  return idx;
}
}  // namespace detail::scatter_gather

template <class>
const Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                                 const Scalar& alpha) const {
  impl("index_add_");
  namespace sg = detail::scatter_gather;
  const std::vector<int64_t> idx = sg::index_add_checks(*this, dim, index, source, alpha);
  return autograd::detail::differentiable_inplace<autograd::IndexAddBackward0>(
      *this,
      [&] {
        dispatch_dtype(dtype(), [&]<class T>() {
          using M = opmath_t<T>;
          const M a = alpha.to<M>();
          sg::index_slices(*this, source, dim, idx, [a](char* d, const char* s) {
            T& x = *reinterpret_cast<T*>(d);
            x = static_cast<T>(static_cast<M>(x) +
                               a * static_cast<M>(*reinterpret_cast<const T*>(s)));
          });
        });
        unsafeGetTensorImpl()->bump_version();
      },
      [&](autograd::IndexAddBackward0& fn) {
        fn.save(dim, index);
        fn.alpha_ = alpha;
        fn.source_sizes_ = source.sizes().vec();
      },
      autograd::detail::kSaveNothing, source);
}
template <class>
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source,
                         const Scalar& alpha) const {
  Tensor r = clone(MemoryFormat::Contiguous);
  r.index_add_(dim, index, source, alpha);
  return r;
}
template <class = void>
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha = 1) {
  return self.index_add(dim, index, source, alpha);
}

template <class>
const Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const {
  impl("index_copy_");
  namespace sg = detail::scatter_gather;
  sg::host_only("index_copy", {this, &index, &source});
  dim = maybe_wrap_dim(dim, this->dim());
  TP_CHECK_INDEX(index.dim() < 2, "index_copy_(): Index should have dimension 1 or 0 (got ",
                 index.dim(), ")");
  const int64_t n = index.numel();
  const Tensor self1 = sg::as_1d(*this), src1 = sg::as_1d(source);
  TP_CHECK_INDEX(this->dim() == 0 || source.dim() == 0 || source.dim() == this->dim(),
                 "index_copy_(): When source and destination are not scalars, their "
                 "dimensionality must match. Source dimensionality (",
                 source.dim(), "), destination dimensionality (", this->dim(), ")");
  for (int64_t d = 0; d < self1.dim() && self1.dim() == src1.dim(); ++d) {
    TP_CHECK_INDEX(d == dim || self1.size(d) == src1.size(d),
                   "index_copy_(): Source/destination tensor must have same slice shapes. "
                   "Destination slice shape: ",
                   self1.size(d), " at dimension ", d, " and source slice shape: ", src1.size(d),
                   " at dimension ", d, ".");
  }
  TP_CHECK_INDEX(n == src1.size(dim), "index_copy_(): Number of indices (", n,
                 ") should be equal to source.size(dim) (", src1.size(dim), ")");
  TP_CHECK(index.dtype() == kLong, "index_copy_(): Expected a long tensor for index, but got ",
           scalar_type_name(index.dtype()));
  TP_CHECK(dtype() == source.dtype(),
           "index_copy_(): self and source expected to have the same dtype, but got (self) ",
           scalar_type_name(dtype()), " and (source) ", scalar_type_name(source.dtype()));
  const std::vector<int64_t> idx = sg::index_values(index);
  const int64_t size = self1.size(dim);
  for (int64_t k : idx) {
    TP_CHECK_INDEX(k >= 0 && k < size, "index_copy_(): index ", k,
                   " is out of bounds for dimension ", dim, " with size ", size);
  }
  detail::assert_no_internal_overlap(*this);
  detail::assert_no_overlap(*this, index);
  detail::assert_no_overlap(*this, source);
  return autograd::detail::differentiable_inplace<autograd::IndexCopyBackward0>(
      *this,
      [&] {
        sg::dispatch_bytes(element_size(), [&]<class U>() {
          sg::index_slices(*this, source, dim, idx,
                           [](char* d, const char* s) { std::memcpy(d, s, sizeof(U)); });
        });
        unsafeGetTensorImpl()->bump_version();
      },
      [&](autograd::IndexCopyBackward0& fn) {
        fn.save(dim, index);
        fn.source_sizes_ = source.sizes().vec();
      },
      autograd::detail::kSaveNothing, source);
}
template <class>
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  Tensor r = clone(MemoryFormat::Contiguous);
  r.index_copy_(dim, index, source);
  return r;
}
template <class = void>
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return self.index_copy(dim, index, source);
}

// ---- take, put --------------------------------------------------------------------------------
// The index addresses self as if it were flattened in row-major order, whatever its strides.

namespace detail::scatter_gather {
// The storage offset of row-major element k of t (k already in range, wrapped).
template <class = void>
int64_t flat_offset(const Tensor& t, int64_t k) {
  int64_t off = t.storage_offset();
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t size = t.size(d);
    off += (k % size) * t.stride(d);
    k /= size;
  }
  return off;
}

template <class = void>
std::vector<int64_t> flat_indices(const Tensor& self, const Tensor& index, const char* op) {
  TP_CHECK(index.dtype() == kLong, op, "(): Expected a long tensor for index, but got ",
           scalar_type_name(index.dtype()));
  std::vector<int64_t> idx = index_values(index);
  const int64_t numel = self.numel();
  if (!idx.empty()) {
    TP_CHECK_INDEX(numel > 0, std::string_view(op) == "take"
                                  ? "take(): tried to take from an empty tensor"
                                  : "put_(): Tried to put elements into an empty tensor");
  }
  for (int64_t& k : idx) {
    TP_CHECK_INDEX(k >= -numel && k < numel, "out of range: tried to access index ", k,
                   " on a tensor of ", numel, " elements.");
    if (k < 0) k += numel;
  }
  return idx;
}
}  // namespace detail::scatter_gather

template <class = void>
Tensor take(const Tensor& self, const Tensor& index) {
  namespace sg = detail::scatter_gather;
  sg::host_only("take", {&self, &index});
  const std::vector<int64_t> idx = sg::flat_indices(self, index, "take");
  return autograd::detail::differentiable<autograd::TakeBackward0>(
      [&] {
        Tensor out = empty(index.sizes(), self.options());
        const auto es = self.element_size();
        const char* src = static_cast<const char*>(self.storage().data());
        char* dst = static_cast<char*>(out.data_ptr());
        const bool flat = self.is_contiguous();
        for (std::size_t j = 0; j < idx.size(); ++j) {
          const int64_t off = flat ? self.storage_offset() + idx[j] : sg::flat_offset(self, idx[j]);
          std::memcpy(dst + j * es, src + off * int64_t(es), es);
        }
        return out;
      },
      [&](autograd::TakeBackward0& fn, const Tensor&) {
        fn.save(0, index);
        fn.self_sizes_ = self.sizes().vec();
      },
      self);
}
template <class>
Tensor Tensor::take(const Tensor& index) const {
  impl("take");
  return tensorplay::take(*this, index);
}

template <class>
const Tensor& Tensor::put_(const Tensor& index, const Tensor& source, bool accumulate) const {
  impl("put_");
  namespace sg = detail::scatter_gather;
  sg::host_only("put_", {this, &index, &source});
  TP_CHECK(dtype() == source.dtype(),
           "put_(): self and source expected to have the same dtype, but got self.dtype = ",
           scalar_type_name(dtype()), " and source.dtype = ", scalar_type_name(source.dtype()));
  TP_CHECK_INDEX(source.numel() == index.numel(),
                 "put_(): Expected source and index to have the same number of elements, but got "
                 "source.numel() = ",
                 source.numel(), ", index.numel() = ", index.numel());
  const std::vector<int64_t> idx = sg::flat_indices(*this, index, "put_");
  detail::assert_no_internal_overlap(*this);
  detail::assert_no_overlap(*this, index);
  detail::assert_no_overlap(*this, source);
  return autograd::detail::differentiable_inplace<autograd::PutBackward0>(
      *this,
      [&] {
        const Tensor src = source.contiguous();
        char* base = static_cast<char*>(storage().mutable_data());
        const auto es = int64_t(element_size());
        dispatch_dtype(dtype(), [&]<class T>() {
          const T* s = src.data_ptr<T>();
          // Serial, in index order: repeated indices accumulate (or the last one wins) in a
          // fixed order.
          for (std::size_t j = 0; j < idx.size(); ++j) {
            T& d = *reinterpret_cast<T*>(base + sg::flat_offset(*this, idx[j]) * es);
            d = accumulate ? static_cast<T>(static_cast<opmath_t<T>>(d) + s[j]) : s[j];
          }
        });
        unsafeGetTensorImpl()->bump_version();
      },
      [&](autograd::PutBackward0& fn) {
        fn.save(0, index);
        fn.accumulate_ = accumulate;
        fn.source_sizes_ = source.sizes().vec();
      },
      autograd::detail::kSaveNothing, source);
}
template <class>
Tensor Tensor::put(const Tensor& index, const Tensor& source, bool accumulate) const {
  Tensor r = clone(MemoryFormat::Preserve);
  r.put_(index, source, accumulate);
  return r;
}
template <class = void>
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false) {
  return self.put(index, source, accumulate);
}

}  // namespace tensorplay
