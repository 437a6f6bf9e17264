// Comparison and logic: eq ne lt le gt ge (and their operators), logical_and/or/xor/not,
// isnan/isinf/isfinite/isposinf/isneginf, where, masked_fill, isclose/allclose/equal, with
// libtorch's overloads. Semantics are PyTorch 1.13's (BinaryOps.cpp, TensorCompare.cpp,
// TernaryOps.cpp): inputs are promoted to their common dtype and compared there, the result is
// bool, an out= of another dtype receives 0/1, and the in-place forms keep self's dtype.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/loops.hpp>
#include <tensorplay/ops/result_type.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>

namespace tensorplay {
namespace detail::binary_impl {

template <class = void>
BinaryPlan::Options bool_result() {
  BinaryPlan::Options opt;
  opt.static_dtype = kBool;
  return opt;
}

template <class Cmp>
inline void compare_kernel(BinaryPlan& p, Cmp cmp) {
  if (p.run_on_device(pointwise_code_of<Cmp>())) return;
  dispatch_dtype(p.common_dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    p.run<bool, T>([cmp](M x, M y) -> bool { return cmp(x, y); });
  });
}

struct CmpEq {
  static constexpr PointwiseCode kDevice = PointwiseCode::Eq;
  template <class M>
  bool operator()(M x, M y) const {
    return x == y;
  }
};
struct CmpNe {
  static constexpr PointwiseCode kDevice = PointwiseCode::Ne;
  template <class M>
  bool operator()(M x, M y) const {
    return x != y;
  }
};
struct CmpLt {
  static constexpr PointwiseCode kDevice = PointwiseCode::Lt;
  template <class M>
  bool operator()(M x, M y) const {
    return x < y;
  }
};
struct CmpLe {
  static constexpr PointwiseCode kDevice = PointwiseCode::Le;
  template <class M>
  bool operator()(M x, M y) const {
    return x <= y;
  }
};
struct CmpGt {
  static constexpr PointwiseCode kDevice = PointwiseCode::Gt;
  template <class M>
  bool operator()(M x, M y) const {
    return x > y;
  }
};
struct CmpGe {
  static constexpr PointwiseCode kDevice = PointwiseCode::Ge;
  template <class M>
  bool operator()(M x, M y) const {
    return x >= y;
  }
};

// C++'s truth of a number: nonzero, so NaN is true.
template <class M>
inline bool truthy(M x) {
  if constexpr (std::is_same_v<M, bool>) {
    return x;
  } else {
    return x != M(0);
  }
}

struct LogicalAnd {
  template <class M>
  bool operator()(M x, M y) const {
    return truthy(x) && truthy(y);
  }
};
struct LogicalOr {
  template <class M>
  bool operator()(M x, M y) const {
    return truthy(x) || truthy(y);
  }
};
struct LogicalXor {
  template <class M>
  bool operator()(M x, M y) const {
    return truthy(x) != truthy(y);
  }
};

// A one-input iterator producing bool: logical_not and the float predicates.
template <class = void>
TensorIterator bool_unary_iter(const Tensor& out, const Tensor& self) {
  return TensorIteratorConfig()
      .add_output(out)
      .add_input(self)
      .check_all_same_dtype(false)
      .declare_static_dtype(kBool)
      .cast_common_dtype_to_outputs(true)
      .build();
}

template <class = void>
Tensor logical_not_impl(const Tensor& out, const Tensor& self) {
  TensorIterator iter = bool_unary_iter(out, self);
  dispatch_dtype(self.dtype(), [&]<class T>() {
    run_unary<bool, T>(iter, [](opmath_t<T> x) { return !truthy(x); });
  });
  return iter.output();
}

// isnan & co.: a kernel for the floating dtypes; integral and bool tensors hold no NaN or
// infinity, so the answer is `constant` everywhere (PyTorch's zeros_like / ones_like).
template <class Pred>
inline Tensor float_predicate(const Tensor& self, bool constant, const Pred& pred) {
  if (!is_floating_point(self.dtype())) {
    return constant ? ones_like(self, TensorOptions().dtype(kBool))
                    : zeros_like(self, TensorOptions().dtype(kBool));
  }
  TensorIterator iter = bool_unary_iter(Tensor(), self);
  dispatch_set<kSetFloating>(self.dtype(), "float_predicate", [&]<class T>() {
    run_unary<bool, T>(iter, [pred](opmath_t<T> x) -> bool { return pred(x); });
  });
  return iter.output();
}

template <class Pred>
inline const Tensor& float_predicate_out(const Tensor& out, const Tensor& self, const char* name,
                                         const Pred& pred) {
  TP_CHECK(out.dtype() == kBool, name, " does not support non-boolean outputs.");
  if (!is_floating_point(self.dtype())) {
    resize_output(out, self.sizes());
    out.fill_(false);
    return out;
  }
  TensorIterator iter = bool_unary_iter(out, self);
  dispatch_set<kSetFloating>(self.dtype(), name, [&]<class T>() {
    run_unary<bool, T>(iter, [pred](opmath_t<T> x) -> bool { return pred(x); });
  });
  return out;
}

struct IsNan {
  template <class M>
  bool operator()(M x) const {
    return std::isnan(x);
  }
};
struct IsInf {
  template <class M>
  bool operator()(M x) const {
    return std::isinf(x);
  }
};
struct IsFinite {
  template <class M>
  bool operator()(M x) const {
    return std::isfinite(x);
  }
};
struct IsPosInf {
  template <class M>
  bool operator()(M x) const {
    return x == std::numeric_limits<M>::infinity();
  }
};
struct IsNegInf {
  template <class M>
  bool operator()(M x) const {
    return x == -std::numeric_limits<M>::infinity();
  }
};

// where(condition, self, other): condition bool (uint8 accepted, as PyTorch still does), self
// and other promoted to their result_type; all three broadcast.
template <class = void>
Tensor where_impl(const Tensor& out, const Tensor& condition, const Tensor& self,
                  const Tensor& other) {
  const DType rt = result_type(self, other);
  if (out.defined()) {
    TP_CHECK(out.dtype() == rt, "Expected out type to be ", scalar_type_name(rt), " but got ",
             scalar_type_name(out.dtype()));
  }
  const Tensor cond = condition.dtype() == kByte ? condition.to(kBool) : condition;
  TP_CHECK(cond.dtype() == kBool,
           "where expected condition to be a boolean tensor, but got a tensor with dtype ",
           scalar_type_name(cond.dtype()));
  TensorIterator iter = TensorIteratorConfig()
                            .add_output(out)
                            .add_input(cond)
                            .add_input(self.to(rt))
                            .add_input(other.to(rt))
                            .check_all_same_dtype(false)
                            .declare_static_dtype(rt)
                            .build();
  if (!iter.is_cpu()) {
    pointwise_on_device(iter, PointwiseCode::Where);
    return iter.output();
  }
  dispatch_dtype(rt, [&]<class T>() {
    using M = opmath_t<T>;
    run_ternary<T, bool, T>(iter, [](bool c, M x, M y) { return c ? x : y; });
  });
  return iter.output();
}

template <class = void>
void masked_fill_impl(const Tensor& self, const Tensor& mask, const Scalar& value) {
  TP_CHECK(mask.dtype() == kBool,
           "masked_fill_ only supports boolean masks, but got mask with dtype ",
           typemeta_name(mask.dtype()));
  // An expanded self is allowed (PyTorch warns): every write stores the same value.
  assert_no_partial_overlap(self, mask);
  TensorIterator iter = TensorIteratorConfig()
                            .set_check_mem_overlap(false)
                            .check_all_same_dtype(false)
                            .resize_outputs(false)
                            .add_output(self)
                            .add_input(mask)
                            .build();
  if (!iter.is_cpu()) {  // the device's where(mask, value, self), written into self
    dispatch_dtype(self.dtype(), [&]<class T>() { (void)value.to<T>(); });  // the same check
    const Tensor v = wrapped_scalar_tensor(value).to(self.dtype());
    const TensorIterator where = TensorIteratorConfig()
                                     .set_check_mem_overlap(false)
                                     .check_all_same_dtype(false)
                                     .resize_outputs(false)
                                     .add_output(self)
                                     .add_input(mask)
                                     .add_input(v)
                                     .add_input(self)
                                     .build();
    pointwise_on_device(where, PointwiseCode::Where);
    return;
  }
  dispatch_dtype(self.dtype(), [&]<class T>() {
    const T v = value.to<T>();  // checked: uint8 masked_fill_(mask, 300) fails
    iter.for_each([v](char** data, const int64_t* strides, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        if (*reinterpret_cast<const bool*>(data[1] + i * strides[1])) {
          *reinterpret_cast<T*>(data[0] + i * strides[0]) = v;
        }
      }
    });
  });
  iter.finish();
}

