// Shape ops (ops/shape_ops.hpp, ops/shape_join.hpp) and the split family's remaining forms
// (tensor_split, hsplit, vsplit, dsplit from ops/views.hpp). Names, parameter names and the
// split between Tensor methods and tp.<name> functions follow torch 1.13: flip, roll, rot90,
// tile, repeat_interleave, tril/triu, diag*, trace, cross, kron and broadcast_to are both;
// repeat and tril_/triu_ methods only; the stacks, meshgrid, block_diag, atleast_*, tensordot
// and broadcast_tensors functions only. A function with an out= form takes `*, out=None` and
// returns the out tensor itself when given.
#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

using OptTensor = std::optional<Tensor>;
using OptInt = std::optional<int64_t>;

void register_reorders(PyTypeObject* type, PyObject* m) {
  Registry::method(type, m, "flip",
                   overload("self, *dims",
                            [](const Tensor& self, IntArrayRef dims) { return self.flip(dims); }));
  Registry::function(m, "flip", overload("input, dims", [](const Tensor& self, IntArrayRef dims) {
                       return self.flip(dims);
                     }));
  Registry::method_and_function(
      type, m, "fliplr", overload("input", [](const Tensor& self) { return self.fliplr(); }));
  Registry::method_and_function(
      type, m, "flipud", overload("input", [](const Tensor& self) { return self.flipud(); }));
  Registry::method_and_function(
      type, m, "roll",
      overload("input, shifts, dims=None",
               [](const Tensor& self, IntArrayRef shifts, std::optional<IntArrayRef> dims) {
                 return self.roll(shifts, dims ? *dims : IntArrayRef{});
               }));
  Registry::method_and_function(
      type, m, "rot90",
      overload("input, k=1, dims=(0, 1)", [](const Tensor& self, int64_t k, IntArrayRef dims) {
        return self.rot90(k, dims);
      }));
  Registry::method(type, m, "repeat",
                   overload("self, *sizes", [](const Tensor& self, IntArrayRef sizes) {
                     return self.repeat(sizes);
                   }));
  Registry::method(type, m, "tile",
                   overload("self, *dims",
                            [](const Tensor& self, IntArrayRef dims) { return self.tile(dims); }));
  Registry::function(m, "tile", overload("input, dims", [](const Tensor& self, IntArrayRef dims) {
                       return tile(self, dims);
                     }));
  // The int form first: an int also probes as a 0-d tensor nowhere, but a tensor never as an int.
  Registry::method_and_function(
      type, m, "repeat_interleave",
      overload("input, repeats, dim=None, *, output_size=None",
               [](const Tensor& self, int64_t repeats, OptInt dim, OptInt output_size) {
                 return self.repeat_interleave(repeats, dim, output_size);
               }),
      overload("input, repeats, dim=None, *, output_size=None",
               [](const Tensor& self, const Tensor& repeats, OptInt dim, OptInt output_size) {
                 return self.repeat_interleave(repeats, dim, output_size);
               }),
      overload("repeats, *, output_size=None", [](const Tensor& repeats, OptInt output_size) {
        return repeat_interleave(repeats, output_size);
      }));
}

