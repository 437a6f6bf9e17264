// The view family: select, slice, narrow, view, reshape, transpose, permute, expand, squeeze,
// unsqueeze, flatten, unflatten, split, chunk, unbind, diagonal, unfold, movedim and the
// in-place forms.
//
// Each op here is offset and stride arithmetic followed by one call to detail::view_op (or
// detail::set_strided for the in-place forms); none of them builds a TensorImpl, so the view
// invariants written once in ops/as_strided.hpp hold for all of them, and each records its own
// autograd node there (SelectBackward0, ...; formulas in autograd/functions/views.hpp). Semantics,
// checks and messages are PyTorch 1.13's (ATen's TensorShape.cpp), including its quirks: slice
// clamps out-of-range bounds instead of failing, and split keeps a single piece when split_size
// exceeds the dimension.
//
// The geometry of the result is built in a SizesAndStrides on the stack: it keeps up to
// TENSORPLAY_INLINE_RANK dims inline, so a view of rank <= 5 never allocates for its shape.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string_view>
#include <utility>
#include <vector>

#include <tensorplay/autograd/functions/views.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/safe_math.hpp>
#include <tensorplay/core/sizes_and_strides.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/as_strided.hpp>
#include <tensorplay/ops/copy.hpp>  // reshape's copy path (clone)

namespace tensorplay {
namespace detail {

namespace ag = autograd::detail;

// A set of dimension indices: one machine word for up to 64 dims (every realistic tensor), a
// heap bitmap beyond. Used to reject repeated dims without a vector on the common path.
class DimSet {
 public:
  explicit DimSet(int64_t ndim) {
    if (ndim > 64) big_.assign(static_cast<std::size_t>(ndim), false);
  }
  // Adds d; false if it was already there.
  bool insert(int64_t d) {
    if (big_.empty()) {
      const uint64_t bit = uint64_t{1} << d;
      const bool fresh = (small_ & bit) == 0;
      small_ |= bit;
      return fresh;
    }
    const bool fresh = !big_[static_cast<std::size_t>(d)];
    big_[static_cast<std::size_t>(d)] = true;
    return fresh;
  }
  bool contains(int64_t d) const {
    return big_.empty() ? (small_ >> d) & 1 : static_cast<bool>(big_[static_cast<std::size_t>(d)]);
  }

 private:
  uint64_t small_ = 0;
  std::vector<bool> big_;
};

// Outcome of resolving a requested shape against a number of elements. A status rather than an
// exception, because unflatten rewords some of these failures and passes others through.
enum class InferSize { Ok, TwoInferred, NegativeDim, Mismatch, Ambiguous };

// Writes `shape` into g's sizes with the one -1 (if any) replaced by what makes the element
// count `numel` (PyTorch's infer_size). g's strides are left for the caller.
inline InferSize infer_view_size(IntArrayRef shape, int64_t numel, SizesAndStrides& g,
                                 int64_t* bad_dim = nullptr) {
  g.resize(shape.size());
  uint64_t known = 1;     // product of the given sizes
  bool overflow = false;  // sticky, as safe_compute_numel's
  int64_t inferred = -1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    g.size_at_unchecked(d) = shape[d];
    if (shape[d] == -1) {
      if (inferred >= 0) return InferSize::TwoInferred;
      inferred = static_cast<int64_t>(d);
    } else if (shape[d] >= 0) {
      overflow |= mul_overflows(known, static_cast<uint64_t>(shape[d]), &known);
    } else {
      if (bad_dim) *bad_dim = shape[d];
      return InferSize::NegativeDim;
    }
  }
  if (overflow || known > kStorageMax) {
    // More elements than int64 holds never match `numel`. PyTorch's product wraps, and when
    // it wraps to 0 on an empty tensor it accepts the shape and fails setting it, with
    // TensorImpl's message (before any storage check, which view does not make).
    TP_CHECK(numel != 0 || inferred >= 0, "numel: integer multiplication overflow");
    return InferSize::Mismatch;
  }
  if (static_cast<uint64_t>(numel) == known) {
    if (inferred < 0) return InferSize::Ok;
  } else if (inferred < 0 || known == 0 || static_cast<uint64_t>(numel) % known != 0) {
    return InferSize::Mismatch;
  }
  // numpy's rule: with zero elements the -1 could be anything, so it is refused, with a
  // message that explains why `empty.view(0, 0)` works and `empty.view(-1, 0)` does not.
  if (known == 0) return InferSize::Ambiguous;
  g.size_at_unchecked(static_cast<std::size_t>(inferred)) =
      static_cast<int64_t>(static_cast<uint64_t>(numel) / known);
  return InferSize::Ok;
}

[[noreturn]] inline void throw_infer_view_size(InferSize r, IntArrayRef shape, int64_t numel,
                                               int64_t bad_dim) {
  switch (r) {
    case InferSize::TwoInferred: TP_ERROR("only one dimension can be inferred");
    case InferSize::NegativeDim: TP_ERROR("invalid shape dimension ", bad_dim);
    case InferSize::Ambiguous:
      TP_ERROR("cannot reshape tensor of 0 elements into shape ", shape,
               " because the unspecified dimension size -1 can be any value and is ambiguous");
    case InferSize::Mismatch:
    case InferSize::Ok: break;
  }
  TP_ERROR("shape '", shape, "' is invalid for input of size ", numel);
}

inline void infer_view_size_or_throw(IntArrayRef shape, int64_t numel, SizesAndStrides& g) {
  int64_t bad_dim = 0;
  const InferSize r = infer_view_size(shape, numel, g, &bad_dim);
  if (r != InferSize::Ok) throw_infer_view_size(r, shape, numel, bad_dim);
}

// Strides that let the old layout be read with g's sizes, written into g; false when no
// strides can (PyTorch's computeStride).
//
// The old dims split into "chunks": maximal runs in which each dim steps exactly over the whole
// of the dims to its right, so a chunk is one evenly strided block of memory however many dims
// describe it. A new shape is viewable exactly when each chunk's elements are covered by a run
// of consecutive new dims (new size-1 dims may go anywhere): inside a chunk any regrouping is
// just counting, but a new dim that straddles two chunks would need two different step sizes.
// We walk both shapes from the innermost dim outwards, closing a chunk whenever the next old
// dim out does not continue it, and give the new dims of that chunk strides counted in units
// of the chunk's innermost stride.
inline bool compute_view_strides(IntArrayRef old_sizes, IntArrayRef old_strides,
                                 SizesAndStrides& g) {
  const auto new_rank = static_cast<int64_t>(g.size());
  int64_t* new_strides = g.strides_data();
  const int64_t* new_sizes = g.sizes_data();

  if (old_sizes.empty()) {  // 0-d: one element, every new dim has size 1
    for (int64_t d = 0; d < new_rank; ++d) new_strides[d] = 1;
    return true;
  }
  int64_t numel = 1;
  for (int64_t s : old_sizes) numel *= s;
  if (numel == 0) {
    // No element is ever addressed. numpy keeps the strides when the shape does not change and
    // otherwise uses those a fresh contiguous tensor of the new shape would have.
    if (old_sizes == g.sizes_arrayref()) {
      for (int64_t d = 0; d < new_rank; ++d) new_strides[d] = old_strides[d];
    } else {
      int64_t running = 1;
      for (int64_t d = new_rank - 1; d >= 0; --d) {
        new_strides[d] = running;
        // Wraps (defined) as PyTorch's does: [0, 2^62, 4] gets strides [0, 4, 1].
        mul_overflows(running, new_sizes[d] > 1 ? new_sizes[d] : 1, &running);
      }
    }
    return true;
  }

  int64_t nd = new_rank - 1;          // next new dim to place, walking outwards
  int64_t base = old_strides.back();  // the current chunk's innermost stride
  int64_t chunk_numel = 1, placed_numel = 1;
  for (auto od = static_cast<int64_t>(old_sizes.size()) - 1; od >= 0; --od) {
    chunk_numel *= old_sizes[od];
    // A product that overflows is no stride any tensor has: the chunk ends there.
    int64_t span = 0;
    const bool chunk_continues =
        od > 0 && (old_sizes[od - 1] == 1 ||
                   (!mul_overflows(chunk_numel, base, &span) && old_strides[od - 1] == span));
    if (chunk_continues) continue;
    while (nd >= 0 && (placed_numel < chunk_numel || new_sizes[nd] == 1)) {
      new_strides[nd] = placed_numel * base;
      placed_numel *= new_sizes[nd];
      --nd;
    }
    if (placed_numel != chunk_numel) return false;
    if (od > 0) {
      base = old_strides[od - 1];
      chunk_numel = placed_numel = 1;
    }
  }
  return nd == -1;
}

inline void check_has_dims(const TensorImpl& self, const char* op) {
  TP_CHECK_INDEX(self.dim() > 0, op, "() cannot be applied to a 0-dim tensor.");
}

// slice's clamping (Python's for slices, PyTorch's for out-of-range ends): wraps negative
// bounds once, then clamps both into [0, size] with end >= start.
inline std::pair<int64_t, int64_t> clamp_slice(int64_t size, std::optional<int64_t> start,
                                               std::optional<int64_t> end) {
  int64_t lo = start.value_or(0);
  int64_t hi = end.value_or(std::numeric_limits<int64_t>::max());
  if (lo == std::numeric_limits<int64_t>::max()) lo = 0;  // PyTorch's "default" marker
  if (lo < 0) lo += size;
  if (hi < 0) hi += size;
  if (lo < 0) lo = 0;
  if (lo > size) lo = size;
  if (hi < lo) hi = lo;
  if (hi > size) hi = size;
  return {lo, hi};
}

// Geometry with one dim removed (select, squeeze(dim)).
inline void drop_dim(const SizesAndStrides& in, int64_t dim, SizesAndStrides& out) {
  const auto n = static_cast<int64_t>(in.size());
  out.resize(static_cast<std::size_t>(n - 1));
  for (int64_t d = 0, o = 0; d < n; ++d) {
    if (d == dim) continue;
    out.size_at_unchecked(o) = in.size_at_unchecked(d);
    out.stride_at_unchecked(o) = in.stride_at_unchecked(d);
    ++o;
  }
}

// Geometry with a size-1 dim inserted at `dim`; its stride is what the dim it displaces would
// step over (1 at the end), so contiguity is preserved.
inline void insert_unit_dim(const SizesAndStrides& in, int64_t dim, SizesAndStrides& out) {
  const auto n = static_cast<int64_t>(in.size());
  out.resize(static_cast<std::size_t>(n + 1));
  for (int64_t d = 0, o = 0; o <= n; ++o) {
    if (o == dim) {
      out.size_at_unchecked(o) = 1;
      out.stride_at_unchecked(o) =
          dim >= n ? 1 : in.size_at_unchecked(dim) * in.stride_at_unchecked(dim);
    } else {
      out.size_at_unchecked(o) = in.size_at_unchecked(d);
      out.stride_at_unchecked(o) = in.stride_at_unchecked(d);
      ++d;
    }
  }
}

// Geometry without the size-1 dims d for which drop(d) is true.
template <class Drop>
void drop_unit_dims(const SizesAndStrides& in, Drop drop, SizesAndStrides& out) {
  const auto n = static_cast<int64_t>(in.size());
  std::size_t kept = 0;
  for (int64_t d = 0; d < n; ++d) kept += !(in.size_at_unchecked(d) == 1 && drop(d));
  out.resize(kept);
  for (int64_t d = 0, o = 0; d < n; ++d) {
    if (in.size_at_unchecked(d) == 1 && drop(d)) continue;
    out.size_at_unchecked(o) = in.size_at_unchecked(d);
    out.stride_at_unchecked(o) = in.stride_at_unchecked(d);
    ++o;
  }
}

inline void check_t(const TensorImpl& self, const char* op) {
  TP_CHECK(self.dim() <= 2, op, " expects a tensor with <= 2 dimensions, but self is ", self.dim(),
           "D");
}

}  // namespace detail

