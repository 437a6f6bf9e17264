// The Tensor's own methods: shape and storage queries, item/tolist, copies and conversions.
#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

// Nested Python lists of t's values (bool, int or float by dtype), as tolist().
PyObject* to_list(const Tensor& t, int64_t dim, const char* base, int64_t offset) {
  if (dim == t.dim()) {
    const char* p = base + offset * static_cast<int64_t>(t.element_size());
    switch (t.dtype()) {
      case kBool: return PyBool_FromLong(*reinterpret_cast<const bool*>(p));
      case kLong: return PyLong_FromLongLong(*reinterpret_cast<const int64_t*>(p));
      default: return PyFloat_FromDouble(*reinterpret_cast<const double*>(p));
    }
  }
  const int64_t n = t.size(dim);
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(n));
  if (!list) throw py::error_already_set();
  for (int64_t i = 0; i < n; ++i) {
    PyObject* item = to_list(t, dim + 1, base, offset + i * t.stride(dim));
    if (!item) {
      Py_DECREF(list);
      throw py::error_already_set();
    }
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), item);
  }
  return list;
}

PyObject* tolist(const Tensor& self) {
  TP_CHECK_NOT_IMPLEMENTED(self.is_cpu(), "tolist() of a tensor on ", self.device(),
                           " is not supported yet");
  const DType d = self.dtype();
  const Tensor t = self.detach().to(d == kBool ? kBool : is_floating_point(d) ? kDouble : kLong);
  return to_list(t, 0, static_cast<const char*>(t.data_ptr()), 0);
}

}  // namespace

