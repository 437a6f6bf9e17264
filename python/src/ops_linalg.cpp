// Matrix products as methods and functions: mm bmm mv dot outer ger matmul, and the
// beta * input + alpha * product family (addmm addmv addbmm baddbmm) with keyword-only beta/alpha.
// _einsum and _cdist: the kernels under tensorplay.einsum / tensorplay.cdist, which (as torch's,
// in torch/functional.py) are Python functions that parse their argument forms first
// (python/tensorplay/functional.py).
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

  Registry::function(m, "_einsum",
                     overload("equation, tensors, path=None",
                              [](std::string_view equation, const std::vector<Tensor>& tensors,
                                 const std::optional<IntArrayRef>& path) {
                                return tensorplay::einsum(equation, tensors, path);
                              }));
  Registry::function(
      m, "_cdist",
      overload("x1, x2, p=2., compute_mode=None", [](const Tensor& x1, const Tensor& x2, double p,
                                                     const std::optional<int64_t>& compute_mode) {
        return tensorplay::cdist(x1, x2, p, compute_mode);
      }));
}

}  // namespace tensorplay::python::bindings
