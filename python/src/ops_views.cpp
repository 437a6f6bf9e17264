// View and shape ops (ops/views.hpp, ops/as_strided.hpp), resize_ (ops/resize.hpp) and the joins
// cat/stack (ops/join.hpp). Each view aliases its base's storage and shares its version counter,
// as the C++ ops do; the binding only chooses the overload. Names, parameter names and the split
// between Tensor methods and tp.<name> functions follow torch 1.13 (where torch has only the
// method, e.g. view or expand, only the method is bound).
#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

void register_reshapes(PyTypeObject* type, PyObject* m) {
  // view(dtype) first: a lone dtype argument does not probe as a size, and a size never as a
  // dtype, so the order only decides which signature a TypeError lists first (torch's order).
  Registry::method(
      type, m, "view",
      overload("self, dtype", [](const Tensor& self, DType dtype) { return self.view(dtype); }),
      overload("self, *size",
               [](const Tensor& self, IntArrayRef size) { return self.view(size); }));
  Registry::method(type, m, "view_as",
                   overload("self, other", [](const Tensor& self, const Tensor& other) {
                     return self.view_as(other);
                   }));
  // torch's method takes `*shape`, its function a single `shape` argument.
  Registry::method(type, m, "reshape",
                   overload("self, *shape", [](const Tensor& self, IntArrayRef shape) {
                     return self.reshape(shape);
                   }));
  Registry::function(m, "reshape",
                     overload("input, shape", [](const Tensor& self, IntArrayRef shape) {
                       return self.reshape(shape);
                     }));
  Registry::method(type, m, "reshape_as",
                   overload("self, other", [](const Tensor& self, const Tensor& other) {
                     return self.reshape_as(other);
                   }));
  Registry::method_and_function(type, m, "as_strided",
                                overload("input, size, stride, storage_offset=None",
                                         [](const Tensor& self, IntArrayRef size,
                                            IntArrayRef stride, std::optional<int64_t> offset) {
                                           return self.as_strided(size, stride, offset);
                                         }));
  Registry::method_and_function(
      type, m, "as_strided_",
      overload("input, size, stride, storage_offset=None",
               [](const Tensor& self, IntArrayRef size, IntArrayRef stride,
                  std::optional<int64_t> offset) -> const Tensor& {
                 return self.as_strided_(size, stride, offset);
               }));
  Registry::method(type, m, "expand",
                   overload("self, *size, implicit=False",
                            [](const Tensor& self, IntArrayRef size, bool implicit) {
                              return self.expand(size, implicit);
                            }));
  Registry::method(type, m, "expand_as",
                   overload("self, other", [](const Tensor& self, const Tensor& other) {
                     return self.expand_as(other);
                   }));
  Registry::method_and_function(type, m, "flatten",
                                overload("input, start_dim=0, end_dim=-1",
                                         [](const Tensor& self, int64_t start, int64_t end) {
                                           return self.flatten(start, end);
                                         }));
  Registry::method_and_function(
      type, m, "unflatten",
      overload("input, dim, sizes", [](const Tensor& self, int64_t dim, IntArrayRef sizes) {
        return self.unflatten(dim, sizes);
      }));
  Registry::method(type, m, "resize_",
                   overload("self, *size, memory_format=None",
                            [](const Tensor& self, IntArrayRef size, std::optional<MemoryFormat> f)
                                -> const Tensor& { return self.resize_(size, f); }));
  Registry::method_and_function(type, m, "resize_as_",
                                overload("input, the_template, *, memory_format=None",
                                         [](const Tensor& self, const Tensor& the_template,
                                            std::optional<MemoryFormat> f) -> const Tensor& {
                                           return self.resize_as_(the_template, f);
                                         }));
}

