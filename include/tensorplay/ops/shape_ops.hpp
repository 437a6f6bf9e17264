// Shape ops that move elements into new memory: flip, fliplr, flipud, roll, rot90, repeat, tile,
// repeat_interleave, tril/triu (with tril_/triu_ and the out= forms), diag, diag_embed, diagflat
// and trace (libtorch's names, overloads, argument orders and messages: ATen's
// TensorTransformations.cpp, TensorShape.cpp, Repeat.cpp, TriangularOps.cpp).
//
// One kernel serves the reordering ops: gather_dims, a TensorIterator over the result whose
// source operand has stride 0 along the remapped dimensions, plus one int64 operand per remapped
// dimension holding the byte offset that each result position reads (PyTorch's flip kernel
// does the same). flip maps j -> n-1-j, roll j -> j-shift mod n, repeat j -> j mod n; elements
// are moved as raw bytes of their width, so the kernel exists once per element size, not once
// per dtype. repeat_interleave is index_select of the repeated positions, as in PyTorch. tril/triu
// are a TensorIterator with broadcast row and column numbers as operands.
//
// Autograd: FlipBackward0, RollBackward0, Rot90Backward0, RepeatBackward0 (also tile's, which
// PyTorch composes from repeat), IndexSelectBackward0 (repeat_interleave is index_select in
// PyTorch), TrilBackward0, TriuBackward0, DiagBackward0 (also diagflat's), DiagEmbedBackward0,
// TraceBackward0; fliplr/flipud compose flip. Formulas: autograd/functions/shape.hpp.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <vector>

#include <tensorplay/autograd/functions/shape.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/aliasing_views.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/core/wrap_dim.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/linalg.hpp>  // check_out_dtype, resize_out, check_out_memory
#include <tensorplay/ops/reduce_ops.hpp>
#include <tensorplay/ops/scatter_gather.hpp>  // index_select (repeat_interleave)
#include <tensorplay/ops/tensor_iterator.hpp>
#include <tensorplay/ops/views.hpp>

