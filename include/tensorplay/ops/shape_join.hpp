// Shape ops built from others, and the products of shapes: broadcast_to, broadcast_tensors,
// meshgrid, atleast_1d/2d/3d, hstack, vstack (row_stack), dstack, column_stack, block_diag,
// cross / linalg_cross, kron and tensordot, with the out= forms libtorch has (libtorch's names,
// argument orders and messages: ATen's TensorShape.cpp, Linear.cpp, LinearAlgebra.cpp).
//
// Autograd as in PyTorch 1.13: the composite ops (broadcast_to, meshgrid, atleast_*, the stacks,
// tensordot) record their constituents' nodes (ExpandBackward0, CatBackward0, MmBackward0...),
// kron ends in UnsafeViewBackward0 over a MulBackward0; block_diag records BlockDiagBackward0 and
// cross LinalgCrossBackward0 (formulas: autograd/functions/shape.hpp).
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <tensorplay/autograd/functions/shape.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/aliasing_views.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/core/wrap_dim.hpp>
#include <tensorplay/ops/as_strided.hpp>
#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/join.hpp>
#include <tensorplay/ops/linalg.hpp>
#include <tensorplay/ops/reduce_ops.hpp>
#include <tensorplay/ops/result_type.hpp>
#include <tensorplay/ops/shape_ops.hpp>  // host_only, wrap_dim_list
#include <tensorplay/ops/tensor_iterator.hpp>
#include <tensorplay/ops/views.hpp>

namespace tensorplay {

// ---- broadcasting
// --------------------------------------------------------------------------------

// expand under NumPy's name (ExpandBackward0).
template <class = void>
Tensor broadcast_to(const Tensor& self, IntArrayRef size) {
  return self.expand(size);
}
template <class>
Tensor Tensor::broadcast_to(IntArrayRef size) const {
  return tensorplay::broadcast_to(*this, size);
}

// Every tensor expanded to the broadcast of all their shapes; one that has that shape already
// is returned as is (the same tensor, no new node), as in PyTorch.
template <class = void>
std::vector<Tensor> broadcast_tensors(TensorList tensors) {
  std::vector<int64_t> shape;
  for (const Tensor& t : tensors) shape = detail::infer_size(shape, t.sizes());
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) {
    out.push_back(t.sizes() == IntArrayRef(shape) ? t : t.expand(shape));
  }
  return out;
}

