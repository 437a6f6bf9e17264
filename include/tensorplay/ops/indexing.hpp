// Indexing: libtorch's `t.index({Slice(1, None), 0, Ellipsis, None})` and `index_put_`.
//
// Basic indices (integers, slices, None, Ellipsis, bools) become views through select, slice
// and unsqueeze, so they alias the tensor. Tensor indices (int64, or bool/uint8 masks turned
// into coordinates) are "advanced": they are broadcast together and gather into new memory
// (or scatter, for index_put_), with NumPy's placement rule: the broadcast index dimensions
// replace the indexed dimensions where those were adjacent, and go first otherwise.
//
// Autograd: the basic part records its view nodes (SliceBackward0, SelectBackward0, ...), the
// gather IndexBackward0 (its gradient accumulates into zeros at the indexed elements), and
// index_put_ IndexPutBackward0 on the view it writes into (through differentiable_inplace, so
// writing through basic indices rewrites the tensor's history with CopySlices).
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <tensorplay/autograd/functions/views.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/aliasing_views.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/tensor_index.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>
#include <tensorplay/ops/views.hpp>

namespace tensorplay {
namespace detail {

// The outcome of the basic indices: a view, plus the advanced (tensor) indices still to apply,
// each paired with the view dimension it indexes.
struct Sliced {
  Tensor view;
  std::vector<std::pair<int64_t, Tensor>> advanced;
};

// Coordinates of the true elements of a mask, one int64 tensor per mask dimension (nonzero).
template <class = void>
std::vector<Tensor> mask_coordinates(const Tensor& mask) {
  const Tensor m = mask.contiguous();
  const int64_t k = m.dim(), n = m.numel();
  const auto* p = static_cast<const uint8_t*>(m.data_ptr());  // bool and uint8: one byte
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += p[i] != 0;
  std::vector<Tensor> coords;
  std::vector<int64_t*> out;
  for (int64_t d = 0; d < k; ++d) {
    coords.push_back(empty({count}, kLong));
    out.push_back(coords.back().data_ptr<int64_t>());
  }
  std::vector<int64_t> idx(static_cast<std::size_t>(k), 0);
  for (int64_t i = 0, j = 0; i < n; ++i) {
    if (p[i]) {
      for (int64_t d = 0; d < k; ++d) out[d][j] = idx[d];
      ++j;
    }
    for (int64_t d = k - 1; d >= 0; --d) {  // row-major odometer
      if (++idx[d] < m.size(d)) break;
      idx[d] = 0;
    }
  }
  return coords;
}

template <class = void>
Sliced apply_slicing(const Tensor& self, ArrayRef<indexing::TensorIndex> indices) {
  using indexing::TensorIndexType;
  // Dimensions the indices consume; None, Ellipsis and bools consume none.
  int64_t specified = 0;
  for (const auto& i : indices) {
    if (i.is_integer() || i.is_slice()) ++specified;
    if (i.is_tensor()) {
      const DType d = i.tensor().dtype();
      specified += (d == kBool || d == kByte) ? std::max<int64_t>(i.tensor().dim(), 1) : 1;
    }
  }
  TP_CHECK_INDEX(specified <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  Sliced r{self, {}};
  int64_t dim = 0;
  int64_t self_dim = 0;  // dimensions of `self` consumed so far: what messages name
  bool ellipsis_seen = false;
  for (const auto& i : indices) {
    switch (i.type()) {
      case TensorIndexType::Integer: {
        const int64_t size = r.view.size(dim), v = i.integer();
        TP_CHECK_INDEX(v >= -size && v < size, "index ", v, " is out of bounds for dimension ",
                       self_dim, " with size ", size);
        r.view = r.view.select(dim, v);
        ++self_dim;
        break;
      }
      case TensorIndexType::Slice: {
        const auto& s = i.slice();
        TP_CHECK_VALUE(s.step() > 0, "step must be greater than zero");
        r.view = r.view.slice(dim, s.start(), s.stop(), s.step());
        ++dim;
        ++self_dim;
        break;
      }
      case TensorIndexType::None:
        r.view = r.view.unsqueeze(dim);
        ++dim;
        break;
      case TensorIndexType::Ellipsis:
        // Python lets a second ellipsis through; like PyTorch it then covers no dimension.
        if (!ellipsis_seen) {
          dim += self.dim() - specified;
          self_dim += self.dim() - specified;
        }
        ellipsis_seen = true;
        break;
      case TensorIndexType::Boolean:
        // x[True] adds a dimension of size 1, x[False] one of size 0.
        r.view = r.view.unsqueeze(dim);
        if (!i.boolean()) r.view = r.view.narrow(dim, 0, 0);
        ++dim;
        break;
      case TensorIndexType::Tensor: {
        const Tensor& t = i.tensor();
        const DType dt = t.dtype();
        TP_CHECK_INDEX(dt == kLong || dt == kBool || dt == kByte,
                       "tensors used as indices must be long, byte or bool tensors");
        if (dt == kLong) {
          r.advanced.emplace_back(dim, t);
          ++dim;
          ++self_dim;
          break;
        }
        if (t.dim() == 0) {  // a 0-d mask acts as a bool index
          r.view = r.view.unsqueeze(dim);
          if (t.item<bool>() == false && dt == kBool) r.view = r.view.narrow(dim, 0, 0);
          if (dt == kByte && t.item<uint8_t>() == 0) r.view = r.view.narrow(dim, 0, 0);
          ++dim;
          break;
        }
        for (int64_t k = 0; k < t.dim(); ++k) {
          TP_CHECK_INDEX(dim + k < r.view.dim() && t.size(k) == r.view.size(dim + k),
                         "The shape of the mask ", t.sizes(), " at index ", k,
                         " does not match the shape of the indexed tensor ", r.view.sizes(),
                         " at index ", dim + k);
        }
        auto coords = mask_coordinates(t);
        for (int64_t k = 0; k < t.dim(); ++k)
          r.advanced.emplace_back(dim + k, std::move(coords[k]));
        dim += t.dim();
        self_dim += t.dim();
        break;
      }
    }
  }
  return r;
}

// The geometry of an advanced index: the broadcast index shape, where it goes in the result,
// and the remaining (sliced) dimensions.
struct AdvancedPlan {
  std::vector<int64_t> index_shape;   // broadcast shape of the index tensors
  std::vector<Tensor> indices;        // each expanded to index_shape
  std::vector<int64_t> indexed_dims;  // view dims they index
  std::vector<int64_t> rest_dims;     // view dims kept, in order
  int64_t insert_at = 0;              // result dim where index_shape starts
  std::vector<int64_t> result_shape;
};

template <class = void>
AdvancedPlan plan_advanced(const Tensor& view, const std::vector<std::pair<int64_t, Tensor>>& adv) {
  for (const auto& [d, t] : adv) {
    TP_CHECK(t.is_cpu() || t.device() == view.device(),
             "indices should be either on cpu or on the same device as the indexed tensor (",
             view.device(), ")");
  }
  AdvancedPlan p;
  for (const auto& [d, t] : adv) p.index_shape = infer_size(p.index_shape, t.sizes());
  bool adjacent = true;
  for (std::size_t j = 0; j < adv.size(); ++j) {
    p.indexed_dims.push_back(adv[j].first);
    p.indices.push_back(adv[j].second.expand(p.index_shape));
    if (j > 0 && adv[j].first != adv[j - 1].first + 1) adjacent = false;
  }
  for (int64_t d = 0; d < view.dim(); ++d) {
    bool indexed = false;
    for (int64_t a : p.indexed_dims) indexed = indexed || a == d;
    if (!indexed) p.rest_dims.push_back(d);
  }
  p.insert_at = adjacent ? p.indexed_dims.front() : 0;
  for (int64_t k = 0; k < p.insert_at; ++k) p.result_shape.push_back(view.size(p.rest_dims[k]));
  p.result_shape.insert(p.result_shape.end(), p.index_shape.begin(), p.index_shape.end());
  for (std::size_t k = p.insert_at; k < p.rest_dims.size(); ++k) {
    p.result_shape.push_back(view.size(p.rest_dims[k]));
  }
  return p;
}

// Walks every (index position, remaining element) pair: `f(view_offset, other_offset)` with
// element offsets into the view's storage and into `other` (shaped like the result).
template <class F>
void for_each_indexed(const Tensor& view, const AdvancedPlan& p, const Tensor& other, F&& f) {
  // The walk reads and writes host memory: tensor indexing has no device kernel yet.
  const auto host_only = [](const Tensor& t) {
    if (!t.is_cpu()) throw_no_device_kernel("aten::index", t.device().type(), true);
  };
  host_only(view);
  host_only(other);
  for (const Tensor& idx : p.indices) host_only(idx);
  const int64_t nb = int64_t(p.index_shape.size()), nr = int64_t(p.rest_dims.size());
  // `other`'s strides split into its index part and its rest part.
  std::vector<int64_t> o_index(nb), o_rest(nr), rest_size(nr), v_rest(nr);
  for (int64_t k = 0; k < nb; ++k) o_index[k] = other.stride(p.insert_at + k);
  for (int64_t k = 0; k < nr; ++k) {
    o_rest[k] = other.stride(k < p.insert_at ? k : k + nb);
    rest_size[k] = view.size(p.rest_dims[k]);
    v_rest[k] = view.stride(p.rest_dims[k]);
  }
  int64_t n_index = 1, n_rest = 1;
  for (int64_t s : p.index_shape) n_index *= s;
  for (int64_t s : rest_size) n_rest *= s;
  if (n_index == 0 || n_rest == 0) return;
  std::vector<int64_t> bi(nb, 0), ri(nr, 0);
  // Every index is checked before the first element moves, so a failing index_put_ writes
  // nothing (as in PyTorch, whose index kernels check bounds up front).
  for (int64_t b = 0; b < n_index; ++b) {
    for (std::size_t j = 0; j < p.indices.size(); ++j) {
      const Tensor& idx = p.indices[j];
      int64_t pos = idx.storage_offset();
      for (int64_t k = 0; k < nb; ++k) pos += bi[k] * idx.stride(k);
      const int64_t v = static_cast<const int64_t*>(idx.storage().data())[pos];
      const int64_t d = p.indexed_dims[j], size = view.size(d);
      TP_CHECK_INDEX(v >= -size && v < size, "index ", v, " is out of bounds for dimension ", d,
                     " with size ", size);
    }
    for (int64_t k = nb - 1; k >= 0; --k) {
      if (++bi[k] < p.index_shape[k]) break;
      bi[k] = 0;
    }
  }
  for (int64_t b = 0; b < n_index; ++b) {
    int64_t v_off = view.storage_offset(), o_off = other.storage_offset();
    for (std::size_t j = 0; j < p.indices.size(); ++j) {
      const Tensor& idx = p.indices[j];
      int64_t pos = idx.storage_offset();
      for (int64_t k = 0; k < nb; ++k) pos += bi[k] * idx.stride(k);
      const int64_t v = static_cast<const int64_t*>(idx.storage().data())[pos];
      const int64_t size = view.size(p.indexed_dims[j]);
      v_off += (v < 0 ? v + size : v) * view.stride(p.indexed_dims[j]);
    }
    for (int64_t k = 0; k < nb; ++k) o_off += bi[k] * o_index[k];
    std::fill(ri.begin(), ri.end(), 0);
    for (int64_t r = 0; r < n_rest; ++r) {
      int64_t vo = v_off, oo = o_off;
      for (int64_t k = 0; k < nr; ++k) {
        vo += ri[k] * v_rest[k];
        oo += ri[k] * o_rest[k];
      }
      f(vo, oo);
      for (int64_t k = nr - 1; k >= 0; --k) {
        if (++ri[k] < rest_size[k]) break;
        ri[k] = 0;
      }
    }
    for (int64_t k = nb - 1; k >= 0; --k) {
      if (++bi[k] < p.index_shape[k]) break;
      bi[k] = 0;
    }
  }
}

}  // namespace detail

namespace detail {

// The gather, no history: view[indices] into new memory.
template <class = void>
Tensor index_gather(const Tensor& view, const std::vector<std::pair<int64_t, Tensor>>& adv) {
  const AdvancedPlan p = plan_advanced(view, adv);
  Tensor out = empty(p.result_shape, view.options());
  dispatch_dtype(view.dtype(), [&]<class T>() {
    const T* src = static_cast<const T*>(view.storage().data());
    T* dst = static_cast<T*>(out.storage().mutable_data());
    for_each_indexed(view, p, out, [&](int64_t v, int64_t o) { dst[o] = src[v]; });
  });
  return out;
}

// The scatter, no history and no version bump: view[indices] = values (or += with
// `accumulate`, where repeated indices add up), `values` already of view's dtype and
// broadcastable to the indexing result.
template <class = void>
void index_scatter(const Tensor& view, const AdvancedPlan& p, const Tensor& values,
                   bool accumulate) {
  const Tensor v = values.expand(p.result_shape);
  dispatch_dtype(view.dtype(), [&]<class T>() {
    T* dst = static_cast<T*>(view.storage().mutable_data());
    const T* src = static_cast<const T*>(v.storage().data());
    if (accumulate) {
      for_each_indexed(view, p, v,
                       [&](int64_t a, int64_t o) { dst[a] = static_cast<T>(dst[a] + src[o]); });
    } else {
      for_each_indexed(view, p, v, [&](int64_t a, int64_t o) { dst[a] = src[o]; });
    }
  });
}

// The advanced indices as an index list of their own (full slices elsewhere), for the
// formulas: they index gradients shaped like the view.
template <class = void>
std::vector<indexing::TensorIndex> advanced_indices(
    const std::vector<std::pair<int64_t, Tensor>>& adv) {
  int64_t last = -1;
  for (const auto& a : adv) last = std::max(last, a.first);
  std::vector<indexing::TensorIndex> list(static_cast<std::size_t>(last + 1),
                                          indexing::TensorIndex(indexing::Slice()));
  for (const auto& [d, t] : adv) list[static_cast<std::size_t>(d)] = indexing::TensorIndex(t);
  return list;
}

// zeros(sizes) with g accumulated at the indexed elements: index's gradient. Its own derivative
// is the gather, so gradients of gradients exist.
template <class = void>
Tensor index_backward(const Tensor& g, IntArrayRef sizes,
                      const std::vector<std::pair<int64_t, Tensor>>& adv) {
  Tensor z;
  {
    NoGradGuard no_grad;
    z = empty(sizes, g.options()).zero_();
    index_scatter(z, plan_advanced(z, adv), g, /*accumulate=*/true);
  }
  if (GradMode::is_enabled() && g.requires_grad()) {
    auto node = std::make_shared<autograd::detail::IndexScatterBackwardT<>>(
        [list = advanced_indices(adv)](const Tensor& gg) { return gg.index(list); });
    node->add_next_edge(autograd::detail::gradient_edge(g));
    autograd::detail::set_history(z, node);
  }
  return z;
}

}  // namespace detail

template <class>
Tensor Tensor::index(ArrayRef<indexing::TensorIndex> indices) const {
  detail::Sliced s = detail::apply_slicing(*this, indices);
  if (s.advanced.empty()) {
    // Always a new view, even of nothing but an ellipsis (libtorch's alias then).
    return s.view.is_same(*this) ? alias() : s.view;
  }
  const Tensor& view = s.view;
  return autograd::detail::differentiable<autograd::IndexBackward0>(
      [&] { return detail::index_gather(view, s.advanced); },
      [&](autograd::IndexBackward0& fn, const Tensor&) {
        fn.scatter_ = [sizes = view.sizes().vec(), adv = s.advanced](const Tensor& g) {
          return detail::index_backward(g, sizes, adv);
        };
      },
      view);
}

template <class>
Tensor Tensor::index(std::initializer_list<indexing::TensorIndex> indices) const {
  return index(ArrayRef<indexing::TensorIndex>(indices));
}

namespace detail {

// The value without its leading size-1 dimensions (libtorch's slicePrefix1sSize): setitem
// lets a [1, 2] value assign to a [2] slice, and x[0] = t take a t of shape [1].
template <class = void>
Tensor strip_leading_ones(const Tensor& value) {
  int64_t k = 0;
  while (k < value.dim() && value.size(k) == 1) ++k;
  if (k == 0) return value;
  const IntArrayRef sizes = value.sizes();
  return value.view(IntArrayRef(sizes.data() + k, sizes.size() - std::size_t(k)));
}

// libtorch's copy_to, what setitem does with basic indices only: equal shapes copy; a 0-d
// value fills (read first, so it may be an element of the destination, and checked against
// the destination's dtype as fill_ checks it); any other value loses its leading 1s and is
// expanded to the destination, then copied (copy_'s overlap rules see the expanded view).
template <class = void>
void copy_to(const Tensor& dst, const Tensor& value) {
  if (dst.sizes() == value.sizes()) {
    dst.copy_(value);
  } else if (value.dim() == 0 && value.is_cpu()) {
    dispatch_dtype(dst.dtype(), [&]<class T>() { (void)value.item().template to<T>(); });
    dst.copy_(value.is_alias_of(dst) ? value.clone() : value);
  } else {
    dst.copy_(strip_leading_ones(value).expand(dst.sizes()));
  }
}

}  // namespace detail

template <class>
const Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices,
                                 const Tensor& value) const {
  return index_put_(indices, value, /*accumulate=*/false);
}

template <class>
const Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& value,
                                 bool accumulate) const {
  // s.view is where *this is written, so it aliases *this on every device.
  detail::Sliced s = [&] {
    detail::AliasingViewsGuard write_through;
    return detail::apply_slicing(*this, indices);
  }();
  if (s.advanced.empty()) {
    // x[False] = v writes nothing and checks nothing (libtorch returns before looking at v).
    if (indices.size() == 1 && indices[0].is_boolean() && !indices[0].boolean()) return *this;
    if (accumulate) {  // no index tensor: every element of the view is written once
      s.view.add_(detail::strip_leading_ones(value).to(dtype()));
      return *this;
    }
    detail::copy_to(s.view, value);  // conversion, overlap, autograd and the version bump
    return *this;
  }
  const Tensor rhs = detail::strip_leading_ones(value);
  const detail::AdvancedPlan p = detail::plan_advanced(s.view, s.advanced);
  // libtorch's index_put_ refuses a value or an index sharing memory with what it writes
  // (assert_no_overlap: a full overlap too), except a one-element value under a single mask,
  // which it hands to masked_fill_.
  auto assert_no_overlap = [&](const Tensor& input) {
    const auto lap =
        detail::get_overlap_status(*s.view.unsafeGetTensorImpl(), *input.unsafeGetTensorImpl());
    TP_CHECK(lap != detail::MemOverlapStatus::Partial && lap != detail::MemOverlapStatus::Full,
             "unsupported operation: some elements of the input tensor and the written-to tensor "
             "refer to a single memory location. Please clone() the tensor before performing "
             "the operation.");
  };
  int64_t masks = 0, tensors = 0;
  for (const auto& i : indices) {
    if (!i.is_tensor()) continue;
    ++tensors;
    masks += i.tensor().dtype() == kBool || i.tensor().dtype() == kByte;
    if (i.tensor().dtype() == kLong) assert_no_overlap(i.tensor());
  }
  if (!(value.numel() == 1 && masks == 1 && tensors == 1)) assert_no_overlap(rhs);
  // The values broadcast to the indexing result, converted to our dtype (a copy when the
  // bytes could alias the destination).
  bool fits = rhs.dim() <= int64_t(p.result_shape.size());
  for (int64_t k = 1; fits && k <= rhs.dim(); ++k) {
    const int64_t a = rhs.size(-k), b = p.result_shape[p.result_shape.size() - k];
    fits = a == b || a == 1;
  }
  TP_CHECK(fits, "shape mismatch: value tensor of shape ", rhs.sizes(),
           " cannot be broadcast to indexing result of shape ", IntArrayRef(p.result_shape));
  const Tensor& view = s.view;
  autograd::detail::differentiable_inplace<autograd::IndexPutBackward0>(
      view,
      [&] {
        const Tensor values = rhs.to(dtype(), false, /*copy=*/rhs.is_alias_of(*this));
        detail::index_scatter(view, p, values, accumulate);
        unsafeGetTensorImpl()->bump_version();
      },
      [&](autograd::IndexPutBackward0& fn) {
        auto list = detail::advanced_indices(s.advanced);
        fn.gather_ = [list](const Tensor& g) { return g.index(list); };
        // Accumulated values add to what was there: self's gradient passes unchanged.
        if (accumulate) {
          fn.mask_written_ = [](const Tensor& g) { return g; };
        } else {
          fn.mask_written_ = [list](const Tensor& g) { return g.clone().index_put_(list, 0); };
        }
      },
      autograd::detail::kSaveNothing, rhs);
  return *this;
}