// ---- select / [] / slice / narrow -----------------------------------------------------------

// Drops `dim`, advancing the offset to element `index` along it.
template <class>
Tensor Tensor::select(int64_t dim, int64_t index) const {
  const TensorImpl* self = impl("select");
  detail::check_has_dims(*self, "select");
  dim = maybe_wrap_dim(dim, self->dim());
  const int64_t size = self->sizes()[dim];
  TP_CHECK_INDEX(index >= -size && index < size, "select(): index ", index,
                 " out of range for tensor of size ", self->sizes(), " at dimension ", dim);
  if (index < 0) index += size;
  SizesAndStrides g;
  detail::drop_dim(self->sizes_and_strides(), dim, g);
  return detail::view_op(
      *this, g.sizes_arrayref(), g.strides_arrayref(),
      self->storage_offset() + index * self->strides()[dim], "SelectBackward0",
      [&] {
        return detail::ag::scatter_backward(
            sizes(), "SelectBackward0",
            [dim, index](const Tensor& t) { return t.select(dim, index); });
      },
      detail::ChannelMap{detail::ChannelMap::Kind::Select, dim, index});
}

// libtorch's operator[] with an integer is select(0, index), with select's message.
template <class>
Tensor Tensor::operator[](int64_t index) const {
  return select(0, index);
}

// Elements start, start+step, ... before end along `dim`; the offset advances to `start` and the
// stride scales by `step`. Out-of-range bounds are clamped, never an error.
template <class>
Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                     int64_t step) const {
  const TensorImpl* self = impl("slice");
  detail::check_has_dims(*self, "slice");
  dim = maybe_wrap_dim(dim, self->dim());
  TP_CHECK(step > 0, "slice step must be positive");
  const auto [lo, hi] = detail::clamp_slice(self->sizes()[dim], start, end);
  SizesAndStrides g = self->sizes_and_strides();
  const int64_t stride = g.stride_at_unchecked(dim);
  // ceil((hi - lo) / step), written so that a huge step cannot overflow.
  const int64_t size = hi == lo ? 0 : (hi - lo - 1) / step + 1;
  g.size_at_unchecked(dim) = size;
  // stride * step can overflow only for a step beyond the dim, which leaves one element whose
  // stride is never used; keep the old one then.
  int64_t scaled = 0;
  g.stride_at_unchecked(dim) = __builtin_mul_overflow(stride, step, &scaled) ? stride : scaled;
  return detail::view_op(
      *this, g.sizes_arrayref(), g.strides_arrayref(), self->storage_offset() + lo * stride,
      "SliceBackward0",
      [&, lo = lo, hi = hi] {
        return detail::ag::scatter_backward(
            sizes(), "SliceBackward0",
            [dim, lo, hi, step](const Tensor& t) { return t.slice(dim, lo, hi, step); });
      },
      detail::ChannelMap{detail::ChannelMap::Kind::Slice, dim, lo, step});
}