template <class = void>
void masked_fill_value_check(const Tensor& value) {
  TP_CHECK(value.dim() == 0,
           "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
           value.dim(), " dimension(s).");
}

// masked_fill: self broadcast with the mask, copied, then filled in place.
template <class = void>
Tensor masked_fill_copy(const Tensor& self, const Tensor& mask, const Scalar& value) {
  const std::vector<int64_t> shape = infer_size(mask.sizes(), self.sizes());
  Tensor result = self.expand(shape).clone(MemoryFormat::Contiguous);
  masked_fill_impl(result, mask, value);
  result.unsafeGetTensorImpl()->reset_version();  // a new value, never modified
  return result;
}

}  // namespace detail::binary_impl

// ==== comparisons ==============================================================================
// In the common dtype of the operands. A number is converted to that dtype as the arithmetic ops
// convert it, unchecked (uint8_tensor == 256 compares with 0), as PyTorch 1.13 does; later
// PyTorch versions compare against the exact value instead.

#define TENSORPLAY_COMPARISON_OP_(name, Cmp)                                                      \
  template <class = void>                                                                         \
  Tensor name(const Tensor& self, const Tensor& other) {                                          \
    if (self.is_quantized() || other.is_quantized()) /* compared by value, as PyTorch */          \
      return name(detail::dequantize_if_quantized(self), detail::dequantize_if_quantized(other)); \
    return detail::binary_impl::binary_call(Tensor(), self, other,                                \
                                            detail::binary_impl::bool_result(),                   \
                                            [](detail::binary_impl::BinaryPlan& p) {              \
                                              detail::binary_impl::compare_kernel(p, Cmp{});      \
                                            });                                                   \
  }                                                                                               \
  template <class = void>                                                                         \
  Tensor name(const Tensor& self, const Scalar& other) {                                          \
    if (self.is_quantized()) return name(detail::dequantize_values(self), other);                 \
    return detail::binary_impl::binary_call(Tensor(), self, other,                                \
                                            detail::binary_impl::bool_result(),                   \
                                            [](detail::binary_impl::BinaryPlan& p) {              \
                                              detail::binary_impl::compare_kernel(p, Cmp{});      \
                                            });                                                   \
  }                                                                                               \
  template <class = void>                                                                         \
  const Tensor& name##_out(const Tensor& out, const Tensor& self, const Tensor& other) {          \
    detail::binary_impl::binary_call(out, self, other, detail::binary_impl::bool_result(),        \
                                     [](detail::binary_impl::BinaryPlan& p) {                     \
                                       detail::binary_impl::compare_kernel(p, Cmp{});             \
                                     });                                                          \
    return out;                                                                                   \
  }                                                                                               \
  template <class = void>                                                                         \
  const Tensor& name##_out(const Tensor& out, const Tensor& self, const Scalar& other) {          \
    detail::binary_impl::binary_call(out, self, other, detail::binary_impl::bool_result(),        \
                                     [](detail::binary_impl::BinaryPlan& p) {                     \
                                       detail::binary_impl::compare_kernel(p, Cmp{});             \
                                     });                                                          \
    return out;                                                                                   \
  }                                                                                               \
  template <class>                                                                                \
  Tensor Tensor::name(const Tensor& other) const {                                                \
    return tensorplay::name(*this, other);                                                        \
  }                                                                                               \
  template <class>                                                                                \
  Tensor Tensor::name(const Scalar& other) const {                                                \
    return tensorplay::name(*this, other);                                                        \
  }                                                                                               \
  template <class>                                                                                \
  const Tensor& Tensor::name##_(const Tensor& other) const {                                      \
    return name##_out(*this, *this, other);                                                       \
  }                                                                                               \
  template <class>                                                                                \
  const Tensor& Tensor::name##_(const Scalar& other) const {                                      \
    return name##_out(*this, *this, other);                                                       \
  }

