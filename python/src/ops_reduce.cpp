// Reductions, scans, softmax and sorting as methods and functions.
//
// As in ops_pointwise.cpp, a function with an out= form takes `*, out=None` and returns the out
// tensor itself when given. `dim=None` means every dimension: the C++ API's empty list.
#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

using OptTensor = std::optional<Tensor>;
using OptDims = std::optional<IntArrayRef>;
using OptDType = std::optional<DType>;

IntArrayRef dims_or_all(const OptDims& dim) { return dim ? *dim : IntArrayRef(); }

// torch.norm's string p (torch/functional.py's rules): 'fro' is the 2-norm over the reduced
// elements, of at most two dims; 'nuc' needs singular values, which TensorPlay does not compute.
std::optional<Scalar> norm_order(std::string_view p, const OptDims& dim, const OptDType& dtype) {
  TP_CHECK(p == "fro" || p == "nuc", "only valid string values are 'fro' and 'nuc', found ", p);
  TP_CHECK_VALUE(!dtype, "dtype argument is not supported in ",
                 p == "fro" ? "frobenius" : "nuclear", " norm");
  TP_CHECK_NOT_IMPLEMENTED(p != "nuc", "norm(): the nuclear norm (p='nuc') is not supported");
  TP_CHECK(!dim || dim->size() <= 2, "Expected at most 2 dimensions, but got ", dim->size(),
           " dimensions instead.");
  return Scalar(2);
}

Tensor norm_of(const Tensor& self, const std::optional<Scalar>& p, const OptDims& dim, bool keepdim,
               const OptTensor& out, const OptDType& dtype) {
  const IntArrayRef dims = dims_or_all(dim);
  if (out && dtype) return tensorplay::norm_out(*out, self, p, dims, keepdim, *dtype);
  if (out) return tensorplay::norm_out(*out, self, p, dims, keepdim);
  if (dtype) return self.norm(p, dims, keepdim, *dtype);
  return self.norm(p, dims, keepdim);
}

// max/min's out=(values, indices).
void check_pair(const std::vector<Tensor>& out, const char* name) {
  TP_CHECK_TYPE(out.size() == 2, name, "(): expected tuple of 2 elements but got ", out.size());
}

}  // namespace