// slice with bounds that must be in range (start may be negative, and may equal the size).
template <class>
Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  const TensorImpl* self = impl("narrow");
  TP_CHECK(self->dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  const int64_t size = self->size(dim);
  // start == size is a valid, empty narrow but not a valid index, so it is not wrapped.
  if (start != size) start = maybe_wrap_dim(start, size);
  TP_CHECK(length >= 0 && start <= size - length, "start (", start, ") + length (", length,
           ") exceeds dimension size (", size, ").");
  return slice(dim, start, start + length, 1);
}

template <class>
Tensor Tensor::narrow(int64_t dim, const Tensor& start, int64_t length) const {
  TP_CHECK(start.dim() == 0 && is_integral(start.dtype(), /*include_bool=*/false),
           "start must be an 0-dim integral Tensor.");
  return narrow(dim, start.item<int64_t>(), length);
}

// ---- view / reshape ---------------------------------------------------------------------------

template <class>
Tensor Tensor::view(IntArrayRef size) const {
  const TensorImpl* self = impl("view");
  SizesAndStrides g;
  detail::infer_view_size_or_throw(size, self->numel(), g);
  TP_CHECK(detail::compute_view_strides(self->sizes(), self->strides(), g),
           "view size is not compatible with input tensor's size and stride (at least one "
           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return detail::view_op(
      *this, g.sizes_arrayref(), g.strides_arrayref(), self->storage_offset(), "ViewBackward0",
      [&] { return detail::ag::reshape_backward(sizes()); },
      detail::ChannelMap{detail::ChannelMap::Kind::Regroup});
}

// Reinterprets the bytes as another dtype. Same item size: same geometry. Smaller item size:
// the last dim (which must be contiguous) grows by the ratio, and other strides and the offset
// scale up. Larger: the last dim, the offset and every other stride must divide by the ratio.
template <class>
Tensor Tensor::view(DType dtype) const {
  const TensorImpl* self = impl("view");
  const auto old_size = static_cast<int64_t>(self->itemsize());
  const auto new_size = static_cast<int64_t>(tensorplay::itemsize(dtype));
  const int64_t ndim = self->dim();
  const std::string_view from = scalar_type_name(self->dtype()), to = scalar_type_name(dtype);
  if (old_size == new_size) {
    return detail::make_alias(*self, self->sizes(), self->strides(), self->storage_offset(), dtype,
                              /*is_view=*/false);
  }
  TP_CHECK(ndim != 0, "self.dim() cannot be 0 to view ", from, " as ", to,
           " (different element sizes)");
  SizesAndStrides g = self->sizes_and_strides();
  const int64_t last = ndim - 1;
  int64_t offset = self->storage_offset();
  if (old_size > new_size) {
    const int64_t ratio = old_size / new_size;
    TP_CHECK(g.stride_at_unchecked(last) == 1, "self.stride(-1) must be 1 to view ", from, " as ",
             to, " (different element sizes), but got ", g.stride_at_unchecked(last));
    for (int64_t d = 0; d < last; ++d) g.stride_at_unchecked(d) *= ratio;
    g.size_at_unchecked(last) *= ratio;
    offset *= ratio;
  } else {
    const int64_t ratio = new_size / old_size;
    TP_CHECK(g.size_at_unchecked(last) % ratio == 0, "self.size(-1) must be divisible by ", ratio,
             " to view ", from, " as ", to, " (different element sizes), but got ",
             g.size_at_unchecked(last));
    TP_CHECK(offset % ratio == 0, "self.storage_offset() must be divisible by ", ratio, " to view ",
             from, " as ", to, " (different element sizes), but got ", offset);
    TP_CHECK(g.stride_at_unchecked(last) == 1, "self.stride(-1) must be 1 to view ", from, " as ",
             to, " (different element sizes), but got ", g.stride_at_unchecked(last));
    for (int64_t d = 0; d < last; ++d) {
      TP_CHECK(g.stride_at_unchecked(d) % ratio == 0, "self.stride(", d, ") must be divisible by ",
               ratio, " to view ", from, " as ", to, " (different element sizes), but got ",
               g.stride_at_unchecked(d));
      g.stride_at_unchecked(d) /= ratio;
    }
    g.size_at_unchecked(last) /= ratio;
    offset /= ratio;
  }
  return detail::make_alias(*self, g.sizes_arrayref(), g.strides_arrayref(), offset, dtype,
                            /*is_view=*/false);
}

template <class>
Tensor Tensor::view_as(const Tensor& other) const {
  return view(other.sizes());
}

// A view when the layout allows one, else a contiguous copy given the new shape. The copy is a
// new value, not a view: is_view() is false and its version starts at 0 (PyTorch's
// _unsafe_view of a clone).
template <class>
Tensor Tensor::reshape(IntArrayRef shape) const {
  const TensorImpl* self = impl("reshape");
  SizesAndStrides g;
  detail::infer_view_size_or_throw(shape, self->numel(), g);
  if (detail::compute_view_strides(self->sizes(), self->strides(), g)) {
    return detail::view_op(
        *this, g.sizes_arrayref(), g.strides_arrayref(), self->storage_offset(),
        "ReshapeAliasBackward0", [&] { return detail::ag::reshape_backward(sizes()); },
        detail::ChannelMap{detail::ChannelMap::Kind::Regroup});
  }
  // PyTorch's _unsafe_view(clone()): CloneBackward0, then UnsafeViewBackward0 (not a view).
  Tensor copy = clone(MemoryFormat::Contiguous);
  auto node = autograd::detail::make_node<autograd::UnsafeViewBackward0>(copy);
  if (node) node->self_sizes_ = sizes().vec();
  int64_t running = 1;
  for (auto d = static_cast<int64_t>(g.size()) - 1; d >= 0; --d) {
    g.stride_at_unchecked(d) = running;
    running *= g.size_at_unchecked(d) > 1 ? g.size_at_unchecked(d) : 1;
  }
  // A per-channel quantized copy regroups its channel axis as a view would (set_strided refuses
  // per-channel tensors, whose geometry users may not change in place).
  TensorImpl* c = copy.unsafeGetTensorImpl();
  std::shared_ptr<Quantizer> regrouped;
  if (c->has_quantizer() && c->quantizer()->qscheme() == kPerChannelAffine) {
    regrouped = detail::per_channel_view_quantizer(
        *c, g.sizes_arrayref(), detail::ChannelMap{detail::ChannelMap::Kind::Regroup});
    c->set_quantizer(nullptr);
  }
  detail::set_strided(*c, g.sizes_arrayref(), g.strides_arrayref(), copy.storage_offset(),
                      "reshape");
  if (regrouped) c->set_quantizer(std::move(regrouped));
  if (node) autograd::detail::set_history(copy, node);
  return copy;
}

template <class>
Tensor Tensor::reshape_as(const Tensor& other) const {
  return reshape(other.sizes());
}

// ---- transpose / permute / movedim -------------------------------------------------------------

namespace detail {
// transpose and t (which differ in their node's name only), out of place and in place.
template <class = void>
Tensor transpose_view(const Tensor& t, int64_t dim0, int64_t dim1, const char* name) {
  const TensorImpl* self = t.unsafeGetTensorImpl();
  dim0 = maybe_wrap_dim(dim0, self->dim());
  dim1 = maybe_wrap_dim(dim1, self->dim());
  if (dim0 == dim1) return same_view(t, name);
  SizesAndStrides g = self->sizes_and_strides();
  std::swap(g.size_at_unchecked(dim0), g.size_at_unchecked(dim1));
  std::swap(g.stride_at_unchecked(dim0), g.stride_at_unchecked(dim1));
  return view_op(t, g.sizes_arrayref(), g.strides_arrayref(), self->storage_offset(), name,
                 [&] { return ag::transpose_backward(dim0, dim1); });
}

template <class = void>
const Tensor& transpose_inplace(const Tensor& t, int64_t dim0, int64_t dim1, const char* name) {
  TensorImpl* self = t.unsafeGetTensorImpl();
  dim0 = maybe_wrap_dim(dim0, self->dim());
  dim1 = maybe_wrap_dim(dim1, self->dim());
  auto node = ag::begin_inplace_view(t, name, [&] { return ag::transpose_backward(dim0, dim1); });
  if (dim0 != dim1) {
    SizesAndStrides g = self->sizes_and_strides();
    std::swap(g.size_at_unchecked(dim0), g.size_at_unchecked(dim1));
    std::swap(g.stride_at_unchecked(dim0), g.stride_at_unchecked(dim1));
    set_strided(*self, g.sizes_arrayref(), g.strides_arrayref(), self->storage_offset(),
                "transpose_");
  }
  self->bump_version();  // an in-place op even when it changes nothing, as in PyTorch
  ag::end_inplace_view(t, node);
  return t;
}
}  // namespace detail

template <class>
Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  impl("transpose");
  return detail::transpose_view(*this, dim0, dim1, "TransposeBackward0");
}

