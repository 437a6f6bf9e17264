// How each C++ parameter type reads a Python argument: a non-throwing probe (used to choose an
// overload without converting anything) and a load (the real conversion, only for the chosen
// overload). One specialization of Arg<T> per parameter type; the entry points in fastcall.hpp
// are generated from the C++ signatures through these.
//
// An argument arrives as a Slot: one object, or - for a `*size` parameter called as
// f(2, 3) - the run of positional arguments itself, so no tuple is built for it.
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tensorplay/core/scalar.hpp"
#include "tensorplay/core/small_vector.hpp"
#include "tensorplay/python/device_object.hpp"
#include "tensorplay/python/enum_object.hpp"
#include "tensorplay/python/unwrap.hpp"

namespace tensorplay::python {

struct Slot {
  PyObject* obj = nullptr;           // the argument, or nullptr when `items` holds a run
  PyObject* const* items = nullptr;  // f(2, 3) for a `*size` parameter
  Py_ssize_t nitems = 0;
  bool filled() const noexcept { return obj || items; }
};

namespace detail {

// Python's int (not bool, as torch's int arguments refuse True) or an object with __index__
// (NumPy's integers). Tensors are excluded: an int argument is never a tensor here.
inline bool is_int_like(PyObject* o) noexcept {
  if (PyLong_CheckExact(o)) return true;
  if (PyBool_Check(o) || PyFloat_Check(o) || is_tensor(o)) return false;
  return PyLong_Check(o) || PyIndex_Check(o);
}
inline bool is_float_like(PyObject* o) noexcept {
  if (PyFloat_CheckExact(o)) return true;
  if (is_tensor(o) || PyBool_Check(o)) return false;
  return PyFloat_Check(o) || is_int_like(o) ||
         (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_float);
}
inline bool is_number_like(PyObject* o) noexcept { return PyBool_Check(o) || is_float_like(o); }

inline int64_t load_int(PyObject* o) {
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) throw Error("Overflow when unpacking long");
    if (v == -1 && PyErr_Occurred()) throw pybind11::error_already_set();
    return v;
  }
  PyObject* index = PyNumber_Index(o);
  if (!index) throw pybind11::error_already_set();
  const int64_t v = load_int(index);
  Py_DECREF(index);
  return v;
}
// An element of an int list (1-based `pos`). One that is not an int64 is a TypeError naming
// its position and type, as torch's parser reports it ("... must be tuple of ints, but found
// element of type int at pos 2"), not the RuntimeError a lone int argument gives. `what` is the
// start of the message: the binding layer's loads do not know the op's name, so theirs is
// "argument"; callers that do say "new(): argument 'size'".
inline int64_t load_int_item(PyObject* o, Py_ssize_t pos, const char* what = "argument") {
  try {
    return load_int(o);
  } catch (const std::exception&) {
    PyErr_Clear();  // __index__ may have raised
    throw TypeError(std::string(what) + " must be tuple of ints, but found element of type " +
                    Py_TYPE(o)->tp_name + " at pos " + std::to_string(pos));
  }
}
inline double load_double(PyObject* o) {
  const double v = PyFloat_AsDouble(o);
  if (v == -1.0 && PyErr_Occurred()) throw pybind11::error_already_set();
  return v;
}
inline Scalar load_scalar(PyObject* o) {
  if (PyBool_Check(o)) return Scalar(o == Py_True);
  if (PyFloat_Check(o)) return Scalar(PyFloat_AS_DOUBLE(o));
  if (is_int_like(o)) return Scalar(load_int(o));
  return Scalar(load_double(o));
}
inline bool is_sequence(PyObject* o) noexcept { return PyTuple_Check(o) || PyList_Check(o); }

// The items of a tuple/list argument, or of a positional run.
struct Items {
  PyObject* const* data;
  Py_ssize_t size;
};
inline Items items_of(const Slot& s) noexcept {
  if (s.items) return {s.items, s.nitems};
  if (PyTuple_Check(s.obj)) return {&PyTuple_GET_ITEM(s.obj, 0), PyTuple_GET_SIZE(s.obj)};
  return {reinterpret_cast<PyListObject*>(s.obj)->ob_item, PyList_GET_SIZE(s.obj)};
}

