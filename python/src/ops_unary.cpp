// Unary pointwise ops as methods and functions, with their in-place forms and out= (torch 1.13's
// Python signatures; see ops_pointwise.cpp for the conventions). A file of its own so the two
// largest op tables compile in parallel.
#include "bindings.hpp"

namespace tensorplay::python::bindings {

void register_unary(const Target& t) {
  using OptTensor = std::optional<Tensor>;
  auto* type = t.type;
  auto* m = t.module;

  // ---- unary ops -------------------------------------------------------------------------------
  // NAME as a method, and tp.NAME(input, *, out=None).
#define TP_UNARY_(name)                                                                            \
  Registry::method(type, m, #name,                                                                 \
                   overload("self", [](const Tensor& self) { return tensorplay::name(self); }));   \
  Registry::function(m, #name,                                                                     \
                     overload("input, *, out=None", [](const Tensor& self, const OptTensor& out) { \
                       return out ? tensorplay::name##_out(*out, self) : tensorplay::name(self);   \
                     }))
  // NAME_ as a method only (torch has no torch.NAME_), or as a method and a function.
#define TP_UNARY_INPLACE_METHOD_(name)                                                            \
  Registry::method(type, m, #name "_", overload("self", [](const Tensor& self) -> const Tensor& { \
                     return self.name##_();                                                       \
                   }))
#define TP_UNARY_INPLACE_(name)  \
  Registry::method_and_function( \
      type, m, #name "_",        \
      overload("input", [](const Tensor& self) -> const Tensor& { return self.name##_(); }))
#define TP_UNARY_ALL_(name) \
  TP_UNARY_(name);          \
  TP_UNARY_INPLACE_(name)

  TP_UNARY_ALL_(neg);
  TP_UNARY_ALL_(negative);
  TP_UNARY_ALL_(abs);
  TP_UNARY_(absolute);
  TP_UNARY_INPLACE_METHOD_(absolute);
  TP_UNARY_(sign);
  TP_UNARY_INPLACE_METHOD_(sign);
  TP_UNARY_ALL_(square);
  TP_UNARY_ALL_(exp);
  TP_UNARY_ALL_(exp2);
  TP_UNARY_ALL_(expm1);
  TP_UNARY_ALL_(log);
  TP_UNARY_ALL_(log2);
  TP_UNARY_ALL_(log10);
  TP_UNARY_ALL_(log1p);
  TP_UNARY_ALL_(sqrt);
  TP_UNARY_ALL_(rsqrt);
  TP_UNARY_ALL_(reciprocal);
  TP_UNARY_ALL_(sin);
  TP_UNARY_ALL_(cos);
  TP_UNARY_ALL_(tan);
  TP_UNARY_ALL_(asin);
  TP_UNARY_ALL_(acos);
  TP_UNARY_ALL_(atan);
  TP_UNARY_ALL_(sinh);
  TP_UNARY_ALL_(cosh);
  TP_UNARY_ALL_(tanh);
  TP_UNARY_ALL_(sigmoid);
  TP_UNARY_ALL_(erf);
  TP_UNARY_ALL_(floor);
  TP_UNARY_ALL_(ceil);
  TP_UNARY_ALL_(trunc);
  TP_UNARY_ALL_(frac);
  TP_UNARY_(bitwise_not);
  TP_UNARY_INPLACE_METHOD_(bitwise_not);
  TP_UNARY_(logical_not);
  TP_UNARY_INPLACE_METHOD_(logical_not);
  TP_UNARY_(isposinf);
  TP_UNARY_(isneginf);
  // torch.relu has no out= (it is not a structured op there).
  Registry::method_and_function(type, m, "relu",
                                overload("input", [](const Tensor& self) { return self.relu(); }));
  TP_UNARY_INPLACE_(relu);
  Registry::method_and_function(
      type, m, "positive", overload("input", [](const Tensor& self) { return self.positive(); }));
  Registry::method_and_function(type, m, "isnan",
                                overload("input", [](const Tensor& self) { return self.isnan(); }));
  Registry::method_and_function(type, m, "isinf",
                                overload("input", [](const Tensor& self) { return self.isinf(); }));
  Registry::method_and_function(
      type, m, "isfinite", overload("input", [](const Tensor& self) { return self.isfinite(); }));
#undef TP_UNARY_ALL_
#undef TP_UNARY_INPLACE_
#undef TP_UNARY_INPLACE_METHOD_
#undef TP_UNARY_

  // round(input, *, decimals=...): decimals is keyword-only and has no default in torch.
  Registry::method(
      type, m, "round", overload("self", [](const Tensor& self) { return self.round(); }),
      overload("self, *, decimals",
               [](const Tensor& self, int64_t decimals) { return self.round(decimals); }));
  Registry::function(m, "round",
                     overload("input, *, out=None",
                              [](const Tensor& self, const OptTensor& out) {
                                return out ? tensorplay::round_out(*out, self) : self.round();
                              }),
                     overload("input, *, decimals, out=None",
                              [](const Tensor& self, int64_t decimals, const OptTensor& out) {
                                return out ? tensorplay::round_out(*out, self, decimals)
                                           : self.round(decimals);
                              }));
  Registry::method_and_function(
      type, m, "round_",
      overload("input", [](const Tensor& self) -> const Tensor& { return self.round_(); }),
      overload("input, *, decimals", [](const Tensor& self, int64_t decimals) -> const Tensor& {
        return self.round_(decimals);
      }));
}

}  // namespace tensorplay::python::bindings