TENSORPLAY_COMPARISON_OP_(eq, detail::binary_impl::CmpEq)
TENSORPLAY_COMPARISON_OP_(ne, detail::binary_impl::CmpNe)
TENSORPLAY_COMPARISON_OP_(lt, detail::binary_impl::CmpLt)
TENSORPLAY_COMPARISON_OP_(le, detail::binary_impl::CmpLe)
TENSORPLAY_COMPARISON_OP_(gt, detail::binary_impl::CmpGt)
TENSORPLAY_COMPARISON_OP_(ge, detail::binary_impl::CmpGe)
#undef TENSORPLAY_COMPARISON_OP_

// The long names (torch.greater etc.).
#define TENSORPLAY_COMPARISON_ALIAS_(alias, name)         \
  template <class = void>                                 \
  Tensor alias(const Tensor& self, const Tensor& other) { \
    return name(self, other);                             \
  }                                                       \
  template <class = void>                                 \
  Tensor alias(const Tensor& self, const Scalar& other) { \
    return name(self, other);                             \
  }                                                       \
  template <class>                                        \
  Tensor Tensor::alias(const Tensor& other) const {       \
    return tensorplay::name(*this, other);                \
  }                                                       \
  template <class>                                        \
  Tensor Tensor::alias(const Scalar& other) const {       \
    return tensorplay::name(*this, other);                \
  }