namespace tensorplay {
namespace detail::shape_impl {

// One remapped dimension of a gather: position j of the result along `dim` reads position
// pos[j] of the source along it.
struct DimMap {
  int64_t dim = 0;
  std::vector<int64_t> pos;
};
using DimMaps = std::vector<DimMap>;

// Calls f.template operator()<U>() with the unsigned integer type of `bytes` bytes: moving an
// element needs only its width.
template <class F>
void dispatch_width(int64_t bytes, F&& f) {
  switch (bytes) {
    case 1: return f.template operator()<uint8_t>();
    case 2: return f.template operator()<uint16_t>();
    case 4: return f.template operator()<uint32_t>();
    default: return f.template operator()<uint64_t>();
  }
}

template <class = void>
void host_only(const Tensor& t, std::string_view kernel) {
  if (!t.is_cpu()) throw_no_device_op(kernel, t.device());
}

// One int64 operand per map: the byte offset position j reads, shaped to broadcast along `dim`.
template <class = void>
Tensor byte_offsets(const DimMap& m, int64_t stride, int64_t itemsize, std::size_t rank) {
  std::vector<int64_t> bytes(m.pos.size());
  for (std::size_t j = 0; j < m.pos.size(); ++j) bytes[j] = m.pos[j] * stride * itemsize;
  std::vector<int64_t> shape(rank, 1);
  shape[static_cast<std::size_t>(m.dim)] = static_cast<int64_t>(m.pos.size());
  return tensor(bytes, kLong).view(shape);
}

// The gather, no history: a new contiguous tensor of `out_sizes` (viewed as `result_shape`
// when given: roll's flattened form) whose element at j reads self at j with the mapped
// dimensions replaced by their positions. Dimensions without a map keep self's sizes.
template <class = void>
Tensor gather_dims(const Tensor& self, IntArrayRef out_sizes, const DimMaps& maps,
                   std::string_view kernel, std::optional<IntArrayRef> result_shape = {}) {
  host_only(self, kernel);
  Tensor result = empty(result_shape ? *result_shape : out_sizes, self.options());
  const Tensor out = result_shape ? result.view(out_sizes) : result;
  if (out.numel() == 0) return result;
  constexpr std::size_t kMaps = kMaxOperands - 2;  // operands left after the result and source
  if (maps.size() > kMaps) {
    const DimMaps first(maps.begin(), maps.begin() + kMaps), rest(maps.begin() + kMaps, maps.end());
    std::vector<int64_t> mid = self.sizes().vec();
    for (const DimMap& m : first) mid[static_cast<std::size_t>(m.dim)] = out_sizes[m.dim];
    const Tensor partial = gather_dims(self, mid, first, kernel);
    return gather_dims(partial, out_sizes, rest, kernel, result_shape);
  }
  std::vector<int64_t> strides = self.strides().vec();
  for (const DimMap& m : maps) strides[static_cast<std::size_t>(m.dim)] = 0;
  const Tensor src = self.as_strided(out_sizes, strides, self.storage_offset());
  TensorIteratorConfig config;
  config.set_check_mem_overlap(false).check_all_same_dtype(false).resize_outputs(false);
  config.add_output(out).add_input(src);
  for (const DimMap& m : maps) {
    config.add_input(byte_offsets(m, self.stride(m.dim), self.element_size(), out_sizes.size()));
  }
  const TensorIterator iter = config.build();
  const int nmaps = static_cast<int>(maps.size());
  dispatch_width(self.element_size(), [&]<class U>() {
    iter.for_each([&](char** data, const int64_t* st, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const char* s = data[1] + i * st[1];
        for (int k = 0; k < nmaps; ++k) {
          s += *reinterpret_cast<const int64_t*>(data[2 + k] + i * st[2 + k]);
        }
        *reinterpret_cast<U*>(data[0] + i * st[0]) = *reinterpret_cast<const U*>(s);
      }
    });
  });
  return result;
}

// flip's maps: each listed dimension of size > 1 reversed.
template <class = void>
DimMaps flip_maps(const Tensor& self, const std::vector<int64_t>& dims) {
  DimMaps maps;
  if (self.dim() == 0) return maps;
  for (int64_t d : dims) {
    const int64_t n = self.size(d);
    if (n <= 1) continue;
    DimMap m{d, std::vector<int64_t>(static_cast<std::size_t>(n))};
    for (int64_t j = 0; j < n; ++j) m.pos[static_cast<std::size_t>(j)] = n - 1 - j;
    maps.push_back(std::move(m));
  }
  return maps;
}

// flip's dims wrapped, each at most once (PyTorch's dim_list_to_bitset).
template <class = void>
std::vector<int64_t> wrap_dim_list(IntArrayRef dims, int64_t ndim) {
  std::vector<int64_t> wrapped;
  std::vector<bool> seen(static_cast<std::size_t>(std::max<int64_t>(ndim, 1)), false);
  for (int64_t d : dims) {
    const int64_t w = maybe_wrap_dim(d, ndim);
    TP_CHECK(!seen[static_cast<std::size_t>(w)], "dim ", w,
             " appears multiple times in the list of dims");
    seen[static_cast<std::size_t>(w)] = true;
    wrapped.push_back(w);
  }
  return wrapped;
}

}  // namespace detail::shape_impl

// ---- flip, fliplr, flipud ----------------------------------------------------------------------

// Reverses the order of the elements along each of `dims` (a copy, unlike NumPy's view).
template <class = void>
Tensor flip(const Tensor& self, IntArrayRef dims) {
  using namespace detail::shape_impl;
  const std::vector<int64_t> wrapped = wrap_dim_list(dims, self.dim());
  return autograd::detail::differentiable<autograd::FlipBackward0>(
      [&] { return gather_dims(self, self.sizes(), flip_maps(self, wrapped), "flip_cpu"); },
      [&](autograd::FlipBackward0& fn, const Tensor&) { fn.dims_ = wrapped; }, self);
}
template <class>
Tensor Tensor::flip(IntArrayRef dims) const {
  return tensorplay::flip(*this, dims);
}

template <class = void>
Tensor fliplr(const Tensor& self) {
  TP_CHECK(self.dim() >= 2, "Input must be >= 2-d.");
  return tensorplay::flip(self, {1});
}
template <class>
Tensor Tensor::fliplr() const {
  return tensorplay::fliplr(*this);
}

template <class = void>
Tensor flipud(const Tensor& self) {
  TP_CHECK(self.dim() >= 1, "Input must be >= 1-d.");
  return tensorplay::flip(self, {0});
}
template <class>
Tensor Tensor::flipud() const {
  return tensorplay::flipud(*this);
}

