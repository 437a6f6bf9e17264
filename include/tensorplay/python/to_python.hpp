// Results back to Python: tensors through the identity cache, the rest by value. Multi-output
// ops that torch returns as named tuples (`x.max(0).values`) return a NamedTensors<"max">.
#pragma once

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "tensorplay/core/scalar.hpp"
#include "tensorplay/python/device_object.hpp"
#include "tensorplay/python/enum_object.hpp"
#include "tensorplay/python/size_object.hpp"
#include "tensorplay/python/tensor_object.hpp"

namespace tensorplay::python {

template <std::size_t N>
struct FixedString {
  char text[N]{};
  constexpr FixedString(const char (&s)[N]) { std::copy_n(s, N, text); }  // NOLINT
};

// (values, indices) as `tensorplay.return_types.<Name>`, a struct sequence like torch's.
template <FixedString Name>
struct NamedTensors {
  Tensor values;
  Tensor indices;
};

inline PyObject* to_python(const Tensor& t) { return wrap(t); }
inline PyObject* to_python(Tensor&& t) { return wrap(std::move(t)); }
inline PyObject* to_python(bool v) noexcept { return PyBool_FromLong(v); }
template <class T>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) PyObject* to_python(T v) noexcept {
  return PyLong_FromLongLong(static_cast<long long>(v));
}
inline PyObject* to_python(double v) noexcept { return PyFloat_FromDouble(v); }
inline PyObject* to_python(const Scalar& s) {
  if (s.isBoolean()) return PyBool_FromLong(s.to<bool>());
  if (s.isIntegral(false)) return PyLong_FromLongLong(s.to<int64_t>());
  return PyFloat_FromDouble(s.to<double>());
}
inline PyObject* to_python(DType d) noexcept { return enum_to_python(d); }
inline PyObject* to_python(MemoryFormat f) noexcept { return enum_to_python(f); }
inline PyObject* to_python(QScheme q) noexcept { return enum_to_python(q); }
inline PyObject* to_python(Device d) { return device_to_python(d); }
inline PyObject* to_python(const std::string& s) { return PyUnicode_FromString(s.c_str()); }
inline PyObject* to_python(IntArrayRef sizes) { return size_to_python(sizes); }
// A borrowed-to-new pass-through for entries that build their result themselves.
inline PyObject* to_python(PyObject* obj) noexcept { return obj; }

namespace detail {
inline PyObject* checked(PyObject* obj) {
  if (!obj) throw pybind11::error_already_set();
  return obj;
}
inline PyTypeObject* checked_type(PyTypeObject* type) {
  if (!type) throw pybind11::error_already_set();
  return type;
}
template <class Range>
PyObject* tensors_to_tuple(const Range& ts) {
  PyObject* tuple = checked(PyTuple_New(static_cast<Py_ssize_t>(ts.size())));
  Py_ssize_t i = 0;
  for (const auto& t : ts) {
    PyObject* item = wrap(t);
    if (!item) {
      Py_DECREF(tuple);
      throw pybind11::error_already_set();
    }
    PyTuple_SET_ITEM(tuple, i++, item);
  }
  return tuple;
}
}  // namespace detail

inline PyObject* to_python(const std::vector<Tensor>& ts) { return detail::tensors_to_tuple(ts); }
// A tuple of ints (what stride() returns).
inline PyObject* to_python(const std::vector<int64_t>& values) {
  PyObject* tuple = detail::checked(PyTuple_New(static_cast<Py_ssize_t>(values.size())));
  for (std::size_t i = 0; i < values.size(); ++i) {
    PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), PyLong_FromLongLong(values[i]));
  }
  return tuple;
}

template <class... Ts>
PyObject* to_python(std::tuple<Ts...>&& values) {
  PyObject* tuple = detail::checked(PyTuple_New(sizeof...(Ts)));
  try {
    std::apply(
        [&](auto&&... v) {
          Py_ssize_t i = 0;
          ((PyTuple_SET_ITEM(tuple, i++, detail::checked(to_python(std::move(v))))), ...);
        },
        std::move(values));
  } catch (...) {
    Py_DECREF(tuple);
    throw;
  }
  return tuple;
}

template <FixedString Name>
PyObject* to_python(NamedTensors<Name>&& r) {
  static PyTypeObject* type = [] {
    static std::string qualname = std::string("tensorplay.return_types.") + Name.text;
    static PyStructSequence_Field fields[] = {
        {"values", nullptr}, {"indices", nullptr}, {nullptr, nullptr}};
    static PyStructSequence_Desc desc{qualname.c_str(), nullptr, fields, 2};
    return detail::checked_type(PyStructSequence_NewType(&desc));
  }();
  PyObject* obj = detail::checked(PyStructSequence_New(type));
  PyStructSequence_SetItem(obj, 0, wrap(std::move(r.values)));
  PyStructSequence_SetItem(obj, 1, wrap(std::move(r.indices)));
  return obj;
}

}  // namespace tensorplay::python
