// Ops whose result depends on which elements a mask (or the tensor itself) selects:
// masked_select, masked_scatter, nonzero (and as_tuple's nonzero_numpy), argwhere and the
// one-argument where. Bool masks, and uint8 masks as PyTorch still accepts them; the elements are
// visited in row-major order of the broadcast shape (TensorIterator's linear iteration), so the
// k-th selected element is the k-th in that order, as in PyTorch.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include <tensorplay/autograd/functions/indexing.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/resize.hpp>          // resize_output
#include <tensorplay/ops/scatter_gather.hpp>  // host_only
#include <tensorplay/ops/tensor_iterator.hpp>
#include <tensorplay/ops/views.hpp>

namespace tensorplay {
namespace detail::masked {

template <class = void>
void check_mask(const Tensor& mask, const char* op) {
  TP_CHECK(mask.dtype() == kBool || mask.dtype() == kByte, op,
           ": expected BoolTensor or ByteTensor for mask");
}

// f(element pointer of t, selected) for every element of t and mask (both of one shape), in
// row-major order, on this thread.
template <class F>
void for_each_masked(const Tensor& t, const Tensor& mask, F&& f) {
  const TensorIterator iter = TensorIteratorConfig()
                                  .set_check_mem_overlap(false)
                                  .check_all_same_dtype(false)
                                  .resize_outputs(false)
                                  .enforce_linear_iteration()
                                  .add_output(t)
                                  .add_input(mask)
                                  .build();
  iter.serial_for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          f(data[0] + i * strides[0],
            *reinterpret_cast<const uint8_t*>(data[1] + i * strides[1]) != 0);
        }
      },
      0, iter.numel());
}

template <class = void>
int64_t count_true(const Tensor& mask) {
  int64_t n = 0;
  for_each_masked(mask, mask, [&](char*, bool on) { n += on; });
  return n;
}

template <class = void>
void masked_select_into(const Tensor& out, const Tensor& self, const Tensor& mask) {
  scatter_gather::host_only("masked_select", {&self, &mask, &out});
  check_mask(mask, "masked_select");
  const std::vector<int64_t> shape = infer_size(self.sizes(), mask.sizes());
  const Tensor s = self.expand(shape), m = mask.expand(shape);
  resize_output(out, {count_true(m)});
  if (out.numel() == 0) return;
  const auto es = self.element_size();
  char* o = static_cast<char*>(out.data_ptr());
  const int64_t os = out.stride(0) * int64_t(es);
  for_each_masked(s, m, [&](char* p, bool on) {
    if (!on) return;
    std::memcpy(o, p, es);
    o += os;
  });
}

// self's selected elements, in order, take source's first elements; self is written in place.
template <class = void>
void masked_scatter_into(const Tensor& self, const Tensor& mask, const Tensor& source) {
  scatter_gather::host_only("masked_scatter_", {&self, &mask, &source});
  check_mask(mask, "masked_scatter_");
  TP_CHECK(self.dtype() == source.dtype(),
           "masked_scatter: expected self and source to have same dtypes but got ",
           scalar_type_name(self.dtype()), " and ", scalar_type_name(source.dtype()));
  const Tensor m = mask.expand(self.sizes());
  TP_CHECK(count_true(m) <= source.numel(),
           "Number of elements of source < number of ones in mask");
  assert_no_internal_overlap(self);
  assert_no_overlap(self, mask);
  // A source sharing memory with self is read from a copy (PyTorch reads it while writing).
  const bool shares = get_overlap_status(*self.unsafeGetTensorImpl(),
                                         *source.unsafeGetTensorImpl()) != MemOverlapStatus::No;
  const Tensor src = shares ? source.clone(MemoryFormat::Contiguous) : source.contiguous();
  const auto es = self.element_size();
  const char* p = static_cast<const char*>(src.data_ptr());
  for_each_masked(self, m, [&](char* d, bool on) {
    if (!on) return;
    std::memcpy(d, p, es);
    p += es;
  });
}

// [count, ndim] coordinates of the nonzero elements (NaN counts as nonzero), row-major order.
template <class = void>
void nonzero_into(const Tensor& out, const Tensor& self) {
  scatter_gather::host_only("nonzero", {&self, &out});
  Tensor m;
  {
    NoGradGuard no_grad;
    m = self.dtype() == kBool ? self : self.ne(0);
  }
  const int64_t k = self.dim();
  const int64_t n = count_true(m);
  // PyTorch's layout, out= included: column-major, each coordinate column contiguous (so that
  // as_tuple's index tensors are).
  out.resize_({k, n});
  out.t_();
  if (out.numel() == 0) return;
  int64_t* o = out.data_ptr<int64_t>();
  const int64_t rs = out.stride(0), cs = out.stride(1);
  std::vector<int64_t> at(static_cast<std::size_t>(k), 0);
  for_each_masked(m, m, [&](char*, bool on) {
    if (on) {
      for (int64_t d = 0; d < k; ++d) o[d * cs] = at[std::size_t(d)];
      o += rs;
    }
    for (int64_t d = k - 1; d >= 0; --d) {  // the row-major position of the next element
      if (++at[std::size_t(d)] < m.size(d)) break;
      at[std::size_t(d)] = 0;
    }
  });
}

}  // namespace detail::masked

