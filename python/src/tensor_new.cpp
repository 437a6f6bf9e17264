// tp.tensor(data) / tp.Tensor(data): nested sequences of numbers (or of one-element tensors),
// Python numbers, objects with the buffer protocol (NumPy arrays) and tensors. Always copies.
#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

enum class Leaf { Bool, Int, Float };

struct Gathered {
  std::vector<int64_t> shape;
  std::vector<double> floats;
  std::vector<int64_t> ints;
  Leaf kind = Leaf::Bool;
  bool any = false;
};

[[noreturn]] void invalid_type(PyObject* obj) {
  throw TypeError(std::string("new(): invalid data type '") + Py_TYPE(obj)->tp_name + "'");
}

bool is_data_sequence(PyObject* obj) noexcept { return PyList_Check(obj) || PyTuple_Check(obj); }

// The shape is read off the first element at each depth; every other element must agree.
void infer_shape(PyObject* obj, Gathered& g) {
  while (is_data_sequence(obj)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    g.shape.push_back(n);
    if (n == 0) return;
    obj = PySequence_Fast_GET_ITEM(obj, 0);
  }
  if (is_tensor(obj)) {
    for (int64_t s : unchecked_tensor(obj).sizes()) g.shape.push_back(s);
  }
}

void add_leaf(PyObject* obj, Gathered& g) {
  if (PyBool_Check(obj)) {
    g.ints.push_back(obj == Py_True);
    g.floats.push_back(obj == Py_True);
    return;
  }
  if (PyFloat_Check(obj)) {
    g.kind = Leaf::Float;
    const double v = PyFloat_AS_DOUBLE(obj);
    g.floats.push_back(v);
    g.ints.push_back(0);
    return;
  }
  if (detail::is_int_like(obj)) {
    if (g.kind == Leaf::Bool) g.kind = Leaf::Int;
    const int64_t v = detail::load_int(obj);
    g.ints.push_back(v);
    g.floats.push_back(static_cast<double>(v));
    return;
  }
  if (!is_tensor(obj) && detail::is_float_like(obj)) {
    g.kind = Leaf::Float;
    g.floats.push_back(detail::load_double(obj));
    g.ints.push_back(0);
    return;
  }
  invalid_type(obj);
}

void gather(PyObject* obj, std::size_t depth, Gathered& g) {
  if (depth < g.shape.size() && !is_tensor(obj)) {
    if (!is_data_sequence(obj)) {
      if (detail::is_number_like(obj)) {
        throw ValueError("expected sequence of length " + std::to_string(g.shape[depth]) +
                         " at dim " + std::to_string(depth) + " (got 0)");
      }
      invalid_type(obj);
    }
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    if (n != g.shape[depth]) {
      throw ValueError("expected sequence of length " + std::to_string(g.shape[depth]) +
                       " at dim " + std::to_string(depth) + " (got " + std::to_string(n) + ")");
    }
    for (Py_ssize_t i = 0; i < n; ++i) gather(PySequence_Fast_GET_ITEM(obj, i), depth + 1, g);
    return;
  }
  if (is_tensor(obj)) {
    // A tensor element contributes its values (torch.tensor([t1, t2]) with 0-d tensors).
    const Tensor t = unchecked_tensor(obj).detach().contiguous();
    const auto rest = IntArrayRef(g.shape).slice(depth);
    TP_CHECK_VALUE(t.sizes() == rest, "expected tensor of shape ", rest, " at dim ", depth,
                   " (got ", t.sizes(), ")");
    if (t.is_floating_point())
      g.kind = Leaf::Float;
    else if (t.dtype() != kBool && g.kind == Leaf::Bool)
      g.kind = Leaf::Int;
    const Tensor d = t.to(kDouble);
    const Tensor l = t.is_floating_point() ? t.to(kDouble).to(kLong) : t.to(kLong);
    const double* pd = d.data_ptr<double>();
    const int64_t* pl = l.data_ptr<int64_t>();
    g.floats.insert(g.floats.end(), pd, pd + t.numel());
    g.ints.insert(g.ints.end(), pl, pl + t.numel());
    return;
  }
  if (depth != g.shape.size()) invalid_type(obj);
  add_leaf(obj, g);
}

// NumPy's buffer format characters (native byte order) -> DType.
std::optional<DType> dtype_of_format(const char* f) {
  if (!f) return kByte;
  if (*f == '@' || *f == '=' || *f == '<') ++f;
  if (f[0] == '\0' || f[1] != '\0') return std::nullopt;
  switch (f[0]) {
    case '?': return kBool;
    case 'B': return kByte;
    case 'b': return kChar;
    case 'h': return kShort;
    case 'i': return kInt;
    case 'l':
    case 'q': return kLong;
    case 'e': return kHalf;
    case 'f': return kFloat;
    case 'd': return kDouble;
    default: return std::nullopt;
  }
}

}  // namespace