void register_tensor_methods(const Target& t) {
  auto* type = t.type;
  auto* m = t.module;
  Registry::method(
      type, m, "size", overload("self", [](const Tensor& self) { return self.sizes(); }),
      overload("self, dim", [](const Tensor& self, int64_t dim) { return self.size(dim); }));
  Registry::method(
      type, m, "stride",
      overload("self",
               [](const Tensor& self) {
                 const auto s = self.strides();
                 return std::vector<int64_t>(s.begin(), s.end());
               }),
      overload("self, dim", [](const Tensor& self, int64_t dim) { return self.stride(dim); }));
  Registry::method(type, m, "dim", overload("self", [](const Tensor& self) { return self.dim(); }));
  Registry::method(type, m, "ndimension",
                   overload("self", [](const Tensor& self) { return self.dim(); }));
  Registry::method_and_function(type, m, "numel",
                                overload("input", [](const Tensor& self) { return self.numel(); }));
  Registry::method(type, m, "nelement",
                   overload("self", [](const Tensor& self) { return self.numel(); }));
  Registry::method(type, m, "element_size",
                   overload("self", [](const Tensor& self) { return self.element_size(); }));
  Registry::method(type, m, "data_ptr", overload("self", [](const Tensor& self) {
                     return static_cast<int64_t>(reinterpret_cast<std::intptr_t>(self.data_ptr()));
                   }));
  Registry::method(type, m, "storage_offset",
                   overload("self", [](const Tensor& self) { return self.storage_offset(); }));
  Registry::method(
      type, m, "is_contiguous",
      overload("self, memory_format=contiguous_format",
               [](const Tensor& self, MemoryFormat f) { return self.is_contiguous(f); }));
  Registry::method_and_function(
      type, m, "is_floating_point",
      overload("input", [](const Tensor& self) { return self.is_floating_point(); }));
  Registry::method(type, m, "is_inference",
                   overload("self", [](const Tensor& self) { return self.is_inference(); }));
  Registry::method(type, m, "is_same_size",
                   overload("self, other", [](const Tensor& self, const Tensor& other) {
                     return self.is_same_size(other);
                   }));
  Registry::method(type, m, "item",
                   overload("self", [](const Tensor& self) { return self.item(); }));
  Registry::method(type, m, "tolist",
                   overload("self", [](const Tensor& self) { return tolist(self); }));
  Registry::method(type, m, "retains_grad_",  // (attribute `retains_grad` in tensor_type.cpp)
                   overload("self", [](const Tensor& self) { return self.retains_grad(); }));

  // ---- copies and conversions ----
  Registry::method_and_function(
      type, m, "clone",
      overload("input, *, memory_format=None",
               [](const Tensor& self, std::optional<MemoryFormat> f) { return self.clone(f); }));
  Registry::method(type, m, "contiguous",
                   overload("self, memory_format=contiguous_format",
                            [](const Tensor& self, MemoryFormat f) { return self.contiguous(f); }));
  Registry::method(
      type, m, "to",
      overload("self, dtype, non_blocking=False, copy=False, *, memory_format=None",
               [](const Tensor& self, DType dtype, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> f) { return self.to(dtype, non_blocking, copy, f); }),
      overload("self, device=None, dtype=None, non_blocking=False, copy=False, *, "
               "memory_format=None",
               [](const Tensor& self, std::optional<Device> device, std::optional<DType> dtype,
                  bool non_blocking, bool copy, std::optional<MemoryFormat> f) {
                 return self.to(device.value_or(self.device()), dtype.value_or(self.dtype()),
                                non_blocking, copy, f);
               }),
      overload("self, other, non_blocking=False, copy=False, *, memory_format=None",
               [](const Tensor& self, const Tensor& other, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> f) {
                 return self.to(other.device(), other.dtype(), non_blocking, copy, f);
               }));
  Registry::method(type, m, "cpu", overload("self", [](const Tensor& self) {
                     return self.to(Device(kCPU), self.dtype());
                   }));
  // Without the backend compiled into the module: an error saying so; with it but without a
  // device, one saying why there is none.
  Registry::method(type, m, "cuda", overload("self", [](const Tensor& self) {
                     return self.to(Device(kCUDA), self.dtype());
                   }));
  Registry::method(type, m, "vulkan", overload("self", [](const Tensor& self) {
                     return self.to(Device(kVulkan), self.dtype());
                   }));
  // Page-locked memory: the CUDA backend's; without it, an error naming it.
  Registry::method(type, m, "pin_memory",
                   overload("self", [](const Tensor& self) { return self.pin_memory(); }));
  Registry::method(type, m, "is_pinned",
                   overload("self", [](const Tensor& self) { return self.is_pinned(); }));
  Registry::method(type, m, "type",
                   overload("self, dtype", [](const Tensor& self, DType d) { return self.to(d); }));
#define TP_CAST_METHOD_(name, dt)                     \
  Registry::method(                                   \
      type, m, name,                                  \
      overload("self, memory_format=preserve_format", \
               [](const Tensor& self, MemoryFormat f) { return self.to(dt, false, false, f); }))
  TP_CAST_METHOD_("float", kFloat);
  TP_CAST_METHOD_("double", kDouble);
  TP_CAST_METHOD_("half", kHalf);
  TP_CAST_METHOD_("bfloat16", kBFloat16);
  TP_CAST_METHOD_("long", kLong);
  TP_CAST_METHOD_("int", kInt);
  TP_CAST_METHOD_("short", kShort);
  TP_CAST_METHOD_("char", kChar);
  TP_CAST_METHOD_("byte", kByte);
  TP_CAST_METHOD_("bool", kBool);
#undef TP_CAST_METHOD_
  Registry::method(type, m, "copy_",
                   overload("self, src, non_blocking=False",
                            [](const Tensor& self, const Tensor& src, bool nb) -> const Tensor& {
                              return self.copy_(src, nb);
                            }));
  Registry::method_and_function(
      type, m, "fill_",
      overload("input, value",
               [](const Tensor& self, const Tensor& v) -> const Tensor& { return self.fill_(v); }),
      overload("input, value",
               [](const Tensor& self, const Scalar& v) -> const Tensor& { return self.fill_(v); }));
  Registry::function(
      m, "fill",
      overload("input, value",
               [](const Tensor& self, const Tensor& v) { return tensorplay::fill(self, v); }),
      overload("input, value",
               [](const Tensor& self, const Scalar& v) { return tensorplay::fill(self, v); }));
  Registry::method(type, m, "zero_", overload("self", [](const Tensor& self) -> const Tensor& {
                     return self.zero_();
                   }));
}

}  // namespace tensorplay::python::bindings