// ---- masked_select ----------------------------------------------------------------------------

template <class = void>
Tensor masked_select(const Tensor& self, const Tensor& mask) {
  return autograd::detail::differentiable<autograd::MaskedSelectBackward0>(
      [&] {
        Tensor out = empty({0}, self.options());
        detail::masked::masked_select_into(out, self, mask);
        return out;
      },
      [&](autograd::MaskedSelectBackward0& fn, const Tensor&) {
        fn.mask_ = autograd::SavedVariable(mask, false);
        fn.broadcast_sizes_ = detail::infer_size(self.sizes(), mask.sizes());
      },
      self);
}
template <class = void>
const Tensor& masked_select_out(const Tensor& out, const Tensor& self, const Tensor& mask) {
  autograd::detail::check_out_no_grad("masked_select", self, out);
  // The write funnel: read-only storages, inference tensors (out='s own grad rule is
  // check_out_no_grad's).
  autograd::detail::check_inplace(out.unsafeGetTensorImpl(), /*records=*/false);
  detail::check_out_dtype(out, self.dtype());
  detail::assert_no_internal_overlap(out);
  detail::assert_no_overlap(out, self);
  detail::assert_no_overlap(out, mask);
  detail::masked::masked_select_into(out, self, mask);
  out.unsafeGetTensorImpl()->bump_version();
  return out;
}
template <class>
Tensor Tensor::masked_select(const Tensor& mask) const {
  impl("masked_select");
  return tensorplay::masked_select(*this, mask);
}

// ---- masked_scatter ---------------------------------------------------------------------------

template <class>
const Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) const {
  impl("masked_scatter_");
  return autograd::detail::differentiable_inplace<autograd::MaskedScatterBackward0>(
      *this,
      [&] {
        detail::masked::masked_scatter_into(*this, mask, source);
        unsafeGetTensorImpl()->bump_version();
      },
      [&](autograd::MaskedScatterBackward0& fn) {
        fn.mask_ = autograd::SavedVariable(mask, false);
        fn.source_sizes_ = source.sizes().vec();
      },
      autograd::detail::kSaveNothing, source);
}
// Out of place: self broadcast with the mask, copied, then scattered into.
template <class>
Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  impl("masked_scatter");
  Tensor r = expand(detail::infer_size(sizes(), mask.sizes())).clone(MemoryFormat::Contiguous);
  r.masked_scatter_(mask, source);
  return r;
}
template <class = void>
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  return self.masked_scatter(mask, source);
}

// ---- nonzero, argwhere, where(condition) ------------------------------------------------------

template <class = void>
Tensor nonzero(const Tensor& self) {
  Tensor out = empty({0}, self.options().dtype(kLong));
  detail::masked::nonzero_into(out, self);
  return out;
}
template <class = void>
const Tensor& nonzero_out(const Tensor& out, const Tensor& self) {
  TP_CHECK(out.dtype() == kLong,
           "nonzero: Expected out tensor to have scalar type Long but got scalar type ",
           scalar_type_name(out.dtype()));
  autograd::detail::check_inplace(out.unsafeGetTensorImpl(), /*records=*/false);  // the funnel
  detail::assert_no_internal_overlap(out);
  detail::assert_no_overlap(out, self);
  detail::masked::nonzero_into(out, self);
  out.unsafeGetTensorImpl()->bump_version();
  return out;
}
// nonzero(as_tuple=True): one index tensor per dimension (a 0-d self counts as one dimension).
template <class = void>
std::vector<Tensor> nonzero_numpy(const Tensor& self) {
  if (self.dim() == 0) return nonzero(self.unsqueeze(0)).unbind(1);
  return nonzero(self).unbind(1);
}
template <class = void>
Tensor argwhere(const Tensor& self) {
  return nonzero(self);
}
template <class = void>
std::vector<Tensor> where(const Tensor& condition) {
  return nonzero_numpy(condition);
}
template <class>
Tensor Tensor::nonzero() const {
  impl("nonzero");
  return tensorplay::nonzero(*this);
}
template <class>
std::vector<Tensor> Tensor::nonzero_numpy() const {
  impl("nonzero_numpy");
  return tensorplay::nonzero_numpy(*this);
}
template <class>
Tensor Tensor::argwhere() const {
  impl("argwhere");
  return tensorplay::argwhere(*this);
}

}  // namespace tensorplay
