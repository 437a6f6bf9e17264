// Data-dependent ops (ops/nan_reduce.hpp, ops/histogram.hpp, ops/bucketize.hpp, ops/unique.hpp,
// ops/order_stats.hpp): count_nonzero, nansum, nanmean, cummax, cummin, bincount, histc,
// searchsorted, bucketize, kthvalue, median, nanmedian, mode, quantile, nanquantile, and
// _unique2 / _unique_consecutive, which tensorplay.unique (python/tensorplay/_tensor.py) turns
// into torch.unique's return forms.
#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

using OptTensor = std::optional<Tensor>;
using OptDims = std::optional<IntArrayRef>;
using OptDType = std::optional<DType>;
using OptStr = std::optional<std::string_view>;

IntArrayRef dims_or_all(const OptDims& dim) { return dim ? *dim : IntArrayRef(); }

// quantile / nanquantile (q a tensor or a float), the out= form for the function only.
template <bool kIgnoreNan, class Q>
Tensor quantile_entry(const Tensor& self, const Q& q, const std::optional<int64_t>& dim,
                      bool keepdim, std::string_view interpolation, const OptTensor& out) {
  if (out) {
    return kIgnoreNan ? nanquantile_out(*out, self, q, dim, keepdim, interpolation)
                      : quantile_out(*out, self, q, dim, keepdim, interpolation);
  }
  return kIgnoreNan ? nanquantile(self, q, dim, keepdim, interpolation)
                    : quantile(self, q, dim, keepdim, interpolation);
}

template <bool kIgnoreNan>
void register_quantile(const Target& t, const char* name) {
  using OptInt = std::optional<int64_t>;
  constexpr const char* kMethod = "input, q, dim=None, keepdim=False, *, interpolation='linear'";
  constexpr const char* kFunction =
      "input, q, dim=None, keepdim=False, *, interpolation='linear', out=None";
  Registry::method(
      t.type, t.module, name,
      overload(kMethod,
               [](const Tensor& self, const Tensor& q, const OptInt& dim, bool keepdim,
                  std::string_view how) {
                 return quantile_entry<kIgnoreNan>(self, q, dim, keepdim, how, std::nullopt);
               }),
      overload(kMethod, [](const Tensor& self, double q, const OptInt& dim, bool keepdim,
                           std::string_view how) {
        return quantile_entry<kIgnoreNan>(self, q, dim, keepdim, how, std::nullopt);
      }));
  Registry::function(
      t.module, name,
      overload(kFunction,
               [](const Tensor& self, const Tensor& q, const OptInt& dim, bool keepdim,
                  std::string_view how, const OptTensor& out) {
                 return quantile_entry<kIgnoreNan>(self, q, dim, keepdim, how, out);
               }),
      overload(kFunction, [](const Tensor& self, double q, const OptInt& dim, bool keepdim,
                             std::string_view how, const OptTensor& out) {
        return quantile_entry<kIgnoreNan>(self, q, dim, keepdim, how, out);
      }));
}

}  // namespace

