// `tensorplay.dtype` and `tensorplay.memory_format`: one immortal Python object per enum value,
// so `x.dtype is tp.float32` holds as it does in torch, and probing an argument is one type
// comparison. Printed as the module attribute they are (`tensorplay.float32`).
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <string>

#include "tensorplay/core/dtype.hpp"
#include "tensorplay/core/memory_format.hpp"
#include "tensorplay/core/quantizer.hpp"
#include "tensorplay/python/errors.hpp"

namespace tensorplay::python {

template <class E>
struct EnumObject {
  PyObject_HEAD E value;
};

template <class E>
struct EnumTraits;

template <>
struct EnumTraits<DType> {
  static constexpr int count = kNumAllDTypes;  // the quantized dtypes too (tensorplay.quint8)
  static constexpr const char* type_name = "tensorplay.dtype";
  static std::string name(DType d) { return std::string(dtype_name(d)); }
};

template <>
struct EnumTraits<QScheme> {
  static constexpr int count = kNumQSchemes;
  static constexpr const char* type_name = "tensorplay.qscheme";
  static std::string name(QScheme q) { return std::string(qscheme_name(q)); }
};

template <>
struct EnumTraits<MemoryFormat> {
  static constexpr int count = 3;
  static constexpr const char* type_name = "tensorplay.memory_format";
  static std::string name(MemoryFormat f) {
    switch (f) {
      case MemoryFormat::Contiguous: return "contiguous_format";
      case MemoryFormat::Preserve: return "preserve_format";
      case MemoryFormat::ChannelsLast: return "channels_last";
    }
    return "unknown_format";
  }
};

namespace detail {
template <class E>
struct EnumRegistry {
  PyTypeObject* type = nullptr;
  std::array<PyObject*, EnumTraits<E>::count> values{};
};
template <class E>
EnumRegistry<E>& enum_registry() noexcept {
  static EnumRegistry<E> r;
  return r;
}

template <class E>
PyObject* enum_repr(PyObject* self) {
  const E v = reinterpret_cast<EnumObject<E>*>(self)->value;
  return PyUnicode_FromString(("tensorplay." + EnumTraits<E>::name(v)).c_str());
}

template <class E>
PyObject* enum_reduce(PyObject* self, PyObject*) {
  // Pickled by name: unpickling looks the singleton up in the module again.
  const E v = reinterpret_cast<EnumObject<E>*>(self)->value;
  return PyUnicode_FromString(EnumTraits<E>::name(v).c_str());
}
}  // namespace detail

template <class E>
bool is_enum(PyObject* obj) noexcept {
  return Py_TYPE(obj) == detail::enum_registry<E>().type;
}
template <class E>
E unchecked_enum(PyObject* obj) noexcept {
  return reinterpret_cast<EnumObject<E>*>(obj)->value;
}
// New reference to the singleton.
template <class E>
PyObject* enum_to_python(E v) noexcept {
  PyObject* obj = detail::enum_registry<E>().values[static_cast<std::size_t>(v)];
  Py_INCREF(obj);
  return obj;
}

// Creates the type and the singletons and sets them as module attributes. `extra_getset` adds
// attributes (dtype's is_floating_point, itemsize, ...).
template <class E>
void init_enum_type(PyObject* module, PyGetSetDef* extra_getset = nullptr) {
  static PyMethodDef methods[] = {
      {"__reduce__", reinterpret_cast<PyCFunction>(&detail::enum_reduce<E>), METH_NOARGS, nullptr},
      {nullptr, nullptr, 0, nullptr}};
  PyType_Slot slots[] = {{Py_tp_repr, reinterpret_cast<void*>(&detail::enum_repr<E>)},
                         {Py_tp_methods, methods},
                         {Py_tp_getset, extra_getset},
                         {0, nullptr}};
  if (!extra_getset) slots[2] = {0, nullptr};
  PyType_Spec spec{EnumTraits<E>::type_name, sizeof(EnumObject<E>), 0, Py_TPFLAGS_DEFAULT, slots};
  auto& reg = detail::enum_registry<E>();
  reg.type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  if (!reg.type) throw pybind11::error_already_set();
  // Not constructible from Python, like torch.dtype.
  reg.type->tp_new = nullptr;
  const char* short_name = std::strrchr(EnumTraits<E>::type_name, '.') + 1;
  if (PyModule_AddObjectRef(module, short_name, reinterpret_cast<PyObject*>(reg.type)) < 0) {
    throw pybind11::error_already_set();
  }
  for (int i = 0; i < EnumTraits<E>::count; ++i) {
    auto* obj = PyObject_New(EnumObject<E>, reg.type);
    if (!obj) throw pybind11::error_already_set();
    obj->value = static_cast<E>(i);
    reg.values[static_cast<std::size_t>(i)] = reinterpret_cast<PyObject*>(obj);  // kept forever
    if (PyModule_AddObjectRef(module, EnumTraits<E>::name(static_cast<E>(i)).c_str(),
                              reinterpret_cast<PyObject*>(obj)) < 0) {
      throw pybind11::error_already_set();
    }
  }
}

}  // namespace tensorplay::python