void register_triangles(PyTypeObject* type, PyObject* m) {
#define TP_TRIANGLE_(name)                                                                       \
  Registry::method(                                                                              \
      type, m, #name,                                                                            \
      overload("self, diagonal=0", [](const Tensor& self, int64_t k) { return self.name(k); })); \
  Registry::function(m, #name,                                                                   \
                     overload("input, diagonal=0, *, out=None",                                  \
                              [](const Tensor& self, int64_t k, const OptTensor& out) {          \
                                return out ? name##_out(*out, self, k) : name(self, k);          \
                              }));                                                               \
  Registry::method(                                                                              \
      type, m, #name "_",                                                                        \
      overload("self, diagonal=0",                                                               \
               [](const Tensor& self, int64_t k) -> const Tensor& { return self.name##_(k); }))
  TP_TRIANGLE_(tril);
  TP_TRIANGLE_(triu);
#undef TP_TRIANGLE_
}

void register_diagonals(PyTypeObject* type, PyObject* m) {
  Registry::method(type, m, "diag", overload("self, diagonal=0", [](const Tensor& self, int64_t k) {
                     return self.diag(k);
                   }));
  Registry::function(m, "diag",
                     overload("input, diagonal=0, *, out=None",
                              [](const Tensor& self, int64_t k, const OptTensor& out) {
                                return out ? diag_out(*out, self, k) : diag(self, k);
                              }));
  Registry::method_and_function(
      type, m, "diag_embed",
      overload("input, offset=0, dim1=-2, dim2=-1",
               [](const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
                 return self.diag_embed(offset, dim1, dim2);
               }));
  Registry::method_and_function(type, m, "diagflat",
                                overload("input, offset=0", [](const Tensor& self, int64_t offset) {
                                  return self.diagflat(offset);
                                }));
  Registry::method_and_function(type, m, "trace",
                                overload("input", [](const Tensor& self) { return self.trace(); }));
}

void register_broadcasts(PyTypeObject* type, PyObject* m) {
  Registry::method_and_function(type, m, "broadcast_to",
                                overload("input, size", [](const Tensor& self, IntArrayRef size) {
                                  return self.broadcast_to(size);
                                }));
  Registry::function(m, "broadcast_tensors",
                     overload("*tensors", [](const std::vector<Tensor>& tensors) {
                       return broadcast_tensors(tensors);
                     }));
  // torch 1.13's default (None) is "ij" with a warning about the future default.
  Registry::function(
      m, "meshgrid",
      overload("*tensors, indexing=None",
               [](const std::vector<Tensor>& tensors, std::optional<std::string_view> indexing) {
                 return meshgrid(tensors, indexing ? *indexing : "ij");
               }));
}

void register_stacks(PyObject* m) {
  // atleast_Nd(t) returns a tensor, atleast_Nd(a, b, ...) or atleast_Nd([a, b]) a tuple.
#define TP_ATLEAST_(name)                                                          \
  Registry::function(                                                              \
      m, #name, overload("tensor", [](const Tensor& self) { return name(self); }), \
      overload("*tensors", [](const std::vector<Tensor>& tensors) { return name(tensors); }))
  TP_ATLEAST_(atleast_1d);
  TP_ATLEAST_(atleast_2d);
  TP_ATLEAST_(atleast_3d);
#undef TP_ATLEAST_
#define TP_STACK_(name)                                                                         \
  Registry::function(m, #name,                                                                  \
                     overload("tensors, *, out=None",                                           \
                              [](const std::vector<Tensor>& tensors, const OptTensor& out) {    \
                                return out ? Tensor(name##_out(*out, tensors)) : name(tensors); \
                              }))
  TP_STACK_(hstack);
  TP_STACK_(vstack);
  TP_STACK_(row_stack);
  TP_STACK_(dstack);
  TP_STACK_(column_stack);
#undef TP_STACK_
  Registry::function(m, "block_diag", overload("*tensors", [](const std::vector<Tensor>& tensors) {
                       return block_diag(tensors);
                     }));
}

// tensordot's dims: an int n (the last n of a with the first n of b), or a pair of int lists.
// Python C API: the lambda takes the object itself.
std::pair<std::vector<int64_t>, std::vector<int64_t>> tensordot_dims(PyObject* dims) {
  std::vector<int64_t> da, db;
  if (PyLong_Check(dims)) {
    const int64_t n = PyLong_AsLongLong(dims);
    TP_CHECK(n >= 0, "tensordot expects dims >= 0, but got dims=", n);
    for (int64_t i = -n; i < 0; ++i) da.push_back(i);
    for (int64_t i = 0; i < n; ++i) db.push_back(i);
    return {da, db};
  }
  const auto ints = [](PyObject* seq, std::vector<int64_t>& out) {
    if (PyLong_Check(seq)) {
      out.push_back(PyLong_AsLongLong(seq));
      return;
    }
    py::sequence s = py::reinterpret_borrow<py::sequence>(seq);
    for (py::handle h : s) out.push_back(h.cast<int64_t>());
  };
  TP_CHECK_TYPE(PySequence_Check(dims) && PySequence_Size(dims) == 2,
                "tensordot expects dims to be an int or a pair of lists of dimensions");
  py::sequence pair = py::reinterpret_borrow<py::sequence>(dims);
  ints(py::object(pair[0]).ptr(), da);
  ints(py::object(pair[1]).ptr(), db);
  return {da, db};
}

void register_products(PyTypeObject* type, PyObject* m) {
  Registry::method(
      type, m, "cross",
      overload("self, other, dim=None", [](const Tensor& self, const Tensor& other, OptInt dim) {
        return self.cross(other, dim);
      }));
  Registry::function(
      m, "cross",
      overload("input, other, dim=None, *, out=None",
               [](const Tensor& self, const Tensor& other, OptInt dim, const OptTensor& out) {
                 return out ? cross_out(*out, self, other, dim) : cross(self, other, dim);
               }));
  // torch.linalg.cross is tp._C.linalg_cross (there is no tp.linalg module yet).
  Registry::function(
      m, "linalg_cross",
      overload("input, other, *, dim=-1, out=None", [](const Tensor& self, const Tensor& other,
                                                       int64_t dim, const OptTensor& out) {
        return out ? linalg_cross_out(*out, self, other, dim) : linalg_cross(self, other, dim);
      }));
  Registry::method(type, m, "kron",
                   overload("self, other", [](const Tensor& self, const Tensor& other) {
                     return self.kron(other);
                   }));
  Registry::function(m, "kron",
                     overload("input, other, *, out=None",
                              [](const Tensor& self, const Tensor& other, const OptTensor& out) {
                                return out ? kron_out(*out, self, other) : kron(self, other);
                              }));
  Registry::function(m, "tensordot",
                     overload("a, b, dims=2, out=None", [](const Tensor& a, const Tensor& b,
                                                           PyObject* dims, const OptTensor& out) {
                       const auto [da, db] = tensordot_dims(dims);
                       return out ? tensordot_out(*out, a, b, da, db) : tensordot(a, b, da, db);
                     }));
}

void register_section_splits(PyTypeObject* type, PyObject* m) {
  // An int: that many sections; a list: split points; a tensor: either, by its rank.
  Registry::method_and_function(type, m, "tensor_split",
                                overload("input, indices_or_sections, dim=0",
                                         [](const Tensor& self, int64_t sections, int64_t dim) {
                                           return self.tensor_split(sections, dim);
                                         }),
                                overload("input, indices_or_sections, dim=0",
                                         [](const Tensor& self, IntArrayRef indices, int64_t dim) {
                                           return self.tensor_split(indices, dim);
                                         }),
                                overload("input, indices_or_sections, dim=0",
                                         [](const Tensor& self, const Tensor& t, int64_t dim) {
                                           return self.tensor_split(t, dim);
                                         }));
#define TP_NAMED_SPLIT_(name)                                                             \
  Registry::method_and_function(                                                          \
      type, m, #name,                                                                     \
      overload("input, indices_or_sections",                                              \
               [](const Tensor& self, int64_t sections) { return self.name(sections); }), \
      overload("input, indices_or_sections",                                              \
               [](const Tensor& self, IntArrayRef indices) { return self.name(indices); }))
  TP_NAMED_SPLIT_(hsplit);
  TP_NAMED_SPLIT_(vsplit);
  TP_NAMED_SPLIT_(dsplit);
#undef TP_NAMED_SPLIT_
}

}  // namespace

void register_shape(const Target& t) {
  register_reorders(t.type, t.module);
  register_triangles(t.type, t.module);
  register_diagonals(t.type, t.module);
  register_broadcasts(t.type, t.module);
  register_stacks(t.module);
  register_products(t.type, t.module);
  register_section_splits(t.type, t.module);
}

}  // namespace tensorplay::python::bindings
