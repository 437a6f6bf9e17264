// tensorplay.Tensor: the CPython type. Its slots (operators, attributes, len/iter/bool, repr)
// are written here; methods come from the generated tables of the other files.
#include <cstring>

#include "bindings.hpp"
// After Python.h (which bindings.hpp brings in through pybind11).
#include <structmember.h>

namespace tensorplay::python::bindings {
namespace {

const Tensor& self_tensor(PyObject* self) noexcept { return unchecked_tensor(self); }

// ---- construction: tp.Tensor(data | *sizes, requires_grad=False) ------------------------------
PyObject* tensor_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  TP_PY_TRY
  bool requires_grad = false;
  if (kwargs) {
    PyObject* key = nullptr;
    PyObject* value = nullptr;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
      TP_CHECK_TYPE(PyUnicode_CompareWithASCIIString(key, "requires_grad") == 0,
                    "Tensor() got an unexpected keyword argument '", PyUnicode_AsUTF8(key), "'");
      TP_CHECK_TYPE(PyBool_Check(value), "Tensor(): argument 'requires_grad' must be bool, not ",
                    Py_TYPE(value)->tp_name);
      requires_grad = value == Py_True;
    }
  }
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  bool all_ints = true;
  for (Py_ssize_t i = 0; i < n; ++i) all_ints &= detail::is_int_like(PyTuple_GET_ITEM(args, i));
  Tensor t;
  if (n == 0 || all_ints) {
    // The legacy constructor: tp.Tensor(2, 3) is an uninitialised 2x3 float tensor.
    std::vector<int64_t> sizes;
    for (Py_ssize_t i = 0; i < n; ++i) {
      sizes.push_back(
          detail::load_int_item(PyTuple_GET_ITEM(args, i), i + 1, "new(): argument 'size'"));
    }
    if (n == 0) sizes.push_back(0);  // tp.Tensor() is an empty 1-d tensor
    t = tensorplay::empty(sizes);
  } else {
    TP_CHECK_TYPE(n == 1, "Tensor() takes one data argument or integer sizes (got ", n,
                  " arguments)");
    t = tensor_from_data(PyTuple_GET_ITEM(args, 0), kFloat, /*default_float=*/true);
  }
  if (requires_grad) t.requires_grad_(true);
  return make_tensor_object(type, std::move(t));
  TP_PY_CATCH(nullptr)
}

// ---- attributes ----------------------------------------------------------------------------
// A read-only attribute: `Get` computes it from the tensor; the result goes through to_python.
template <auto Get>
PyObject* getter(PyObject* self, void*) {
  TP_PY_TRY
  return to_python(Get(self_tensor(self)));
  TP_PY_CATCH(nullptr)
}

Tensor transposed_all(const Tensor& t) {  // .T: every dimension reversed
  std::vector<int64_t> dims(static_cast<std::size_t>(t.dim()));
  for (std::size_t i = 0; i < dims.size(); ++i) dims[i] = static_cast<int64_t>(dims.size() - 1 - i);
  return t.permute(dims);
}
Tensor transposed_matrices(const Tensor& t) {  // .mT: the last two dimensions swapped
  TP_CHECK(t.dim() >= 2, "tensor.mT is only supported on matrices or batches of matrices. Got ",
           t.dim(), "-D tensor.");
  return t.transpose(-2, -1);
}

