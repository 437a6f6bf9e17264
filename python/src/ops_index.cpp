// The index families (ops/scatter_gather.hpp, ops/masked.hpp, index_put in ops/indexing.hpp):
// gather, scatter, scatter_add, scatter_reduce, index_select/add/copy, take, put, masked_select,
// masked_scatter, nonzero, argwhere, index_put. Names, parameter names and the split between
// Tensor methods and tp.<name> functions follow torch 1.13.
#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

using OptTensor = std::optional<Tensor>;
using OptIndices = std::vector<std::optional<Tensor>>;

// index_put's Tensor?[]: None is a full slice, as in libtorch.
std::vector<indexing::TensorIndex> index_list(const OptIndices& indices) {
  std::vector<indexing::TensorIndex> list;
  list.reserve(indices.size());
  for (const auto& t : indices) {
    list.emplace_back(t ? indexing::TensorIndex(*t) : indexing::TensorIndex(indexing::Slice()));
  }
  return list;
}

// nonzero's as_tuple picks the return type, so the entry builds the Python object itself.
PyObject* nonzero_object(const Tensor& self, bool as_tuple) {
  if (!as_tuple) return to_python(self.nonzero());
  const std::vector<Tensor> parts = self.nonzero_numpy();
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(parts.size()));
  if (!tuple) return nullptr;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    PyObject* item = to_python(parts[i]);
    if (!item) {
      Py_DECREF(tuple);
      return nullptr;
    }
    PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), item);
  }
  return tuple;
}

void register_gather_scatter(PyTypeObject* type, PyObject* m) {
  Registry::method(type, m, "gather",
                   overload("self, dim, index, *, sparse_grad=False",
                            [](const Tensor& self, int64_t dim, const Tensor& index, bool sparse) {
                              return self.gather(dim, index, sparse);
                            }));
  Registry::function(m, "gather",
                     overload("input, dim, index, *, sparse_grad=False, out=None",
                              [](const Tensor& self, int64_t dim, const Tensor& index, bool sparse,
                                 const OptTensor& out) {
                                return out ? gather_out(*out, self, dim, index, sparse)
                                           : gather(self, dim, index, sparse);
                              }));
  // scatter(dim, index, src | value[, *, reduce]): the tensor forms first, as in torch.
  Registry::method_and_function(
      type, m, "scatter",
      overload("input, dim, index, src",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
                 return self.scatter(dim, index, src);
               }),
      overload("input, dim, index, src, *, reduce",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  std::string_view reduce) { return self.scatter(dim, index, src, reduce); }),
      overload("input, dim, index, value",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
                 return self.scatter(dim, index, value);
               }),
      overload("input, dim, index, value, *, reduce",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                  std::string_view reduce) { return self.scatter(dim, index, value, reduce); }));
  Registry::method(
      type, m, "scatter_",
      overload("self, dim, index, src",
               [](const Tensor& self, int64_t dim, const Tensor& index,
                  const Tensor& src) -> const Tensor& { return self.scatter_(dim, index, src); }),
      overload("self, dim, index, src, *, reduce",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  std::string_view reduce) -> const Tensor& {
                 return self.scatter_(dim, index, src, reduce);
               }),
      overload("self, dim, index, value",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value)
                   -> const Tensor& { return self.scatter_(dim, index, value); }),
      overload("self, dim, index, value, *, reduce",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                  std::string_view reduce) -> const Tensor& {
                 return self.scatter_(dim, index, value, reduce);
               }));
  Registry::method_and_function(
      type, m, "scatter_add",
      overload("input, dim, index, src",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
                 return self.scatter_add(dim, index, src);
               }));
  Registry::method(type, m, "scatter_add_",
                   overload("self, dim, index, src",
                            [](const Tensor& self, int64_t dim, const Tensor& index,
                               const Tensor& src) -> const Tensor& {
                              return self.scatter_add_(dim, index, src);
                            }));
  Registry::method_and_function(
      type, m, "scatter_reduce",
      overload("input, dim, index, src, reduce, *, include_self=True",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  std::string_view reduce, bool include_self) {
                 return self.scatter_reduce(dim, index, src, reduce, include_self);
               }));
  Registry::method(
      type, m, "scatter_reduce_",
      overload("self, dim, index, src, reduce, *, include_self=True",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  std::string_view reduce, bool include_self) -> const Tensor& {
                 return self.scatter_reduce_(dim, index, src, reduce, include_self);
               }));
}