void register_dim_moves(PyTypeObject* type, PyObject* m) {
  Registry::method_and_function(
      type, m, "transpose",
      overload("input, dim0, dim1", [](const Tensor& self, int64_t dim0, int64_t dim1) {
        return self.transpose(dim0, dim1);
      }));
  Registry::method_and_function(
      type, m, "swapdims",
      overload("input, dim0, dim1", [](const Tensor& self, int64_t dim0, int64_t dim1) {
        return self.swapdims(dim0, dim1);
      }));
  Registry::method_and_function(
      type, m, "swapaxes",
      overload("input, dim0, dim1", [](const Tensor& self, int64_t dim0, int64_t dim1) {
        return self.swapaxes(dim0, dim1);
      }));
  // torch's swapdims_/swapaxes_ are transpose_ under other names (there is no C++ spelling).
  Registry::method(type, m, "transpose_",
                   overload("self, dim0, dim1",
                            [](const Tensor& self, int64_t dim0, int64_t dim1) -> const Tensor& {
                              return self.transpose_(dim0, dim1);
                            }));
  Registry::method(type, m, "swapdims_",
                   overload("self, dim0, dim1",
                            [](const Tensor& self, int64_t dim0, int64_t dim1) -> const Tensor& {
                              return self.transpose_(dim0, dim1);
                            }));
  Registry::method(type, m, "swapaxes_",
                   overload("self, dim0, dim1",
                            [](const Tensor& self, int64_t dim0, int64_t dim1) -> const Tensor& {
                              return self.transpose_(dim0, dim1);
                            }));
  Registry::method_and_function(type, m, "t",
                                overload("input", [](const Tensor& self) { return self.t(); }));
  Registry::method(type, m, "t_",
                   overload("self", [](const Tensor& self) -> const Tensor& { return self.t_(); }));
  Registry::method(type, m, "permute",
                   overload("self, *dims", [](const Tensor& self, IntArrayRef dims) {
                     return self.permute(dims);
                   }));
  Registry::function(m, "permute",
                     overload("input, dims", [](const Tensor& self, IntArrayRef dims) {
                       return self.permute(dims);
                     }));
  // int/int before the lists: a single int also probes as a list.
  Registry::method_and_function(
      type, m, "movedim",
      overload("input, source, destination",
               [](const Tensor& self, int64_t source, int64_t destination) {
                 return self.movedim(source, destination);
               }),
      overload("input, source, destination",
               [](const Tensor& self, IntArrayRef source, IntArrayRef destination) {
                 return self.movedim(source, destination);
               }));
  Registry::method_and_function(
      type, m, "moveaxis",
      overload("input, source, destination",
               [](const Tensor& self, int64_t source, int64_t destination) {
                 return self.moveaxis(source, destination);
               }),
      overload("input, source, destination",
               [](const Tensor& self, IntArrayRef source, IntArrayRef destination) {
                 return self.moveaxis(source, destination);
               }));
}

void register_squeezes(PyTypeObject* type, PyObject* m) {
  // The tuple form is torch 2.0's (1.13 takes only an int); the C++ API has it, so it is bound.
  Registry::method_and_function(
      type, m, "squeeze", overload("input", [](const Tensor& self) { return self.squeeze(); }),
      overload("input, dim", [](const Tensor& self, int64_t dim) { return self.squeeze(dim); }),
      overload("input, dim",
               [](const Tensor& self, IntArrayRef dims) { return self.squeeze(dims); }));
  Registry::method(
      type, m, "squeeze_",
      overload("self", [](const Tensor& self) -> const Tensor& { return self.squeeze_(); }),
      overload("self, dim", [](const Tensor& self, int64_t dim) -> const Tensor& {
        return self.squeeze_(dim);
      }));
  Registry::method_and_function(
      type, m, "unsqueeze",
      overload("input, dim", [](const Tensor& self, int64_t dim) { return self.unsqueeze(dim); }));
  Registry::method(type, m, "unsqueeze_",
                   overload("self, dim", [](const Tensor& self, int64_t dim) -> const Tensor& {
                     return self.unsqueeze_(dim);
                   }));
}

