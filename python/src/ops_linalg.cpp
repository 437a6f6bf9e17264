// Matrix products as methods and functions: mm bmm mv dot outer ger matmul, and the
// beta * input + alpha * product family (addmm addmv addbmm baddbmm) with keyword-only beta/alpha.
//
// As in ops_pointwise.cpp, a function with an out= form takes `*, out=None` and returns the out
// tensor itself when given.
#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {
using OptTensor = std::optional<Tensor>;
}  // namespace

void register_linalg(const Target& t) {
  auto* type = t.type;
  auto* m = t.module;

  // NAME(input, ARG) with out=.
#define TP_PRODUCT_(name, arg)                                                                    \
  Registry::method(type, m, #name,                                                                \
                   overload("self, " arg, [](const Tensor& self, const Tensor& other) {           \
                     return tensorplay::name(self, other);                                        \
                   }));                                                                           \
  Registry::function(m, #name,                                                                    \
                     overload("input, " arg ", *, out=None",                                      \
                              [](const Tensor& self, const Tensor& other, const OptTensor& out) { \
                                return out ? tensorplay::name##_out(*out, self, other)            \
                                           : tensorplay::name(self, other);                       \
                              }))
  TP_PRODUCT_(mm, "mat2");
  TP_PRODUCT_(bmm, "mat2");
  TP_PRODUCT_(mv, "vec");
  TP_PRODUCT_(dot, "tensor");
  TP_PRODUCT_(outer, "vec2");
  TP_PRODUCT_(ger, "vec2");
  TP_PRODUCT_(matmul, "other");
#undef TP_PRODUCT_

  // beta * input + alpha * (A @ B), beta and alpha keyword-only.
#define TP_ADD_PRODUCT_(name, a, b)                                                                \
  Registry::method(                                                                                \
      type, m, #name,                                                                              \
      overload("self, " a ", " b ", *, beta=1, alpha=1",                                           \
               [](const Tensor& self, const Tensor& x, const Tensor& y, const Scalar& beta,        \
                  const Scalar& alpha) { return tensorplay::name(self, x, y, beta, alpha); }));    \
  Registry::function(m, #name,                                                                     \
                     overload("input, " a ", " b ", *, beta=1, alpha=1, out=None",                 \
                              [](const Tensor& self, const Tensor& x, const Tensor& y,             \
                                 const Scalar& beta, const Scalar& alpha, const OptTensor& out) {  \
                                return out ? tensorplay::name##_out(*out, self, x, y, beta, alpha) \
                                           : tensorplay::name(self, x, y, beta, alpha);            \
                              }))
  TP_ADD_PRODUCT_(addmm, "mat1", "mat2");
  TP_ADD_PRODUCT_(addmv, "mat", "vec");
  TP_ADD_PRODUCT_(addbmm, "batch1", "batch2");
  TP_ADD_PRODUCT_(baddbmm, "batch1", "batch2");
#undef TP_ADD_PRODUCT_
#define TP_ADD_PRODUCT_INPLACE_(name, a, b)                                                \
  Registry::method(type, m, #name "_",                                                     \
                   overload("self, " a ", " b ", *, beta=1, alpha=1",                      \
                            [](const Tensor& self, const Tensor& x, const Tensor& y,       \
                               const Scalar& beta, const Scalar& alpha) -> const Tensor& { \
                              return self.name##_(x, y, beta, alpha);                      \
                            }))
  TP_ADD_PRODUCT_INPLACE_(addmm, "mat1", "mat2");
  TP_ADD_PRODUCT_INPLACE_(baddbmm, "batch1", "batch2");
#undef TP_ADD_PRODUCT_INPLACE_
}

}  // namespace tensorplay::python::bindings