// Coordinate grids: tensor i (0-d or 1-d, n_i elements) viewed along dimension i and expanded
// to (n_0, n_1, ...). "xy" swaps the first two dimensions of the grids (Cartesian indexing).
template <class = void>
std::vector<Tensor> meshgrid(TensorList tensors, std::string_view indexing) {
  const std::size_t size = tensors.size();
  TP_CHECK(size > 0, "meshgrid expects a non-empty TensorList");
  for (std::size_t i = 0; i + 1 < size; ++i) {
    TP_CHECK(tensors[i].dtype() == tensors[i + 1].dtype(),
             "meshgrid expects all tensors to have the same dtype");
    TP_CHECK(tensors[i].device() == tensors[i + 1].device(),
             "meshgrid expects all tensors to have the same device");
  }
  std::vector<Tensor> refs(tensors.begin(), tensors.end());
  const bool swap = indexing == "xy" && size >= 2;
  TP_CHECK(indexing == "xy" || indexing == "ij",
           "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  if (swap) std::swap(refs[0], refs[1]);
  std::vector<int64_t> shape(size);
  for (std::size_t i = 0; i < size; ++i) {
    // PyTorch prints the tensor here; we name its shape.
    TP_CHECK(refs[i].dim() <= 1,
             "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: a tensor of "
             "shape ",
             refs[i].sizes());
    shape[i] = refs[i].numel();
  }
  std::vector<Tensor> grids;
  std::vector<int64_t> view_shape(size, 1);
  for (std::size_t i = 0; i < size; ++i) {
    view_shape[i] = -1;
    grids.push_back(refs[i].view(view_shape).expand(shape));
    view_shape[i] = 1;
  }
  if (swap) std::swap(grids[0], grids[1]);
  return grids;
}
// libtorch's deprecated form without `indexing`: "ij".
template <class = void>
std::vector<Tensor> meshgrid(TensorList tensors) {
  return tensorplay::meshgrid(tensors, "ij");
}

// ---- atleast_1d / 2d / 3d
// ------------------------------------------------------------------------ A tensor with enough
// dimensions is returned as is; others gain size-1 dimensions (a vector becomes a row, then a (1,
// n, 1) block).

template <class = void>
Tensor atleast_1d(const Tensor& self) {
  return self.dim() == 0 ? self.reshape({1}) : self;
}
template <class = void>
Tensor atleast_2d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1});
  if (self.dim() == 1) return self.unsqueeze(0);
  return self;
}
template <class = void>
Tensor atleast_3d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1, 1});
  if (self.dim() == 1) return self.unsqueeze(0).unsqueeze(-1);
  if (self.dim() == 2) return self.unsqueeze(-1);
  return self;
}
template <class = void>
std::vector<Tensor> atleast_1d(TensorList tensors) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(tensorplay::atleast_1d(t));
  return out;
}
template <class = void>
std::vector<Tensor> atleast_2d(TensorList tensors) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(tensorplay::atleast_2d(t));
  return out;
}
template <class = void>
std::vector<Tensor> atleast_3d(TensorList tensors) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(tensorplay::atleast_3d(t));
  return out;
}

// ---- hstack, vstack, row_stack, dstack, column_stack
// --------------------------------------------- cat of the inputs made at least 1-d (along dim 0
// for vectors, else 1), 2-d (dim 0) or 3-d (dim 2); column_stack makes 0-d and 1-d inputs columns
// first.

namespace detail::shape_impl {
template <class = void>
std::vector<Tensor> hstack_inputs(TensorList tensors, int64_t& dim) {
  TP_CHECK(!tensors.empty(), "hstack expects a non-empty TensorList");
  std::vector<Tensor> rep = tensorplay::atleast_1d(tensors);
  dim = rep[0].dim() == 1 ? 0 : 1;
  return rep;
}
template <class = void>
std::vector<Tensor> vstack_inputs(TensorList tensors) {
  TP_CHECK(!tensors.empty(), "vstack expects a non-empty TensorList");
  return tensorplay::atleast_2d(tensors);
}
template <class = void>
std::vector<Tensor> dstack_inputs(TensorList tensors) {
  TP_CHECK(!tensors.empty(), "dstack expects a non-empty TensorList");
  return tensorplay::atleast_3d(tensors);
}
template <class = void>
std::vector<Tensor> column_stack_inputs(TensorList tensors) {
  TP_CHECK(!tensors.empty(), "column_stack expects a non-empty TensorList");
  std::vector<Tensor> cols;
  for (const Tensor& t : tensors) cols.push_back(t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t);
  return cols;
}
}  // namespace detail::shape_impl