void register_reduce(const Target& t) {
  auto* type = t.type;
  auto* m = t.module;

  // ---- sum, mean (dim: int, tuple of ints or None), prod (dim: int) -----------------------------
#define TP_SUM_LIKE_(name, Dim, dims)                                                       \
  Registry::method(                                                                         \
      type, m, #name,                                                                       \
      overload("self, *, dtype=None",                                                       \
               [](const Tensor& self, const OptDType& dtype) { return self.name(dtype); }), \
      overload("self, dim, keepdim=False, *, dtype=None",                                   \
               [](const Tensor& self, Dim dim, bool keepdim, const OptDType& dtype) {       \
                 return self.name(dims, keepdim, dtype);                                    \
               }));                                                                         \
  Registry::function(                                                                       \
      m, #name,                                                                             \
      overload("input, *, dtype=None",                                                      \
               [](const Tensor& self, const OptDType& dtype) { return self.name(dtype); }), \
      overload("input, dim, keepdim=False, *, dtype=None, out=None",                        \
               [](const Tensor& self, Dim dim, bool keepdim, const OptDType& dtype,         \
                  const OptTensor& out) {                                                   \
                 return out ? tensorplay::name##_out(*out, self, dims, keepdim, dtype)      \
                            : self.name(dims, keepdim, dtype);                              \
               }))
  TP_SUM_LIKE_(sum, const OptDims&, dims_or_all(dim));
  TP_SUM_LIKE_(mean, const OptDims&, dims_or_all(dim));
  TP_SUM_LIKE_(prod, int64_t, dim);
#undef TP_SUM_LIKE_
  Registry::method(type, m, "sum_to_size",
                   overload("self, *size", [](const Tensor& self, IntArrayRef size) {
                     return self.sum_to_size(size);
                   }));

  // ---- max, min: of everything, elementwise with another tensor, or along a dim -----------------
#define TP_MAX_LIKE_(name, elementwise)                                                            \
  Registry::method(                                                                                \
      type, m, #name, overload("self", [](const Tensor& self) { return self.name(); }),            \
      overload("self, other",                                                                      \
               [](const Tensor& self, const Tensor& other) { return self.elementwise(other); }),   \
      overload("self, dim, keepdim=False", [](const Tensor& self, int64_t dim, bool keepdim) {     \
        auto [values, indices] = self.name(dim, keepdim);                                          \
        return NamedTensors<#name>{std::move(values), std::move(indices)};                         \
      }));                                                                                         \
  Registry::function(m, #name, overload("input", [](const Tensor& self) { return self.name(); }),  \
                     overload("input, other, *, out=None",                                         \
                              [](const Tensor& self, const Tensor& other, const OptTensor& out) {  \
                                return out ? tensorplay::elementwise##_out(*out, self, other)      \
                                           : self.elementwise(other);                              \
                              }),                                                                  \
                     overload("input, dim, keepdim=False, *, out=None",                            \
                              [](const Tensor& self, int64_t dim, bool keepdim,                    \
                                 const std::optional<std::vector<Tensor>>& out) {                  \
                                if (out) {                                                         \
                                  check_pair(*out, #name);                                         \
                                  tensorplay::name##_out((*out)[0], (*out)[1], self, dim,          \
                                                         keepdim);                                 \
                                  return NamedTensors<#name>{(*out)[0], (*out)[1]};                \
                                }                                                                  \
                                auto [values, indices] = self.name(dim, keepdim);                  \
                                return NamedTensors<#name>{std::move(values), std::move(indices)}; \
                              }))
  TP_MAX_LIKE_(max, maximum);
  TP_MAX_LIKE_(min, minimum);
#undef TP_MAX_LIKE_

  // ---- amax, amin, argmax, argmin, logsumexp ----------------------------------------------------
#define TP_DIM_REDUCTION_(name, schema, Dim)                                                     \
  Registry::method(type, m, #name,                                                               \
                   overload("self, " schema, [](const Tensor& self, Dim dim, bool keepdim) {     \
                     return self.name(dim, keepdim);                                             \
                   }));                                                                          \
  Registry::function(                                                                            \
      m, #name,                                                                                  \
      overload("input, " schema ", *, out=None", [](const Tensor& self, Dim dim, bool keepdim,   \
                                                    const OptTensor& out) {                      \
        return out ? tensorplay::name##_out(*out, self, dim, keepdim) : self.name(dim, keepdim); \
      }))
  TP_DIM_REDUCTION_(amax, "dim=(), keepdim=False", IntArrayRef);
  TP_DIM_REDUCTION_(amin, "dim=(), keepdim=False", IntArrayRef);
  TP_DIM_REDUCTION_(argmax, "dim=None, keepdim=False", std::optional<int64_t>);
  TP_DIM_REDUCTION_(argmin, "dim=None, keepdim=False", std::optional<int64_t>);
  TP_DIM_REDUCTION_(logsumexp, "dim, keepdim=False", IntArrayRef);
#undef TP_DIM_REDUCTION_

  // ---- var, std (unbiased or correction=), var_mean, std_mean -----------------------------------
  // torch 1.13's order: (unbiased), (dim, unbiased, keepdim), (dim, *, correction, keepdim). A
  // bool never probes as a dim, so var(t, True) and var(t, 1) pick different overloads; dim has
  // no default in the correction form (torch.var(t, correction=0) is a TypeError in 1.13).
#define TP_VAR_LIKE_(name)                                                                      \
  Registry::method(                                                                             \
      type, m, #name,                                                                           \
      overload("self, unbiased=True",                                                           \
               [](const Tensor& self, bool unbiased) { return self.name(unbiased); }),          \
      overload("self, dim, unbiased=True, keepdim=False",                                       \
               [](const Tensor& self, const OptDims& dim, bool unbiased, bool keepdim) {        \
                 return self.name(dims_or_all(dim), unbiased, keepdim);                         \
               }),                                                                              \
      overload("self, dim, *, correction=None, keepdim=False",                                  \
               [](const Tensor& self, const OptDims& dim, std::optional<int64_t> correction,    \
                  bool keepdim) { return self.name(dims_or_all(dim), correction, keepdim); })); \
  Registry::function(                                                                           \
      m, #name,                                                                                 \
      overload("input, unbiased=True",                                                          \
               [](const Tensor& self, bool unbiased) { return self.name(unbiased); }),          \
      overload("input, dim, unbiased=True, keepdim=False, *, out=None",                         \
               [](const Tensor& self, const OptDims& dim, bool unbiased, bool keepdim,          \
                  const OptTensor& out) {                                                       \
                 return out ? tensorplay::name##_out(*out, self, dims_or_all(dim), unbiased,    \
                                                     keepdim)                                   \
                            : self.name(dims_or_all(dim), unbiased, keepdim);                   \
               }),                                                                              \
      overload("input, dim, *, correction=None, keepdim=False, out=None",                       \
               [](const Tensor& self, const OptDims& dim, std::optional<int64_t> correction,    \
                  bool keepdim, const OptTensor& out) {                                         \
                 return out ? tensorplay::name##_out(*out, self, dims_or_all(dim), correction,  \
                                                     keepdim)                                   \
                            : self.name(dims_or_all(dim), correction, keepdim);                 \
               }))
  TP_VAR_LIKE_(var);
  TP_VAR_LIKE_(std);