TENSORPLAY_COMPARISON_ALIAS_(not_equal, ne)
TENSORPLAY_COMPARISON_ALIAS_(less, lt)
TENSORPLAY_COMPARISON_ALIAS_(less_equal, le)
TENSORPLAY_COMPARISON_ALIAS_(greater, gt)
TENSORPLAY_COMPARISON_ALIAS_(greater_equal, ge)
#undef TENSORPLAY_COMPARISON_ALIAS_

template <class = void>
Tensor operator==(const Tensor& a, const Tensor& b) {
  return eq(a, b);
}
template <class = void>
Tensor operator==(const Tensor& a, const Scalar& b) {
  return eq(a, b);
}
template <class = void>
Tensor operator==(const Scalar& a, const Tensor& b) {
  return eq(b, a);
}
template <class = void>
Tensor operator!=(const Tensor& a, const Tensor& b) {
  return ne(a, b);
}
template <class = void>
Tensor operator!=(const Tensor& a, const Scalar& b) {
  return ne(a, b);
}
template <class = void>
Tensor operator!=(const Scalar& a, const Tensor& b) {
  return ne(b, a);
}
template <class = void>
Tensor operator<(const Tensor& a, const Tensor& b) {
  return lt(a, b);
}
template <class = void>
Tensor operator<(const Tensor& a, const Scalar& b) {
  return lt(a, b);
}
template <class = void>
Tensor operator<(const Scalar& a, const Tensor& b) {
  return gt(b, a);
}
template <class = void>
Tensor operator<=(const Tensor& a, const Tensor& b) {
  return le(a, b);
}
template <class = void>
Tensor operator<=(const Tensor& a, const Scalar& b) {
  return le(a, b);
}
template <class = void>
Tensor operator<=(const Scalar& a, const Tensor& b) {
  return ge(b, a);
}
template <class = void>
Tensor operator>(const Tensor& a, const Tensor& b) {
  return gt(a, b);
}
template <class = void>
Tensor operator>(const Tensor& a, const Scalar& b) {
  return gt(a, b);
}
template <class = void>
Tensor operator>(const Scalar& a, const Tensor& b) {
  return lt(b, a);
}
template <class = void>
Tensor operator>=(const Tensor& a, const Tensor& b) {
  return ge(a, b);
}
template <class = void>
Tensor operator>=(const Tensor& a, const Scalar& b) {
  return ge(a, b);
}
template <class = void>
Tensor operator>=(const Scalar& a, const Tensor& b) {
  return le(b, a);
}

