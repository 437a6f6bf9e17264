// `tensorplay.Size`: the tuple subclass `x.shape` and `x.size()` return, printed as
// `tensorplay.Size([2, 3])` (torch.Size's form).
#pragma once

#include <pybind11/pybind11.h>

#include "tensorplay/core/array_ref.hpp"
#include "tensorplay/python/errors.hpp"

namespace tensorplay::python {

namespace detail {
inline PyTypeObject*& size_type_slot() noexcept {
  static PyTypeObject* type = nullptr;
  return type;
}
inline PyObject* size_repr(PyObject* self) {
  std::string s = "tensorplay.Size([";
  const Py_ssize_t n = PyTuple_GET_SIZE(self);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    PyObject* r = PyObject_Repr(PyTuple_GET_ITEM(self, i));
    if (!r) return nullptr;
    s += PyUnicode_AsUTF8(r);
    Py_DECREF(r);
  }
  return PyUnicode_FromString((s + "])").c_str());
}
inline PyObject* size_numel(PyObject* self, PyObject*) {
  // Wraps modulo 2^64 as torch's does (torch.Size([2**62, 4]).numel() == 0), without the
  // signed overflow.
  unsigned long long n = 1;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); ++i) {
    n *= static_cast<unsigned long long>(PyLong_AsLongLong(PyTuple_GET_ITEM(self, i)));
  }
  return PyLong_FromLongLong(static_cast<long long>(n));
}
}  // namespace detail

// New reference.
inline PyObject* size_to_python(IntArrayRef sizes) {
  PyTypeObject* type = detail::size_type_slot();
  PyObject* obj = type->tp_alloc(type, static_cast<Py_ssize_t>(sizes.size()));
  if (!obj) throw pybind11::error_already_set();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    PyObject* v = PyLong_FromLongLong(sizes[i]);
    if (!v) {
      Py_DECREF(obj);
      throw pybind11::error_already_set();
    }
    PyTuple_SET_ITEM(obj, static_cast<Py_ssize_t>(i), v);
  }
  return obj;
}

inline void init_size_type(PyObject* module) {
  static PyMethodDef methods[] = {{"numel", &detail::size_numel, METH_NOARGS, nullptr},
                                  {nullptr, nullptr, 0, nullptr}};
  static PyType_Slot slots[] = {{Py_tp_repr, reinterpret_cast<void*>(&detail::size_repr)},
                                {Py_tp_methods, methods},
                                {0, nullptr}};
  static PyType_Spec spec{"tensorplay.Size", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, slots};
  PyObject* bases = PyTuple_Pack(1, reinterpret_cast<PyObject*>(&PyTuple_Type));
  auto* type = reinterpret_cast<PyTypeObject*>(PyType_FromSpecWithBases(&spec, bases));
  Py_DECREF(bases);
  if (!type) throw pybind11::error_already_set();
  detail::size_type_slot() = type;
  if (PyModule_AddObjectRef(module, "Size", reinterpret_cast<PyObject*>(type)) < 0) {
    throw pybind11::error_already_set();
  }
}

}  // namespace tensorplay::python
