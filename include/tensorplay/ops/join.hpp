// Joining: cat and stack, with their out= forms (libtorch's names, argument orders, rules and
// messages: ATen's TensorShape.cpp).
//
// cat's rules, PyTorch's:
//  - the result dtype is the promotion of every input's dtype (int32 with float32 is float32);
//    with out= it is out's dtype, which the promoted one must cast to safely;
//  - a 1-d empty tensor (shape [0]) is skipped, wherever it is, for backward compatibility:
//    cat({zeros({0}), x}, 1) is x, whatever x's rank (only that shape is skipped);
//  - every other input must have the rank of the first one that is not skipped, and the same
//    size in every dimension but `dim`; 0-d inputs are refused;
//  - the result is contiguous, or channels-last when every input is (PyTorch's
//    cat_compute_output_memory_format).
// Each input is copied (copy_'s conversion and any strides) into a narrow() of the result.
//
// stack inserts a new dimension of size N at `dim` (in [-(rank+1), rank]) and needs every input
// to have the same shape; it is cat of the inputs unsqueezed at `dim`.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <tensorplay/autograd/functions/linalg.hpp>
#include <tensorplay/core/aliasing_views.hpp>
#include <tensorplay/core/array_ref.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/memory_format.hpp>
#include <tensorplay/core/safe_math.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/core/wrap_dim.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/resize.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>  // get_overlap_status, assert_no_internal_overlap
#include <tensorplay/ops/views.hpp>

namespace tensorplay {

namespace detail::join_impl {

// The legacy rule: a 1-d tensor with no elements takes no part in shape checks or the copy.
template <class = void>
bool cat_should_skip(const Tensor& t) {
  return t.dim() == 1 && t.numel() == 0;
}

// `dim` wrapped against the first input that is not skipped (unwrapped if all are).
template <class = void>
int64_t legacy_cat_wrap_dim(int64_t dim, TensorList tensors) {
  for (const Tensor& t : tensors) {
    if (!cat_should_skip(t)) return maybe_wrap_dim(dim, t.dim());
  }
  return dim;
}

template <class = void>
MemoryFormat cat_memory_format(TensorList tensors) {
  std::optional<MemoryFormat> format;
  for (const Tensor& t : tensors) {
    const MemoryFormat f = t.suggest_memory_format();
    if (f == MemoryFormat::Contiguous) return f;
    if (format && *format != f) return MemoryFormat::Contiguous;
    format = f;
  }
  return format.value_or(MemoryFormat::Contiguous);
}

// The shape check of every non-skipped input against the first one (check_cat_shape_except_dim).
template <class = void>
void check_cat_shape_except_dim(const Tensor& first, const Tensor& second, int64_t dim,
                                std::size_t index) {
  TP_CHECK(first.dim() == second.dim(), "Tensors must have same number of dimensions: got ",
           first.dim(), " and ", second.dim());
  for (int64_t d = 0; d < first.dim(); ++d) {
    if (d == dim) continue;
    TP_CHECK(first.size(d) == second.size(d), "Sizes of tensors must match except in dimension ",
             dim, ". Expected size ", first.size(d), " but got size ", second.size(d),
             " for tensor number ", index, " in the list.");
  }
}

// What cat will produce: the checks of PyTorch's cat meta function, in its order.
struct CatPlan {
  int64_t dim;
  DType dtype;
  MemoryFormat format;
  std::vector<int64_t> sizes;
  bool any_valid;  // some input is not skipped
};

template <class = void>
CatPlan plan_cat(TensorList tensors, int64_t dim, const Tensor* out) {
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    TP_CHECK(tensors[i].dim() > 0, "zero-dimensional tensor (at position ", i,
             ") cannot be concatenated");
  }
  CatPlan plan;
  plan.dim = legacy_cat_wrap_dim(dim, tensors);
  TP_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  // Every input is at least 1-d here, so PyTorch's result_type is plain promotion.
  plan.dtype = tensors[0].dtype();
  for (const Tensor& t : tensors) plan.dtype = promote_types(plan.dtype, t.dtype());
  if (out != nullptr) {
    TP_CHECK(can_cast(plan.dtype, out->dtype()),
             "torch.cat(): input types can't be cast to the desired output type ",
             scalar_type_name(out->dtype()));
    plan.dtype = out->dtype();
  }
  plan.format = cat_memory_format(tensors);
  std::size_t valid = tensors.size();
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (!cat_should_skip(tensors[i])) {
      valid = i;
      break;
    }
  }
  plan.any_valid = valid < tensors.size();
  if (!plan.any_valid) {
    plan.sizes = {0};
    return plan;
  }
  int64_t size_at_dim = 0;
  bool overflow = false;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (cat_should_skip(tensors[i])) continue;
    check_cat_shape_except_dim(tensors[valid], tensors[i], plan.dim, i);
    overflow |= add_overflows(size_at_dim, tensors[i].size(plan.dim), &size_at_dim);
  }
  // Expanded inputs hold few bytes however long they are, so their total can exceed int64.
  // PyTorch's sum wraps (to a "negative dimension" or a wrong size); we say what happened.
  TP_CHECK(!overflow, "torch.cat(): the total size of the inputs in dimension ", plan.dim,
           " overflows int64");
  const IntArrayRef first = tensors[valid].sizes();
  plan.sizes.assign(first.begin(), first.end());
  plan.sizes[std::size_t(plan.dim)] = size_at_dim;
  // PyTorch sizes the result by resize_, which checks numel before the bytes (stack of four
  // expanded [2^62] tensors: numel overflows; of two [2^60] float64 ones: the bytes do).
  safe_compute_numel(plan.sizes);
  return plan;
}