template <class = void>
Tensor hstack(TensorList tensors) {
  int64_t dim = 0;
  const std::vector<Tensor> rep = detail::shape_impl::hstack_inputs(tensors, dim);
  return cat(rep, dim);
}
template <class = void>
const Tensor& hstack_out(const Tensor& out, TensorList tensors) {
  int64_t dim = 0;
  const std::vector<Tensor> rep = detail::shape_impl::hstack_inputs(tensors, dim);
  return cat_out(out, rep, dim);
}
template <class = void>
Tensor vstack(TensorList tensors) {
  return cat(detail::shape_impl::vstack_inputs(tensors), 0);
}
template <class = void>
const Tensor& vstack_out(const Tensor& out, TensorList tensors) {
  return cat_out(out, detail::shape_impl::vstack_inputs(tensors), 0);
}
template <class = void>
Tensor row_stack(TensorList tensors) {
  return tensorplay::vstack(tensors);
}
template <class = void>
const Tensor& row_stack_out(const Tensor& out, TensorList tensors) {
  return tensorplay::vstack_out(out, tensors);
}
template <class = void>
Tensor dstack(TensorList tensors) {
  return cat(detail::shape_impl::dstack_inputs(tensors), 2);
}
template <class = void>
const Tensor& dstack_out(const Tensor& out, TensorList tensors) {
  return cat_out(out, detail::shape_impl::dstack_inputs(tensors), 2);
}
template <class = void>
Tensor column_stack(TensorList tensors) {
  return tensorplay::hstack(detail::shape_impl::column_stack_inputs(tensors));
}
template <class = void>
const Tensor& column_stack_out(const Tensor& out, TensorList tensors) {
  return tensorplay::hstack_out(out, detail::shape_impl::column_stack_inputs(tensors));
}

// ---- block_diag
// ----------------------------------------------------------------------------------

// The inputs (0-d, 1-d as a row, or 2-d) along the diagonal of a zero matrix of their promoted
// dtype; no inputs give an empty (1, 0) float32 matrix.
template <class = void>
Tensor block_diag(TensorList tensors) {
  if (tensors.empty()) return empty({1, 0}, kDefaultFloatDType);
  const Device device = tensors[0].device();
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    TP_CHECK(tensors[i].device() == device,
             "torch.block_diag: input tensors must all be on the same device. Input 0 is on "
             "device ",
             device, " and input ", i, " is on device ", tensors[i].device());
  }
  ResultTypeState state;
  for (const Tensor& t : tensors) state = update_result_type_state(t, state);
  const DType dtype = result_type(state);
  int64_t rows = 0, cols = 0;
  std::vector<Tensor> blocks;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TP_CHECK(t.dim() <= 2,
             "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input ", i, " has ",
             t.dim(), " dimensions");
    const int64_t r = t.dim() == 2 ? t.size(0) : 1;
    const int64_t c = t.dim() == 2 ? t.size(1) : (t.dim() == 1 ? t.size(0) : 1);
    rows += r;
    cols += c;
    blocks.push_back(t.reshape({r, c}));
  }
  return autograd::detail::differentiable_list<autograd::BlockDiagBackward0>(
      tensors,
      [&] {
        detail::shape_impl::host_only(tensors[0], "block_diag");
        Tensor result = zeros({rows, cols}, tensors[0].options().dtype(dtype));
        detail::AliasingViewsGuard write_through;
        int64_t r0 = 0, c0 = 0;
        for (const Tensor& b : blocks) {
          const int64_t r = b.size(0), c = b.size(1);
          detail::copy_impl(result.slice(0, r0, r0 + r).slice(1, c0, c0 + c), b);
          r0 += r;
          c0 += c;
        }
        return result;
      },
      [&](autograd::BlockDiagBackward0& fn, const Tensor&) {
        for (const Tensor& t : tensors) fn.sizes_.push_back(t.sizes().vec());
      });
}

// ---- cross, linalg_cross
// -------------------------------------------------------------------------