int set_requires_grad(PyObject* self, PyObject* value, void*) {
  TP_PY_TRY
  TP_CHECK_TYPE(value && PyBool_Check(value), "requires_grad must be a bool");
  const Tensor& t = self_tensor(self);
  TP_CHECK(value != Py_True || tensorplay::is_floating_point(t.dtype()),
           "only Tensors of floating point and complex dtype can require gradients");
  t.requires_grad_(value == Py_True);
  return 0;
  TP_PY_CATCH(-1)
}
int set_grad(PyObject* self, PyObject* value, void*) {
  TP_PY_TRY
  const Tensor& t = self_tensor(self);
  if (!value || value == Py_None) {
    t.mutable_grad().reset();
    return 0;
  }
  TP_CHECK_TYPE(is_tensor(value),
                "assigned grad expected to be a Tensor or None but got grad of "
                "type",
                Py_TYPE(value)->tp_name);
  const Tensor& g = unchecked_tensor(value);
  TP_CHECK(!g.is_same(t), "can't assign Variable as its own grad");
  TP_CHECK(g.dtype() == t.dtype(), "assigned grad has data of a different type");
  TP_CHECK(g.device() == t.device(), "assigned grad has data located on a different device");
  TP_CHECK(g.sizes() == t.sizes(), "assigned grad has data of a different size");
  t.mutable_grad() = g;
  return 0;
  TP_PY_CATCH(-1)
}
int set_data(PyObject* self, PyObject* value, void*) {
  TP_PY_TRY
  TP_CHECK_TYPE(value && is_tensor(value), "Variable data has to be a tensor, but got ",
                value ? Py_TYPE(value)->tp_name : "nothing");
  self_tensor(self).set_data(unchecked_tensor(value));
  return 0;
  TP_PY_CATCH(-1)
}