template <class>
const Tensor& Tensor::transpose_(int64_t dim0, int64_t dim1) const {
  impl("transpose_");
  return detail::transpose_inplace(*this, dim0, dim1, "TransposeBackward1");
}

template <class>
Tensor Tensor::swapdims(int64_t dim0, int64_t dim1) const {
  return transpose(dim0, dim1);
}
template <class>
Tensor Tensor::swapaxes(int64_t dim0, int64_t dim1) const {
  return transpose(dim0, dim1);
}

template <class>
Tensor Tensor::t() const {
  const TensorImpl* self = impl("t");
  detail::check_t(*self, "t()");
  return detail::transpose_view(*this, 0, self->dim() < 2 ? 0 : 1, "TBackward0");
}

template <class>
const Tensor& Tensor::t_() const {
  const TensorImpl* self = impl("t_");
  detail::check_t(*self, "t_()");
  return detail::transpose_inplace(*this, 0, self->dim() < 2 ? 0 : 1, "TBackward1");
}

// The last two dims swapped (a batch of matrix transposes).
template <class>
Tensor Tensor::mT() const {
  const TensorImpl* self = impl("mT");
  TP_CHECK(self->dim() >= 2, "tensor.mT is only supported on matrices or batches of matrices. Got ",
           self->dim(), "-D tensor.");
  return transpose(-2, -1);
}

// Result dim i is input dim dims[i].
template <class>
Tensor Tensor::permute(IntArrayRef dims) const {
  const TensorImpl* self = impl("permute");
  const int64_t ndim = self->dim();
  // PyTorch 1.13 shares this check with its sparse kernel, "sparse_coo" prefix included.
  TP_CHECK(static_cast<std::size_t>(ndim) == dims.size(),
           "permute(sparse_coo): number of dimensions in the tensor input does not match the "
           "length of the desired ordering of dimensions i.e. input.dim() = ",
           ndim, " is not equal to len(dims) = ", dims.size());
  detail::DimSet seen(ndim);
  SizesAndStrides g;
  g.resize(static_cast<std::size_t>(ndim));
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t d = maybe_wrap_dim(dims[i], ndim);
    TP_CHECK(seen.insert(d), "permute(): duplicate dims are not allowed.");
    g.size_at_unchecked(i) = self->sizes()[d];
    g.stride_at_unchecked(i) = self->strides()[d];
  }
  return detail::view_op(*this, g.sizes_arrayref(), g.strides_arrayref(), self->storage_offset(),
                         "PermuteBackward0", [&] { return detail::ag::permute_backward(dims); });
}

// Dims source[i] move to destination[i]; the others keep their relative order in the slots
// left over.
template <class>
Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  const TensorImpl* self = impl("movedim");
  TP_CHECK(source.size() == destination.size(),
           "movedim: Invalid source or destination dims: source (", source,
           " dims) should contain the same number of dims as destination (", destination, " dims)");
  const int64_t ndim = self->dim();
  SizesAndStrides pairs;  // wrapped sources in the sizes, wrapped destinations in the strides
  pairs.resize(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    pairs.size_at_unchecked(i) = maybe_wrap_dim(source[i], ndim);
  }
  for (std::size_t i = 0; i < destination.size(); ++i) {
    pairs.stride_at_unchecked(i) = maybe_wrap_dim(destination[i], ndim);
  }
  detail::DimSet moved(ndim), taken(ndim);
  for (std::size_t i = 0; i < source.size(); ++i) {
    TP_CHECK(moved.insert(pairs.size_at_unchecked(i)), "movedim: repeated dim in `source` (",
             source, ")");
  }
  for (std::size_t i = 0; i < destination.size(); ++i) {
    TP_CHECK(taken.insert(pairs.stride_at_unchecked(i)), "movedim: repeated dim in `destination` (",
             destination, ")");
  }
  if (ndim == 0) return alias();
  SizesAndStrides order;  // the permutation, in the sizes
  order.resize(static_cast<std::size_t>(ndim));
  for (std::size_t i = 0; i < source.size(); ++i) {
    order.size_at_unchecked(pairs.stride_at_unchecked(i)) = pairs.size_at_unchecked(i);
  }
  for (int64_t slot = 0, next = 0; slot < ndim; ++slot) {
    if (taken.contains(slot)) continue;
    while (moved.contains(next)) ++next;
    order.size_at_unchecked(slot) = next++;
  }
  return permute(order.sizes_arrayref());
}

template <class>
Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  return movedim(IntArrayRef(source), IntArrayRef(destination));
}
template <class>
Tensor Tensor::moveaxis(IntArrayRef source, IntArrayRef destination) const {
  return movedim(source, destination);
}
template <class>
Tensor Tensor::moveaxis(int64_t source, int64_t destination) const {
  return movedim(source, destination);
}

// ---- expand -----------------------------------------------------------------------------------