// An int list held for the duration of a call; converts to the IntArrayRef parameter.
struct IntList {
  SmallVector<int64_t, 6> values;
  operator IntArrayRef() const noexcept { return {values.data(), values.size()}; }  // NOLINT
};
struct OptionalIntList {
  std::optional<IntList> list;
  operator std::optional<IntArrayRef>() const noexcept {  // NOLINT
    if (!list) return std::nullopt;
    return IntArrayRef(*list);
  }
};

}  // namespace detail

template <class T>
struct Arg;  // no conversion for this parameter type: add a specialization

template <>
struct Arg<Tensor> {
  static constexpr const char* name = "Tensor";
  static bool probe(const Slot& s) noexcept { return s.obj && is_tensor(s.obj); }
  static Tensor& load(const Slot& s) noexcept { return unchecked_tensor(s.obj); }
  static int64_t work(const Tensor& t) noexcept { return t.defined() ? t.numel() : 0; }
};

template <>
struct Arg<Scalar> {
  static constexpr const char* name = "Number";
  static bool probe(const Slot& s) noexcept { return s.obj && detail::is_number_like(s.obj); }
  static Scalar load(const Slot& s) { return detail::load_scalar(s.obj); }
};

template <>
struct Arg<int64_t> {
  static constexpr const char* name = "int";
  static bool probe(const Slot& s) noexcept { return s.obj && detail::is_int_like(s.obj); }
  static int64_t load(const Slot& s) { return detail::load_int(s.obj); }
};

template <>
struct Arg<double> {
  static constexpr const char* name = "float";
  static bool probe(const Slot& s) noexcept { return s.obj && detail::is_float_like(s.obj); }
  static double load(const Slot& s) { return detail::load_double(s.obj); }
};

template <>
struct Arg<bool> {
  static constexpr const char* name = "bool";
  static bool probe(const Slot& s) noexcept { return s.obj && PyBool_Check(s.obj); }
  static bool load(const Slot& s) noexcept { return s.obj == Py_True; }
};

template <>
struct Arg<DType> {
  static constexpr const char* name = "tensorplay.dtype";
  static bool probe(const Slot& s) noexcept { return s.obj && is_enum<DType>(s.obj); }
  static DType load(const Slot& s) noexcept { return unchecked_enum<DType>(s.obj); }
};

template <>
struct Arg<MemoryFormat> {
  static constexpr const char* name = "tensorplay.memory_format";
  static bool probe(const Slot& s) noexcept { return s.obj && is_enum<MemoryFormat>(s.obj); }
  static MemoryFormat load(const Slot& s) noexcept { return unchecked_enum<MemoryFormat>(s.obj); }
};

template <>
struct Arg<Device> {
  static constexpr const char* name = "tensorplay.device";
  static bool probe(const Slot& s) noexcept {
    return s.obj && (is_device(s.obj) || PyUnicode_Check(s.obj));
  }
  static Device load(const Slot& s) { return device_from_python(s.obj); }
};

template <>
struct Arg<std::string_view> {
  static constexpr const char* name = "str";
  static bool probe(const Slot& s) noexcept { return s.obj && PyUnicode_Check(s.obj); }
  static std::string_view load(const Slot& s) {
    Py_ssize_t n = 0;
    const char* p = PyUnicode_AsUTF8AndSize(s.obj, &n);  // owned by the str object
    if (!p) throw pybind11::error_already_set();
    return {p, static_cast<std::size_t>(n)};
  }
};

// int[]: a tuple/list of ints, a single int (sum(1) for sum((1,))), or f(2, 3) for `*size`.
template <>
struct Arg<IntArrayRef> {
  static constexpr const char* name = "tuple of ints";
  static bool probe(const Slot& s) noexcept {
    if (s.obj && detail::is_int_like(s.obj)) return true;
    if (s.obj && !detail::is_sequence(s.obj)) return false;
    const auto items = detail::items_of(s);
    for (Py_ssize_t i = 0; i < items.size; ++i) {
      if (!detail::is_int_like(items.data[i])) return false;
    }
    return true;
  }
  static detail::IntList load(const Slot& s) {
    detail::IntList out;
    if (s.obj && detail::is_int_like(s.obj)) {
      out.values.push_back(detail::load_int_item(s.obj, 1));
      return out;
    }
    const auto items = detail::items_of(s);
    for (Py_ssize_t i = 0; i < items.size; ++i)
      out.values.push_back(detail::load_int_item(items.data[i], i + 1));
    return out;
  }
};