#undef TP_VAR_LIKE_
#define TP_VAR_MEAN_(name)                                                                     \
  Registry::function(                                                                          \
      m, #name,                                                                                \
      overload(                                                                                \
          "input, unbiased=True",                                                              \
          [](const Tensor& self, bool unbiased) { return tensorplay::name(self, unbiased); }), \
      overload("input, dim, unbiased=True, keepdim=False",                                     \
               [](const Tensor& self, const OptDims& dim, bool unbiased, bool keepdim) {       \
                 return tensorplay::name(self, dims_or_all(dim), unbiased, keepdim);           \
               }),                                                                             \
      overload("input, dim, *, correction=None, keepdim=False",                                \
               [](const Tensor& self, const OptDims& dim, std::optional<int64_t> correction,   \
                  bool keepdim) {                                                              \
                 return tensorplay::name(self, dims_or_all(dim), correction, keepdim);         \
               }))
  TP_VAR_MEAN_(var_mean);
  TP_VAR_MEAN_(std_mean);
#undef TP_VAR_MEAN_

  // ---- norm -------------------------------------------------------------------------------------
  // torch.norm and Tensor.norm are Python functions in torch (p='fro', dim=None, keepdim=False,
  // [out=None,] dtype=None): p is a string, a number or None (2).
  Registry::method(
      type, m, "norm",
      overload("self, p='fro', dim=None, keepdim=False, dtype=None",
               [](const Tensor& self, std::string_view p, const OptDims& dim, bool keepdim,
                  const OptDType& dtype) {
                 return norm_of(self, norm_order(p, dim, dtype), dim, keepdim, {}, dtype);
               }),
      overload(
          "self, p, dim=None, keepdim=False, dtype=None",
          [](const Tensor& self, const std::optional<Scalar>& p, const OptDims& dim, bool keepdim,
             const OptDType& dtype) { return norm_of(self, p, dim, keepdim, {}, dtype); }));
  Registry::function(
      m, "norm",
      overload("input, p='fro', dim=None, keepdim=False, out=None, dtype=None",
               [](const Tensor& self, std::string_view p, const OptDims& dim, bool keepdim,
                  const OptTensor& out, const OptDType& dtype) {
                 return norm_of(self, norm_order(p, dim, dtype), dim, keepdim, out, dtype);
               }),
      overload("input, p, dim=None, keepdim=False, out=None, dtype=None",
               [](const Tensor& self, const std::optional<Scalar>& p, const OptDims& dim,
                  bool keepdim, const OptTensor& out,
                  const OptDType& dtype) { return norm_of(self, p, dim, keepdim, out, dtype); }));

  // ---- all, any ---------------------------------------------------------------------------------