// Copies every non-skipped input into its slice of `result` (which has the planned shape).
template <class = void>
void cat_fill(const Tensor& result, TensorList tensors, const CatPlan& plan) {
  if (!plan.any_valid) return;
  AliasingViewsGuard write_through;  // the slices below are result's own bytes on every device
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (cat_should_skip(t)) continue;
    const int64_t len = t.size(plan.dim);
    if (len > 0 && t.numel() > 0) detail::copy_impl(result.narrow(plan.dim, offset, len), t);
    offset += len;
  }
}

template <class = void>
std::vector<Tensor> unsqueeze_all(TensorList tensors, int64_t dim) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(t.unsqueeze(dim));
  return out;
}

// check_stack_inputs: every input has the first one's shape.
template <class = void>
void check_stack_inputs(TensorList tensors) {
  const IntArrayRef entry = tensors[0].sizes();
  for (std::size_t i = 1; i < tensors.size(); ++i) {
    TP_CHECK(tensors[i].sizes() == entry, "stack expects each tensor to be equal size, but got ",
             entry, " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  }
}

// stack's inputs as cat sees them. PyTorch checks the shapes only when the new dim is not the
// last one (there it uses cat + view); for a new last dim cat's own checks speak.
template <class = void>
std::vector<Tensor> stack_inputs(TensorList tensors, int64_t& dim) {
  TP_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  const int64_t wrapped = maybe_wrap_dim(dim, tensors[0].dim() + 1);
  if (wrapped < tensors[0].dim()) {
    check_stack_inputs(tensors);
    dim = wrapped;
  }
  return unsqueeze_all(tensors, dim);
}

}  // namespace detail::join_impl

// Concatenates along an existing dimension (see the top of this file for the rules).
template <class = void>
Tensor cat(TensorList tensors, int64_t dim = 0) {
  using namespace detail::join_impl;
  const CatPlan plan = plan_cat(tensors, dim, nullptr);
  return autograd::detail::differentiable_list<autograd::CatBackward0>(
      tensors,
      [&] {
        Tensor result = empty(plan.sizes, tensors[0].options().dtype(plan.dtype), plan.format);
        cat_fill(result, tensors, plan);
        return result;
      },
      [&](autograd::CatBackward0& fn, const Tensor& result) {
        (void)result;
        fn.dim_ = plan.dim;  // wrapped; each input's extent along it (-1: skipped)
        for (const Tensor& t : tensors) {
          fn.sizes_.push_back(cat_should_skip(t) ? -1 : t.size(fn.dim_));
        }
      });
}

// cat into `out`: its dtype is the result's (the inputs' promoted dtype must cast to it
// safely), it is resized when its shape is wrong, and no input may share memory with it.
template <class = void>
const Tensor& cat_out(const Tensor& out, TensorList tensors, int64_t dim = 0) {
  using namespace detail::join_impl;
  for (const Tensor& t : tensors) autograd::detail::check_out_no_grad("cat", t);
  // The write funnel: read-only storages, inference tensors (out='s own grad rule is
  // check_out_no_grad's).
  autograd::detail::check_inplace(out.unsafeGetTensorImpl(), /*records=*/false);
  const CatPlan plan = plan_cat(tensors, dim, &out);
  if (!(out.sizes() == IntArrayRef(plan.sizes))) out.resize_(plan.sizes, plan.format);
  if (plan.any_valid) {
    detail::assert_no_internal_overlap(out);
    for (const Tensor& t : tensors) detail::assert_no_overlap(out, t);
  }
  cat_fill(out, tensors, plan);
  out.unsafeGetTensorImpl()->bump_version();
  return out;
}

// Stacks equally shaped tensors along a new dimension `dim` (in [-(rank+1), rank]).
template <class = void>
Tensor stack(TensorList tensors, int64_t dim = 0) {
  std::vector<Tensor> inputs;
  {
    AutoGradMode off(false);  // the unsqueezed inputs are the kernel's business, not the graph's
    inputs = detail::join_impl::stack_inputs(tensors, dim);
  }
  return autograd::detail::differentiable_list<autograd::StackBackward0>(
      tensors, [&] { return cat(inputs, dim); },
      [&](autograd::StackBackward0& fn, const Tensor&) { fn.dim_ = dim; });
}

template <class = void>
const Tensor& stack_out(const Tensor& out, TensorList tensors, int64_t dim = 0) {
  for (const Tensor& t : tensors) autograd::detail::check_out_no_grad("stack", t);
  const std::vector<Tensor> inputs = detail::join_impl::stack_inputs(tensors, dim);
  return cat_out(out, inputs, dim);
}

}  // namespace tensorplay