// ==== logical ops ==============================================================================
// Any dtype; an element is true when nonzero (NaN included). Bool results; in place keeps
// self's dtype and stores 0/1.

#define TENSORPLAY_LOGICAL_OP_(name, Op)                                                           \
  template <class = void>                                                                          \
  Tensor name(const Tensor& self, const Tensor& other) {                                           \
    return detail::binary_impl::binary_call(                                                       \
        Tensor(), self, other, detail::binary_impl::bool_result(),                                 \
        [](detail::binary_impl::BinaryPlan& p) { detail::binary_impl::compare_kernel(p, Op{}); }); \
  }                                                                                                \
  template <class = void>                                                                          \
  const Tensor& name##_out(const Tensor& out, const Tensor& self, const Tensor& other) {           \
    detail::binary_impl::binary_call(                                                              \
        out, self, other, detail::binary_impl::bool_result(),                                      \
        [](detail::binary_impl::BinaryPlan& p) { detail::binary_impl::compare_kernel(p, Op{}); }); \
    return out;                                                                                    \
  }                                                                                                \
  template <class>                                                                                 \
  Tensor Tensor::name(const Tensor& other) const {                                                 \
    return tensorplay::name(*this, other);                                                         \
  }                                                                                                \
  template <class>                                                                                 \
  const Tensor& Tensor::name##_(const Tensor& other) const {                                       \
    return name##_out(*this, *this, other);                                                        \
  }

TENSORPLAY_LOGICAL_OP_(logical_and, detail::binary_impl::LogicalAnd)
TENSORPLAY_LOGICAL_OP_(logical_or, detail::binary_impl::LogicalOr)
TENSORPLAY_LOGICAL_OP_(logical_xor, detail::binary_impl::LogicalXor)
#undef TENSORPLAY_LOGICAL_OP_

template <class = void>
Tensor logical_not(const Tensor& self) {
  return detail::binary_impl::logical_not_impl(Tensor(), self);
}
template <class = void>
const Tensor& logical_not_out(const Tensor& out, const Tensor& self) {
  detail::binary_impl::logical_not_impl(out, self);
  return out;
}
template <class>
Tensor Tensor::logical_not() const {
  return tensorplay::logical_not(*this);
}
template <class>
const Tensor& Tensor::logical_not_() const {
  return logical_not_out(*this, *this);
}

// ==== NaN and infinity tests ===================================================================

template <class = void>
Tensor isnan(const Tensor& self) {
  return detail::binary_impl::float_predicate(self, false, detail::binary_impl::IsNan{});
}
template <class = void>
Tensor isinf(const Tensor& self) {
  return detail::binary_impl::float_predicate(self, false, detail::binary_impl::IsInf{});
}
template <class = void>
Tensor isfinite(const Tensor& self) {
  return detail::binary_impl::float_predicate(self, true, detail::binary_impl::IsFinite{});
}
template <class = void>
Tensor isposinf(const Tensor& self) {
  return detail::binary_impl::float_predicate(self, false, detail::binary_impl::IsPosInf{});
}
template <class = void>
Tensor isneginf(const Tensor& self) {
  return detail::binary_impl::float_predicate(self, false, detail::binary_impl::IsNegInf{});
}
template <class = void>
const Tensor& isposinf_out(const Tensor& out, const Tensor& self) {
  return detail::binary_impl::float_predicate_out(out, self, "isposinf",
                                                  detail::binary_impl::IsPosInf{});
}
template <class = void>
const Tensor& isneginf_out(const Tensor& out, const Tensor& self) {
  return detail::binary_impl::float_predicate_out(out, self, "isneginf",
                                                  detail::binary_impl::IsNegInf{});
}
template <class>
Tensor Tensor::isnan() const {
  return tensorplay::isnan(*this);
}
template <class>
Tensor Tensor::isinf() const {
  return tensorplay::isinf(*this);
}
template <class>
Tensor Tensor::isfinite() const {
  return tensorplay::isfinite(*this);
}
template <class>
Tensor Tensor::isposinf() const {
  return tensorplay::isposinf(*this);
}
template <class>
Tensor Tensor::isneginf() const {
  return tensorplay::isneginf(*this);
}

