// tensorplay._C's file formats (include/tensorplay/serialize/): torch.save's zip format behind
// tensorplay.save / tensorplay.load (serialization.py), and safetensors behind
// tensorplay.safetensors (safetensors.py). The Python modules hold the argument handling that
// torch and safetensors do in Python; this file converts between Python objects and the C++ side
// (IValue, maps of tensors) and runs the formats with the GIL released.
#include <tensorplay/serialize/from_file.hpp>
#include <tensorplay/serialize/safetensors.hpp>
#include <tensorplay/serialize/torch_zip.hpp>

#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

constexpr int kMaxDepth = 1000;  // as the unpickler's limit

py::object ordered_dict_type() {
  static py::object* type = new py::object(py::module_::import("collections").attr("OrderedDict"));
  return *type;
}

// What torch.save writes for a checkpoint: tensors in dict / OrderedDict / list / tuple
// containers with str / int / float / bool / None leaves.
IValue to_ivalue(PyObject* obj, int depth) {
  TP_CHECK_VALUE(depth < kMaxDepth, "save(): the object nests deeper than ", kMaxDepth,
                 " containers");
  if (obj == Py_None) return IValue();
  if (PyBool_Check(obj)) return IValue(obj == Py_True);
  if (PyLong_Check(obj)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    TP_CHECK_VALUE(!overflow, "save(): int ", py::str(obj).cast<std::string>(),
                   " does not fit in 64 bits");
    return IValue(static_cast<int64_t>(v));
  }
  if (PyFloat_Check(obj)) return IValue(PyFloat_AS_DOUBLE(obj));
  if (PyUnicode_Check(obj)) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(obj, &n);
    if (!s) throw py::error_already_set();
    return IValue(std::string(s, static_cast<std::size_t>(n)));
  }
  if (is_tensor(obj)) return IValue(tensor_ref(obj));
  if (PyTuple_Check(obj) || PyList_Check(obj)) {
    const bool tuple = PyTuple_Check(obj);
    const Py_ssize_t n = tuple ? PyTuple_GET_SIZE(obj) : PyList_GET_SIZE(obj);
    std::vector<IValue> items;
    items.reserve(static_cast<std::size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      items.push_back(
          to_ivalue(tuple ? PyTuple_GET_ITEM(obj, i) : PyList_GET_ITEM(obj, i), depth + 1));
    }
    return tuple ? IValue::make_tuple(std::move(items)) : IValue(std::move(items));
  }
  if (PyDict_Check(obj)) {
    const int ordered = PyObject_IsInstance(obj, ordered_dict_type().ptr());
    if (ordered < 0) throw py::error_already_set();
    IValue dict = IValue::make_dict(ordered == 1);
    PyObject *key = nullptr, *value = nullptr;
    Py_ssize_t pos = 0;
    while (PyDict_Next(obj, &pos, &key, &value)) {
      dict.insert(to_ivalue(key, depth + 1), to_ivalue(value, depth + 1));
    }
    return dict;
  }
  throw TypeError(tensorplay::detail::str_cat(
      "save(): cannot save an object of type ", Py_TYPE(obj)->tp_name,
      ": tensorplay saves tensors and dict / OrderedDict / list / tuple containers of them with "
      "str, int, float, bool and None leaves"));
}

py::object from_ivalue(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None: return py::none();
    case IValue::Tag::Bool: return py::bool_(v.toBool());
    case IValue::Tag::Int: return py::int_(v.toInt());
    case IValue::Tag::Double: return py::float_(v.toDouble());
    case IValue::Tag::String: return py::str(v.toStringRef());
    case IValue::Tag::Tensor: return py::reinterpret_steal<py::object>(wrap(v.toTensor()));
    case IValue::Tag::List: {
      py::list out;
      for (const IValue& item : v.toList()) out.append(from_ivalue(item));
      return out;
    }
    case IValue::Tag::Tuple: {
      const auto& items = v.toTuple();
      py::tuple out(items.size());
      for (std::size_t i = 0; i < items.size(); ++i) out[i] = from_ivalue(items[i]);
      return out;
    }
    case IValue::Tag::GenericDict: {
      const GenericDict& d = v.toGenericDict();
      py::object out = d.ordered ? ordered_dict_type()() : py::dict();
      for (const auto& [key, value] : d) out[from_ivalue(key)] = from_ivalue(value);
      return out;
    }
  }
  throw TypeError("load(): an IValue of an unknown kind");
}

std::string bytes_arg(PyObject* obj, const char* fn) {
  char* data = nullptr;
  Py_ssize_t n = 0;
  TP_CHECK_TYPE(PyBytes_Check(obj), fn, "(): expected bytes, got ", Py_TYPE(obj)->tp_name);
  if (PyBytes_AsStringAndSize(obj, &data, &n) < 0) throw py::error_already_set();
  return std::string(data, static_cast<std::size_t>(n));
}

PyObject* to_bytes(const char* data, std::size_t n) {
  return py::bytes(data, static_cast<py::ssize_t>(n)).release().ptr();
}