// ---- roll
// ----------------------------------------------------------------------------------------

// Rotates the elements along each of `dims` by the matching shift (elements leaving one end
// come back at the other); with no dims, the flattened tensor rolls and keeps its shape. A dim
// listed twice rolls twice. An empty tensor is copied before its dims are looked at (PyTorch).
template <class = void>
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {}) {
  using namespace detail::shape_impl;
  if (dims.size() != 1 || shifts.size() != 1) {
    TP_CHECK(!shifts.empty(), "`shifts` required");
    if (!(dims.empty() && shifts.size() == 1)) {
      TP_CHECK(shifts.size() == dims.size(),
               "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", dims.size());
    }
  }
  const auto compute = [&] {
    if (self.numel() == 0) return gather_dims(self, self.sizes(), {}, "roll_cpu");
    const bool flat = dims.empty();
    const Tensor src = flat ? self.reshape({self.numel()}) : self;
    std::vector<int64_t> total(static_cast<std::size_t>(src.dim()), 0);
    for (std::size_t i = 0; i < shifts.size(); ++i) {
      const int64_t d = flat ? 0 : maybe_wrap_dim(dims[i], src.dim(), /*wrap_scalar=*/false);
      total[static_cast<std::size_t>(d)] += shifts[i] % src.size(d);
    }
    DimMaps maps;
    for (int64_t d = 0; d < src.dim(); ++d) {
      const int64_t n = src.size(d), s = ((total[static_cast<std::size_t>(d)] % n) + n) % n;
      if (s == 0) continue;
      DimMap m{d, std::vector<int64_t>(static_cast<std::size_t>(n))};
      for (int64_t j = 0; j < n; ++j) m.pos[static_cast<std::size_t>(j)] = (j - s + n) % n;
      maps.push_back(std::move(m));
    }
    if (!flat) return gather_dims(src, src.sizes(), maps, "roll_cpu");
    return gather_dims(src, src.sizes(), maps, "roll_cpu", self.sizes());
  };
  return autograd::detail::differentiable<autograd::RollBackward0>(
      compute,
      [&](autograd::RollBackward0& fn, const Tensor&) {
        fn.shifts_ = shifts.vec();
        fn.dims_ = dims.vec();
      },
      self);
}
template <class = void>
Tensor roll(const Tensor& self, int64_t shift, int64_t dim) {
  return tensorplay::roll(self, IntArrayRef{shift}, IntArrayRef{dim});
}
template <class>
Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const {
  return tensorplay::roll(*this, shifts, dims);
}

// ---- rot90
// ---------------------------------------------------------------------------------------

// Rotates by 90 degrees k times in the plane of dims, from the first towards the second
// (PyTorch's checks in its order, including its quirk of calling dims n apart "not different").
template <class = void>
Tensor rot90(const Tensor& self, int64_t k = 1, IntArrayRef dims = {0, 1}) {
  using namespace detail::shape_impl;
  const int64_t total_dims = self.dim(), total_rot_dims = static_cast<int64_t>(dims.size());
  TP_CHECK(total_rot_dims == 2,
           "expected total rotation dims == 2, but got dims = ", total_rot_dims);
  TP_CHECK(total_dims >= 2, "expected total dims >= 2, but got total dims = ", total_dims);
  TP_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != total_dims,
           "expected rotation dims to be different, but got dim0 = ", dims[0],
           " and dim1 = ", dims[1]);
  TP_CHECK(dims[0] < total_dims && dims[0] >= -total_dims,
           "Rotation dim0 out of range, dim0 = ", dims[0]);
  TP_CHECK(dims[1] < total_dims && dims[1] >= -total_dims,
           "Rotation dim1 out of range, dim1 = ", dims[1]);
  const int64_t d0 = maybe_wrap_dim(dims[0], total_dims), d1 = maybe_wrap_dim(dims[1], total_dims);
  const int64_t turns = (4 + (k % 4)) % 4;
  return autograd::detail::differentiable<autograd::Rot90Backward0>(
      [&] {
        const auto flipped = [&](std::vector<int64_t> ds) {
          return gather_dims(self, self.sizes(), flip_maps(self, ds), "flip_cpu");
        };
        switch (turns) {
          case 1: {
            Tensor r = flipped({d1});
            r.transpose_(d0, d1);
            return r;
          }
          case 2: return flipped({d0, d1});
          case 3: {
            Tensor r = flipped({d0});
            r.transpose_(d0, d1);
            return r;
          }
          default: return flipped({});
        }
      },
      [&](autograd::Rot90Backward0& fn, const Tensor&) {
        fn.k_ = k;
        fn.dims_ = dims.vec();
      },
      self);
}
template <class>
Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const {
  return tensorplay::rot90(*this, k, dims);
}