// ==== where ====================================================================================
// Elements of self where condition is true, of other elsewhere. A number stands for a 0-d
// tensor of the result dtype, which it joins in promotion as a Python number does.

// Recorded with WhereBackward0, whose edges are self and other (a number has none).
namespace detail::binary_impl {
template <class = void>
Tensor where_diff(const Tensor& condition, const Tensor& self, const Tensor& other,
                  const Tensor& self_edge, const Tensor& other_edge) {
  return autograd::detail::differentiable<autograd::WhereBackward0>(
      [&] { return where_impl(Tensor(), condition, self, other); },
      [&](autograd::WhereBackward0& fn, const Tensor&) {
        fn.condition_ = autograd::SavedVariable(condition, false);
      },
      self_edge, other_edge);
}
}  // namespace detail::binary_impl

template <class = void>
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  return detail::binary_impl::where_diff(condition, self, other, self, other);
}
template <class = void>
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  const DType rt = result_type(other, self);
  return detail::binary_impl::where_diff(condition, scalar_tensor(self, TensorOptions().dtype(rt)),
                                         other.to(rt), Tensor(), other);
}
template <class = void>
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  const DType rt = result_type(self, other);
  return detail::binary_impl::where_diff(
      condition, self.to(rt), scalar_tensor(other, TensorOptions().dtype(rt)), self, Tensor());
}
template <class = void>
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  const DType rt = result_type(self, other);
  return detail::binary_impl::where_impl(Tensor(), condition,
                                         scalar_tensor(self, TensorOptions().dtype(rt)),
                                         scalar_tensor(other, TensorOptions().dtype(rt)));
}
template <class = void>
const Tensor& where_out(const Tensor& out, const Tensor& condition, const Tensor& self,
                        const Tensor& other) {
  TP_CHECK(out.defined(), "where_out: the out tensor is undefined");
  autograd::detail::check_out_no_grad("where", out, self, other);
  detail::binary_impl::where_impl(out, condition, self, other);
  return out;
}
template <class>
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return tensorplay::where(condition, *this, other);
}
template <class>
Tensor Tensor::where(const Tensor& condition, const Scalar& other) const {
  return tensorplay::where(condition, *this, other);
}

// ==== masked_fill ==============================================================================
// value where mask (bool) is true. In place the mask broadcasts to self, never self to the mask.

// Recorded with MaskedFillBackward0 (a number) or MaskedFillBackward1 (a 0-d tensor value,
// which gets an edge); both save the mask.

template <class = void>
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  return autograd::detail::record_unary<autograd::MaskedFillBackward0>(
      self, [&] { return detail::binary_impl::masked_fill_copy(self, mask, value); },
      [&](auto& fn) { fn.mask_ = autograd::SavedVariable(mask, false); });
}
template <class = void>
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  detail::binary_impl::masked_fill_value_check(value);
  return autograd::detail::differentiable<autograd::MaskedFillBackward1>(
      [&] { return detail::binary_impl::masked_fill_copy(self, mask, value.item()); },
      [&](autograd::MaskedFillBackward1& fn, const Tensor&) {
        fn.mask_ = autograd::SavedVariable(mask, false);
      },
      self, value);
}
template <class>
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return tensorplay::masked_fill(*this, mask, value);
}
template <class>
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  return tensorplay::masked_fill(*this, mask, value);
}
template <class>
const Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  return autograd::detail::record_unary_inplace<autograd::MaskedFillBackward0>(
      *this, [&] { detail::binary_impl::masked_fill_impl(*this, mask, value); },
      [&](auto& fn) { fn.mask_ = autograd::SavedVariable(mask, false); });
}
template <class>
const Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) const {
  // The value is checked inside the write: after the in-place refusals, as PyTorch orders them.
  return autograd::detail::differentiable_inplace<autograd::MaskedFillBackward1>(
      *this,
      [&] {
        detail::binary_impl::masked_fill_value_check(value);
        detail::binary_impl::masked_fill_impl(*this, mask, value.item());
      },
      [&](autograd::MaskedFillBackward1& fn) { fn.mask_ = autograd::SavedVariable(mask, false); },
      autograd::detail::kSaveNothing, value);
}