namespace detail {
// The gradient sums over the repeated elements: the replayed expand of zeros aliases each input
// element as often as it was repeated, and view_scatter accumulates into aliases.
template <class = void>
Tensor expand_view(const Tensor& self, const SizesAndStrides& g, IntArrayRef size) {
  return view_op(self, g.sizes_arrayref(), g.strides_arrayref(), self.storage_offset(),
                 "ExpandBackward0", [&] {
                   return ag::scatter_backward(
                       self.sizes(), "ExpandBackward0",
                       [size = size.vec()](const Tensor& t) { return t.expand(size); });
                 });
}
}  // namespace detail

// Size-1 dims (and new leading dims) repeat with stride 0; -1 keeps an existing size.
template <class>
Tensor Tensor::expand(IntArrayRef size, bool /*implicit*/) const {
  const TensorImpl* self = impl("expand");
  const auto ndim = static_cast<int64_t>(size.size());
  const int64_t tdim = self->dim();
  TP_CHECK(ndim >= tdim, "expand(tensorplay.", legacy_type_name(self->dtype()), "{", self->sizes(),
           "}, size=", size, "): the number of sizes provided (", ndim,
           ") must be greater or equal to the number of dimensions in the tensor (", tdim, ")");
  SizesAndStrides g;
  g.resize(static_cast<std::size_t>(ndim));
  if (tdim == 0) {  // a scalar broadcasts to anything: every stride 0
    for (int64_t i = 0; i < ndim; ++i) {
      g.size_at_unchecked(i) = size[i];
      g.stride_at_unchecked(i) = 0;
    }
    return detail::expand_view(*this, g, size);
  }
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t d = i - (ndim - tdim);  // the matching input dim, < 0 for a new leading dim
    int64_t sz = d >= 0 ? self->sizes()[d] : 1;
    // A new leading dim steps over the dim after it. Its stride is never used to address (the
    // dim has size 1, or is expanded and gets stride 0 below), so a product that overflows
    // int64 is replaced by 0 rather than wrapping to a negative stride.
    int64_t st = d >= 0 ? self->strides()[d] : 0;
    if (d < 0 &&
        detail::mul_overflows(g.size_at_unchecked(i + 1), g.stride_at_unchecked(i + 1), &st)) {
      st = 0;
    }
    int64_t target = size[i];
    if (target == -1) {
      TP_CHECK(d >= 0, "The expanded size of the tensor (", target,
               ") isn't allowed in a leading, non-existing dimension ", i);
      target = sz;
    }
    if (sz != target) {
      TP_CHECK(sz == 1, "The expanded size of the tensor (", target,
               ") must match the existing size (", sz, ") at non-singleton dimension ", i,
               ".  Target sizes: ", size, ".  Tensor sizes: ", self->sizes());
      sz = target;
      st = 0;
    }
    g.size_at_unchecked(i) = sz;
    g.stride_at_unchecked(i) = st;
  }
  return detail::expand_view(*this, g, size);
}

template <class>
Tensor Tensor::expand_as(const Tensor& other) const {
  return expand(other.sizes());
}

// ---- squeeze / unsqueeze ----------------------------------------------------------------------

namespace detail {
// squeeze and unsqueeze only regroup the elements: their gradient is a reshape.
template <class = void>
Tensor regroup_view(const Tensor& self, const SizesAndStrides& g, const char* name) {
  return view_op(
      self, g.sizes_arrayref(), g.strides_arrayref(), self.storage_offset(), name,
      [&] { return ag::reshape_backward(self.sizes()); }, ChannelMap{ChannelMap::Kind::Regroup});
}
// Their in-place forms: self takes the geometry `g`.
template <class = void>
const Tensor& regroup_inplace(const Tensor& t, const SizesAndStrides& g, const char* name,
                              const char* op) {
  TensorImpl* self = t.unsafeGetTensorImpl();
  auto node = ag::begin_inplace_view(t, name, [&] { return ag::reshape_backward(t.sizes()); });
  set_strided(*self, g.sizes_arrayref(), g.strides_arrayref(), self->storage_offset(), op);
  self->bump_version();
  ag::end_inplace_view(t, node);
  return t;
}
}  // namespace detail

template <class>
Tensor Tensor::squeeze() const {
  const TensorImpl* self = impl("squeeze");
  SizesAndStrides g;
  detail::drop_unit_dims(
      self->sizes_and_strides(), [](int64_t) { return true; }, g);
  return detail::regroup_view(*this, g, "SqueezeBackward0");
}

// Drops `dim` if it has size 1; otherwise still a view, of the same geometry.
template <class>
Tensor Tensor::squeeze(int64_t dim) const {
  const TensorImpl* self = impl("squeeze");
  dim = maybe_wrap_dim(dim, self->dim());
  if (self->dim() == 0 || self->sizes()[dim] != 1)
    return detail::same_view(*this, "SqueezeBackward1");
  SizesAndStrides g;
  detail::drop_dim(self->sizes_and_strides(), dim, g);
  return detail::regroup_view(*this, g, "SqueezeBackward1");
}

// The dims of `dims` that have size 1 (PyTorch 2.0's squeeze.dims, whose node 2.0 names
// SqueezeBackward2; 1.13 has no list form).
template <class>
Tensor Tensor::squeeze(IntArrayRef dims) const {
  const TensorImpl* self = impl("squeeze");
  const int64_t ndim = self->dim();
  detail::DimSet listed(ndim);
  for (int64_t d : dims) {
    const int64_t w = maybe_wrap_dim(d, ndim);
    TP_CHECK(listed.insert(w), "dim ", w, " appears multiple times in the list of dims");
  }
  SizesAndStrides g;
  detail::drop_unit_dims(
      self->sizes_and_strides(), [&](int64_t d) { return listed.contains(d); }, g);
  return detail::regroup_view(*this, g, "SqueezeBackward2");
}

template <class>
const Tensor& Tensor::squeeze_() const {
  TensorImpl* self = impl("squeeze_");
  SizesAndStrides g;
  detail::drop_unit_dims(
      self->sizes_and_strides(), [](int64_t) { return true; }, g);
  return detail::regroup_inplace(*this, g, "SqueezeBackward2", "squeeze_");
}

template <class>
const Tensor& Tensor::squeeze_(int64_t dim) const {
  TensorImpl* self = impl("squeeze_");
  dim = maybe_wrap_dim(dim, self->dim());
  SizesAndStrides g = self->sizes_and_strides();
  if (self->dim() > 0 && self->sizes()[dim] == 1) {
    detail::drop_dim(self->sizes_and_strides(), dim, g);
  }
  return detail::regroup_inplace(*this, g, "SqueezeBackward3", "squeeze_");
}

template <class>
Tensor Tensor::unsqueeze(int64_t dim) const {
  const TensorImpl* self = impl("unsqueeze");
  dim = maybe_wrap_dim(dim, self->dim() + 1);
  SizesAndStrides g;
  detail::insert_unit_dim(self->sizes_and_strides(), dim, g);
  return detail::regroup_view(*this, g, "UnsqueezeBackward0");
}

template <class>
const Tensor& Tensor::unsqueeze_(int64_t dim) const {
  TensorImpl* self = impl("unsqueeze_");
  dim = maybe_wrap_dim(dim, self->dim() + 1);
  SizesAndStrides g;
  detail::insert_unit_dim(self->sizes_and_strides(), dim, g);
  return detail::regroup_inplace(*this, g, "UnsqueezeBackward1", "unsqueeze_");
}