// ---- repeat, tile
// --------------------------------------------------------------------------------

// Tensor::repeat (a method only, as in libtorch): the tensor repeated repeats[i] times along
// dimension i; extra leading repeats add leading dimensions.
template <class>
Tensor Tensor::repeat(IntArrayRef repeats) const {
  using namespace detail::shape_impl;
  const Tensor& self = *this;
  TP_CHECK(repeats.size() >= static_cast<std::size_t>(self.dim()),
           "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
           "tensor");
  const std::size_t pad = repeats.size() - static_cast<std::size_t>(self.dim());
  std::vector<int64_t> padded(pad, 1), target(repeats.size());
  padded.insert(padded.end(), self.sizes().begin(), self.sizes().end());
  for (std::size_t i = 0; i < repeats.size(); ++i) target[i] = padded[i] * repeats[i];
  for (int64_t s : target) {
    TP_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ",
             IntArrayRef(target));
  }
  return autograd::detail::differentiable<autograd::RepeatBackward0>(
      [&] {
        const Tensor x = self.expand(padded);
        DimMaps maps;
        int64_t numel = 1;
        for (int64_t s : target) numel *= s;
        for (std::size_t i = 0; numel > 0 && i < target.size(); ++i) {
          if (repeats[i] == 1) continue;
          DimMap m{static_cast<int64_t>(i),
                   std::vector<int64_t>(static_cast<std::size_t>(target[i]))};
          for (int64_t j = 0; j < target[i]; ++j)
            m.pos[static_cast<std::size_t>(j)] = j % padded[i];
          maps.push_back(std::move(m));
        }
        return gather_dims(x, target, maps, "repeat");
      },
      [&](autograd::RepeatBackward0& fn, const Tensor&) {
        fn.self_sizes_ = self.sizes().vec();
        fn.repeats_ = repeats.vec();
      },
      self);
}

// tile: repeat, with `dims` padded by leading 1s to the tensor's rank.
template <class = void>
Tensor tile(const Tensor& self, IntArrayRef dims) {
  const int64_t size_diff = self.dim() - static_cast<int64_t>(dims.size());
  if (size_diff <= 0) return self.repeat(dims);
  std::vector<int64_t> padded(static_cast<std::size_t>(size_diff), 1);
  padded.insert(padded.end(), dims.begin(), dims.end());
  return self.repeat(padded);
}
template <class>
Tensor Tensor::tile(IntArrayRef dims) const {
  return tensorplay::tile(*this, dims);
}

// ---- repeat_interleave
// ---------------------------------------------------------------------------

namespace detail::shape_impl {
// The counts of a 1-d int32/int64 `repeats`, PyTorch's checks in its order.
template <class = void>
std::vector<int64_t> repeat_counts(const Tensor& repeats) {
  host_only(repeats, "repeat_interleave_cpu");
  TP_CHECK(repeats.dtype() == kLong || repeats.dtype() == kInt, "\"repeat_interleave_cpu\" ",
           "not implemented for '", scalar_type_name(repeats.dtype()), "'");
  TP_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  const Tensor r = repeats.to(kLong).contiguous();
  const int64_t* p = r.numel() > 0 ? r.data_ptr<int64_t>() : nullptr;
  std::vector<int64_t> counts(p, p + r.numel());
  for (int64_t c : counts) TP_CHECK(c >= 0, "repeats can not be negative");
  return counts;
}
// Position j of the result: the index whose copy it is.
template <class = void>
std::vector<int64_t> repeat_positions(const std::vector<int64_t>& counts,
                                      std::optional<int64_t> output_size) {
  std::vector<int64_t> pos;
  for (std::size_t i = 0; i < counts.size(); ++i) pos.insert(pos.end(), counts[i], int64_t(i));
  TP_CHECK(!output_size || *output_size == static_cast<int64_t>(pos.size()),
           "allocated size does not match required size");
  return pos;
}
}  // namespace detail::shape_impl