// Tensor[]: a tuple or list of tensors, or f(a, b) for a `*tensors` parameter.
template <>
struct Arg<std::vector<Tensor>> {
  static constexpr const char* name = "tuple of Tensors";
  static bool probe(const Slot& s) noexcept {
    if (!s.items && (!s.obj || !detail::is_sequence(s.obj))) return false;
    const auto items = detail::items_of(s);
    for (Py_ssize_t i = 0; i < items.size; ++i) {
      if (!is_tensor(items.data[i])) return false;
    }
    return true;
  }
  static std::vector<Tensor> load(const Slot& s) {
    const auto items = detail::items_of(s);
    std::vector<Tensor> out;
    out.reserve(static_cast<std::size_t>(items.size));
    for (Py_ssize_t i = 0; i < items.size; ++i) out.push_back(unchecked_tensor(items.data[i]));
    return out;
  }
  static int64_t work(const std::vector<Tensor>& ts) noexcept {
    int64_t n = 0;
    for (const auto& t : ts) n += t.numel();
    return n;
  }
};

// Tensor?[]: a tuple or list of tensors and Nones (index_put_'s indices).
template <>
struct Arg<std::vector<std::optional<Tensor>>> {
  static constexpr const char* name = "tuple of Tensors or Nones";
  static bool probe(const Slot& s) noexcept {
    if (!s.obj || !detail::is_sequence(s.obj)) return false;
    const auto items = detail::items_of(s);
    for (Py_ssize_t i = 0; i < items.size; ++i) {
      if (items.data[i] != Py_None && !is_tensor(items.data[i])) return false;
    }
    return true;
  }
  static std::vector<std::optional<Tensor>> load(const Slot& s) {
    const auto items = detail::items_of(s);
    std::vector<std::optional<Tensor>> out;
    out.reserve(static_cast<std::size_t>(items.size));
    for (Py_ssize_t i = 0; i < items.size; ++i) {
      if (items.data[i] == Py_None) {
        out.emplace_back(std::nullopt);
      } else {
        out.emplace_back(unchecked_tensor(items.data[i]));
      }
    }
    return out;
  }
};

// Any Python object, passed through (borrowed) for the few entries that inspect it themselves.
template <>
struct Arg<PyObject*> {
  static constexpr const char* name = "object";
  static bool probe(const Slot& s) noexcept { return s.obj != nullptr; }
  static PyObject* load(const Slot& s) noexcept { return s.obj; }
};

// T? : None or a T.
template <class T>
struct Arg<std::optional<T>> {
  static constexpr const char* name = Arg<T>::name;
  static bool probe(const Slot& s) noexcept { return s.obj == Py_None || Arg<T>::probe(s); }
  static std::optional<T> load(const Slot& s) {
    if (s.obj == Py_None) return std::nullopt;
    return std::optional<T>(Arg<T>::load(s));
  }
  static int64_t work(const std::optional<T>& v) noexcept {
    if constexpr (requires { Arg<T>::work(*v); }) return v ? Arg<T>::work(*v) : 0;
    return 0;
  }
};

template <>
struct Arg<std::optional<IntArrayRef>> {
  static constexpr const char* name = "tuple of ints";
  static bool probe(const Slot& s) noexcept {
    return s.obj == Py_None || Arg<IntArrayRef>::probe(s);
  }
  static detail::OptionalIntList load(const Slot& s) {
    if (s.obj == Py_None) return {};
    return {Arg<IntArrayRef>::load(s)};
  }
};

// The Arg for a parameter as the function declares it (`const Tensor&`, `Tensor&`, `IntArrayRef`).
template <class P>
using ArgOf = Arg<std::remove_cvref_t<P>>;

// Elements the argument brings to the kernel (0 for non-tensors): decides the GIL release.
template <class P, class H>
int64_t arg_work(const H& held) noexcept {
  if constexpr (requires { ArgOf<P>::work(held); }) {
    return ArgOf<P>::work(held);
  } else {
    return 0;
  }
}

}  // namespace tensorplay::python
