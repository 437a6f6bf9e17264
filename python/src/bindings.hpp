// Shared by the extension's translation units (not installed): each file registers one family
// of methods and functions on the Tensor type and the module.
#pragma once

#include <tensorplay/python/binding.hpp>
#include <tensorplay/tensorplay.hpp>

namespace tensorplay::python::bindings {

namespace py = pybind11;

struct Target {
  PyTypeObject* type;  // tensorplay.Tensor
  PyObject* module;    // tensorplay._C
};

// tensor_type.cpp: creates tensorplay.Tensor (slots, attributes, operators).
PyTypeObject* init_tensor_type(PyObject* module);
// tensor_new.cpp: Python data (nested sequences, numbers, arrays, tensors) -> Tensor.
Tensor tensor_from_data(PyObject* data, std::optional<DType> dtype, bool default_float);
// A zero-copy tensor over a buffer-protocol object (tp.from_numpy); it keeps the object alive.
Tensor tensor_from_buffer(PyObject* obj);
// interop.cpp: obj as an ndarray (a NumPy scalar becomes a 0-d one), or a null object when obj
// is neither (NumPy is never imported to find out).
py::object numpy_array_of(PyObject* obj);
// A zero-copy tensor over an ndarray, with torch's dtype, byte-order and stride checks.
Tensor tensor_from_numpy(PyObject* array, bool warn_if_not_writeable);
// indexing.cpp: t[index], t[index] = value.
PyObject* tensor_getitem(PyObject* self, PyObject* index);
int tensor_setitem(PyObject* self, PyObject* index, PyObject* value);
// interop.cpp: buffer protocol, NumPy, DLPack.
int tensor_getbuffer(PyObject* self, Py_buffer* view, int flags);
void tensor_releasebuffer(PyObject* self, Py_buffer* view);
void register_interop(const Target& t);

// autograd.cpp: grad_fn objects.
PyObject* node_to_python(const std::shared_ptr<autograd::Node>& node);

void register_tensor_methods(const Target& t);  // tensor_methods.cpp: attributes-like methods
void register_autograd(const Target& t, py::module_& m);  // autograd.cpp
void register_unary(const Target& t);                     // ops_unary.cpp
void register_pointwise(const Target& t);                 // ops_pointwise.cpp
void register_reduce(const Target& t);                    // ops_reduce.cpp
void register_linalg(const Target& t);                    // ops_linalg.cpp
void register_views(const Target& t);                     // ops_views.cpp
void register_shape(const Target& t);                     // ops_shape.cpp
void register_factories(const Target& t);                 // factories.cpp
void register_index(const Target& t);                     // ops_index.cpp
void register_search(const Target& t);                    // ops_search.cpp
void register_serialize(const Target& t);  // serialize.cpp: torch.save's format, safetensors
void register_memory(const Target& t);     // memory.cpp: tensorplay.memory's instruments
// quantized.cpp: quantize/dequantize, the q_* methods, the qscheme objects, and
// torch.ops.quantized's kernels in `quantized_module` (_C._quantized).
void register_quantized(const Target& t, PyObject* quantized_module);
void register_nn_functional(PyObject* nn_module);         // nn_functional.cpp: _C._nn
// nn_padding.cpp: _C._nn's padding and upsampling ops, and tensorplay.constant_pad_nd.
void register_nn_padding(const Target& t, PyObject* nn_module);

// Runs fn with the GIL released when `work` (elements touched) is large; see fastcall.hpp.
template <class F>
decltype(auto) run_kernel(int64_t work, F&& fn) {
  detail::GilRelease gil(work >= TENSORPLAY_PY_GIL_RELEASE_NUMEL);
  return fn();
}

}  // namespace tensorplay::python::bindings
