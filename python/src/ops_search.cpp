// Data-dependent ops (ops/nan_reduce.hpp, ops/histogram.hpp, ops/bucketize.hpp, ops/unique.hpp):
// count_nonzero, nansum, nanmean, cummax, cummin, bincount, histc, searchsorted, bucketize, and
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
}

}  // namespace tensorplay::python::bindings