#define TP_ALL_LIKE_(name)                                                                        \
  Registry::method(                                                                               \
      type, m, #name, overload("self", [](const Tensor& self) { return self.name(); }),           \
      overload("self, dim, keepdim=False", [](const Tensor& self, int64_t dim, bool keepdim) {    \
        return self.name(dim, keepdim);                                                           \
      }));                                                                                        \
  Registry::function(                                                                             \
      m, #name,                                                                                   \
      overload("input, *, out=None",                                                              \
               [](const Tensor& self, const OptTensor& out) {                                     \
                 return out ? tensorplay::name##_out(*out, self.flatten(), 0, false)              \
                            : self.name();                                                        \
               }),                                                                                \
      overload("input, dim, keepdim=False, *, out=None", [](const Tensor& self, int64_t dim,      \
                                                            bool keepdim, const OptTensor& out) { \
        return out ? tensorplay::name##_out(*out, self, dim, keepdim) : self.name(dim, keepdim);  \
      }))
  TP_ALL_LIKE_(all);
  TP_ALL_LIKE_(any);
#undef TP_ALL_LIKE_

  // ---- cumsum, cumprod, softmax, log_softmax ----------------------------------------------------
  // DTYPE_KW / OUT_KW: where the keyword-only marker goes (softmax's dtype is positional).
#define TP_SCAN_(name, dtype_kw, out_kw)                                                          \
  Registry::method(type, m, #name,                                                                \
                   overload("self, dim, " dtype_kw "dtype=None",                                  \
                            [](const Tensor& self, int64_t dim, const OptDType& dtype) {          \
                              return self.name(dim, dtype);                                       \
                            }));                                                                  \
  Registry::function(                                                                             \
      m, #name,                                                                                   \
      overload("input, dim, " dtype_kw "dtype=None, " out_kw "out=None",                          \
               [](const Tensor& self, int64_t dim, const OptDType& dtype, const OptTensor& out) { \
                 return out ? tensorplay::name##_out(*out, self, dim, dtype)                      \
                            : self.name(dim, dtype);                                              \
               }))
  TP_SCAN_(cumsum, "*, ", "");
  TP_SCAN_(cumprod, "*, ", "");
  TP_SCAN_(softmax, "", "*, ");
  TP_SCAN_(log_softmax, "", "*, ");
#undef TP_SCAN_
  Registry::method(
      type, m, "cumsum_",
      overload("self, dim, *, dtype=None",
               [](const Tensor& self, int64_t dim, const OptDType& dtype) -> const Tensor& {
                 return self.cumsum_(dim, dtype);
               }));
  Registry::method(
      type, m, "cumprod_",
      overload("self, dim, *, dtype=None",
               [](const Tensor& self, int64_t dim, const OptDType& dtype) -> const Tensor& {
                 return self.cumprod_(dim, dtype);
               }));

  // ---- sort, argsort, msort, topk ---------------------------------------------------------------
  Registry::method_and_function(
      type, m, "sort",
      overload("input, dim=-1, descending=False",
               [](const Tensor& self, int64_t dim, bool descending) {
                 auto [values, indices] = self.sort(dim, descending);
                 return NamedTensors<"sort">{std::move(values), std::move(indices)};
               }),
      overload("input, *, stable, dim=-1, descending=False",
               [](const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
                 auto [values, indices] = self.sort(stable, dim, descending);
                 return NamedTensors<"sort">{std::move(values), std::move(indices)};
               }));
  Registry::method_and_function(
      type, m, "argsort",
      overload("input, dim=-1, descending=False",
               [](const Tensor& self, int64_t dim, bool descending) {
                 return self.argsort(dim, descending);
               }),
      overload("input, *, stable, dim=-1, descending=False",
               [](const Tensor& self, bool stable, int64_t dim, bool descending) {
                 return self.argsort(stable, dim, descending);
               }));
  Registry::method_and_function(type, m, "msort",
                                overload("input", [](const Tensor& self) { return self.msort(); }));
  Registry::method_and_function(
      type, m, "topk",
      overload("input, k, dim=-1, largest=True, sorted=True",
               [](const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
                 auto [values, indices] = self.topk(k, dim, largest, sorted);
                 return NamedTensors<"topk">{std::move(values), std::move(indices)};
               }));
}

}  // namespace tensorplay::python::bindings