template <class>
Tensor Tensor::index_put(ArrayRef<indexing::TensorIndex> indices, const Tensor& values,
                         bool accumulate) const {
  Tensor r = clone(MemoryFormat::Preserve);
  r.index_put_(indices, values, accumulate);
  return r;
}
template <class = void>
Tensor index_put(const Tensor& self, ArrayRef<indexing::TensorIndex> indices, const Tensor& values,
                 bool accumulate = false) {
  return self.index_put(indices, values, accumulate);
}

template <class>
const Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) const {
  Tensor value = empty({}, options());
  value.fill_(v);
  return index_put_(indices, value);
}

template <class>
const Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices,
                                 const Tensor& rhs) const {
  return index_put_(ArrayRef<indexing::TensorIndex>(indices), rhs);
}
template <class>
const Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices,
                                 const Scalar& v) const {
  return index_put_(ArrayRef<indexing::TensorIndex>(indices), v);
}

// ---- index_fill --------------------------------------------------------------------------------
// value at the positions `index` along dim. Recorded with IndexFillBackward0 (a number) or
// IndexFillBackward1 (a 0-d tensor value, which gets an edge); both save dim and the index.

namespace detail {
// The write, no history. PyTorch's checks in its order: the index dtype, overlap with the index,
// the dim, the index rank, the value's conversion (even with no index), then the indices -- all
// of them before the first write, where PyTorch's kernel may have written some.
template <class = void>
void index_fill_impl(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  TP_CHECK_INDEX(index.dtype() == kLong, "index_fill_(): Expected dtype int64 for index.");
  assert_no_overlap(self, index);
  // A 0-d self is indexed as one element along dim 0 (or -1).
  const Tensor self_nz = self.dim() == 0 ? self.unsqueeze(-1) : self;
  dim = maybe_wrap_dim(dim, self_nz.dim());
  TP_CHECK(index.dim() <= 1, "Index has to be a vector/scalar");
  const int64_t size = self_nz.size(dim), stride = self_nz.stride(dim);
  const int64_t n = index.numel();
  const int64_t index_stride = index.dim() > 0 ? index.stride(0) : 1;
  dispatch_dtype(self.dtype(), [&]<class T>() {
    const T v = value.to<T>();  // checked: uint8 index_fill_(..., 300) fails
    // With no element beside dim nothing is iterated, and PyTorch checks no index.
    for (int64_t d = 0; d < self_nz.dim(); ++d) {
      if (d != dim && self_nz.size(d) == 0) return;
    }
    const int64_t* idx = n > 0 ? index.data_ptr<int64_t>() : nullptr;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = idx[i * index_stride];
      TP_CHECK_INDEX(k >= -size && k < size, "index ", k, " is out of bounds for dimension ", dim,
                     " with size ", size);
    }
    if (n == 0) return;
    // PyTorch's restriding: self steps 0 along dim over n positions, the index steps along dim
    // only, so one iteration visits every (index, other element) pair; the kernel adds
    // index * stride. Serial: with a repeated index, two threads could write one element.
    std::vector<int64_t> self_sizes = self_nz.sizes().vec(), self_strides = self_nz.strides().vec();
    self_sizes[dim] = n;
    self_strides[dim] = 0;
    std::vector<int64_t> index_sizes(self_sizes.size(), 1), index_strides(self_sizes.size(), 0);
    index_sizes[dim] = n;
    index_strides[dim] = index_stride;
    TensorIterator iter = TensorIteratorConfig()
                              .set_check_mem_overlap(false)
                              .check_all_same_dtype(false)
                              .resize_outputs(false)
                              .add_output(self_nz.as_strided(self_sizes, self_strides))
                              .add_input(index.as_strided(index_sizes, index_strides))
                              .build();
    iter.serial_for_each(
        [&](char** data, const int64_t* strides, int64_t m) {
          for (int64_t i = 0; i < m; ++i) {
            int64_t k = *reinterpret_cast<const int64_t*>(data[1] + i * strides[1]);
            if (k < 0) k += size;
            reinterpret_cast<T*>(data[0] + i * strides[0])[k * stride] = v;
          }
        },
        0, iter.numel());
  });
  self.unsafeGetTensorImpl()->bump_version();
}