void register_index_dim(PyTypeObject* type, PyObject* m) {
  Registry::method(
      type, m, "index_select",
      overload("self, dim, index", [](const Tensor& self, int64_t dim, const Tensor& index) {
        return self.index_select(dim, index);
      }));
  Registry::function(
      m, "index_select",
      overload("input, dim, index, *, out=None", [](const Tensor& self, int64_t dim,
                                                    const Tensor& index, const OptTensor& out) {
        return out ? index_select_out(*out, self, dim, index) : index_select(self, dim, index);
      }));
  Registry::method_and_function(
      type, m, "index_add",
      overload("input, dim, index, source, *, alpha=1",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                  const Scalar& alpha) { return self.index_add(dim, index, source, alpha); }));
  Registry::method(type, m, "index_add_",
                   overload("self, dim, index, source, *, alpha=1",
                            [](const Tensor& self, int64_t dim, const Tensor& index,
                               const Tensor& source, const Scalar& alpha) -> const Tensor& {
                              return self.index_add_(dim, index, source, alpha);
                            }));
  Registry::method_and_function(
      type, m, "index_copy",
      overload("input, dim, index, source",
               [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
                 return self.index_copy(dim, index, source);
               }));
  Registry::method(type, m, "index_copy_",
                   overload("self, dim, index, source",
                            [](const Tensor& self, int64_t dim, const Tensor& index,
                               const Tensor& source) -> const Tensor& {
                              return self.index_copy_(dim, index, source);
                            }));
  Registry::method_and_function(
      type, m, "take", overload("input, index", [](const Tensor& self, const Tensor& index) {
        return self.take(index);
      }));
  Registry::method_and_function(
      type, m, "put",
      overload("input, index, source, accumulate=False",
               [](const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
                 return self.put(index, source, accumulate);
               }));
  Registry::method(type, m, "put_",
                   overload("self, index, source, accumulate=False",
                            [](const Tensor& self, const Tensor& index, const Tensor& source,
                               bool accumulate) -> const Tensor& {
                              return self.put_(index, source, accumulate);
                            }));
  Registry::method_and_function(
      type, m, "index_put",
      overload(
          "input, indices, values, accumulate=False",
          [](const Tensor& self, const OptIndices& indices, const Tensor& values, bool accumulate) {
            return self.index_put(index_list(indices), values, accumulate);
          }));
  Registry::method(type, m, "index_put_",
                   overload("self, indices, values, accumulate=False",
                            [](const Tensor& self, const OptIndices& indices, const Tensor& values,
                               bool accumulate) -> const Tensor& {
                              return self.index_put_(index_list(indices), values, accumulate);
                            }));
}

void register_masked(PyTypeObject* type, PyObject* m) {
  Registry::method(type, m, "masked_select",
                   overload("self, mask", [](const Tensor& self, const Tensor& mask) {
                     return self.masked_select(mask);
                   }));
  Registry::function(m, "masked_select",
                     overload("input, mask, *, out=None", [](const Tensor& self, const Tensor& mask,
                                                             const OptTensor& out) {
                       return out ? masked_select_out(*out, self, mask) : masked_select(self, mask);
                     }));
  Registry::method_and_function(
      type, m, "masked_scatter",
      overload("input, mask, source",
               [](const Tensor& self, const Tensor& mask, const Tensor& source) {
                 return self.masked_scatter(mask, source);
               }));
  Registry::method(
      type, m, "masked_scatter_",
      overload("self, mask, source",
               [](const Tensor& self, const Tensor& mask, const Tensor& source) -> const Tensor& {
                 return self.masked_scatter_(mask, source);
               }));
  Registry::method(type, m, "nonzero",
                   overload("self, *, as_tuple=False", [](const Tensor& self, bool as_tuple) {
                     return nonzero_object(self, as_tuple);
                   }));
  Registry::function(m, "nonzero",
                     overload("input, *, out=None, as_tuple=False",
                              [](const Tensor& self, const OptTensor& out, bool as_tuple) {
                                if (out && !as_tuple) return to_python(nonzero_out(*out, self));
                                return nonzero_object(self, as_tuple);
                              }));
  Registry::method_and_function(
      type, m, "argwhere", overload("input", [](const Tensor& self) { return self.argwhere(); }));
}

}  // namespace

void register_index(const Target& t) {
  register_gather_scatter(t.type, t.module);
  register_index_dim(t.type, t.module);
  register_masked(t.type, t.module);
}

}  // namespace tensorplay::python::bindings