// repeat_interleave(repeats): index i repeated repeats[i] times, in repeats' dtype.
template <class = void>
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt) {
  using namespace detail::shape_impl;
  const std::vector<int64_t> pos = repeat_positions(repeat_counts(repeats), output_size);
  return tensor(pos, kLong).to(repeats.dtype());
}

// Each element of self repeated repeats[i] times along dim (self flattened when dim is none);
// a 0-d or one-element repeats applies to every element. Recorded as IndexSelectBackward0.
template <class = void>
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats,
                         std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt) {
  using namespace detail::shape_impl;
  const Tensor input = dim ? self : self.reshape({-1});
  const int64_t d = dim ? maybe_wrap_dim(*dim, input.dim()) : 0;
  std::vector<int64_t> counts;
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.size(0) == 1)) {
    const int64_t n = input.dim() == 0 ? 1 : input.size(d);
    counts = repeat_counts(repeats.reshape({1}));
    counts.assign(static_cast<std::size_t>(n), counts[0]);
  } else {
    TP_CHECK(repeats.dim() == 1, "repeats must be 0-dim or 1-dim tensor");
    TP_CHECK(repeats.size(0) == (input.dim() == 0 ? 1 : input.size(d)),
             "repeats must have the same size as input along dim");
    counts = repeat_counts(repeats);
  }
  // index_select of the repeated positions, as in PyTorch (hence IndexSelectBackward0).
  const Tensor src = input.dim() == 0 ? input.reshape({1}) : input;
  return src.index_select(d, tensor(repeat_positions(counts, output_size), kLong));
}
template <class = void>
Tensor repeat_interleave(const Tensor& self, int64_t repeats,
                         std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt) {
  return tensorplay::repeat_interleave(self, full({1}, repeats, kLong), dim, output_size);
}
template <class>
Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return tensorplay::repeat_interleave(*this, repeats, dim, output_size);
}
template <class>
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return tensorplay::repeat_interleave(*this, repeats, dim, output_size);
}

// ---- tril, triu
// ----------------------------------------------------------------------------------

namespace detail::shape_impl {
// out = self with the elements off the kept triangle zeroed (out may be self): the row and
// column numbers are operands broadcast over the batch, so one elementwise pass does it.
template <class = void>
void triangle_kernel(const Tensor& out, const Tensor& self, int64_t k, bool lower) {
  const int64_t rows = self.size(maybe_wrap_dim(-2, self.dim(), false));
  const int64_t cols = self.size(-1);
  host_only(self, lower ? "tril_cpu" : "triu_cpu");
  if (self.numel() == 0) return;
  std::vector<int64_t> r(static_cast<std::size_t>(rows)), c(static_cast<std::size_t>(cols));
  for (int64_t i = 0; i < rows; ++i) r[static_cast<std::size_t>(i)] = i;
  for (int64_t j = 0; j < cols; ++j) c[static_cast<std::size_t>(j)] = j;
  const TensorIterator iter = TensorIteratorConfig()
                                  .check_all_same_dtype(false)
                                  .resize_outputs(false)
                                  .add_output(out)
                                  .add_input(self)
                                  .add_input(tensor(r, kLong).view({rows, 1}))
                                  .add_input(tensor(c, kLong))
                                  .build();
  dispatch_width(self.element_size(), [&]<class U>() {
    iter.for_each([&](char** data, const int64_t* st, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t diff = *reinterpret_cast<const int64_t*>(data[3] + i * st[3]) -
                             *reinterpret_cast<const int64_t*>(data[2] + i * st[2]);
        const bool keep = lower ? diff <= k : diff >= k;
        *reinterpret_cast<U*>(data[0] + i * st[0]) =
            keep ? *reinterpret_cast<const U*>(data[1] + i * st[1]) : U(0);
      }
    });
  });
}

template <class = void>
Tensor triangle(const Tensor& self, int64_t k, bool lower) {
  (void)self.size(maybe_wrap_dim(-2, self.dim(), false));  // the rank check, PyTorch's message
  Tensor out = empty(self.sizes(), self.options());
  triangle_kernel(out, self, k, lower);
  return out;
}