namespace detail::shape_impl {
// PyTorch's linalg_cross checks in its order; returns the broadcast shape.
template <class = void>
std::vector<int64_t> check_cross(const Tensor& self, const Tensor& other, int64_t dim) {
  TP_CHECK(self.dim() == other.dim(),
           "linalg.cross: inputs must have the same number of dimensions.");
  const int64_t w = maybe_wrap_dim(dim, self.dim(), /*wrap_scalar=*/false);
  TP_CHECK(self.size(w) == 3 && other.size(w) == 3, "linalg.cross: inputs dimension ", dim,
           " must have length 3. Got ", self.size(w), " and ", other.size(w));
  return detail::infer_size(self.sizes(), other.sizes());
}

// out = self x other along dim (all three already of the broadcast shape's layout): one pass
// over the other dimensions, each step reading the three components.
template <class = void>
void cross_kernel(const Tensor& out, const Tensor& self, const Tensor& other, int64_t dim) {
  const DType t = out.dtype();
  TP_CHECK(t != kBool && t != kHalf && t != kBFloat16, "\"cross\" not implemented for '",
           scalar_type_name(t), "'");
  TP_CHECK(other.dtype() == t, "expected scalar type ", scalar_type_name(t), " but found ",
           scalar_type_name(other.dtype()));
  TP_CHECK(self.dtype() == t, "expected scalar type ", scalar_type_name(t), " but found ",
           scalar_type_name(self.dtype()));
  host_only(self, "cross");
  if (out.numel() == 0) return;
  const Tensor a = self.expand(out.sizes()), b = other.expand(out.sizes());
  const int64_t item = out.element_size();
  const int64_t so = out.stride(dim) * item, sa = a.stride(dim) * item, sb = b.stride(dim) * item;
  const TensorIterator iter = TensorIteratorConfig()
                                  .set_check_mem_overlap(false)
                                  .resize_outputs(false)
                                  .add_output(out.narrow(dim, 0, 1))
                                  .add_input(a.narrow(dim, 0, 1))
                                  .add_input(b.narrow(dim, 0, 1))
                                  .build();
  dispatch_dtype(t, [&]<class T>() {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, Half> ||
                  std::is_same_v<T, BFloat16>) {
      return;  // refused above
    } else {
      iter.for_each([&](char** data, const int64_t* st, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          char* o = data[0] + i * st[0];
          const char* x = data[1] + i * st[1];
          const char* y = data[2] + i * st[2];
          const auto at = [](const char* p, int64_t k, int64_t s) {
            return *reinterpret_cast<const T*>(p + k * s);
          };
          const T x0 = at(x, 0, sa), x1 = at(x, 1, sa), x2 = at(x, 2, sa);
          const T y0 = at(y, 0, sb), y1 = at(y, 1, sb), y2 = at(y, 2, sb);
          *reinterpret_cast<T*>(o) = static_cast<T>(x1 * y2 - x2 * y1);
          *reinterpret_cast<T*>(o + so) = static_cast<T>(x2 * y0 - x0 * y2);
          *reinterpret_cast<T*>(o + 2 * so) = static_cast<T>(x0 * y1 - x1 * y0);
        }
      });
    }
  });
}

// cross's dim when none is given: the first dimension of size 3 (deprecated in PyTorch).
template <class = void>
int64_t default_cross_dim(std::optional<int64_t> dim, IntArrayRef sizes) {
  if (dim) return *dim;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 3) return static_cast<int64_t>(i);
  }
  TP_CHECK(false, "no dimension of size 3 in input");
  return 0;
}
}  // namespace detail::shape_impl