void register_search(const Target& t) {
  auto* type = t.type;
  auto* m = t.module;
  Registry::method_and_function(
      type, m, "count_nonzero",
      overload("input, dim=None", [](const Tensor& self, const OptDims& dim) {
        return self.count_nonzero(dims_or_all(dim));
      }));
  Registry::method_and_function(
      type, m, "nansum",
      overload("input, dim=None, keepdim=False, *, dtype=None",
               [](const Tensor& self, const OptDims& dim, bool keepdim, const OptDType& dtype) {
                 return self.nansum(dims_or_all(dim), keepdim, dtype);
               }));
  Registry::method_and_function(
      type, m, "nanmean",
      overload("input, dim=None, keepdim=False, *, dtype=None",
               [](const Tensor& self, const OptDims& dim, bool keepdim, const OptDType& dtype) {
                 return self.nanmean(dims_or_all(dim), keepdim, dtype);
               }));
  Registry::method_and_function(
      type, m, "cummax", overload("input, dim", [](const Tensor& self, int64_t dim) {
        auto [values, indices] = self.cummax(dim);
        return NamedTensors<"cummax">{std::move(values), std::move(indices)};
      }));
  Registry::method_and_function(
      type, m, "cummin", overload("input, dim", [](const Tensor& self, int64_t dim) {
        auto [values, indices] = self.cummin(dim);
        return NamedTensors<"cummin">{std::move(values), std::move(indices)};
      }));
  Registry::method_and_function(
      type, m, "bincount",
      overload("input, weights=None, minlength=0",
               [](const Tensor& self, const OptTensor& weights, int64_t minlength) {
                 return self.bincount(weights, minlength);
               }));
  Registry::method_and_function(
      type, m, "histc",
      overload("input, bins=100, min=0, max=0",
               [](const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
                 return self.histc(bins, min, max);
               }));
  Registry::function(
      m, "searchsorted",
      overload("sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None",
               [](const Tensor& seq, const Tensor& self, bool out_int32, bool right,
                  const OptStr& side, const OptTensor& sorter) {
                 return searchsorted(seq, self, out_int32, right, side, sorter);
               }),
      overload("sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None",
               [](const Tensor& seq, const Scalar& self, bool out_int32, bool right,
                  const OptStr& side, const OptTensor& sorter) {
                 return searchsorted(seq, self, out_int32, right, side, sorter);
               }));
  Registry::function(
      m, "bucketize",
      overload("input, boundaries, *, out_int32=False, right=False",
               [](const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
                 return bucketize(self, boundaries, out_int32, right);
               }),
      overload("input, boundaries, *, out_int32=False, right=False",
               [](const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
                 return bucketize(self, boundaries, out_int32, right);
               }));
  Registry::function(
      m, "_unique2",
      overload("input, sorted=True, return_inverse=False, return_counts=False, dim=None",
               [](const Tensor& self, bool sorted, bool inverse, bool counts,
                  const std::optional<int64_t>& dim) {
                 return unique(self, sorted, inverse, counts, dim);
               }));
  Registry::function(m, "_unique_consecutive",
                     overload("input, return_inverse=False, return_counts=False, dim=None",
                              [](const Tensor& self, bool inverse, bool counts,
                                 const std::optional<int64_t>& dim) {
                                return unique_consecutive(self, inverse, counts, dim);
                              }));
  Registry::method_and_function(
      type, m, "kthvalue",
      overload("input, k, dim=-1, keepdim=False",
               [](const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
                 auto [values, indices] = self.kthvalue(k, dim, keepdim);
                 return NamedTensors<"kthvalue">{std::move(values), std::move(indices)};
               }));
  Registry::method_and_function(
      type, m, "median", overload("input", [](const Tensor& self) { return self.median(); }),
      overload("input, dim, keepdim=False", [](const Tensor& self, int64_t dim, bool keepdim) {
        auto [values, indices] = self.median(dim, keepdim);
        return NamedTensors<"median">{std::move(values), std::move(indices)};
      }));
  Registry::method_and_function(
      type, m, "nanmedian", overload("input", [](const Tensor& self) { return self.nanmedian(); }),
      overload("input, dim, keepdim=False", [](const Tensor& self, int64_t dim, bool keepdim) {
        auto [values, indices] = self.nanmedian(dim, keepdim);
        return NamedTensors<"nanmedian">{std::move(values), std::move(indices)};
      }));
  Registry::method_and_function(
      type, m, "mode",
      overload("input, dim=-1, keepdim=False", [](const Tensor& self, int64_t dim, bool keepdim) {
        auto [values, indices] = self.mode(dim, keepdim);
        return NamedTensors<"mode">{std::move(values), std::move(indices)};
      }));
  register_quantile<false>(t, "quantile");
  register_quantile<true>(t, "nanquantile");
}

}  // namespace tensorplay::python::bindings