template <class = void>
void triangle_out(const Tensor& out, const Tensor& self, int64_t k, bool lower) {
  autograd::detail::check_out_no_grad(lower ? "tril" : "triu", self);
  (void)self.size(maybe_wrap_dim(-2, self.dim(), false));
  check_out_dtype(out, self.dtype());
  linalg_impl::resize_out(out, self.sizes());
  linalg_impl::check_out_memory(out, {&self});
  triangle_kernel(out, self, k, lower);
  out.unsafeGetTensorImpl()->bump_version();
}
}  // namespace detail::shape_impl

// The lower triangle of the last two dimensions (elements with column - row <= diagonal).
template <class = void>
Tensor tril(const Tensor& self, int64_t diagonal = 0) {
  return autograd::detail::differentiable<autograd::TrilBackward0>(
      [&] { return detail::shape_impl::triangle(self, diagonal, true); },
      [&](autograd::TrilBackward0& fn, const Tensor&) { fn.diagonal_ = diagonal; }, self);
}
// The upper triangle (column - row >= diagonal).
template <class = void>
Tensor triu(const Tensor& self, int64_t diagonal = 0) {
  return autograd::detail::differentiable<autograd::TriuBackward0>(
      [&] { return detail::shape_impl::triangle(self, diagonal, false); },
      [&](autograd::TriuBackward0& fn, const Tensor&) { fn.diagonal_ = diagonal; }, self);
}
template <class = void>
const Tensor& tril_out(const Tensor& out, const Tensor& self, int64_t diagonal = 0) {
  detail::shape_impl::triangle_out(out, self, diagonal, true);
  return out;
}
template <class = void>
const Tensor& triu_out(const Tensor& out, const Tensor& self, int64_t diagonal = 0) {
  detail::shape_impl::triangle_out(out, self, diagonal, false);
  return out;
}
template <class>
Tensor Tensor::tril(int64_t diagonal) const {
  return tensorplay::tril(*this, diagonal);
}
template <class>
Tensor Tensor::triu(int64_t diagonal) const {
  return tensorplay::triu(*this, diagonal);
}
template <class>
const Tensor& Tensor::tril_(int64_t diagonal) const {
  (void)size(maybe_wrap_dim(-2, dim(), false));
  return autograd::detail::differentiable_inplace<autograd::TrilBackward0>(
      *this,
      [&] {
        detail::shape_impl::triangle_kernel(*this, *this, diagonal, true);
        unsafeGetTensorImpl()->bump_version();
      },
      [&](autograd::TrilBackward0& fn) { fn.diagonal_ = diagonal; },
      autograd::detail::kSaveNothing);
}
template <class>
const Tensor& Tensor::triu_(int64_t diagonal) const {
  (void)size(maybe_wrap_dim(-2, dim(), false));
  return autograd::detail::differentiable_inplace<autograd::TriuBackward0>(
      *this,
      [&] {
        detail::shape_impl::triangle_kernel(*this, *this, diagonal, false);
        unsafeGetTensorImpl()->bump_version();
      },
      [&](autograd::TriuBackward0& fn) { fn.diagonal_ = diagonal; },
      autograd::detail::kSaveNothing);
}

// ---- diag, diag_embed, diagflat, trace
// -----------------------------------------------------------

namespace detail::shape_impl {
// `values` written on the diagonal (offset, dim1, dim2) of `result` (zeros), no history.
template <class = void>
void write_diagonal(const Tensor& result, const Tensor& values, int64_t offset, int64_t dim1,
                    int64_t dim2) {
  AliasingViewsGuard write_through;
  copy_impl(result.diagonal(offset, dim1, dim2), values);
}

template <class = void>
void check_diag(const Tensor& self) {
  TP_CHECK(self.dim() == 1 || self.dim() == 2, "matrix or a vector expected");
}

// diag's values, no history: a vector on the diagonal of a square matrix, or a matrix's
// diagonal as a new vector.
template <class = void>
Tensor diag_values(const Tensor& self, int64_t diagonal) {
  check_diag(self);
  host_only(self, "diag");
  if (self.dim() == 1) {
    const int64_t n = self.size(0) + std::abs(diagonal);
    Tensor result = zeros({n, n}, self.options());
    write_diagonal(result, self, diagonal, 0, 1);
    return result;
  }
  const Tensor d = self.diagonal(diagonal);
  Tensor result = empty(d.sizes(), self.options());
  copy_impl(result, d);
  return result;
}
}  // namespace detail::shape_impl

