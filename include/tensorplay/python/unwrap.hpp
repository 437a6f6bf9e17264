// Python -> C++: the probe and the three ways of taking a tensor out of its wrapper.
//
//   tensor_probe(obj, &info)  never throws: -1 when obj is not a tensor wrapper, else 0, with the
//                             version and requires_grad read off the C++ side in one call.
//   tensor_value(obj)         a Tensor (one refcount increment) - to keep beyond the call;
//   tensor_ref(obj)           const Tensor& into the wrapper - no refcount traffic;
//   tensor_mut(obj)           Tensor& into the wrapper - for the few operations that rebind the
//                             handle itself (x.data = y, detach_); in-place ops write through
//                             the shared impl and take tensor_ref.
// The references live as long as the wrapper, which the caller's argument array keeps alive.
#pragma once

#include "tensorplay/python/tensor_object.hpp"

namespace tensorplay::python {

struct TensorProbe {
  uint32_t version = 0;
  bool requires_grad = false;
  bool defined = false;
};

inline int tensor_probe(PyObject* obj, TensorProbe* info = nullptr) noexcept {
  if (!obj || !is_tensor(obj)) return -1;
  if (info) {
    const Tensor& t = reinterpret_cast<TensorObject*>(obj)->cdata;
    info->defined = t.defined();
    if (info->defined) {
      const TensorImpl* impl = t.unsafeGetTensorImpl();
      info->requires_grad = impl->requires_grad();
      info->version = impl->is_inference() ? 0u : impl->version_counter().current_version();
    }
  }
  return 0;
}

namespace detail {
[[noreturn]] inline void not_a_tensor(PyObject* obj) {
  throw TypeError(std::string("expected Tensor, but got ") + Py_TYPE(obj)->tp_name);
}
}  // namespace detail

inline Tensor& tensor_mut(PyObject* obj) {
  if (!is_tensor(obj)) detail::not_a_tensor(obj);
  return reinterpret_cast<TensorObject*>(obj)->cdata;
}
inline const Tensor& tensor_ref(PyObject* obj) { return tensor_mut(obj); }
inline Tensor tensor_value(PyObject* obj) { return tensor_mut(obj); }

// Unchecked forms for callers that have already probed.
inline Tensor& unchecked_tensor(PyObject* obj) noexcept {
  return reinterpret_cast<TensorObject*>(obj)->cdata;
}

}  // namespace tensorplay::python