void register_slices(PyTypeObject* type, PyObject* m) {
  Registry::method_and_function(
      type, m, "select",
      overload("input, dim, index", [](const Tensor& self, int64_t dim, int64_t index) {
        return self.select(dim, index);
      }));
  // torch also takes `start` as a 0-dim integral tensor.
  Registry::method_and_function(
      type, m, "narrow",
      overload("input, dim, start, length",
               [](const Tensor& self, int64_t dim, int64_t start, int64_t length) {
                 return self.narrow(dim, start, length);
               }),
      overload("input, dim, start, length",
               [](const Tensor& self, int64_t dim, const Tensor& start, int64_t length) {
                 TP_CHECK(start.dim() == 0 && isIntegralType(start.dtype(), false),
                          "start must be an 0-dim integral Tensor.");
                 return self.narrow(dim, start.item().to<int64_t>(), length);
               }));
  Registry::method_and_function(
      type, m, "diagonal",
      overload("input, offset=0, dim1=0, dim2=1",
               [](const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
                 return self.diagonal(offset, dim1, dim2);
               }));
  Registry::method(type, m, "unfold",
                   overload("self, dimension, size, step",
                            [](const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
                              return self.unfold(dimension, size, step);
                            }));
}

void register_splits(PyTypeObject* type, PyObject* m) {
  // Tensor.split(split_size, dim) and torch.split(tensor, split_size_or_sections, dim) are
  // Python functions in torch, with those parameter names; an int splits evenly, a list by sizes.
  Registry::method(
      type, m, "split",
      overload("self, split_size, dim=0",
               [](const Tensor& self, int64_t size, int64_t dim) { return self.split(size, dim); }),
      overload("self, split_size, dim=0", [](const Tensor& self, IntArrayRef sizes, int64_t dim) {
        return self.split(sizes, dim);
      }));
  Registry::function(
      m, "split",
      overload("tensor, split_size_or_sections, dim=0",
               [](const Tensor& self, int64_t size, int64_t dim) { return self.split(size, dim); }),
      overload("tensor, split_size_or_sections, dim=0",
               [](const Tensor& self, IntArrayRef sizes, int64_t dim) {
                 return self.split(sizes, dim);
               }));
  Registry::method_and_function(
      type, m, "split_with_sizes",
      overload("input, split_sizes, dim=0", [](const Tensor& self, IntArrayRef sizes, int64_t dim) {
        return self.split_with_sizes(sizes, dim);
      }));
  Registry::method_and_function(
      type, m, "chunk",
      overload("input, chunks, dim=0", [](const Tensor& self, int64_t chunks, int64_t dim) {
        return self.chunk(chunks, dim);
      }));
  Registry::method_and_function(
      type, m, "unbind",
      overload("input, dim=0", [](const Tensor& self, int64_t dim) { return self.unbind(dim); }));
}

// cat/concat/stack with torch's `out=`: the result is `out` itself (same Python object).
Tensor cat_into(const std::vector<Tensor>& tensors, int64_t dim, const std::optional<Tensor>& out) {
  if (out) return cat_out(*out, tensors, dim);
  return cat(tensors, dim);
}

void register_joins(PyObject* m) {
  Registry::function(
      m, "cat",
      overload("tensors, dim=0, *, out=None",
               [](const std::vector<Tensor>& tensors, int64_t dim,
                  const std::optional<Tensor>& out) { return cat_into(tensors, dim, out); }));
  Registry::function(
      m, "concat",
      overload("tensors, dim=0, *, out=None",
               [](const std::vector<Tensor>& tensors, int64_t dim,
                  const std::optional<Tensor>& out) { return cat_into(tensors, dim, out); }));
  Registry::function(
      m, "stack",
      overload("tensors, dim=0, *, out=None", [](const std::vector<Tensor>& tensors, int64_t dim,
                                                 const std::optional<Tensor>& out) {
        if (out) return Tensor(stack_out(*out, tensors, dim));
        return stack(tensors, dim);
      }));
}

}  // namespace

void register_views(const Target& t) {
  register_reshapes(t.type, t.module);
  register_dim_moves(t.type, t.module);
  register_squeezes(t.type, t.module);
  register_slices(t.type, t.module);
  register_splits(t.type, t.module);
  register_joins(t.module);
}

}  // namespace tensorplay::python::bindings