PyGetSetDef tensor_getset[] = {
    {"shape", &getter<[](const Tensor& t) { return t.sizes(); }>, nullptr, nullptr, nullptr},
    {"dtype", &getter<[](const Tensor& t) { return t.dtype(); }>, nullptr, nullptr, nullptr},
    {"device", &getter<[](const Tensor& t) { return t.device(); }>, nullptr, nullptr, nullptr},
    {"ndim", &getter<[](const Tensor& t) { return t.dim(); }>, nullptr, nullptr, nullptr},
    {"requires_grad", &getter<[](const Tensor& t) { return t.requires_grad(); }>,
     &set_requires_grad, nullptr, nullptr},
    {"grad", &getter<[](const Tensor& t) -> const Tensor& { return t.grad(); }>, &set_grad, nullptr,
     nullptr},
    {"grad_fn", &getter<[](const Tensor& t) { return node_to_python(t.grad_fn()); }>, nullptr,
     nullptr, nullptr},
    {"is_leaf", &getter<[](const Tensor& t) { return t.is_leaf(); }>, nullptr, nullptr, nullptr},
    {"_version", &getter<[](const Tensor& t) { return t._version(); }>, nullptr, nullptr, nullptr},
    {"T", &getter<&transposed_all>, nullptr, nullptr, nullptr},
    {"mT", &getter<&transposed_matrices>, nullptr, nullptr, nullptr},
    {"data", &getter<[](const Tensor& t) { return t.detach(); }>, &set_data, nullptr, nullptr},
    {"is_cuda", &getter<[](const Tensor& t) { return t.is_cuda(); }>, nullptr, nullptr, nullptr},
    {"is_cpu", &getter<[](const Tensor& t) { return t.is_cpu(); }>, nullptr, nullptr, nullptr},
    {"is_vulkan", &getter<[](const Tensor& t) { return t.is_vulkan(); }>, nullptr, nullptr,
     nullptr},
    {"is_sparse", &getter<[](const Tensor&) { return false; }>, nullptr, nullptr, nullptr},
    {"is_quantized", &getter<[](const Tensor&) { return false; }>, nullptr, nullptr, nullptr},
    {"_base", &getter<[](const Tensor& t) { return t._base(); }>, nullptr, nullptr,
     nullptr},
    {"output_nr", &getter<[](const Tensor& t) { return t.output_nr(); }>, nullptr, nullptr,
     nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// ---- operators -----------------------------------------------------------------------------
Tensor number(const Scalar& s) { return tensorplay::detail::wrapped_scalar_tensor(s); }

enum class Kind { Tensor, Number, Other };
Kind classify(PyObject* o) noexcept {
  if (is_tensor(o)) return Kind::Tensor;
  if (detail::is_number_like(o)) return Kind::Number;
  return Kind::Other;
}

// a <op> b for tensor/tensor, tensor/number and number/tensor (the reflected form). Anything
// else returns NotImplemented, so Python tries the other operand and then raises its TypeError.
template <class TT, class TS, class ST>
PyObject* binary(PyObject* a, PyObject* b, TT tt, TS ts, ST st) {
  TP_PY_TRY
  const Kind ka = classify(a);
  const Kind kb = classify(b);
  if (ka == Kind::Other || kb == Kind::Other || (ka == Kind::Number && kb == Kind::Number)) {
    Py_RETURN_NOTIMPLEMENTED;
  }
  if (ka == Kind::Tensor && kb == Kind::Tensor) {
    const Tensor& x = unchecked_tensor(a);
    const Tensor& y = unchecked_tensor(b);
    return to_python(run_kernel(x.numel() + y.numel(), [&] { return tt(x, y); }));
  }
  if (ka == Kind::Tensor) {
    const Tensor& x = unchecked_tensor(a);
    const Scalar s = detail::load_scalar(b);
    return to_python(run_kernel(x.numel(), [&] { return ts(x, s); }));
  }
  const Tensor& y = unchecked_tensor(b);
  const Scalar s = detail::load_scalar(a);
  return to_python(run_kernel(y.numel(), [&] { return st(s, y); }));
  TP_PY_CATCH(nullptr)
}

// x <op>= y: the in-place method; returns x itself.
template <class TT, class TS>
PyObject* inplace(PyObject* a, PyObject* b, TT tt, TS ts) {
  TP_PY_TRY
  if (!is_tensor(a)) Py_RETURN_NOTIMPLEMENTED;
  const Tensor& x = unchecked_tensor(a);
  const Kind kb = classify(b);
  if (kb == Kind::Other) Py_RETURN_NOTIMPLEMENTED;
  if (kb == Kind::Tensor) {
    const Tensor& y = unchecked_tensor(b);
    run_kernel(x.numel() + y.numel(), [&]() -> const Tensor& { return tt(x, y); });
  } else {
    const Scalar s = detail::load_scalar(b);
    run_kernel(x.numel(), [&]() -> const Tensor& { return ts(x, s); });
  }
  Py_INCREF(a);
  return a;
  TP_PY_CATCH(nullptr)
}

#define TP_BINARY_SLOT_(slot, expr_tt, expr_ts, expr_st)                \
  PyObject* slot(PyObject* a, PyObject* b) {                            \
    return binary(                                                      \
        a, b, [](const Tensor& x, const Tensor& y) { return expr_tt; }, \
        [](const Tensor& x, const Scalar& y) { return expr_ts; },       \
        [](const Scalar& x, const Tensor& y) { return expr_st; });      \
  }
// Python's number operands of + - * / become wrapped 0-d tensors, as torch's argument parser
// makes them (so `x * 2` records MulBackward0 like torch, and promotes like a number); `2 / x`
// is torch's `x.reciprocal() * 2`.
TP_BINARY_SLOT_(nb_add, x.add(y), x.add(number(y)), y.add(number(x)))
TP_BINARY_SLOT_(nb_sub, x.sub(y), x.sub(number(y)), rsub(y, x))
TP_BINARY_SLOT_(nb_mul, x.mul(y), x.mul(number(y)), y.mul(number(x)))
TP_BINARY_SLOT_(nb_truediv, x.div(y), x.div(number(y)), y.reciprocal().mul(number(x)))
TP_BINARY_SLOT_(nb_floordiv, x.floor_divide(y), x.floor_divide(y),
                full_like(y, x, TensorOptions().dtype(result_type(x, y))).floor_divide(y))
TP_BINARY_SLOT_(nb_mod, x.remainder(y), x.remainder(y), remainder(x, y))
TP_BINARY_SLOT_(nb_and, x.bitwise_and(y), x.bitwise_and(y), y.bitwise_and(x))
TP_BINARY_SLOT_(nb_or, x.bitwise_or(y), x.bitwise_or(y), y.bitwise_or(x))
TP_BINARY_SLOT_(nb_xor, x.bitwise_xor(y), x.bitwise_xor(y), y.bitwise_xor(x))
TP_BINARY_SLOT_(nb_lshift, x.bitwise_left_shift(y), x.bitwise_left_shift(y),
                bitwise_left_shift(x, y))
TP_BINARY_SLOT_(nb_rshift, x.bitwise_right_shift(y), x.bitwise_right_shift(y),
                bitwise_right_shift(x, y))
#undef TP_BINARY_SLOT_

PyObject* nb_pow(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return binary(
      a, b, [](const Tensor& x, const Tensor& y) { return x.pow(y); },
      [](const Tensor& x, const Scalar& y) { return x.pow(y); },
      [](const Scalar& x, const Tensor& y) { return pow(x, y); });
}
PyObject* nb_matmul(PyObject* a, PyObject* b) {
  TP_PY_TRY
  if (!is_tensor(a) || !is_tensor(b)) Py_RETURN_NOTIMPLEMENTED;
  const Tensor& x = unchecked_tensor(a);
  const Tensor& y = unchecked_tensor(b);
  return to_python(run_kernel(x.numel() + y.numel(), [&] { return matmul(x, y); }));
  TP_PY_CATCH(nullptr)
}

#define TP_INPLACE_SLOT_(slot, method)                                                       \
  PyObject* slot(PyObject* a, PyObject* b) {                                                 \
    return inplace(                                                                          \
        a, b, [](const Tensor& x, const Tensor& y) -> const Tensor& { return x.method(y); }, \
        [](const Tensor& x, const Scalar& y) -> const Tensor& { return x.method(y); });      \
  }
TP_INPLACE_SLOT_(nb_iadd, add_)
TP_INPLACE_SLOT_(nb_isub, sub_)
TP_INPLACE_SLOT_(nb_imul, mul_)
TP_INPLACE_SLOT_(nb_itruediv, div_)
TP_INPLACE_SLOT_(nb_ifloordiv, floor_divide_)
TP_INPLACE_SLOT_(nb_imod, remainder_)
TP_INPLACE_SLOT_(nb_iand, bitwise_and_)
TP_INPLACE_SLOT_(nb_ior, bitwise_or_)
TP_INPLACE_SLOT_(nb_ixor, bitwise_xor_)
TP_INPLACE_SLOT_(nb_ilshift, bitwise_left_shift_)
TP_INPLACE_SLOT_(nb_irshift, bitwise_right_shift_)
TP_INPLACE_SLOT_(nb_ipow_2, pow_)
#undef TP_INPLACE_SLOT_
PyObject* nb_ipow(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return nb_ipow_2(a, b);
}

template <class F>
PyObject* unary(PyObject* a, F f) {
  TP_PY_TRY
  const Tensor& x = unchecked_tensor(a);
  return to_python(run_kernel(x.numel(), [&] { return f(x); }));
  TP_PY_CATCH(nullptr)
}
PyObject* nb_neg(PyObject* a) {
  return unary(a, [](const Tensor& x) { return x.neg(); });
}
PyObject* nb_pos(PyObject* a) {
  return unary(a, [](const Tensor& x) { return x.positive(); });
}
PyObject* nb_abs(PyObject* a) {
  return unary(a, [](const Tensor& x) { return x.abs(); });
}
PyObject* nb_invert(PyObject* a) {
  return unary(a, [](const Tensor& x) { return x.bitwise_not(); });
}

// Python's conversions of one-element tensors.
Scalar single_value(PyObject* a) {
  const Tensor& x = unchecked_tensor(a);
  TP_CHECK_VALUE(x.numel() == 1, "only one element tensors can be converted to Python scalars");
  return x.item();
}
int nb_bool(PyObject* a) {
  TP_PY_TRY
  const Tensor& x = unchecked_tensor(a);
  TP_CHECK(x.numel() != 0, "Boolean value of Tensor with no values is ambiguous");
  TP_CHECK(x.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
  return x.item().toDouble() != 0.0 ? 1 : 0;
  TP_PY_CATCH(-1)
}
PyObject* nb_int(PyObject* a) {
  TP_PY_TRY
  const Scalar s = single_value(a);
  if (s.isFloatingPoint()) {
    PyObject* f = PyFloat_FromDouble(s.toDouble());
    PyObject* i = f ? PyNumber_Long(f) : nullptr;
    Py_XDECREF(f);
    return i;
  }
  return PyLong_FromLongLong(s.toLong());
  TP_PY_CATCH(nullptr)
}
PyObject* nb_float(PyObject* a) {
  TP_PY_TRY
  return PyFloat_FromDouble(single_value(a).toDouble());
  TP_PY_CATCH(nullptr)
}
PyObject* nb_index(PyObject* a) {
  TP_PY_TRY
  const Tensor& x = unchecked_tensor(a);
  TP_CHECK_TYPE(x.numel() == 1 && !x.is_floating_point(),
                "only integer tensors of a single element can be converted to an index");
  return PyLong_FromLongLong(x.item().toLong());
  TP_PY_CATCH(nullptr)
}

PyObject* richcompare(PyObject* a, PyObject* b, int op) {
  // Python swaps the operands (and the operator) for number < tensor.
  switch (op) {
    case Py_EQ:
      return binary(
          a, b, [](const Tensor& x, const Tensor& y) { return x.eq(y); },
          [](const Tensor& x, const Scalar& y) { return x.eq(y); },
          [](const Scalar& x, const Tensor& y) { return y.eq(x); });
    case Py_NE:
      return binary(
          a, b, [](const Tensor& x, const Tensor& y) { return x.ne(y); },
          [](const Tensor& x, const Scalar& y) { return x.ne(y); },
          [](const Scalar& x, const Tensor& y) { return y.ne(x); });
    case Py_LT:
      return binary(
          a, b, [](const Tensor& x, const Tensor& y) { return x.lt(y); },
          [](const Tensor& x, const Scalar& y) { return x.lt(y); },
          [](const Scalar& x, const Tensor& y) { return y.gt(x); });
    case Py_LE:
      return binary(
          a, b, [](const Tensor& x, const Tensor& y) { return x.le(y); },
          [](const Tensor& x, const Scalar& y) { return x.le(y); },
          [](const Scalar& x, const Tensor& y) { return y.ge(x); });
    case Py_GT:
      return binary(
          a, b, [](const Tensor& x, const Tensor& y) { return x.gt(y); },
          [](const Tensor& x, const Scalar& y) { return x.gt(y); },
          [](const Scalar& x, const Tensor& y) { return y.lt(x); });
    default:
      return binary(
          a, b, [](const Tensor& x, const Tensor& y) { return x.ge(y); },
          [](const Tensor& x, const Scalar& y) { return x.ge(y); },
          [](const Scalar& x, const Tensor& y) { return y.le(x); });
  }
}

// ---- the rest of the protocol ------------------------------------------------------------------
PyObject* tensor_repr(PyObject* self) {
  TP_PY_TRY
  return PyUnicode_FromString(to_string(self_tensor(self)).c_str());
  TP_PY_CATCH(nullptr)
}
Py_hash_t tensor_hash(PyObject* self) { return _Py_HashPointer(self); }
Py_ssize_t tensor_len(PyObject* self) {
  TP_PY_TRY
  const Tensor& t = self_tensor(self);
  TP_CHECK_TYPE(t.dim() > 0, "len() of a 0-d tensor");
  return static_cast<Py_ssize_t>(t.size(0));
  TP_PY_CATCH(-1)
}
PyObject* tensor_iter(PyObject* self) {
  TP_PY_TRY
  const Tensor& t = self_tensor(self);
  TP_CHECK_TYPE(t.dim() > 0, "iteration over a 0-d tensor");
  PyObject* items = to_python(t.unbind(0));
  PyObject* it = PyObject_GetIter(items);
  Py_DECREF(items);
  return it;
  TP_PY_CATCH(nullptr)
}

}  // namespace

PyTypeObject* init_tensor_type(PyObject* module) {
  static PyMemberDef members[] = {
      {"__weaklistoffset__", T_PYSSIZET, offsetof(TensorObject, weakreflist), READONLY, nullptr},
      {nullptr, 0, 0, 0, nullptr}};
  static PyType_Slot slots[] = {
      {Py_tp_new, reinterpret_cast<void*>(&tensor_new)},
      {Py_tp_dealloc, reinterpret_cast<void*>(&tensor_dealloc)},
      {Py_tp_repr, reinterpret_cast<void*>(&tensor_repr)},
      {Py_tp_hash, reinterpret_cast<void*>(&tensor_hash)},
      {Py_tp_richcompare, reinterpret_cast<void*>(&richcompare)},
      {Py_tp_iter, reinterpret_cast<void*>(&tensor_iter)},
      {Py_tp_getset, tensor_getset},
      {Py_tp_members, members},
      {Py_mp_length, reinterpret_cast<void*>(&tensor_len)},
      {Py_mp_subscript, reinterpret_cast<void*>(&tensor_getitem)},
      {Py_mp_ass_subscript, reinterpret_cast<void*>(&tensor_setitem)},
      {Py_bf_getbuffer, reinterpret_cast<void*>(&tensor_getbuffer)},
      {Py_bf_releasebuffer, reinterpret_cast<void*>(&tensor_releasebuffer)},
      {Py_nb_add, reinterpret_cast<void*>(&nb_add)},
      {Py_nb_subtract, reinterpret_cast<void*>(&nb_sub)},
      {Py_nb_multiply, reinterpret_cast<void*>(&nb_mul)},
      {Py_nb_true_divide, reinterpret_cast<void*>(&nb_truediv)},
      {Py_nb_floor_divide, reinterpret_cast<void*>(&nb_floordiv)},
      {Py_nb_remainder, reinterpret_cast<void*>(&nb_mod)},
      {Py_nb_power, reinterpret_cast<void*>(&nb_pow)},
      {Py_nb_matrix_multiply, reinterpret_cast<void*>(&nb_matmul)},
      {Py_nb_and, reinterpret_cast<void*>(&nb_and)},
      {Py_nb_or, reinterpret_cast<void*>(&nb_or)},
      {Py_nb_xor, reinterpret_cast<void*>(&nb_xor)},
      {Py_nb_lshift, reinterpret_cast<void*>(&nb_lshift)},
      {Py_nb_rshift, reinterpret_cast<void*>(&nb_rshift)},
      {Py_nb_inplace_add, reinterpret_cast<void*>(&nb_iadd)},
      {Py_nb_inplace_subtract, reinterpret_cast<void*>(&nb_isub)},
      {Py_nb_inplace_multiply, reinterpret_cast<void*>(&nb_imul)},
      {Py_nb_inplace_true_divide, reinterpret_cast<void*>(&nb_itruediv)},
      {Py_nb_inplace_floor_divide, reinterpret_cast<void*>(&nb_ifloordiv)},
      {Py_nb_inplace_remainder, reinterpret_cast<void*>(&nb_imod)},
      {Py_nb_inplace_power, reinterpret_cast<void*>(&nb_ipow)},
      {Py_nb_inplace_and, reinterpret_cast<void*>(&nb_iand)},
      {Py_nb_inplace_or, reinterpret_cast<void*>(&nb_ior)},
      {Py_nb_inplace_xor, reinterpret_cast<void*>(&nb_ixor)},
      {Py_nb_inplace_lshift, reinterpret_cast<void*>(&nb_ilshift)},
      {Py_nb_inplace_rshift, reinterpret_cast<void*>(&nb_irshift)},
      {Py_nb_negative, reinterpret_cast<void*>(&nb_neg)},
      {Py_nb_positive, reinterpret_cast<void*>(&nb_pos)},
      {Py_nb_absolute, reinterpret_cast<void*>(&nb_abs)},
      {Py_nb_invert, reinterpret_cast<void*>(&nb_invert)},
      {Py_nb_bool, reinterpret_cast<void*>(&nb_bool)},
      {Py_nb_int, reinterpret_cast<void*>(&nb_int)},
      {Py_nb_float, reinterpret_cast<void*>(&nb_float)},
      {Py_nb_index, reinterpret_cast<void*>(&nb_index)},
      {0, nullptr}};
  static PyType_Spec spec{"tensorplay.Tensor", sizeof(TensorObject), 0,
                          Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, slots};
  auto* type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  if (!type) throw py::error_already_set();
  detail::tensor_type_slot() = type;
  if (PyModule_AddObjectRef(module, "Tensor", reinterpret_cast<PyObject*>(type)) < 0) {
    throw py::error_already_set();
  }
  return type;
}

}  // namespace tensorplay::python::bindings