// ---- flatten / unflatten ----------------------------------------------------------------------

// Dims start_dim..end_dim merged into one, through reshape (a copy if they cannot be merged in
// place). start_dim == end_dim returns this very tensor, as PyTorch does.
template <class>
Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  const TensorImpl* self = impl("flatten");
  const int64_t ndim = self->dim();
  start_dim = maybe_wrap_dim(start_dim, ndim);
  end_dim = maybe_wrap_dim(end_dim, ndim);
  TP_CHECK(start_dim <= end_dim, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (ndim == 0) return reshape(int64_t{1});
  if (start_dim == end_dim) return *this;
  // The merged size is computed, not inferred with -1: in [0, 1, 3, 0] flattening dims 1..2
  // must give 3, while a -1 next to a 0 could be anything.
  SizesAndStrides g;
  g.resize(static_cast<std::size_t>(ndim - (end_dim - start_dim)));
  int64_t merged = 1;
  for (int64_t d = 0, o = 0; d < ndim; ++d) {
    if (d < start_dim || d > end_dim) {
      g.size_at_unchecked(o++) = self->sizes()[d];
    } else {
      merged *= self->sizes()[d];
      if (d == end_dim) g.size_at_unchecked(o++) = merged;
    }
  }
  return reshape(g.sizes_arrayref());
}

// `dim` split into `sizes` (one of which may be -1), as a view.
template <class>
Tensor Tensor::unflatten(int64_t dim, IntArrayRef sizes) const {
  const TensorImpl* self = impl("unflatten");
  const int64_t ndim = self->dim();
  dim = maybe_wrap_dim(dim, ndim);
  TP_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  const int64_t size = self->size(dim);
  SizesAndStrides inner;
  int64_t bad_dim = 0;
  switch (detail::infer_view_size(sizes, size, inner, &bad_dim)) {
    case detail::InferSize::Ok: break;
    case detail::InferSize::Mismatch:
      TP_ERROR("unflatten: Provided sizes ", sizes, " don't multiply up to the size of dim ", dim,
               " (", size, ") in the input tensor");
    case detail::InferSize::TwoInferred:
      // PyTorch wraps the one failure of infer_size that is a plain std::runtime_error.
      TP_ERROR("unflatten got an unexpected error:\nonly one dimension can be inferred");
    case detail::InferSize::NegativeDim:
      detail::throw_infer_view_size(detail::InferSize::NegativeDim, sizes, size, bad_dim);
    case detail::InferSize::Ambiguous:
      detail::throw_infer_view_size(detail::InferSize::Ambiguous, sizes, size, bad_dim);
  }
  SizesAndStrides g;
  g.resize(static_cast<std::size_t>(ndim - 1) + inner.size());
  for (int64_t d = 0, o = 0; d < ndim; ++d) {
    if (d != dim) {
      g.size_at_unchecked(o++) = self->sizes()[d];
      continue;
    }
    for (std::size_t k = 0; k < inner.size(); ++k)
      g.size_at_unchecked(o++) = inner.size_at_unchecked(k);
  }
  return view(g.sizes_arrayref());
}

// ---- split / chunk / unbind -------------------------------------------------------------------

namespace detail {
// `count` views of self, piece(t, i) being the i-th: made without history, then given one node
// for all of them (PyTorch's SplitBackward0 and friends are multi-output nodes), whose
// gradient writes each piece's gradient through the same replay.
template <class Piece>
std::vector<Tensor> multi_view(const Tensor& self, int64_t count, const char* name, Piece piece) {
  std::vector<Tensor> out;
  out.reserve(static_cast<std::size_t>(count));
  {
    NoGradGuard no_grad;  // the pieces' own view nodes would be the wrong ones
    for (int64_t i = 0; i < count; ++i) out.push_back(piece(self, i));
  }
  // Made under the guard above, the pieces say NO_GRAD_MODE; they are the outputs of one
  // multi-view op (PyTorch refuses in-place writes to them that would record).
  if (GradMode::is_enabled() && !InferenceMode::is_enabled()) {
    for (const Tensor& t : out) {
      TensorImpl* p = t.unsafeGetTensorImpl();
      if (p->is_view() && p->creation_meta() != CreationMeta::INFERENCE_MODE)
        p->set_creation_meta(CreationMeta::MULTI_OUTPUT_NODE);
    }
  }
  if (ag::records_view(self)) {
    std::vector<ag::ViewFn> replays;
    replays.reserve(out.size());
    for (int64_t i = 0; i < count; ++i) {
      replays.emplace_back([piece, i](const Tensor& t) { return piece(t, i); });
    }
    ag::record_multi_view(out, self, name, std::move(replays));
  }
  return out;
}
}  // namespace detail

// Pieces of split_size along dim, the last one smaller if the size does not divide. A
// split_size beyond the size gives the whole tensor as one piece; 0 is allowed only for an
// empty dim (one empty piece).
template <class>
std::vector<Tensor> Tensor::split(int64_t split_size, int64_t dim) const {
  const TensorImpl* self = impl("split");
  TP_CHECK(self->dim() != 0, "split expects at least a 1-dimensional tensor");
  TP_CHECK(split_size >= 0,
           "split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t size = self->size(dim);
  TP_CHECK(split_size > 0 || size == 0,
           "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  int64_t pieces = 1;
  if (split_size != 0) pieces = size == 0 ? 1 : (size - 1) / split_size + 1;
  return detail::multi_view(*this, pieces, "SplitBackward0",
                            [split_size, dim, pieces, size](const Tensor& t, int64_t i) {
                              const int64_t start = i * split_size;
                              const int64_t length = i + 1 < pieces ? split_size : size - start;
                              return t.narrow(dim, start, length);
                            });
}

template <class>
std::vector<Tensor> Tensor::split(IntArrayRef split_sizes, int64_t dim) const {
  return split_with_sizes(split_sizes, dim);
}

namespace detail {
template <class = void>
std::vector<Tensor> split_with_sizes_view(const Tensor& t, IntArrayRef split_sizes, int64_t dim) {
  const TensorImpl* self = t.unsafeGetTensorImpl();
  TP_CHECK(self->dim() != 0, "split expects at least a 1-dimensional tensor");
  const int64_t size = self->size(dim);
  std::vector<int64_t> starts;
  starts.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t length : split_sizes) {
    TP_CHECK(length >= 0,
             "split_with_sizes expects split_sizes have only non-negative entries, but got "
             "split_sizes=",
             split_sizes);
    starts.push_back(start);
    start += length;
  }
  TP_CHECK(start == size, "split_with_sizes expects split_sizes to sum exactly to ", size,
           " (input tensor's size at dimension ", dim, "), but got split_sizes=", split_sizes);
  return multi_view(
      t, static_cast<int64_t>(split_sizes.size()), "SplitWithSizesBackward0",
      [starts = std::move(starts), lengths = split_sizes.vec(), dim](const Tensor& v, int64_t i) {
        const auto k = static_cast<std::size_t>(i);
        return v.slice(dim, starts[k], starts[k] + lengths[k], 1);
      });
}
}  // namespace detail

// Consecutive pieces of the given sizes, which must sum to the size of dim.
template <class>
std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t dim) const {
  impl("split_with_sizes");
  return detail::split_with_sizes_view(*this, split_sizes, dim);
}

