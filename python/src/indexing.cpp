// t[index] and t[index] = value, with Python's index forms: ints, slices, `...`, None, bools,
// tensors (bool masks and integer indices), and lists/arrays (converted to index tensors).
// A single int - the most common case, t[0] - goes straight to select().
#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

using indexing::Slice;
using indexing::TensorIndex;

std::optional<int64_t> slice_bound(PyObject* obj) {
  if (obj == Py_None) return std::nullopt;
  if (is_tensor(obj)) return unchecked_tensor(obj).item().toLong();
  return detail::load_int(obj);
}

TensorIndex to_index(PyObject* obj) {
  if (PyLong_CheckExact(obj)) return TensorIndex(detail::load_int(obj));
  if (obj == Py_None) return TensorIndex(indexing::None);
  if (obj == Py_Ellipsis) return TensorIndex(indexing::Ellipsis);
  if (PyBool_Check(obj)) return TensorIndex(obj == Py_True);
  if (PySlice_Check(obj)) {
    auto* s = reinterpret_cast<PySliceObject*>(obj);
    return TensorIndex(Slice(slice_bound(s->start), slice_bound(s->stop), slice_bound(s->step)));
  }
  if (is_tensor(obj)) return TensorIndex(unchecked_tensor(obj));
  if (detail::is_int_like(obj)) return TensorIndex(detail::load_int(obj));
  if (PyList_Check(obj) || PyObject_CheckBuffer(obj)) {
    // NumPy's rule (and torch's): a list is one advanced index, not several.
    return TensorIndex(tensor_from_data(obj, std::nullopt, false));
  }
  throw IndexError(std::string("only integers, slices (`:`), ellipsis (`...`), None and long or "
                               "byte Variables are valid indices (got ") +
                   Py_TYPE(obj)->tp_name + ")");
}

std::vector<TensorIndex> to_indices(PyObject* index) {
  std::vector<TensorIndex> out;
  if (PyTuple_Check(index)) {
    const Py_ssize_t n = PyTuple_GET_SIZE(index);
    out.reserve(static_cast<std::size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) out.push_back(to_index(PyTuple_GET_ITEM(index, i)));
  } else {
    out.push_back(to_index(index));
  }
  return out;
}

}  // namespace

PyObject* tensor_getitem(PyObject* self, PyObject* index) {
  TP_PY_TRY
  const Tensor& t = unchecked_tensor(self);
  if (PyLong_CheckExact(index) && t.dim() > 0) {
    const int64_t i = detail::load_int(index);
    const int64_t n = t.size(0);
    TP_CHECK_INDEX(i >= -n && i < n, "index ", i, " is out of bounds for dimension 0 with size ",
                   n);
    return wrap(t.select(0, i));
  }
  if (t.dim() == 0) {  // Python's own 0-d messages (the tuple forms get the C++ ones)
    TP_CHECK_INDEX(!detail::is_int_like(index),
                   "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                   "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
    TP_CHECK_INDEX(!PySlice_Check(index), "slice() cannot be applied to a 0-dim tensor.");
  }
  const auto indices = to_indices(index);
  return wrap(run_kernel(t.numel(), [&] { return t.index(indices); }));
  TP_PY_CATCH(nullptr)
}

int tensor_setitem(PyObject* self, PyObject* index, PyObject* value) {
  TP_PY_TRY
  TP_CHECK_TYPE(value != nullptr, "Tensor does not support deleting items");
  const Tensor& t = unchecked_tensor(self);
  const auto indices = to_indices(index);
  if (is_tensor(value)) {
    const Tensor& v = unchecked_tensor(value);
    run_kernel(t.numel(), [&]() -> const Tensor& { return t.index_put_(indices, v); });
  } else if (detail::is_number_like(value)) {
    const Scalar s = detail::load_scalar(value);
    run_kernel(t.numel(), [&]() -> const Tensor& { return t.index_put_(indices, s); });
  } else {
    TP_CHECK_TYPE(!PyList_Check(value) && !PyTuple_Check(value), "can't assign a ",
                  Py_TYPE(value)->tp_name, " to a tensorplay.", legacy_type_name(t.dtype()));
    // Arrays (the buffer protocol): converted to t's dtype first, as torch does.
    const Tensor v = tensor_from_data(value, t.dtype(), false);
    run_kernel(t.numel(), [&]() -> const Tensor& { return t.index_put_(indices, v); });
  }
  return 0;
  TP_PY_CATCH(-1)
}

}  // namespace tensorplay::python::bindings