// The cross product of 3-vectors along dim, over the broadcast of the other dimensions.
template <class = void>
Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim = -1) {
  using namespace detail::shape_impl;
  const std::vector<int64_t> shape = check_cross(self, other, dim);
  const int64_t w = maybe_wrap_dim(dim, self.dim());
  return autograd::detail::differentiable<autograd::LinalgCrossBackward0>(
      [&] {
        Tensor out = empty(shape, self.options());
        cross_kernel(out, self, other, w);
        return out;
      },
      [&](autograd::LinalgCrossBackward0& fn, const Tensor&) {
        fn.self_ = autograd::SavedVariable(self, false);
        fn.other_ = autograd::SavedVariable(other, false);
        fn.dim_ = w;
      },
      self, other);
}
template <class = void>
const Tensor& linalg_cross_out(const Tensor& out, const Tensor& self, const Tensor& other,
                               int64_t dim = -1) {
  using namespace detail::shape_impl;
  autograd::detail::check_out_no_grad("linalg_cross", self, other);
  const std::vector<int64_t> shape = check_cross(self, other, dim);
  detail::check_out_dtype(out, self.dtype());
  detail::linalg_impl::resize_out(out, shape);
  detail::linalg_impl::check_out_memory(out, {&self, &other});
  cross_kernel(out, self, other, maybe_wrap_dim(dim, self.dim()));
  out.unsafeGetTensorImpl()->bump_version();
  return out;
}
// cross: linalg_cross, whose dim defaults to the first one of size 3.
template <class = void>
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim = std::nullopt) {
  return tensorplay::linalg_cross(self, other,
                                  detail::shape_impl::default_cross_dim(dim, self.sizes()));
}
template <class = void>
const Tensor& cross_out(const Tensor& out, const Tensor& self, const Tensor& other,
                        std::optional<int64_t> dim = std::nullopt) {
  return tensorplay::linalg_cross_out(out, self, other,
                                      detail::shape_impl::default_cross_dim(dim, self.sizes()));
}
template <class>
Tensor Tensor::cross(const Tensor& other, std::optional<int64_t> dim) const {
  return tensorplay::cross(*this, other, dim);
}

// ---- kron
// ----------------------------------------------------------------------------------------

namespace detail::shape_impl {
// kron's shapes: self as (s0, 1, s1, 1, ...), other as (1, o0, 1, o1, ...), both padded to the
// larger rank; their product regrouped is the result.
struct KronShapes {
  std::vector<int64_t> a, b, result;
};
template <class = void>
KronShapes kron_shapes(const Tensor& self, const Tensor& other) {
  const int64_t maxdim = std::max(self.dim(), other.dim());
  const int64_t pad_self = maxdim - self.dim(), pad_other = maxdim - other.dim();
  KronShapes s;
  for (int64_t i = 0; i < maxdim; ++i) {
    const int64_t a = i >= pad_self ? self.size(i - pad_self) : 1;
    const int64_t b = i >= pad_other ? other.size(i - pad_other) : 1;
    s.a.insert(s.a.end(), {a, 1});
    s.b.insert(s.b.end(), {1, b});
    s.result.push_back(a * b);
  }
  return s;
}
}  // namespace detail::shape_impl

// The Kronecker product: mul of the two regrouped views, then (as PyTorch's _unsafe_view) the
// product itself restrided to the result's shape, recorded as UnsafeViewBackward0.
template <class = void>
Tensor kron(const Tensor& self, const Tensor& other) {
  const detail::shape_impl::KronShapes s = detail::shape_impl::kron_shapes(self, other);
  Tensor prod = self.reshape(s.a).mul(other.reshape(s.b));
  // mul allocates in its inputs' layout; the regrouping needs row-major (PyTorch's
  // _unsafe_view refuses a transposed input here instead).
  if (!prod.is_contiguous()) prod = prod.contiguous();
  auto node = autograd::detail::make_node<autograd::UnsafeViewBackward0>(prod);
  if (node) node->self_sizes_ = prod.sizes().vec();
  std::vector<int64_t> strides(s.result.size());
  int64_t running = 1;
  for (std::size_t d = s.result.size(); d-- > 0;) {
    strides[d] = running;
    running *= std::max<int64_t>(s.result[d], 1);
  }
  detail::set_strided(*prod.unsafeGetTensorImpl(), s.result, strides, prod.storage_offset(),
                      "kron");
  if (node) autograd::detail::set_history(prod, node);
  return prod;
}
// kron into `out`: the product's dtype must cast safely to out's (mul_out's rule).
template <class = void>
const Tensor& kron_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  autograd::detail::check_out_no_grad("kron", self, other);
  const Tensor r = tensorplay::kron(self, other);
  TP_CHECK(can_cast(r.dtype(), out.dtype()), "result type ", scalar_type_name(r.dtype()),
           " can't be cast to the desired output type ", scalar_type_name(out.dtype()));
  detail::linalg_impl::resize_out(out, r.sizes());
  detail::linalg_impl::check_out_memory(out, {&self, &other});
  detail::copy_impl(out, r);
  out.unsafeGetTensorImpl()->bump_version();
  return out;
}
template <class>
Tensor Tensor::kron(const Tensor& other) const {
  return tensorplay::kron(*this, other);
}