// At most `chunks` pieces of ceil(size / chunks); fewer when the size runs out first. An empty
// dim gives exactly `chunks` empty pieces (split_with_sizes of zeros, as in PyTorch).
template <class>
std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const {
  const TensorImpl* self = impl("chunk");
  TP_CHECK(self->dim() > 0, "chunk expects at least a 1-dimensional tensor");
  TP_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t size = self->size(dim);
  const int64_t split_size = size == 0 ? 0 : (size - 1) / chunks + 1;
  if (size == 0) {
    const std::vector<int64_t> zeros(static_cast<std::size_t>(chunks), 0);
    return detail::split_with_sizes_view(*this, zeros, dim);
  }
  return split(split_size, dim);
}

// Every index along dim, selected.
template <class>
std::vector<Tensor> Tensor::unbind(int64_t dim) const {
  const TensorImpl* self = impl("unbind");
  dim = maybe_wrap_dim(dim, self->dim());
  return detail::multi_view(*this, self->size(dim), "UnbindBackward0",
                            [dim](const Tensor& t, int64_t i) { return t.select(dim, i); });
}

// ---- diagonal / unfold ------------------------------------------------------------------------

// The diagonal of the (dim1, dim2) planes, as a new last dim stepping both at once. A positive
// offset starts that many columns (dim2) in, a negative one that many rows (dim1) down.
template <class>
Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  const TensorImpl* self = impl("diagonal");
  const int64_t ndim = self->dim();
  const int64_t d1 = maybe_wrap_dim(dim1, ndim);
  const int64_t d2 = maybe_wrap_dim(dim2, ndim);
  TP_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t rows = self->sizes()[d1], cols = self->sizes()[d2];
  int64_t length = offset >= 0 ? std::min(rows, cols - offset) : std::min(rows + offset, cols);
  if (length < 0) length = 0;
  int64_t start = self->storage_offset();
  // An offset past the edge leaves an empty diagonal; its storage offset stays put rather than
  // pointing anywhere absurd.
  if (length > 0) {
    start += offset >= 0 ? offset * self->strides()[d2] : -offset * self->strides()[d1];
  }
  SizesAndStrides g;
  g.resize(static_cast<std::size_t>(ndim - 1));
  for (int64_t d = 0, o = 0; d < ndim; ++d) {
    if (d == d1 || d == d2) continue;
    g.size_at_unchecked(o) = self->sizes()[d];
    g.stride_at_unchecked(o) = self->strides()[d];
    ++o;
  }
  g.size_at_unchecked(ndim - 2) = length;
  g.stride_at_unchecked(ndim - 2) = self->strides()[d1] + self->strides()[d2];
  return detail::view_op(
      *this, g.sizes_arrayref(), g.strides_arrayref(), start, "DiagonalBackward0", [&] {
        return detail::ag::scatter_backward(
            sizes(), "DiagonalBackward0",
            [offset, d1, d2](const Tensor& t) { return t.diagonal(offset, d1, d2); });
      });
}

// All windows of `size` elements, `step` apart, along `dimension`: that dim becomes the window
// count and a new last dim walks each window. A 0-d tensor counts as one element.
template <class>
Tensor Tensor::unfold(int64_t dimension, int64_t size, int64_t step) const {
  const TensorImpl* self = impl("unfold");
  const int64_t ndim = self->dim();
  const int64_t d = maybe_wrap_dim(dimension, ndim);
  const int64_t max_size = ndim == 0 ? 1 : self->sizes()[d];
  TP_CHECK(size <= max_size, "maximum size for tensor at dimension ", d, " is ", max_size,
           " but size is ", size);
  TP_CHECK(step > 0, "step is ", step, " but must be > 0");
  SizesAndStrides g;
  g.resize(static_cast<std::size_t>(ndim + 1));
  for (int64_t i = 0; i < ndim; ++i) {
    g.size_at_unchecked(i) = self->sizes()[i];
    g.stride_at_unchecked(i) = self->strides()[i];
  }
  g.size_at_unchecked(ndim) = size;
  g.stride_at_unchecked(ndim) = ndim == 0 ? 1 : self->strides()[d];
  if (ndim > 0) {
    g.size_at_unchecked(d) = (self->sizes()[d] - size) / step + 1;
    // As in slice: stride * step overflows only for a step beyond the dim, which leaves one
    // window whose stride is never used; keep the old one then.
    int64_t scaled = 0;
    if (!detail::mul_overflows(g.stride_at_unchecked(d), step, &scaled)) {
      g.stride_at_unchecked(d) = scaled;
    }
  }
  return detail::view_op(*this, g.sizes_arrayref(), g.strides_arrayref(), self->storage_offset(),
                         "UnfoldBackward0", [&] {
                           return detail::ag::scatter_backward(sizes(), "UnfoldBackward0",
                                                               [d, size, step](const Tensor& t) {
                                                                 return t.unfold(d, size, step);
                                                               });
                         });
}

// ---- tensor_split / hsplit / vsplit / dsplit ---------------------------------------------------
// PyTorch composes these from slice (CompositeImplicitAutograd), so each piece is an ordinary
// slice view with its own SliceBackward0, not an output of one multi-view node.

// `sections` pieces; the first size % sections of them one element longer.
template <class>
std::vector<Tensor> Tensor::tensor_split(int64_t sections, int64_t dim) const {
  const TensorImpl* self = impl("tensor_split");
  TP_CHECK(self->dim() > 0,
           "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
           self->dim(), " dims");
  dim = maybe_wrap_dim(dim, self->dim());
  TP_CHECK(sections > 0, "number of sections must be larger than 0, got ", sections);
  const int64_t size = self->sizes()[dim];
  const int64_t base = size / sections, extra = size % sections;
  std::vector<Tensor> out;
  out.reserve(static_cast<std::size_t>(sections));
  for (int64_t i = 0, start = 0; i < sections; ++i) {
    const int64_t length = base + (i < extra ? 1 : 0);
    out.push_back(slice(dim, start, start + length));
    start += length;
  }
  return out;
}

// Pieces between consecutive indices (slice's clamping: out-of-order indices give empty pieces).
template <class>
std::vector<Tensor> Tensor::tensor_split(IntArrayRef indices, int64_t dim) const {
  const TensorImpl* self = impl("tensor_split");
  TP_CHECK(self->dim() > 0,
           "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
           self->dim(), " dims");
  dim = maybe_wrap_dim(dim, self->dim());
  std::vector<Tensor> out;
  out.reserve(indices.size() + 1);
  int64_t start = 0;
  for (int64_t end : indices) {
    out.push_back(slice(dim, start, end));
    start = end;
  }
  out.push_back(slice(dim, start, self->sizes()[dim]));
  return out;
}

