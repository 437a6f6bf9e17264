// Type promotion across operands: PyTorch's result_type, with its three priority classes.
//
//   tensors with dimensions  >  zero-dim tensors  >  wrapped numbers (C++ scalars)
//
// Within a class, dtypes combine by promote_types. A lower class can only raise the kind of
// the result (bool -> integral -> floating), never its width: `int32_tensor + int64_0d` stays
// int32, `int32_tensor + 2.5` becomes float32 (a wrapped floating number counts as the default
// dtype, float32), `uint8 + int8` is int16, and `float16 + float32` is float32.
#pragma once

#include <initializer_list>
#include <optional>

#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay {

// The dtype a floating C++ number counts as in promotion (torch.get_default_dtype()).
inline constexpr DType kDefaultFloatDType = kFloat;

// c10's ResultTypeState: the running promotion of each priority class.
struct ResultTypeState {
  std::optional<DType> dim_result, zero_result, wrapped_result;
};

namespace detail {

inline std::optional<DType> promote_opt(std::optional<DType> a, DType b) {
  return a ? promote_types(*a, b) : b;
}

// `higher` wins unless `lower` is of a higher kind (floating over integral over bool).
inline std::optional<DType> combine_categories(std::optional<DType> higher,
                                               std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower || is_floating_point(*higher)) return higher;
  if (*higher == kBool || is_floating_point(*lower)) return promote_types(*higher, *lower);
  return higher;
}

}  // namespace detail

inline ResultTypeState update_result_type_state(const Tensor& t, ResultTypeState state) {
  if (!t.defined()) return state;
  DType current = t.dtype();
  const TensorImpl& impl = *t.unsafeGetTensorImpl();
  if (impl.is_wrapped_number()) {
    if (is_floating_point(current)) current = kDefaultFloatDType;
    state.wrapped_result = detail::promote_opt(state.wrapped_result, current);
  } else if (t.dim() == 0) {
    state.zero_result = detail::promote_opt(state.zero_result, current);
  } else {
    state.dim_result = detail::promote_opt(state.dim_result, current);
  }
  return state;
}

inline ResultTypeState update_result_type_state(const Scalar& s, ResultTypeState state) {
  DType current = s.type();
  if (is_floating_point(current)) current = kDefaultFloatDType;
  state.wrapped_result = detail::promote_opt(state.wrapped_result, current);
  return state;
}

inline DType result_type(const ResultTypeState& state) {
  const auto r = detail::combine_categories(
      state.dim_result, detail::combine_categories(state.zero_result, state.wrapped_result));
  return r.value_or(kFloat);
}

inline DType result_type(const Tensor& a, const Tensor& b) {
  return result_type(update_result_type_state(b, update_result_type_state(a, {})));
}
inline DType result_type(const Tensor& a, const Scalar& b) {
  return result_type(update_result_type_state(b, update_result_type_state(a, {})));
}
inline DType result_type(const Scalar& a, const Tensor& b) { return result_type(b, a); }
inline DType result_type(const Scalar& a, const Scalar& b) {
  return result_type(update_result_type_state(b, update_result_type_state(a, {})));
}

namespace detail {

// A C++ number as a 0-d "wrapped number" tensor (double -> float64, integer -> int64, bool ->
// bool), so that `t + 2.5` goes through the same engine as `t + u`.
inline Tensor wrapped_scalar_tensor(const Scalar& s) {
  Tensor t = empty({}, TensorOptions().dtype(s.type()));
  void* p = t.data_ptr();
  switch (s.type()) {
    case kDouble: *static_cast<double*>(p) = s.to<double>(); break;
    case kLong: *static_cast<int64_t*>(p) = s.to<int64_t>(); break;
    default: *static_cast<bool*>(p) = s.to<bool>(); break;
  }
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

}  // namespace detail
}  // namespace tensorplay
