// The Python object that holds a Tensor, and the one way C++ tensors become Python objects.
//
// wrap() looks the TensorImpl* up in an identity cache first: the same impl is never wrapped
// into two Python objects, so `x.add_(1) is x` and `x.grad is x.grad` hold, and Python identity
// matches C++ identity. The cache entry lives exactly as long as the Python object: the type's
// tp_dealloc removes it (the spec's capsule destructor, without the extra capsule object), so
// there is never a stale entry and an impl can be re-wrapped after its object is collected.
// The object owns one strong reference to the impl, so while an entry exists its key cannot be
// freed and reused. All of this runs with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include <unordered_map>

#include "tensorplay/core/tensor.hpp"

namespace tensorplay::python {

struct TensorObject {
  PyObject_HEAD Tensor cdata;
  PyObject* weakreflist;
};

namespace detail {

struct ImplHash {
  std::size_t operator()(const TensorImpl* p) const noexcept {
    // Heap pointers are 16-byte aligned: drop the always-zero bits before mixing.
    auto v = reinterpret_cast<std::uintptr_t>(p) >> 4;
    return static_cast<std::size_t>(v * 0x9E3779B97F4A7C15ull);
  }
};
using IdentityCache = std::unordered_map<const TensorImpl*, PyObject*, ImplHash>;

// One per process (the extension is one shared object; inline gives one definition).
inline IdentityCache& identity_cache() {
  static IdentityCache* cache = new IdentityCache();  // never destroyed: objects may outlive
  return *cache;                                      // static destruction at exit
}

inline PyTypeObject*& tensor_type_slot() noexcept {
  static PyTypeObject* type = nullptr;
  return type;
}

}  // namespace detail

// The `tensorplay.Tensor` type (set once by the module at import).
inline PyTypeObject* tensor_type() noexcept { return detail::tensor_type_slot(); }

inline bool is_tensor(PyObject* obj) noexcept {
  PyTypeObject* t = Py_TYPE(obj);
  return t == tensor_type() || PyType_IsSubtype(t, tensor_type());
}

// Number of live wrappers (tests check it returns to its baseline).
inline std::size_t identity_cache_size() noexcept { return detail::identity_cache().size(); }

// Allocates a wrapper of `type` owning `t` and enters it in the cache. New reference.
inline PyObject* make_tensor_object(PyTypeObject* type, Tensor t) {
  PyObject* obj = type->tp_alloc(type, 0);
  if (!obj) throw pybind11::error_already_set();
  auto* self = reinterpret_cast<TensorObject*>(obj);
  self->weakreflist = nullptr;
  const TensorImpl* key = t.unsafeGetTensorImpl();
  new (&self->cdata) Tensor(std::move(t));
  if (key) detail::identity_cache().emplace(key, obj);
  return obj;
}

// C++ -> Python. Returns a new reference; an undefined tensor becomes None (as PyTorch's
// `x.grad` of a tensor without one).
inline PyObject* wrap(const Tensor& t) {
  if (!t.defined()) Py_RETURN_NONE;
  auto& cache = detail::identity_cache();
  if (auto it = cache.find(t.unsafeGetTensorImpl()); it != cache.end()) {
    Py_INCREF(it->second);
    return it->second;
  }
  return make_tensor_object(tensor_type(), t);
}
inline PyObject* wrap(Tensor&& t) {
  if (!t.defined()) Py_RETURN_NONE;
  auto& cache = detail::identity_cache();
  if (auto it = cache.find(t.unsafeGetTensorImpl()); it != cache.end()) {
    Py_INCREF(it->second);
    return it->second;
  }
  return make_tensor_object(tensor_type(), std::move(t));
}

// tp_dealloc of the Tensor type (and, through subtype_dealloc, of Python subclasses).
inline void tensor_dealloc(PyObject* obj) {
  auto* self = reinterpret_cast<TensorObject*>(obj);
  PyTypeObject* type = Py_TYPE(obj);
  if (self->weakreflist) PyObject_ClearWeakRefs(obj);
  if (const TensorImpl* key = self->cdata.unsafeGetTensorImpl()) {
    auto& cache = detail::identity_cache();
    if (auto it = cache.find(key); it != cache.end() && it->second == obj) cache.erase(it);
  }
  self->cdata.~Tensor();
  type->tp_free(obj);
  Py_DECREF(type);  // heap types are owned by their instances
}

}  // namespace tensorplay::python
