// Factories: tp.tensor, zeros/ones/empty/full, arange/linspace/eye, random, *_like, new_*.
// Every factory takes torch's keyword-only `dtype=None, device=None, requires_grad=False`; they
// become one TensorOptions, so the C++ factory applies the defaults (float32, CPU) and the
// requires_grad check (floating dtypes only) exactly as it does for C++ callers.
#include "bindings.hpp"

namespace tensorplay::python {
namespace bindings {
namespace {
// torch's `generator=` argument. There is no Generator object in Python yet, so only None (the
// default generator) is accepted; anything else is a TypeError naming the parameter.
struct DefaultGenerator {};
}  // namespace
}  // namespace bindings

template <>
struct Arg<bindings::DefaultGenerator> {
  static constexpr const char* name = "tensorplay.Generator";
  static bool probe(const Slot& s) noexcept { return s.obj == Py_None; }
  static bindings::DefaultGenerator load(const Slot&) noexcept { return {}; }
};

namespace bindings {
namespace {

using Gen = DefaultGenerator;

TensorOptions options_of(std::optional<DType> dtype, std::optional<Device> device,
                         bool requires_grad) {
  // Built field by field: GCC 12 warns (-Werror) that the copy in a chain of builders on a
  // temporary TensorOptions() is uninitialised.
  TensorOptions o;
  if (dtype) o = o.dtype(*dtype);
  if (device) o = o.device(*device);
  return o.requires_grad(requires_grad);
}

// A Python int (or anything int() accepts, as torch.manual_seed calls int(seed)) as the uint64
// seed: negative values wrap, as torch's do, and values outside [-2^63, 2^64) are refused.
uint64_t seed_from_python(PyObject* obj) {
  PyObject* as_int = PyNumber_Long(obj);
  if (!as_int) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(as_int, &overflow);
  uint64_t seed = static_cast<uint64_t>(v);
  if (overflow > 0) seed = PyLong_AsUnsignedLongLong(as_int);
  Py_DECREF(as_int);
  if (overflow < 0 || PyErr_Occurred()) {
    PyErr_Clear();
    throw Error("Overflow when unpacking long");
  }
  return seed;
}

void register_constant_fills(PyObject* m) {
  Registry::function(
      m, "empty",
      overload("*size, dtype=None, device=None, requires_grad=False, "
               "memory_format=contiguous_format",
               [](IntArrayRef size, std::optional<DType> dtype, std::optional<Device> device,
                  bool requires_grad, MemoryFormat format) {
                 return empty(size, options_of(dtype, device, requires_grad), format);
               }));
  Registry::function(m, "zeros",
                     overload("*size, dtype=None, device=None, requires_grad=False",
                              [](IntArrayRef size, std::optional<DType> dtype,
                                 std::optional<Device> device, bool requires_grad) {
                                return zeros(size, options_of(dtype, device, requires_grad));
                              }));
  Registry::function(m, "ones",
                     overload("*size, dtype=None, device=None, requires_grad=False",
                              [](IntArrayRef size, std::optional<DType> dtype,
                                 std::optional<Device> device, bool requires_grad) {
                                return ones(size, options_of(dtype, device, requires_grad));
                              }));
  Registry::function(
      m, "full",
      overload("size, fill_value, *, dtype=None, device=None, requires_grad=False",
               [](IntArrayRef size, const Scalar& fill_value, std::optional<DType> dtype,
                  std::optional<Device> device, bool requires_grad) {
                 return full(size, fill_value, options_of(dtype, device, requires_grad));
               }));
  Registry::function(m, "scalar_tensor",
                     overload("s, *, dtype=None, device=None, requires_grad=False",
                              [](const Scalar& s, std::optional<DType> dtype,
                                 std::optional<Device> device, bool requires_grad) {
                                return scalar_tensor(s, options_of(dtype, device, requires_grad));
                              }));
  Registry::function(m, "empty_strided",
                     overload("size, stride, *, dtype=None, device=None, requires_grad=False",
                              [](IntArrayRef size, IntArrayRef stride, std::optional<DType> dtype,
                                 std::optional<Device> device, bool requires_grad) {
                                return empty_strided(size, stride,
                                                     options_of(dtype, device, requires_grad));
                              }));
}

void register_ranges(PyObject* m) {
  // arange(end) first: arange(start=1, end=5) does not bind to it (no `start`) and falls through.
  Registry::function(
      m, "arange",
      overload(
          "end, *, dtype=None, device=None, requires_grad=False",
          [](const Scalar& end, std::optional<DType> dtype, std::optional<Device> device,
             bool requires_grad) { return arange(end, options_of(dtype, device, requires_grad)); }),
      overload("start, end, step=1, *, dtype=None, device=None, requires_grad=False",
               [](const Scalar& start, const Scalar& end, const Scalar& step,
                  std::optional<DType> dtype, std::optional<Device> device, bool requires_grad) {
                 return arange(start, end, step, options_of(dtype, device, requires_grad));
               }));
  Registry::function(
      m, "linspace",
      overload("start, end, steps, *, dtype=None, device=None, requires_grad=False",
               [](const Scalar& start, const Scalar& end, int64_t steps, std::optional<DType> dtype,
                  std::optional<Device> device, bool requires_grad) {
                 return linspace(start, end, steps, options_of(dtype, device, requires_grad));
               }));
  Registry::function(m, "eye",
                     overload("n, m=None, *, dtype=None, device=None, requires_grad=False",
                              [](int64_t n, std::optional<int64_t> cols, std::optional<DType> dtype,
                                 std::optional<Device> device, bool requires_grad) {
                                return eye(n, cols.value_or(n),
                                           options_of(dtype, device, requires_grad));
                              }));
}

void register_random(PyObject* m) {
  Registry::function(m, "manual_seed",
                     overload("seed", [](PyObject* seed) { manual_seed(seed_from_python(seed)); }));
  Registry::function(m, "rand",
                     overload("*size, generator=None, dtype=None, device=None, requires_grad=False",
                              [](IntArrayRef size, Gen, std::optional<DType> dtype,
                                 std::optional<Device> device, bool requires_grad) {
                                return rand(size, options_of(dtype, device, requires_grad));
                              }));
  Registry::function(m, "randn",
                     overload("*size, generator=None, dtype=None, device=None, requires_grad=False",
                              [](IntArrayRef size, Gen, std::optional<DType> dtype,
                                 std::optional<Device> device, bool requires_grad) {
                                return randn(size, options_of(dtype, device, requires_grad));
                              }));
  // randint(high, size) first: three positionals or a `low=` keyword do not bind to it.
  Registry::function(
      m, "randint",
      overload("high, size, *, generator=None, dtype=None, device=None, requires_grad=False",
               [](int64_t high, IntArrayRef size, Gen, std::optional<DType> dtype,
                  std::optional<Device> device, bool requires_grad) {
                 return randint(high, size, options_of(dtype, device, requires_grad));
               }),
      overload("low, high, size, *, generator=None, dtype=None, device=None, requires_grad=False",
               [](int64_t low, int64_t high, IntArrayRef size, Gen, std::optional<DType> dtype,
                  std::optional<Device> device, bool requires_grad) {
                 return randint(low, high, size, options_of(dtype, device, requires_grad));
               }));
}

// The *_like factories: input's shape, dtype and device unless overridden; memory_format
// defaults to preserve_format (input's strides when it is dense).
#define TP_LIKE_SCHEMA_ \
  "*, dtype=None, device=None, requires_grad=False, memory_format=preserve_format"

void register_like(PyObject* m) {
  // empty_like, zeros_like, ones_like: one shape.
#define TP_LIKE_(name)                                                                          \
  Registry::function(                                                                           \
      m, #name,                                                                                 \
      overload("input, " TP_LIKE_SCHEMA_,                                                       \
               [](const Tensor& self, std::optional<DType> dtype, std::optional<Device> device, \
                  bool requires_grad, MemoryFormat format) {                                    \
                 return name(self, options_of(dtype, device, requires_grad), format);           \
               }))
  TP_LIKE_(empty_like);
  TP_LIKE_(zeros_like);
  TP_LIKE_(ones_like);
#undef TP_LIKE_
  Registry::function(
      m, "full_like",
      overload("input, fill_value, " TP_LIKE_SCHEMA_,
               [](const Tensor& self, const Scalar& fill_value, std::optional<DType> dtype,
                  std::optional<Device> device, bool requires_grad, MemoryFormat format) {
                 return full_like(self, fill_value, options_of(dtype, device, requires_grad),
                                  format);
               }));
  Registry::function(
      m, "rand_like",
      overload("input, " TP_LIKE_SCHEMA_,
               [](const Tensor& self, std::optional<DType> dtype, std::optional<Device> device,
                  bool requires_grad, MemoryFormat format) {
                 return rand_like(self, options_of(dtype, device, requires_grad), format);
               }));
  Registry::function(
      m, "randn_like",
      overload("input, " TP_LIKE_SCHEMA_,
               [](const Tensor& self, std::optional<DType> dtype, std::optional<Device> device,
                  bool requires_grad, MemoryFormat format) {
                 return randn_like(self, options_of(dtype, device, requires_grad), format);
               }));
  Registry::function(
      m, "randint_like",
      overload("input, high, " TP_LIKE_SCHEMA_,
               [](const Tensor& self, int64_t high, std::optional<DType> dtype,
                  std::optional<Device> device, bool requires_grad, MemoryFormat format) {
                 return randint_like(self, high, options_of(dtype, device, requires_grad), format);
               }),
      overload("input, low, high, " TP_LIKE_SCHEMA_,
               [](const Tensor& self, int64_t low, int64_t high, std::optional<DType> dtype,
                  std::optional<Device> device, bool requires_grad, MemoryFormat format) {
                 return randint_like(self, low, high, options_of(dtype, device, requires_grad),
                                     format);
               }));
}
#undef TP_LIKE_SCHEMA_

// Tensor.new_*: dtype and device default to self's (never inferred from the values), the
// layout is always contiguous.
TensorOptions new_options(const Tensor& self, std::optional<DType> dtype,
                          std::optional<Device> device, bool requires_grad) {
  return options_of(dtype.value_or(self.dtype()), device.value_or(self.device()), requires_grad);
}

void register_new(PyTypeObject* type, PyObject* m) {
  Registry::method(type, m, "new_empty",
                   overload("self, *size, dtype=None, device=None, requires_grad=False",
                            [](const Tensor& self, IntArrayRef size, std::optional<DType> dtype,
                               std::optional<Device> device, bool requires_grad) {
                              return empty(size, new_options(self, dtype, device, requires_grad));
                            }));
  Registry::method(type, m, "new_zeros",
                   overload("self, *size, dtype=None, device=None, requires_grad=False",
                            [](const Tensor& self, IntArrayRef size, std::optional<DType> dtype,
                               std::optional<Device> device, bool requires_grad) {
                              return zeros(size, new_options(self, dtype, device, requires_grad));
                            }));
  Registry::method(type, m, "new_ones",
                   overload("self, *size, dtype=None, device=None, requires_grad=False",
                            [](const Tensor& self, IntArrayRef size, std::optional<DType> dtype,
                               std::optional<Device> device, bool requires_grad) {
                              return ones(size, new_options(self, dtype, device, requires_grad));
                            }));
  Registry::method(
      type, m, "new_full",
      overload("self, size, fill_value, *, dtype=None, device=None, requires_grad=False",
               [](const Tensor& self, IntArrayRef size, const Scalar& fill_value,
                  std::optional<DType> dtype, std::optional<Device> device, bool requires_grad) {
                 return full(size, fill_value, new_options(self, dtype, device, requires_grad));
               }));
  Registry::method(
      type, m, "new_tensor",
      overload("self, data, *, dtype=None, device=None, requires_grad=False",
               [](const Tensor& self, PyObject* data, std::optional<DType> dtype,
                  std::optional<Device> device, bool requires_grad) {
                 Tensor r = tensor_from_data(data, dtype.value_or(self.dtype()), false);
                 r = r.to(device.value_or(self.device()), r.dtype());
                 return tensorplay::detail::finish_factory(r, options_of({}, {}, requires_grad));
               }));
}

}  // namespace

void register_factories(const Target& t) {
  Registry::function(t.module, "tensor",
                     overload("data, *, dtype=None, device=None, requires_grad=False",
                              [](PyObject* data, std::optional<DType> dtype,
                                 std::optional<Device> device, bool requires_grad) {
                                Tensor r = tensor_from_data(data, dtype, false);
                                if (device) r = r.to(*device, r.dtype());
                                return tensorplay::detail::finish_factory(
                                    r, options_of({}, {}, requires_grad));
                              }));
  Registry::function(t.module, "get_default_dtype",
                     overload("", []() { return TensorOptions().dtype(); }));
  register_constant_fills(t.module);
  register_ranges(t.module);
  register_random(t.module);
  register_like(t.module);
  register_new(t.type, t.module);
}

}  // namespace bindings
}  // namespace tensorplay::python
