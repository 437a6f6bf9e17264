// tensorplay._C: the extension module. The Python package `tensorplay` re-exports it.
#include <cmath>

#include "bindings.hpp"

using namespace tensorplay;
using namespace tensorplay::python;
using namespace tensorplay::python::bindings;

namespace {
PyObject* dtype_is_floating_point(PyObject* self, void*) {
  return PyBool_FromLong(is_floating_point(unchecked_enum<DType>(self)));
}
PyObject* dtype_itemsize(PyObject* self, void*) {
  return PyLong_FromSize_t(itemsize(unchecked_enum<DType>(self)));
}
PyObject* dtype_is_signed(PyObject* self, void*) {
  const DType d = unchecked_enum<DType>(self);
  if (is_quantized(d)) {  // torch's message
    PyErr_SetString(PyExc_RuntimeError, "isSignedType not supported for quantized types");
    return nullptr;
  }
  return PyBool_FromLong(d != kBool && d != kByte);
}
PyObject* dtype_is_complex(PyObject*, void*) { Py_RETURN_FALSE; }
}  // namespace

PYBIND11_MODULE(_C, m) {
  register_exception_translator();
  static PyGetSetDef dtype_getset[] = {
      {"is_floating_point", &dtype_is_floating_point, nullptr, nullptr, nullptr},
      {"is_signed", &dtype_is_signed, nullptr, nullptr, nullptr},
      {"is_complex", &dtype_is_complex, nullptr, nullptr, nullptr},
      {"itemsize", &dtype_itemsize, nullptr, nullptr, nullptr},
      {nullptr, nullptr, nullptr, nullptr, nullptr}};
  init_enum_type<DType>(m.ptr(), dtype_getset);
  init_enum_type<MemoryFormat>(m.ptr());
  // torch's other spellings of the same dtype objects
  for (auto [alias, d] : {std::pair{"float", kFloat},
                          {"double", kDouble},
                          {"half", kHalf},
                          {"long", kLong},
                          {"int", kInt},
                          {"short", kShort},
                          {"uint8", kByte},
                          {"bool", kBool}}) {
    m.attr(alias) = py::reinterpret_steal<py::object>(enum_to_python(d));
  }
  // Type promotion, torch 1.13's overloads in its order. A Python number is a wrapped number
  // (the lowest priority class), as in an operator.
  Registry::function(
      m.ptr(), "result_type",
      overload("tensor, other",
               [](const Tensor& a, const Tensor& b) { return tensorplay::result_type(a, b); }),
      overload("scalar, tensor",
               [](const Scalar& a, const Tensor& b) { return tensorplay::result_type(a, b); }),
      overload("tensor, other",
               [](const Tensor& a, const Scalar& b) { return tensorplay::result_type(a, b); }),
      overload("scalar1, scalar2",
               [](const Scalar& a, const Scalar& b) { return tensorplay::result_type(a, b); }));
  Registry::function(m.ptr(), "promote_types", overload("type1, type2", [](DType a, DType b) {
                       return tensorplay::promote_types(a, b);
                     }));
  // torch names the first parameter `from` (so it can only be passed by position).
  Registry::function(m.ptr(), "can_cast", overload("from, to", [](DType from, DType to) {
                       return tensorplay::can_cast(from, to);
                     }));

  // torch.set_printoptions, argument for argument (the C++ function has torch's semantics: the
  // profile first, then each given option, sci_mode always assigned). _get_printoptions feeds
  // the PRINT_OPTS mirror in _tensor_str.py.
  Registry::function(
      m.ptr(), "set_printoptions",
      overload("precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, "
               "sci_mode=None",
               [](std::optional<int64_t> precision, std::optional<double> threshold,
                  std::optional<int64_t> edgeitems, std::optional<int64_t> linewidth,
                  std::optional<std::string_view> profile, std::optional<bool> sci_mode) {
                 tensorplay::set_printoptions(precision, threshold, edgeitems, linewidth, profile,
                                              sci_mode);
               }));
  m.def("_get_printoptions", [] {
    const PrintOptions o = get_printoptions();
    py::dict d;
    d["precision"] = o.precision;
    // An integral threshold reads back as the int it was set from (torch keeps the object).
    if (std::isfinite(o.threshold) && o.threshold == std::floor(o.threshold) &&
        std::abs(o.threshold) < 9.0e15) {
      d["threshold"] = static_cast<int64_t>(o.threshold);
    } else {
      d["threshold"] = o.threshold;
    }
    d["edgeitems"] = o.edgeitems;
    d["linewidth"] = o.linewidth;
    d["sci_mode"] = o.sci_mode ? py::object(py::bool_(*o.sci_mode)) : py::object(py::none());
    return d;
  });

  init_device_type(m.ptr());
  init_size_type(m.ptr());
  const Target t{init_tensor_type(m.ptr()), m.ptr()};
  register_tensor_methods(t);
  register_interop(t);
  register_autograd(t, m);
  register_unary(t);
  register_pointwise(t);
  register_reduce(t);
  register_linalg(t);
  register_views(t);
  register_shape(t);
  register_factories(t);
  register_index(t);
  register_search(t);
  register_serialize(t);
  register_memory(t);
  register_quantized(
      t, m.def_submodule("_quantized", "torch.ops.quantized's kernels (tensorplay.ops)").ptr());
  register_nn_functional(
      m.def_submodule("_nn", "torch._C._nn's ops (tensorplay.nn.functional)").ptr());
  register_nn_padding(t, m.attr("_nn").ptr());
  // torch.is_vulkan_available(): false unless the module was built with the Vulkan backend and
  // the machine has a Vulkan device.
  m.def("is_vulkan_available", [] { return is_vulkan_available(); });
  // tensorplay.cuda's (python/tensorplay/cuda.py): no devices unless the module was built with
  // the CUDA backend and the machine has a driver and a GPU.
  m.def("_cuda_is_available", [] { return cuda::is_available(); });
  m.def("_cuda_device_count", [] { return static_cast<int>(cuda::device_count()); });
#if TENSORPLAY_USE_CUDA
  // The caching allocator's figures (device -1: the current device); cuda.py builds torch.cuda's
  // functions on them.
  m.def("_cuda_memory_stats", [](int device) {
    py::dict d;
    for (const auto& [key, value] : cuda::memory_stats(static_cast<DeviceIndex>(device))) {
      d[py::str(key)] = value;
    }
    return d;
  });
  m.def("_cuda_reset_peak_memory_stats",
        [](int device) { cuda::reset_peak_memory_stats(static_cast<DeviceIndex>(device)); });
  m.def("_cuda_empty_cache", [] { cuda::empty_cache(); });
  m.def("_cuda_synchronize",
        [](int device) { cuda::synchronize(Device(kCUDA, static_cast<DeviceIndex>(device))); });
  m.def("_cuda_current_device", [] { return static_cast<int>(cuda::current_device()); });
  m.def("_cuda_set_device", [](int device) { cuda::set_device(static_cast<DeviceIndex>(device)); });
#endif
  m.def("_identity_cache_size", &identity_cache_size);
  // Bytes in live CPU blocks: the leak tests check it returns to its baseline.
  m.def("_cpu_allocated_bytes", [] {
    auto* caching = dynamic_cast<CachingAllocator*>(getCPUAllocator());
    return caching ? caching->stats().allocated_bytes : std::size_t{0};
  });
  m.attr("_gil_release_numel") = TENSORPLAY_PY_GIL_RELEASE_NUMEL;

  // The unwrapping primitives, for the tests: the non-throwing probe (-1 for a non-tensor, else
  // the version and requires_grad read in the same call) and the checked by-value unwrap.
  m.def("_tensor_probe", [](py::handle obj) -> py::object {
    TensorProbe info;
    if (tensor_probe(obj.ptr(), &info) < 0) return py::int_(-1);
    return py::make_tuple(info.version, info.requires_grad);
  });
  m.def("_tensor_value", [](py::handle obj) {
    return py::reinterpret_steal<py::object>(wrap(tensor_value(obj.ptr())));
  });

  // Exercises the registry on a scratch module, for the tests: a name pybind11 installed first
  // keeps its definition; defining a name twice in the generated tables fails.
  m.def("_selftest_registry", [] {
    py::module_ scratch = py::reinterpret_steal<py::module_>(PyModule_New("tp_selftest"));
    scratch.def("shadowed", [] { return std::string("pybind11"); });
    Registry::function(scratch.ptr(), "shadowed",
                       overload("", [] { return std::string("generated"); }));
    Registry::function(scratch.ptr(), "fresh", overload("x", [](int64_t x) { return x * 2; }));
    std::string duplicate;
    try {
      Registry::function(scratch.ptr(), "fresh", overload("x", [](double x) { return x; }));
    } catch (const Error& e) {
      duplicate = e.what();
    }
    return py::make_tuple(scratch, duplicate);
  });
}