// Of a vector: the square matrix with it on the given diagonal. Of a matrix: that diagonal.
template <class = void>
Tensor diag(const Tensor& self, int64_t diagonal = 0) {
  return autograd::detail::differentiable<autograd::DiagBackward0>(
      [&] { return detail::shape_impl::diag_values(self, diagonal); },
      [&](autograd::DiagBackward0& fn, const Tensor&) {
        fn.self_sizes_ = self.sizes().vec();
        fn.diagonal_ = diagonal;
      },
      self);
}
template <class = void>
const Tensor& diag_out(const Tensor& out, const Tensor& self, int64_t diagonal = 0) {
  autograd::detail::check_out_no_grad("diag", self);
  detail::shape_impl::check_diag(self);
  detail::check_out_dtype(out, self.dtype());
  const Tensor values = detail::shape_impl::diag_values(self, diagonal);
  detail::linalg_impl::resize_out(out, values.sizes());
  detail::linalg_impl::check_out_memory(out, {&self});
  detail::copy_impl(out, values);
  out.unsafeGetTensorImpl()->bump_version();
  return out;
}
template <class>
Tensor Tensor::diag(int64_t diagonal) const {
  return tensorplay::diag(*this, diagonal);
}

// The last dimension of self placed on the diagonal (offset) of the planes (dim1, dim2) of a
// new tensor with one more dimension; zeros elsewhere.
template <class = void>
Tensor diag_embed(const Tensor& self, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) {
  const int64_t ndims = self.dim() + 1;
  const int64_t d1 = maybe_wrap_dim(dim1, ndims), d2 = maybe_wrap_dim(dim2, ndims);
  TP_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t len = std::abs(offset) + self.size(maybe_wrap_dim(-1, self.dim(), false));
  std::vector<int64_t> sizes = self.sizes().vec();
  sizes.pop_back();
  sizes.insert(sizes.begin() + std::min(d1, d2), len);
  sizes.insert(sizes.begin() + std::max(d1, d2), len);
  return autograd::detail::differentiable<autograd::DiagEmbedBackward0>(
      [&] {
        detail::shape_impl::host_only(self, "diag_embed");
        Tensor result = zeros(sizes, self.options());
        detail::shape_impl::write_diagonal(result, self, offset, d1, d2);
        return result;
      },
      [&](autograd::DiagEmbedBackward0& fn, const Tensor&) {
        fn.offset_ = offset;
        fn.dim1_ = d1;
        fn.dim2_ = d2;
      },
      self);
}
template <class>
Tensor Tensor::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  return tensorplay::diag_embed(*this, offset, dim1, dim2);
}

// diag of the flattened tensor (PyTorch composes it so; the node is DiagBackward0).
template <class = void>
Tensor diagflat(const Tensor& self, int64_t offset = 0) {
  return tensorplay::diag(self.reshape({-1}), offset);
}
template <class>
Tensor Tensor::diagflat(int64_t offset) const {
  return tensorplay::diagflat(*this, offset);
}

// The sum of a matrix's main diagonal; integral inputs sum to int64 (no bool or half: as in
// PyTorch's kernel).
template <class = void>
Tensor trace(const Tensor& self) {
  TP_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  const DType t = self.dtype();
  TP_CHECK(t != kBool && t != kHalf && t != kBFloat16, "\"trace\" not implemented for '",
           scalar_type_name(t), "'");
  return autograd::detail::differentiable<autograd::TraceBackward0>(
      [&] { return self.diagonal().sum(); },
      [&](autograd::TraceBackward0& fn, const Tensor&) { fn.self_sizes_ = self.sizes().vec(); },
      self);
}
template <class>
Tensor Tensor::trace() const {
  return tensorplay::trace(*this);
}

}  // namespace tensorplay

// The Tensor methods declared beside these (broadcast_to, cross, kron) are defined there; it
// includes this file for the helpers above.
#include <tensorplay/ops/shape_join.hpp>  // IWYU pragma: export