// A 0-d int64 tensor is a number of sections, a 1-d one a list of indices.
template <class>
std::vector<Tensor> Tensor::tensor_split(const Tensor& tensor_indices_or_sections,
                                         int64_t dim) const {
  const TensorImpl* self = impl("tensor_split");
  TP_CHECK(self->dim() > 0,
           "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
           self->dim(), " dims");
  const Tensor& split = tensor_indices_or_sections;
  TP_CHECK(split.dtype() == kLong,
           "tensor_split expected tensor_indices_or_sections to have dtype of long, but got ",
           scalar_type_name(split.dtype()));
  TP_CHECK(split.dim() <= 1,
           "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
           "one-dimensional tensor, but got a tensor with ",
           split.dim(), " dims");
  if (split.dim() == 0) return tensor_split(split.item<int64_t>(), dim);
  std::vector<int64_t> indices(static_cast<std::size_t>(split.numel()));
  // item() reads through the strides and refuses memory the CPU cannot read.
  for (int64_t i = 0; i < split.numel(); ++i) {
    indices[static_cast<std::size_t>(i)] = split.select(0, i).item<int64_t>();
  }
  return tensor_split(IntArrayRef(indices), dim);
}

namespace detail {
// hsplit/vsplit/dsplit: tensor_split along a fixed dim, which must split evenly.
template <class = void>
std::vector<Tensor> directional_split(const Tensor& self, const char* name, int64_t min_dim,
                                      int64_t dim, std::optional<int64_t> sections,
                                      IntArrayRef indices) {
  TP_CHECK(self.dim() >= min_dim, "torch.", name, " requires a tensor with at least ", min_dim,
           " dimension, but got a tensor with ", self.dim(), " dimensions!");
  if (!sections) return self.tensor_split(indices, dim);
  const int64_t size = self.size(dim);
  TP_CHECK(*sections != 0 && size % *sections == 0, "torch.", name,
           " attempted to split along dimension ", dim, ", but the size of the dimension ", size,
           " is not divisible by the split_size ", *sections, "!");
  return self.tensor_split(*sections, dim);
}
}  // namespace detail

// Along dim 1 (dim 0 of a 1-d tensor).
template <class>
std::vector<Tensor> Tensor::hsplit(int64_t sections) const {
  const int64_t dim = impl("hsplit")->dim() == 1 ? 0 : 1;
  return detail::directional_split(*this, "hsplit", 1, dim, sections, {});
}
template <class>
std::vector<Tensor> Tensor::hsplit(IntArrayRef indices) const {
  const int64_t dim = impl("hsplit")->dim() == 1 ? 0 : 1;
  return detail::directional_split(*this, "hsplit", 1, dim, std::nullopt, indices);
}
template <class>
std::vector<Tensor> Tensor::vsplit(int64_t sections) const {
  impl("vsplit");
  return detail::directional_split(*this, "vsplit", 2, 0, sections, {});
}
template <class>
std::vector<Tensor> Tensor::vsplit(IntArrayRef indices) const {
  impl("vsplit");
  return detail::directional_split(*this, "vsplit", 2, 0, std::nullopt, indices);
}
template <class>
std::vector<Tensor> Tensor::dsplit(int64_t sections) const {
  impl("dsplit");
  return detail::directional_split(*this, "dsplit", 3, 2, sections, {});
}
template <class>
std::vector<Tensor> Tensor::dsplit(IntArrayRef indices) const {
  impl("dsplit");
  return detail::directional_split(*this, "dsplit", 3, 2, std::nullopt, indices);
}

// ---- free functions ---------------------------------------------------------------------------
// libtorch's at:: spellings of the view methods (at::transpose(t, 0, 1), at::narrow, ...), with
// its parameter names and defaults; each forwards to the method.

template <class = void>
Tensor alias(const Tensor& self) {
  return self.alias();
}
template <class = void>
Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                  std::optional<int64_t> storage_offset = std::nullopt) {
  return self.as_strided(size, stride, storage_offset);
}
template <class = void>
const Tensor& as_strided_(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset = std::nullopt) {
  return self.as_strided_(size, stride, storage_offset);
}
template <class = void>
Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  return self.select(dim, index);
}
template <class = void>
Tensor slice(const Tensor& self, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
             std::optional<int64_t> end = std::nullopt, int64_t step = 1) {
  return self.slice(dim, start, end, step);
}
template <class = void>
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return self.narrow(dim, start, length);
}
template <class = void>
Tensor narrow(const Tensor& self, int64_t dim, const Tensor& start, int64_t length) {
  return self.narrow(dim, start, length);
}
template <class = void>
Tensor reshape(const Tensor& self, IntArrayRef shape) {
  return self.reshape(shape);
}
template <class = void>
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  return self.transpose(dim0, dim1);
}
template <class = void>
Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1) {
  return self.swapdims(dim0, dim1);
}
template <class = void>
Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) {
  return self.swapaxes(axis0, axis1);
}
template <class = void>
Tensor t(const Tensor& self) {
  return self.t();
}
template <class = void>
Tensor permute(const Tensor& self, IntArrayRef dims) {
  return self.permute(dims);
}
template <class = void>
Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  return self.movedim(source, destination);
}
template <class = void>
Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return self.movedim(source, destination);
}
template <class = void>
Tensor moveaxis(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  return self.moveaxis(source, destination);
}
template <class = void>
Tensor moveaxis(const Tensor& self, int64_t source, int64_t destination) {
  return self.moveaxis(source, destination);
}
template <class = void>
Tensor squeeze(const Tensor& self) {
  return self.squeeze();
}
template <class = void>
Tensor squeeze(const Tensor& self, int64_t dim) {
  return self.squeeze(dim);
}
template <class = void>
Tensor squeeze(const Tensor& self, IntArrayRef dim) {
  return self.squeeze(dim);
}
template <class = void>
Tensor unsqueeze(const Tensor& self, int64_t dim) {
  return self.unsqueeze(dim);
}
template <class = void>
Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1) {
  return self.flatten(start_dim, end_dim);
}
template <class = void>
Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  return self.unflatten(dim, sizes);
}
template <class = void>
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0) {
  return self.split(split_size, dim);
}
template <class = void>
std::vector<Tensor> split(const Tensor& self, IntArrayRef split_size, int64_t dim = 0) {
  return self.split(split_size, dim);
}
template <class = void>
std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes,
                                     int64_t dim = 0) {
  return self.split_with_sizes(split_sizes, dim);
}
template <class = void>
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0) {
  return self.chunk(chunks, dim);
}
template <class = void>
std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0) {
  return self.unbind(dim);
}
template <class = void>
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim = 0) {
  return self.tensor_split(sections, dim);
}
template <class = void>
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim = 0) {
  return self.tensor_split(indices, dim);
}
template <class = void>
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections,
                                 int64_t dim = 0) {
  return self.tensor_split(tensor_indices_or_sections, dim);
}
template <class = void>
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) {
  return self.hsplit(sections);
}
template <class = void>
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices) {
  return self.hsplit(indices);
}
template <class = void>
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) {
  return self.vsplit(sections);
}
template <class = void>
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices) {
  return self.vsplit(indices);
}
template <class = void>
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) {
  return self.dsplit(sections);
}
template <class = void>
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices) {
  return self.dsplit(indices);
}
template <class = void>
Tensor diagonal(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) {
  return self.diagonal(offset, dim1, dim2);
}
template <class = void>
Tensor detach(const Tensor& self) {
  return self.detach();
}
template <class = void>
Tensor& detach_(Tensor& self) {
  return self.detach_();
}

}  // namespace tensorplay
