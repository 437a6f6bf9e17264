// Pointwise ops as methods and functions: binary, comparisons, logical, where, clamp (the unary
// ops are in ops_unary.cpp).
//
// Conventions of the tables below (torch 1.13's Python signatures):
// - A function with an out= form takes `*, out=None`; given, the result is written there and the
//   returned Tensor is that tensor, which the identity cache maps back to the very same Python
//   object (`tp.add(a, b, out=c) is c`). Methods never take out=.
// - Where torch accepts a number for `input` (torch.add(2, t), torch.pow(2, t)), the number
//   becomes a wrapped 0-d tensor, which type promotion treats as a Python number.
#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

using OptTensor = std::optional<Tensor>;
using OptScalar = std::optional<Scalar>;
using OptStr = std::optional<std::string_view>;

Tensor number(const Scalar& s) { return tensorplay::detail::wrapped_scalar_tensor(s); }

}  // namespace

void register_pointwise(const Target& t) {
  auto* type = t.type;
  auto* m = t.module;

  // ---- add, sub, subtract (alpha), div, divide (rounding_mode) ----------------------------------
  // torch passes a number `other` of these (and of mul, multiply, true_divide) as a wrapped 0-d
  // tensor, its Python signatures taking a Tensor: that records AddBackward0, not AddBackward1.
  // So do we. The method's number form also takes alpha positionally (torch's deprecated form).
#define TP_ALPHA_OP_(name, out_fn)                                                                 \
  Registry::method(type, m, #name,                                                                 \
                   overload("self, other, *, alpha=1",                                             \
                            [](const Tensor& self, const Tensor& other, const Scalar& alpha) {     \
                              return tensorplay::name(self, other, alpha);                         \
                            }),                                                                    \
                   overload("self, other, alpha=1",                                                \
                            [](const Tensor& self, const Scalar& other, const Scalar& alpha) {     \
                              return tensorplay::name(self, number(other), alpha);                 \
                            }));                                                                   \
  Registry::method(                                                                                \
      type, m, #name "_",                                                                          \
      overload("self, other, *, alpha=1",                                                          \
               [](const Tensor& self, const Tensor& other, const Scalar& alpha) -> const Tensor& { \
                 return self.name##_(other, alpha);                                                \
               }),                                                                                 \
      overload("self, other, alpha=1",                                                             \
               [](const Tensor& self, const Scalar& other, const Scalar& alpha) -> const Tensor& { \
                 return self.name##_(number(other), alpha);                                        \
               }));                                                                                \
  Registry::function(                                                                              \
      m, #name,                                                                                    \
      overload(                                                                                    \
          "input, other, *, alpha=1, out=None",                                                    \
          [](const Tensor& self, const Tensor& other, const Scalar& alpha, const OptTensor& out) { \
            return out ? tensorplay::out_fn(*out, self, other, alpha)                              \
                       : tensorplay::name(self, other, alpha);                                     \
          }),                                                                                      \
      overload(                                                                                    \
          "input, other, alpha=1, *, out=None",                                                    \
          [](const Tensor& self, const Scalar& other, const Scalar& alpha, const OptTensor& out) { \
            return out ? tensorplay::out_fn(*out, self, number(other), alpha)                      \
                       : tensorplay::name(self, number(other), alpha);                             \
          }),                                                                                      \
      overload(                                                                                    \
          "input, other, *, alpha=1, out=None",                                                    \
          [](const Scalar& self, const Tensor& other, const Scalar& alpha, const OptTensor& out) { \
            return out ? tensorplay::out_fn(*out, number(self), other, alpha)                      \
                       : tensorplay::name(number(self), other, alpha);                             \
          }))
  TP_ALPHA_OP_(add, add_out);
  TP_ALPHA_OP_(sub, sub_out);
  TP_ALPHA_OP_(subtract, sub_out);
#undef TP_ALPHA_OP_
  Registry::function(m, "rsub",
                     overload("input, other, *, alpha=1",
                              [](const Tensor& self, const Tensor& other, const Scalar& alpha) {
                                return tensorplay::rsub(self, other, alpha);
                              }),
                     overload("input, other, alpha=1",
                              [](const Tensor& self, const Scalar& other, const Scalar& alpha) {
                                return tensorplay::rsub(self, other, alpha);
                              }));

#define TP_DIV_(name)                                                                             \
  Registry::method(type, m, #name,                                                                \
                   overload("self, other, *, rounding_mode=None",                                 \
                            [](const Tensor& self, const Tensor& other, const OptStr& mode) {     \
                              return tensorplay::name(self, other, mode);                         \
                            }),                                                                   \
                   overload("self, other, *, rounding_mode=None",                                 \
                            [](const Tensor& self, const Scalar& other, const OptStr& mode) {     \
                              return tensorplay::name(self, number(other), mode);                 \
                            }));                                                                  \
  Registry::method(                                                                               \
      type, m, #name "_",                                                                         \
      overload("self, other, *, rounding_mode=None",                                              \
               [](const Tensor& self, const Tensor& other, const OptStr& mode) -> const Tensor& { \
                 return self.name##_(other, mode);                                                \
               }),                                                                                \
      overload("self, other, *, rounding_mode=None",                                              \
               [](const Tensor& self, const Scalar& other, const OptStr& mode) -> const Tensor& { \
                 return self.name##_(number(other), mode);                                        \
               }));                                                                               \
  Registry::function(                                                                             \
      m, #name,                                                                                   \
      overload(                                                                                   \
          "input, other, *, rounding_mode=None, out=None",                                        \
          [](const Tensor& self, const Tensor& other, const OptStr& mode, const OptTensor& out) { \
            return out ? tensorplay::div_out(*out, self, other, mode)                             \
                       : tensorplay::name(self, other, mode);                                     \
          }),                                                                                     \
      overload(                                                                                   \
          "input, other, *, rounding_mode=None, out=None",                                        \
          [](const Tensor& self, const Scalar& other, const OptStr& mode, const OptTensor& out) { \
            return out ? tensorplay::div_out(*out, self, number(other), mode)                     \
                       : tensorplay::name(self, number(other), mode);                             \
          }),                                                                                     \
      overload(                                                                                   \
          "input, other, *, rounding_mode=None, out=None",                                        \
          [](const Scalar& self, const Tensor& other, const OptStr& mode, const OptTensor& out) { \
            return out ? tensorplay::div_out(*out, number(self), other, mode)                     \
                       : tensorplay::name(number(self), other, mode);                             \
          }))
  TP_DIV_(div);
  TP_DIV_(divide);
#undef TP_DIV_

  // ---- binary ops: Tensor or number `other` (WRAP_OTHER: `number` to pass a number as a wrapped
  // tensor, as torch does for mul/multiply/true_divide), and for the function a number `input`
  // (WRAP_INPUT: `number`, or nothing where the C++ function takes the number itself).
#define TP_BINARY_(py, fn, out_fn, arg, wrap_other, wrap_input, member)                           \
  Registry::method(                                                                               \
      type, m, py,                                                                                \
      overload("self, " arg, [](const Tensor& self,                                               \
                                const Tensor& other) { return tensorplay::fn(self, other); }),    \
      overload("self, " arg, [](const Tensor& self, const Scalar& other) {                        \
        return tensorplay::fn(self, wrap_other(other));                                           \
      }));                                                                                        \
  Registry::method(                                                                               \
      type, m, py "_",                                                                            \
      overload("self, " arg,                                                                      \
               [](const Tensor& self, const Tensor& other) -> const Tensor& {                     \
                 return self.member(other);                                                       \
               }),                                                                                \
      overload("self, " arg, [](const Tensor& self, const Scalar& other) -> const Tensor& {       \
        return self.member(wrap_other(other));                                                    \
      }));                                                                                        \
  Registry::function(m, py,                                                                       \
                     overload("input, " arg ", *, out=None",                                      \
                              [](const Tensor& self, const Tensor& other, const OptTensor& out) { \
                                return out ? tensorplay::out_fn(*out, self, other)                \
                                           : tensorplay::fn(self, other);                         \
                              }),                                                                 \
                     overload("input, " arg ", *, out=None",                                      \
                              [](const Tensor& self, const Scalar& other, const OptTensor& out) { \
                                return out ? tensorplay::out_fn(*out, self, wrap_other(other))    \
                                           : tensorplay::fn(self, wrap_other(other));             \
                              }),                                                                 \
                     overload("input, " arg ", *, out=None",                                      \
                              [](const Scalar& self, const Tensor& other, const OptTensor& out) { \
                                return out ? tensorplay::out_fn(*out, wrap_input(self), other)    \
                                           : tensorplay::fn(wrap_input(self), other);             \
                              }))
  // Without a number input (torch.fmod(2, t) and torch.eq(2, t) are errors).
#define TP_BINARY_TENSOR_INPUT_(py, fn, out_fn, member)                                            \
  Registry::method(                                                                                \
      type, m, py,                                                                                 \
      overload("self, other", [](const Tensor& self,                                               \
                                 const Tensor& other) { return tensorplay::fn(self, other); }),    \
      overload("self, other", [](const Tensor& self, const Scalar& other) {                        \
        return tensorplay::fn(self, other);                                                        \
      }));                                                                                         \
  Registry::method(                                                                                \
      type, m, py "_",                                                                             \
      overload("self, other",                                                                      \
               [](const Tensor& self, const Tensor& other) -> const Tensor& {                      \
                 return self.member(other);                                                        \
               }),                                                                                 \
      overload("self, other", [](const Tensor& self, const Scalar& other) -> const Tensor& {       \
        return self.member(other);                                                                 \
      }));                                                                                         \
  Registry::function(                                                                              \
      m, py,                                                                                       \
      overload("input, other, *, out=None",                                                        \
               [](const Tensor& self, const Tensor& other, const OptTensor& out) {                 \
                 return out ? tensorplay::out_fn(*out, self, other) : tensorplay::fn(self, other); \
               }),                                                                                 \
      overload("input, other, *, out=None",                                                        \
               [](const Tensor& self, const Scalar& other, const OptTensor& out) {                 \
                 return out ? tensorplay::out_fn(*out, self, other) : tensorplay::fn(self, other); \
               }))

  TP_BINARY_("mul", mul, mul_out, "other", number, number, mul_);
  TP_BINARY_("multiply", multiply, mul_out, "other", number, number, multiply_);
  TP_BINARY_("true_divide", true_divide, div_out, "other", number, number, true_divide_);
  TP_BINARY_("remainder", remainder, remainder_out, "other", , number, remainder_);
  TP_BINARY_("pow", pow, pow_out, "exponent", , , pow_);
  TP_BINARY_("bitwise_and", bitwise_and, bitwise_and_out, "other", , number, bitwise_and_);
  TP_BINARY_("bitwise_or", bitwise_or, bitwise_or_out, "other", , number, bitwise_or_);
  TP_BINARY_("bitwise_xor", bitwise_xor, bitwise_xor_out, "other", , number, bitwise_xor_);
  TP_BINARY_("bitwise_left_shift", bitwise_left_shift, bitwise_left_shift_out, "other", , number,
             bitwise_left_shift_);
  TP_BINARY_("bitwise_right_shift", bitwise_right_shift, bitwise_right_shift_out, "other", , number,
             bitwise_right_shift_);
  TP_BINARY_TENSOR_INPUT_("fmod", fmod, fmod_out, fmod_);
  // comparisons; the long names are aliases (their out= and in-place forms are the short ones')
  TP_BINARY_TENSOR_INPUT_("eq", eq, eq_out, eq_);
  TP_BINARY_TENSOR_INPUT_("ne", ne, ne_out, ne_);
  TP_BINARY_TENSOR_INPUT_("lt", lt, lt_out, lt_);
  TP_BINARY_TENSOR_INPUT_("le", le, le_out, le_);
  TP_BINARY_TENSOR_INPUT_("gt", gt, gt_out, gt_);
  TP_BINARY_TENSOR_INPUT_("ge", ge, ge_out, ge_);
  TP_BINARY_TENSOR_INPUT_("not_equal", not_equal, ne_out, ne_);
  TP_BINARY_TENSOR_INPUT_("less", less, lt_out, lt_);
  TP_BINARY_TENSOR_INPUT_("less_equal", less_equal, le_out, le_);
  TP_BINARY_TENSOR_INPUT_("greater", greater, gt_out, gt_);
  TP_BINARY_TENSOR_INPUT_("greater_equal", greater_equal, ge_out, ge_);
#undef TP_BINARY_TENSOR_INPUT_
#undef TP_BINARY_

  // floor_divide: PyTorch 1.13's is div(..., rounding_mode="floor"), and so is its out=.
  Registry::method(
      type, m, "floor_divide",
      overload("self, other",
               [](const Tensor& self, const Tensor& other) { return self.floor_divide(other); }),
      overload("self, other",
               [](const Tensor& self, const Scalar& other) { return self.floor_divide(other); }));
  Registry::method(
      type, m, "floor_divide_",
      overload("self, other",
               [](const Tensor& self, const Tensor& other) -> const Tensor& {
                 return self.floor_divide_(other);
               }),
      overload("self, other", [](const Tensor& self, const Scalar& other) -> const Tensor& {
        return self.floor_divide_(other);
      }));
  Registry::function(m, "floor_divide",
                     overload("input, other, *, out=None",
                              [](const Tensor& self, const Tensor& other, const OptTensor& out) {
                                return out ? tensorplay::div_out(*out, self, other, "floor")
                                           : tensorplay::floor_divide(self, other);
                              }),
                     overload("input, other, *, out=None",
                              [](const Tensor& self, const Scalar& other, const OptTensor& out) {
                                return out ? tensorplay::div_out(*out, self, other, "floor")
                                           : tensorplay::floor_divide(self, other);
                              }),
                     overload("input, other, *, out=None",
                              [](const Scalar& self, const Tensor& other, const OptTensor& out) {
                                return out ? tensorplay::div_out(*out, number(self), other, "floor")
                                           : tensorplay::floor_divide(number(self), other);
                              }));

  // ---- binary ops with a Tensor `other` only ----------------------------------------------------
#define TP_TENSOR_BINARY_(py, fn, out_fn)                                                         \
  Registry::method(type, m, py,                                                                   \
                   overload("self, other", [](const Tensor& self, const Tensor& other) {          \
                     return tensorplay::fn(self, other);                                          \
                   }));                                                                           \
  Registry::function(m, py,                                                                       \
                     overload("input, other, *, out=None",                                        \
                              [](const Tensor& self, const Tensor& other, const OptTensor& out) { \
                                return out ? tensorplay::out_fn(*out, self, other)                \
                                           : tensorplay::fn(self, other);                         \
                              }))
#define TP_TENSOR_BINARY_INPLACE_(py, member)                                                \
  Registry::method(                                                                          \
      type, m, py,                                                                           \
      overload("self, other", [](const Tensor& self, const Tensor& other) -> const Tensor& { \
        return self.member(other);                                                           \
      }))
  TP_TENSOR_BINARY_("atan2", atan2, atan2_out);
  TP_TENSOR_BINARY_INPLACE_("atan2_", atan2_);
  TP_TENSOR_BINARY_("arctan2", arctan2, atan2_out);
  TP_TENSOR_BINARY_INPLACE_("arctan2_", arctan2_);
  TP_TENSOR_BINARY_("maximum", maximum, maximum_out);
  TP_TENSOR_BINARY_("minimum", minimum, minimum_out);
  TP_TENSOR_BINARY_("logical_and", logical_and, logical_and_out);
  TP_TENSOR_BINARY_INPLACE_("logical_and_", logical_and_);
  TP_TENSOR_BINARY_("logical_or", logical_or, logical_or_out);
  TP_TENSOR_BINARY_INPLACE_("logical_or_", logical_or_);
  TP_TENSOR_BINARY_("logical_xor", logical_xor, logical_xor_out);
  TP_TENSOR_BINARY_INPLACE_("logical_xor_", logical_xor_);
#undef TP_TENSOR_BINARY_INPLACE_
#undef TP_TENSOR_BINARY_

  // ---- lerp -------------------------------------------------------------------------------------
  Registry::method(
      type, m, "lerp",
      overload("self, end, weight", [](const Tensor& self, const Tensor& end,
                                       const Tensor& weight) { return self.lerp(end, weight); }),
      overload("self, end, weight", [](const Tensor& self, const Tensor& end,
                                       const Scalar& weight) { return self.lerp(end, weight); }));
  Registry::method(
      type, m, "lerp_",
      overload("self, end, weight",
               [](const Tensor& self, const Tensor& end, const Tensor& weight) -> const Tensor& {
                 return self.lerp_(end, weight);
               }),
      overload("self, end, weight",
               [](const Tensor& self, const Tensor& end, const Scalar& weight) -> const Tensor& {
                 return self.lerp_(end, weight);
               }));
  Registry::function(
      m, "lerp",
      overload(
          "input, end, weight, *, out=None",
          [](const Tensor& self, const Tensor& end, const Tensor& weight, const OptTensor& out) {
            return out ? tensorplay::lerp_out(*out, self, end, weight) : self.lerp(end, weight);
          }),
      overload("input, end, weight, *, out=None", [](const Tensor& self, const Tensor& end,
                                                     const Scalar& weight, const OptTensor& out) {
        return out ? tensorplay::lerp_out(*out, self, end, weight) : self.lerp(end, weight);
      }));

  // ---- clamp / clip / clamp_min / clamp_max -----------------------------------------------------
  // Tensor bounds first: clamp(t, None, None) reaches the C++ check ("At least one of ...").
#define TP_CLAMP_(py, fn)                                                                        \
  Registry::method(type, m, py,                                                                  \
                   overload("self, min=None, max=None",                                          \
                            [](const Tensor& self, const OptTensor& min, const OptTensor& max) { \
                              return tensorplay::fn(self, min, max);                             \
                            }),                                                                  \
                   overload("self, min=None, max=None",                                          \
                            [](const Tensor& self, const OptScalar& min, const OptScalar& max) { \
                              return tensorplay::fn(self, min, max);                             \
                            }));                                                                 \
  Registry::function(m, py,                                                                      \
                     overload("input, min=None, max=None, *, out=None",                          \
                              [](const Tensor& self, const OptTensor& min, const OptTensor& max, \
                                 const OptTensor& out) {                                         \
                                return out ? tensorplay::clamp_out(*out, self, min, max)         \
                                           : tensorplay::fn(self, min, max);                     \
                              }),                                                                \
                     overload("input, min=None, max=None, *, out=None",                          \
                              [](const Tensor& self, const OptScalar& min, const OptScalar& max, \
                                 const OptTensor& out) {                                         \
                                return out ? tensorplay::clamp_out(*out, self, min, max)         \
                                           : tensorplay::fn(self, min, max);                     \
                              }));                                                               \
  Registry::method_and_function(                                                                 \
      type, m, py "_",                                                                           \
      overload("input, min=None, max=None",                                                      \
               [](const Tensor& self, const OptTensor& min,                                      \
                  const OptTensor& max) -> const Tensor& { return self.fn##_(min, max); }),      \
      overload("input, min=None, max=None",                                                      \
               [](const Tensor& self, const OptScalar& min,                                      \
                  const OptScalar& max) -> const Tensor& { return self.fn##_(min, max); }))
  TP_CLAMP_("clamp", clamp);
  TP_CLAMP_("clip", clip);
#undef TP_CLAMP_
#define TP_CLAMP_BOUND_(py, fn, arg)                                                              \
  Registry::method(                                                                               \
      type, m, py,                                                                                \
      overload("self, " arg, [](const Tensor& self,                                               \
                                const Tensor& bound) { return tensorplay::fn(self, bound); }),    \
      overload("self, " arg, [](const Tensor& self, const Scalar& bound) {                        \
        return tensorplay::fn(self, bound);                                                       \
      }));                                                                                        \
  Registry::function(m, py,                                                                       \
                     overload("input, " arg ", *, out=None",                                      \
                              [](const Tensor& self, const Tensor& bound, const OptTensor& out) { \
                                return out ? tensorplay::fn##_out(*out, self, bound)              \
                                           : tensorplay::fn(self, bound);                         \
                              }),                                                                 \
                     overload("input, " arg ", *, out=None",                                      \
                              [](const Tensor& self, const Scalar& bound, const OptTensor& out) { \
                                return out ? tensorplay::fn##_out(*out, self, bound)              \
                                           : tensorplay::fn(self, bound);                         \
                              }));                                                                \
  Registry::method_and_function(                                                                  \
      type, m, py "_",                                                                            \
      overload("input, " arg,                                                                     \
               [](const Tensor& self, const Tensor& bound) -> const Tensor& {                     \
                 return self.fn##_(bound);                                                        \
               }),                                                                                \
      overload("input, " arg, [](const Tensor& self, const Scalar& bound) -> const Tensor& {      \
        return self.fn##_(bound);                                                                 \
      }))
  TP_CLAMP_BOUND_("clamp_min", clamp_min, "min");
  TP_CLAMP_BOUND_("clamp_max", clamp_max, "max");
#undef TP_CLAMP_BOUND_

  // ---- where, masked_fill -----------------------------------------------------------------------
  // torch.where(condition, input, other); the method is input.where(condition, other).
  Registry::function(
      m, "where",
      // torch.where(condition): nonzero(condition, as_tuple=True).
      overload("condition", [](const Tensor& cond) { return tensorplay::where(cond); }),
      overload(
          "condition, input, other, *, out=None",
          [](const Tensor& cond, const Tensor& self, const Tensor& other, const OptTensor& out) {
            return out ? tensorplay::where_out(*out, cond, self, other)
                       : tensorplay::where(cond, self, other);
          }),
      overload("condition, input, other",
               [](const Tensor& cond, const Scalar& self, const Tensor& other) {
                 return tensorplay::where(cond, self, other);
               }),
      overload("condition, input, other",
               [](const Tensor& cond, const Tensor& self, const Scalar& other) {
                 return tensorplay::where(cond, self, other);
               }),
      overload("condition, input, other",
               [](const Tensor& cond, const Scalar& self, const Scalar& other) {
                 return tensorplay::where(cond, self, other);
               }));
  Registry::method(type, m, "where",
                   overload("self, condition, other",
                            [](const Tensor& self, const Tensor& cond, const Tensor& other) {
                              return self.where(cond, other);
                            }),
                   overload("self, condition, other",
                            [](const Tensor& self, const Tensor& cond, const Scalar& other) {
                              return self.where(cond, other);
                            }));
  Registry::method_and_function(
      type, m, "masked_fill",
      overload("input, mask, value",
               [](const Tensor& self, const Tensor& mask, const Tensor& value) {
                 return self.masked_fill(mask, value);
               }),
      overload("input, mask, value",
               [](const Tensor& self, const Tensor& mask, const Scalar& value) {
                 return self.masked_fill(mask, value);
               }));
  Registry::method(
      type, m, "masked_fill_",
      overload("self, mask, value",
               [](const Tensor& self, const Tensor& mask, const Tensor& value) -> const Tensor& {
                 return self.masked_fill_(mask, value);
               }),
      overload("self, mask, value",
               [](const Tensor& self, const Tensor& mask, const Scalar& value) -> const Tensor& {
                 return self.masked_fill_(mask, value);
               }));
  Registry::method_and_function(
      type, m, "index_fill",
      overload("input, dim, index, value",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
                 return self.index_fill(dim, index, value);
               }),
      overload("input, dim, index, value",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
                 return self.index_fill(dim, index, value);
               }));
  Registry::method(type, m, "index_fill_",
                   overload("self, dim, index, value",
                            [](const Tensor& self, int64_t dim, const Tensor& index,
                               const Tensor& value) -> const Tensor& {
                              return self.index_fill_(dim, index, value);
                            }),
                   overload("self, dim, index, value",
                            [](const Tensor& self, int64_t dim, const Tensor& index,
                               const Scalar& value) -> const Tensor& {
                              return self.index_fill_(dim, index, value);
                            }));

  // ---- closeness and equality -------------------------------------------------------------------
  Registry::method_and_function(
      type, m, "isclose",
      overload("input, other, rtol=1e-05, atol=1e-08, equal_nan=False",
               [](const Tensor& self, const Tensor& other, double rtol, double atol,
                  bool equal_nan) { return self.isclose(other, rtol, atol, equal_nan); }));
  Registry::method_and_function(
      type, m, "allclose",
      overload("input, other, rtol=1e-05, atol=1e-08, equal_nan=False",
               [](const Tensor& self, const Tensor& other, double rtol, double atol,
                  bool equal_nan) { return self.allclose(other, rtol, atol, equal_nan); }));
  Registry::method_and_function(
      type, m, "equal", overload("input, other", [](const Tensor& self, const Tensor& other) {
        return self.equal(other);
      }));
}

}  // namespace tensorplay::python::bindings
