// `tensorplay.device`: device('cpu'), device('cuda', 0), device('cuda:1'); compared by value.
// Device arguments also accept the string forms, as torch's do.
#pragma once

#include <pybind11/pybind11.h>

#include "tensorplay/core/device.hpp"
#include "tensorplay/python/errors.hpp"

namespace tensorplay::python {

struct DeviceObject {
  PyObject_HEAD Device device;
};

namespace detail {
inline PyTypeObject*& device_type_slot() noexcept {
  static PyTypeObject* type = nullptr;
  return type;
}
}  // namespace detail

inline bool is_device(PyObject* obj) noexcept { return Py_TYPE(obj) == detail::device_type_slot(); }

inline PyObject* device_to_python(Device d) {
  PyTypeObject* type = detail::device_type_slot();
  auto* obj = PyObject_New(DeviceObject, type);
  if (!obj) throw pybind11::error_already_set();
  new (&obj->device) Device(d);
  return reinterpret_cast<PyObject*>(obj);
}

// A device argument: a tensorplay.device or a string ("cpu", "cuda:0").
inline Device device_from_python(PyObject* obj) {
  if (is_device(obj)) return reinterpret_cast<DeviceObject*>(obj)->device;
  if (PyUnicode_Check(obj)) {
    const char* s = PyUnicode_AsUTF8(obj);
    if (!s) throw pybind11::error_already_set();
    return Device(std::string(s));
  }
  throw TypeError(std::string("expected a device (tensorplay.device or str), but got ") +
                  Py_TYPE(obj)->tp_name);
}

namespace detail {
inline PyObject* device_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  TP_PY_TRY
  static const char* names[] = {"type", "index", nullptr};
  PyObject* type_obj = nullptr;
  PyObject* index_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:device", const_cast<char**>(names), &type_obj,
                                   &index_obj)) {
    return nullptr;
  }
  if (is_device(type_obj) && index_obj == Py_None) {
    Py_INCREF(type_obj);
    return type_obj;
  }
  Device d = device_from_python(type_obj);
  if (index_obj != Py_None) {
    TP_CHECK(!d.has_index(),
             "type (string) must not include an index because index was "
             "passed explicitly: ",
             d.str());
    const long long i = PyLong_AsLongLong(index_obj);
    if (i == -1 && PyErr_Occurred()) return nullptr;
    TP_CHECK(i >= 0, "Device index must not be negative");
    d = Device(d.type(), static_cast<DeviceIndex>(i));
  }
  return device_to_python(d);
  TP_PY_CATCH(nullptr)
}
inline PyObject* device_repr(PyObject* self) {
  const Device& d = reinterpret_cast<DeviceObject*>(self)->device;
  std::string s = "device(type='" + Device(d.type()).str() + "'";
  if (d.has_index()) s += ", index=" + std::to_string(d.index());
  return PyUnicode_FromString((s + ")").c_str());
}
inline PyObject* device_str(PyObject* self) {
  return PyUnicode_FromString(reinterpret_cast<DeviceObject*>(self)->device.str().c_str());
}
inline PyObject* device_richcompare(PyObject* a, PyObject* b, int op) {
  if (!is_device(a) || !is_device(b) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  const bool eq =
      reinterpret_cast<DeviceObject*>(a)->device == reinterpret_cast<DeviceObject*>(b)->device;
  return PyBool_FromLong(eq == (op == Py_EQ));
}
inline Py_hash_t device_hash(PyObject* self) {
  const Device& d = reinterpret_cast<DeviceObject*>(self)->device;
  return static_cast<Py_hash_t>((static_cast<int>(d.type()) + 1) * 1000003 + d.index() + 2);
}
inline PyObject* device_get_type(PyObject* self, void*) {
  const Device& d = reinterpret_cast<DeviceObject*>(self)->device;
  return PyUnicode_FromString(Device(d.type()).str().c_str());
}
inline PyObject* device_get_index(PyObject* self, void*) {
  const Device& d = reinterpret_cast<DeviceObject*>(self)->device;
  if (!d.has_index()) Py_RETURN_NONE;
  return PyLong_FromLong(d.index());
}
inline PyObject* device_reduce(PyObject* self, PyObject*) {
  const Device& d = reinterpret_cast<DeviceObject*>(self)->device;
  return Py_BuildValue("(O(s))", reinterpret_cast<PyObject*>(Py_TYPE(self)), d.str().c_str());
}
}  // namespace detail

inline void init_device_type(PyObject* module) {
  static PyGetSetDef getset[] = {{"type", &detail::device_get_type, nullptr, nullptr, nullptr},
                                 {"index", &detail::device_get_index, nullptr, nullptr, nullptr},
                                 {nullptr, nullptr, nullptr, nullptr, nullptr}};
  static PyMethodDef methods[] = {{"__reduce__", &detail::device_reduce, METH_NOARGS, nullptr},
                                  {nullptr, nullptr, 0, nullptr}};
  static PyType_Slot slots[] = {
      {Py_tp_new, reinterpret_cast<void*>(&detail::device_new)},
      {Py_tp_repr, reinterpret_cast<void*>(&detail::device_repr)},
      {Py_tp_str, reinterpret_cast<void*>(&detail::device_str)},
      {Py_tp_richcompare, reinterpret_cast<void*>(&detail::device_richcompare)},
      {Py_tp_hash, reinterpret_cast<void*>(&detail::device_hash)},
      {Py_tp_getset, getset},
      {Py_tp_methods, methods},
      {0, nullptr}};
  static PyType_Spec spec{"tensorplay.device", sizeof(DeviceObject), 0, Py_TPFLAGS_DEFAULT, slots};
  auto* type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  if (!type) throw pybind11::error_already_set();
  detail::device_type_slot() = type;
  if (PyModule_AddObjectRef(module, "device", reinterpret_cast<PyObject*>(type)) < 0) {
    throw pybind11::error_already_set();
  }
}

}  // namespace tensorplay::python