// ---- tensordot
// -----------------------------------------------------------------------------------

// Contracts dims1 of a with dims2 of b: both permuted so the contracted dimensions meet, an mm,
// and the result reshaped to a's free dimensions followed by b's. A contracted dimension of
// size 1 on one side is summed away on the other first (PyTorch broadcasts there).
template <class = void>
Tensor tensordot(const Tensor& input1, const Tensor& input2, IntArrayRef dims1, IntArrayRef dims2) {
  TP_CHECK(dims1.size() == dims2.size(), "both dimension lists should have same length");
  int64_t csize = 1;
  Tensor t1 = input1, t2 = input2;
  for (std::size_t i = 0; i < dims1.size(); ++i) {
    const int64_t s1 = input1.size(dims1[i]), s2 = input2.size(dims2[i]);
    if (s2 == 1) {
      t1 = t1.sum({dims1[i]}, true);
    } else if (s1 == 1) {
      t2 = t2.sum({dims2[i]}, true);
    } else {
      TP_CHECK(s1 == s2, "contracted dimensions need to match, but first has size ", s1, " in dim ",
               dims1[i], " and second has size ", s2, " in dim ", dims2[i]);
      csize *= s1;
    }
  }
  const std::vector<int64_t> w1 = detail::shape_impl::wrap_dim_list(dims1, input1.dim());
  const std::vector<int64_t> w2 = detail::shape_impl::wrap_dim_list(dims2, input2.dim());
  std::vector<bool> c1(static_cast<std::size_t>(input1.dim()), false);
  std::vector<bool> c2(static_cast<std::size_t>(input2.dim()), false);
  for (int64_t d : w1) c1[static_cast<std::size_t>(d)] = true;
  for (int64_t d : w2) c2[static_cast<std::size_t>(d)] = true;
  std::vector<int64_t> p1, p2, rsizes;
  int64_t size1 = 1, size2 = 1;
  for (int64_t i = 0; i < input1.dim(); ++i) {
    if (c1[static_cast<std::size_t>(i)]) continue;
    p1.push_back(i);
    size1 *= t1.size(i);
    rsizes.push_back(t1.size(i));
  }
  p1.insert(p1.end(), w1.begin(), w1.end());
  p2.insert(p2.end(), w2.begin(), w2.end());
  for (int64_t i = 0; i < input2.dim(); ++i) {
    if (c2[static_cast<std::size_t>(i)]) continue;
    p2.push_back(i);
    size2 *= t2.size(i);
    rsizes.push_back(t2.size(i));
  }
  t1 = t1.permute(p1).reshape({size1, csize});
  t2 = t2.permute(p2).reshape({csize, size2});
  return t1.mm(t2).reshape(rsizes);
}
template <class = void>
const Tensor& tensordot_out(const Tensor& out, const Tensor& input1, const Tensor& input2,
                            IntArrayRef dims1, IntArrayRef dims2) {
  autograd::detail::check_out_no_grad("tensordot", input1, input2);
  const Tensor r = tensorplay::tensordot(input1, input2, dims1, dims2);
  TP_CHECK(r.dtype() == out.dtype(), "tensordot: Expected the output tensor to have dtype ",
           scalar_type_name(r.dtype()), ", but got an output tensor with dtype ",
           scalar_type_name(out.dtype()));
  detail::linalg_impl::resize_out(out, r.sizes());
  {
    NoGradGuard no_grad;
    out.copy_(r);
  }
  return out;
}

}  // namespace tensorplay