// A zero-copy view of a buffer-protocol object (NumPy array): the storage keeps the exporter
// alive through the Py_buffer until the last tensor using it is gone.
Tensor tensor_from_buffer(PyObject* obj) {
  auto* view = new Py_buffer;
  if (PyObject_GetBuffer(obj, view, PyBUF_RECORDS_RO) < 0) {
    delete view;
    throw py::error_already_set();
  }
  auto release = [](void* ctx) {
    PyGILState_STATE s = PyGILState_Ensure();
    PyBuffer_Release(static_cast<Py_buffer*>(ctx));
    PyGILState_Release(s);
    delete static_cast<Py_buffer*>(ctx);
  };
  try {
    const auto dt = dtype_of_format(view->format);
    TP_CHECK_TYPE(dt.has_value(), "can't convert np.ndarray of type ",
                  view->format ? view->format : "?",
                  ". The only supported types are: float64, float32, float16, int64, int32, "
                  "int16, int8, uint8, and bool.");
    const auto item = static_cast<int64_t>(itemsize(*dt));
    std::vector<int64_t> sizes(view->shape, view->shape + view->ndim);
    std::vector<int64_t> strides(static_cast<std::size_t>(view->ndim));
    for (int i = 0; i < view->ndim; ++i) {
      TP_CHECK_VALUE(view->strides[i] >= 0,
                     "At least one stride in the given numpy array is negative, and tensors with "
                     "negative strides are not currently supported. (You can probably work "
                     "around this by making a copy of your array  with array.copy().) ");
      TP_CHECK_VALUE(view->strides[i] % item == 0,
                     "given numpy array strides not a multiple of the element byte size. Copy "
                     "the numpy array to reallocate the memory.");
      strides[static_cast<std::size_t>(i)] = view->strides[i] / item;
    }
    const std::size_t nbytes = tensorplay::detail::storage_nbytes(sizes, strides, itemsize(*dt));
    Storage storage(use_byte_size, nbytes, DataPtr(view->buf, view, +release, Device(kCPU)));
    return tensorplay::detail::make_tensor(std::move(storage), *dt, sizes, strides);
  } catch (...) {
    release(view);
    throw;
  }
}

Tensor tensor_from_data(PyObject* data, std::optional<DType> dtype, bool default_float) {
  if (is_tensor(data)) {
    const Tensor& t = unchecked_tensor(data);
    return t.detach().to(dtype.value_or(t.dtype()), false, /*copy=*/true);
  }
  // NumPy first: an ndarray is number-like (it has __float__), and a NumPy scalar keeps its
  // dtype (np.int32(3) -> int32, np.float64 -> float64 although it is a Python float). The
  // plain Python types skip the lookup.
  if (!is_data_sequence(data) && !PyFloat_CheckExact(data) && !PyLong_CheckExact(data) &&
      !PyBool_Check(data)) {
    if (const py::object array = numpy_array_of(data)) {
      if (array.ptr() == data || !dtype) {
        // A copy follows, so a read-only array is fine (torch warns only where it shares).
        const Tensor view = tensor_from_numpy(array.ptr(), /*warn_if_not_writeable=*/false);
        return view.to(dtype.value_or(view.dtype()), false, /*copy=*/true);
      }
      // Given a dtype, torch reads a NumPy scalar as a Python number, and an integer dtype
      // takes only what __index__ takes: np.float32 is refused, np.float64 (a float) is not.
      if (is_integral(*dtype, /*include_bool=*/false) && !PyFloat_Check(data)) {
        Py_XDECREF(PyNumber_Index(data));
        if (PyErr_Occurred()) throw py::error_already_set();
      }
    }
  }
  if (!is_data_sequence(data) && !detail::is_number_like(data) && PyObject_CheckBuffer(data)) {
    const Tensor view = tensor_from_buffer(data);
    return view.to(dtype.value_or(view.dtype()), false, /*copy=*/true);
  }
  Gathered g;
  infer_shape(data, g);
  gather(data, 0, g);
  const bool empty = g.floats.empty();
  const DType natural = empty || g.kind == Leaf::Float ? TensorOptions().dtype()
                        : g.kind == Leaf::Int          ? kLong
                                                       : kBool;
  const DType target = dtype.value_or(default_float ? TensorOptions().dtype() : natural);
  Tensor values = g.kind == Leaf::Float || is_floating_point(target)
                      ? tensor(ArrayRef<double>(g.floats), kDouble)
                      : tensor(ArrayRef<int64_t>(g.ints), kLong);
  return values.view(g.shape).to(target);
}

}  // namespace tensorplay::python::bindings