// ==== closeness and equality ===================================================================

// |self - other| <= atol + rtol * |other|, elementwise, or equal (infinities included), or both
// NaN when equal_nan. Floating dtypes compute in their own precision as PyTorch's tensor
// expression does; integral and bool ones in double (PyTorch: float32, with an integer
// difference that can wrap).
template <class = void>
Tensor isclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
               bool equal_nan = false) {
  TP_CHECK(self.dtype() == other.dtype(), scalar_type_name(self.dtype()), " did not match ",
           scalar_type_name(other.dtype()));
  TP_CHECK(rtol >= 0, "rtol must be greater than or equal to zero, but got ", rtol);
  TP_CHECK(atol >= 0, "atol must be greater than or equal to zero, but got ", atol);
  TensorIterator iter = TensorIteratorConfig()
                            .add_output(Tensor())
                            .add_input(self)
                            .add_input(other)
                            .declare_static_dtype(kBool)
                            .build();
  dispatch_dtype(self.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    using C = std::conditional_t<
        detail::binary_impl::dtype_set_of<T> == detail::binary_impl::kSetFloating, M, double>;
    const C r = static_cast<C>(rtol), a = static_cast<C>(atol);
    detail::binary_impl::run_binary<bool, T>(iter, [r, a, equal_nan](M x, M y) -> bool {
      if (x == y) return true;
      const C cx = static_cast<C>(x), cy = static_cast<C>(y);
      if (equal_nan && std::isnan(cx) && std::isnan(cy)) return true;
      const C diff = std::abs(cx - cy);
      return std::isfinite(diff) && diff <= a + std::abs(r * cy);
    });
  });
  return iter.output();
}

template <class = void>
bool allclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
              bool equal_nan = false) {
  const Tensor close = isclose(self, other, rtol, atol, equal_nan);
  // The iterator's result is dense: its numel bools are the numel bytes from data_ptr.
  const bool* p = static_cast<const bool*>(close.data_ptr());
  for (int64_t i = 0, n = close.numel(); i < n; ++i) {
    if (!p[i]) return false;
  }
  return true;
}

// Same shape and equal elements. Operands of different dtypes are compared in their common
// dtype (PyTorch 1.13: equal(float_t, double_t) compares in double); NaN is unequal to itself.
template <class = void>
bool equal(const Tensor& self, const Tensor& other) {
  if (self.is_quantized() || other.is_quantized()) return detail::quantized_equal(self, other);
  if (!self.is_same_size(other)) return false;
  TensorIterator iter = TensorIteratorConfig()
                            .add_input(self)
                            .add_input(other)
                            .promote_inputs_to_common_dtype(true)
                            .build();
  std::atomic<bool> same{true};
  dispatch_dtype(iter.common_dtype(), [&]<class T>() {
    iter.for_each([&same](char** data, const int64_t* strides, int64_t n) {
      if (!same.load(std::memory_order_relaxed)) return;
      for (int64_t i = 0; i < n; ++i) {
        const auto x =
            static_cast<opmath_t<T>>(*reinterpret_cast<const T*>(data[0] + i * strides[0]));
        const auto y =
            static_cast<opmath_t<T>>(*reinterpret_cast<const T*>(data[1] + i * strides[1]));
        if (x != y) {
          same.store(false, std::memory_order_relaxed);
          return;
        }
      }
    });
  });
  return same.load();
}

template <class>
Tensor Tensor::isclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return tensorplay::isclose(*this, other, rtol, atol, equal_nan);
}
template <class>
bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return tensorplay::allclose(*this, other, rtol, atol, equal_nan);
}
template <class>
bool Tensor::equal(const Tensor& other) const {
  return tensorplay::equal(*this, other);
}

}  // namespace tensorplay