// safetensors.py has checked the types (a dict of str -> Tensor, str -> str metadata).
std::map<std::string, Tensor> tensor_map(PyObject* obj) {
  std::map<std::string, Tensor> out;
  PyObject *key = nullptr, *value = nullptr;
  Py_ssize_t pos = 0;
  TP_CHECK_TYPE(PyDict_Check(obj), "expected a dict of str to Tensor");
  while (PyDict_Next(obj, &pos, &key, &value)) {
    TP_CHECK_TYPE(PyUnicode_Check(key) && is_tensor(value), "expected a dict of str to Tensor");
    out.emplace(py::reinterpret_borrow<py::str>(key).cast<std::string>(), tensor_ref(value));
  }
  return out;
}
std::map<std::string, std::string> string_map(PyObject* obj) {
  TP_CHECK_TYPE(PyDict_Check(obj), "metadata must be a dict of str to str");
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : py::reinterpret_borrow<py::dict>(obj)) {
    TP_CHECK_TYPE(PyUnicode_Check(k.ptr()) && PyUnicode_Check(v.ptr()),
                  "metadata must be a dict of str to str");
    out.emplace(k.cast<std::string>(), v.cast<std::string>());
  }
  return out;
}
// A dict in the file's (sorted) key order, as safetensors.torch returns it.
PyObject* tensor_dict(const std::map<std::string, Tensor>& tensors) {
  py::dict out;
  for (const auto& [name, t] : tensors) {
    out[py::str(name)] = py::reinterpret_steal<py::object>(wrap(t));
  }
  return out.release().ptr();
}

}  // namespace

void register_serialize(const Target& t) {
  // ---- safetensors (tensorplay/safetensors.py) -----------------------------------------------
  Registry::function(t.module, "_safetensors_save",
                     overload("tensors, metadata", [](PyObject* ts, PyObject* md) {
                       const auto tensors = tensor_map(ts);
                       const auto metadata = string_map(md);
                       std::string bytes;
                       {
                         py::gil_scoped_release nogil;
                         bytes = safetensors::save(tensors, metadata);
                       }
                       return to_bytes(bytes.data(), bytes.size());
                     }));
  Registry::function(t.module, "_safetensors_save_file",
                     overload("tensors, filename, metadata",
                              [](PyObject* ts, std::string_view filename, PyObject* md) {
                                const auto tensors = tensor_map(ts);
                                const auto metadata = string_map(md);
                                const std::string path(filename);
                                py::gil_scoped_release nogil;
                                safetensors::save_file(tensors, path, metadata);
                              }));
  Registry::function(t.module, "_safetensors_load", overload("data", [](PyObject* data) {
                       const std::string bytes = bytes_arg(data, "_safetensors_load");
                       std::map<std::string, Tensor> tensors;
                       {
                         py::gil_scoped_release nogil;
                         tensors = safetensors::load(bytes);
                       }
                       return tensor_dict(tensors);
                     }));
  Registry::function(t.module, "_safetensors_load_file",
                     overload("filename, device", [](std::string_view filename, Device device) {
                       const std::string path(filename);
                       std::map<std::string, Tensor> tensors;
                       {
                         py::gil_scoped_release nogil;
                         tensors = safetensors::load_file(path, device);
                       }
                       return tensor_dict(tensors);
                     }));
  // safe_open's handle: the parsed header over the mapping; tensors are made on demand.
  py::module_ m = py::reinterpret_borrow<py::module_>(t.module);
  py::class_<safetensors::SafeOpen>(m, "_SafeOpen")
      .def("keys",
           [](const safetensors::SafeOpen& f) {
             py::list out;
             for (const std::string& k : f.keys()) out.append(py::str(k));
             return out;
           })
      .def("get_tensor",
           [](const safetensors::SafeOpen& f, const std::string& name) {
             return py::reinterpret_steal<py::object>(wrap(f.get_tensor(name)));
           })
      .def("metadata", [](const safetensors::SafeOpen& f) -> py::object {
        // None when the file has no __metadata__, as safetensors' safe_open.metadata().
        if (f.metadata().empty()) return py::none();
        py::dict out;
        for (const auto& [k, v] : f.metadata()) out[py::str(k)] = py::str(v);
        return out;
      });
  Registry::function(t.module, "_safetensors_open",
                     overload("filename, device", [](std::string_view filename, Device device) {
                       auto handle =
                           std::make_unique<safetensors::SafeOpen>(std::string(filename), device);
                       return py::cast(std::move(handle)).release().ptr();
                     }));

  // torch.from_file(filename, shared=None, size=0, *, dtype=None, device=None, requires_grad)
  Registry::function(
      t.module, "from_file",
      overload("filename, shared=None, size=0, *, dtype=None, device=None, requires_grad=False",
               [](std::string_view filename, std::optional<bool> shared, int64_t size,
                  std::optional<DType> dtype, std::optional<Device> device, bool requires_grad) {
                 TensorOptions options;
                 if (dtype) options = options.dtype(*dtype);
                 if (device) options = options.device(*device);
                 Tensor out = tensorplay::from_file(std::string(filename), shared, size, options);
                 if (requires_grad) out.requires_grad_(true);
                 return out;
               }));

  // ---- torch.save's zip format (tensorplay/serialization.py) ---------------------------------
  Registry::function(t.module, "_torch_zip_save", overload("obj", [](PyObject* obj) {
                       const IValue value = to_ivalue(obj, 0);
                       std::vector<char> bytes;
                       {
                         py::gil_scoped_release nogil;
                         bytes = pickle_save(value);
                       }
                       return to_bytes(bytes.data(), bytes.size());
                     }));
  Registry::function(t.module, "_torch_zip_load", overload("data", [](PyObject* data) {
                       const std::string bytes = bytes_arg(data, "_torch_zip_load");
                       IValue value;
                       {
                         py::gil_scoped_release nogil;
                         value = pickle_load(std::string_view(bytes));
                       }
                       return from_ivalue(value).release().ptr();
                     }));
  Registry::function(t.module, "_torch_zip_load_file",
                     overload("path, mmap=False", [](std::string_view p, bool mmap) {
                       const std::string path(p);
                       IValue value;
                       {
                         py::gil_scoped_release nogil;
                         value = tensorplay::load(path, mmap);
                       }
                       return from_ivalue(value).release().ptr();
                     }));
}

}  // namespace tensorplay::python::bindings