template <class = void>
void check_index_fill_value(const Tensor& value) {
  TP_CHECK(value.dim() == 0,
           "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
           value.dim(), " dimension(s).");
}

// The copy the out-of-place forms fill: self's layout (clone), a new value (version 0).
template <class = void>
Tensor index_fill_copy(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor result = self.clone(MemoryFormat::Preserve);
  index_fill_impl(result, dim, index, value);
  result.unsafeGetTensorImpl()->reset_version();
  return result;
}
}  // namespace detail

template <class>
const Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const {
  impl("index_fill_");
  return autograd::detail::differentiable_inplace<autograd::IndexFillBackward0>(
      *this, [&] { detail::index_fill_impl(*this, dim, index, value); },
      [&](autograd::IndexFillBackward0& fn) { fn.save(dim, index); },
      autograd::detail::kSaveNothing);
}
template <class>
const Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Tensor& value) const {
  impl("index_fill_");
  return autograd::detail::differentiable_inplace<autograd::IndexFillBackward1>(
      *this,
      [&] {
        detail::check_index_fill_value(value);
        detail::index_fill_impl(*this, dim, index, value.item());
      },
      [&](autograd::IndexFillBackward1& fn) { fn.save(dim, index); },
      autograd::detail::kSaveNothing, value);
}

template <class = void>
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return autograd::detail::differentiable<autograd::IndexFillBackward0>(
      [&] { return detail::index_fill_copy(self, dim, index, value); },
      [&](autograd::IndexFillBackward0& fn, const Tensor&) { fn.save(dim, index); }, self);
}
template <class = void>
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  return autograd::detail::differentiable<autograd::IndexFillBackward1>(
      [&] {
        detail::check_index_fill_value(value);
        return detail::index_fill_copy(self, dim, index, value.item());
      },
      [&](autograd::IndexFillBackward1& fn, const Tensor&) { fn.save(dim, index); }, self, value);
}
template <class>
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  impl("index_fill");
  return tensorplay::index_fill(*this, dim, index, value);
}
template <class>
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Tensor& value) const {
  impl("index_fill");
  return tensorplay::index_fill(*this, dim, index, value);
}

}  // namespace tensorplay
