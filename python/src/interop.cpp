// Exchange without copies: the buffer protocol, NumPy and DLPack; plus the private helpers that
// _tensor.py's pickling and copying are written with.
//
// Lifetimes: every export holds the tensor's storage (or the tensor) until the consumer lets go,
// and every import (from_numpy, from_dlpack) holds the producer until the last tensor over its
// memory dies. As in PyTorch, resize_ to a larger size swaps the storage's block and leaves an
// earlier export pointing at the old one.
#include <cstring>

#include <tensorplay/interop/dlpack.hpp>

#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

// ---- buffer protocol -------------------------------------------------------------------------

// What view->internal points at: the storage, held so the bytes outlive a later resize_ or
// set_ of the tensor object, and the shape and byte strides the view borrows.
struct BufferInternal {
  Storage storage;
  std::vector<Py_ssize_t> shape_and_strides;  // ndim sizes, then ndim strides in bytes
};

// Python's struct-module characters, native order; 'l' is 64-bit on the LP64 platforms we build
// on, and NumPy reads it as int64 (as it does its own int64 arrays' 'l').
const char* buffer_format(DType dtype) noexcept {
  switch (dtype) {
    case DType::Bool: return "?";
    case DType::UInt8: return "B";
    case DType::Int8: return "b";
    case DType::Int16: return "h";
    case DType::Int32: return "i";
    case DType::Int64: return sizeof(long) == 8 ? "l" : "q";
    case DType::Float16: return "e";
    case DType::Float32: return "f";
    case DType::Float64: return "d";
    default: return nullptr;  // bfloat16: neither struct nor NumPy has a code for it
  }
}

int buffer_error(Py_buffer* view, const std::string& message) {
  view->obj = nullptr;
  PyErr_SetString(PyExc_BufferError, message.c_str());
  return -1;
}

// ---- DLPack capsules -------------------------------------------------------------------------
constexpr const char* kLegacyName = "dltensor";
constexpr const char* kLegacyUsedName = "used_dltensor";
constexpr const char* kVersionedName = "dltensor_versioned";
constexpr const char* kVersionedUsedName = "used_dltensor_versioned";

// A capsule nobody consumed still owns its managed tensor; a consumer renames it to "used_*"
// and takes the ownership with it.
template <class Managed>
void capsule_destructor(PyObject* capsule) {
  constexpr const char* name =
      std::is_same_v<Managed, DLManagedTensor> ? kLegacyName : kVersionedName;
  if (!PyCapsule_IsValid(capsule, name)) return;
  // The deleter may run Python code (a NumPy producer's buffer release): keep any exception
  // being propagated intact.
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  auto* managed = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
  if (managed && managed->deleter) managed->deleter(managed);
  PyErr_Restore(type, value, traceback);
}

template <class Managed>
PyObject* make_capsule(Managed* managed) {
  constexpr const char* name =
      std::is_same_v<Managed, DLManagedTensor> ? kLegacyName : kVersionedName;
  PyObject* capsule = PyCapsule_New(managed, name, &capsule_destructor<Managed>);
  if (!capsule) {
    managed->deleter(managed);
    throw py::error_already_set();
  }
  return capsule;
}

[[noreturn]] void invalid_capsule() {
  TP_ERROR(
      "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
      "only once, so you might have already constructed a tensor from it once.");
}

// Imports a capsule and marks it consumed only once the tensor exists: on an error the capsule
// keeps its managed tensor and its destructor releases it.
Tensor tensor_from_capsule(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kVersionedName)) {
    auto* managed =
        static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersionedName));
    Tensor out = tensorplay::from_dlpack(managed);
    PyCapsule_SetName(capsule, kVersionedUsedName);
    return out;
  }
  if (PyCapsule_IsValid(capsule, kLegacyName)) {
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacyName));
    Tensor out = tensorplay::from_dlpack(managed);
    PyCapsule_SetName(capsule, kLegacyUsedName);
    return out;
  }
  invalid_capsule();
}

// max_version=(major, minor) or None -> whether the consumer reads DLPack >= 1.0.
bool wants_versioned(PyObject* max_version) {
  if (max_version == Py_None) return false;
  const bool pair = PyTuple_Check(max_version) && PyTuple_GET_SIZE(max_version) == 2 &&
                    detail::is_int_like(PyTuple_GET_ITEM(max_version, 0)) &&
                    detail::is_int_like(PyTuple_GET_ITEM(max_version, 1));
  TP_CHECK_TYPE(pair,
                "__dlpack__(): max_version must be None or a tuple of two ints "
                "(major, minor), not ",
                Py_TYPE(max_version)->tp_name);
  return detail::load_int(PyTuple_GET_ITEM(max_version, 0)) >= 1;
}

// As torch names types in its messages: "Tensor" for tensors (not the qualified tp_name).
const char* type_name(PyObject* obj) noexcept {
  return is_tensor(obj) ? "Tensor" : Py_TYPE(obj)->tp_name;
}

const Tensor& tensor_arg(PyObject* obj, const char* fn) {
  TP_CHECK_TYPE(is_tensor(obj), fn, "(): argument must be Tensor, not ", type_name(obj));
  return unchecked_tensor(obj);
}

PyObject* dlpack_export(const Tensor& self, bool versioned, bool copied) {
  if (versioned) {
    DLManagedTensorVersioned* managed = to_dlpack_versioned(self);
    if (copied) managed->flags |= DLPACK_FLAG_BITMASK_IS_COPIED;
    return make_capsule(managed);
  }
  return make_capsule(to_dlpack(self));
}

// ---- NumPy ---------------------------------------------------------------------------------
// NumPy dtype (kind, itemsize) pairs from_numpy takes; the rest get PyTorch's TypeError.
bool numpy_dtype_supported(char kind, long itemsize) {
  switch (kind) {
    case 'b':
    case 'u': return itemsize == 1;
    case 'i': return itemsize == 1 || itemsize == 2 || itemsize == 4 || itemsize == 8;
    case 'f': return itemsize == 2 || itemsize == 4 || itemsize == 8;
    default: return false;
  }
}

py::object numpy_module() {
  PyObject* np = PyImport_ImportModule("numpy");
  if (!np) {
    PyErr_Clear();
    TP_ERROR("Numpy is not available");
  }
  return py::reinterpret_steal<py::object>(np);
}

// isinstance(obj, numpy.<type>). Without NumPy imported nothing can be a NumPy object, so the
// check never imports it.
bool numpy_isinstance(PyObject* obj, const char* type) {
  const py::object numpy =
      py::reinterpret_steal<py::object>(PyImport_GetModule(py::str("numpy").ptr()));
  if (PyErr_Occurred()) throw py::error_already_set();
  if (!numpy) return false;
  const int r = PyObject_IsInstance(obj, numpy.attr(type).ptr());
  if (r < 0) throw py::error_already_set();
  return r == 1;
}

Tensor from_numpy(PyObject* obj) {
  TP_CHECK_TYPE(numpy_isinstance(obj, "ndarray"), "expected np.ndarray (got ", type_name(obj), ")");
  return tensor_from_numpy(obj, /*warn_if_not_writeable=*/true);
}

PyObject* tensor_numpy(PyObject* self, bool force) {
  const Tensor& t = unchecked_tensor(self);
  if (!force) {
    TP_CHECK(!t.requires_grad(),
             "Can't call numpy() on Tensor that requires grad. Use "
             "tensor.detach().numpy() instead.");
    TP_CHECK_TYPE(t.is_cpu(), "can't convert ", t.device().str(),
                  " device type tensor to numpy. Use "
                  "Tensor.cpu() to copy the tensor to host memory first.");
  }
  TP_CHECK_TYPE(t.dtype() != kBFloat16, "Got unsupported ScalarType BFloat16");
  const py::object numpy = numpy_module();
  // force=True is t.detach().cpu() exported: a detached alias on the CPU (the array never holds
  // the autograd graph), a host copy of a device tensor.
  const py::object owner = force && (t.requires_grad() || !t.is_cpu())
                               ? py::reinterpret_steal<py::object>(wrap(t.detach().cpu()))
                               : py::reinterpret_borrow<py::object>(self);
  // Through a memoryview: the array's base holds the view, the view holds the storage.
  const py::object view = py::reinterpret_steal<py::object>(PyMemoryView_FromObject(owner.ptr()));
  if (!view) throw py::error_already_set();
  return numpy.attr("asarray")(view).release().ptr();
}

}  // namespace

py::object numpy_array_of(PyObject* obj) {
  if (numpy_isinstance(obj, "ndarray")) return py::reinterpret_borrow<py::object>(obj);
  if (numpy_isinstance(obj, "generic")) return numpy_module().attr("asarray")(py::handle(obj));
  return py::object();
}

Tensor tensor_from_numpy(PyObject* obj, bool warn_if_not_writeable) {
  const py::handle array(obj);
  const py::object dtype = array.attr("dtype");
  TP_CHECK_VALUE(dtype.attr("isnative").cast<bool>(),
                 "given numpy array has byte order different from the native byte order. "
                 "Conversion between byte orders is currently not supported.");
  const auto kind = dtype.attr("kind").cast<std::string>();
  const auto size = dtype.attr("itemsize").cast<long>();
  if (!numpy_dtype_supported(kind.empty() ? '\0' : kind[0], size)) {
    const auto name = dtype.attr("type").attr("__name__").cast<std::string>();
    throw TypeError("can't convert np.ndarray of type numpy." + name +
                    ". The only supported types are: float64, float32, float16, int64, int32, "
                    "int16, int8, uint8, and bool.");
  }
  if (warn_if_not_writeable && !array.attr("flags").attr("writeable").cast<bool>()) {
    // Once per process, as PyTorch's TORCH_WARN_ONCE.
    static bool warned = false;
    if (!warned) {
      warned = true;
      if (PyErr_WarnEx(PyExc_UserWarning,
                       "The given NumPy array is not writable, and TensorPlay does not support "
                       "non-writable tensors. This means writing to this tensor will result in "
                       "undefined behavior. You may want to copy the array to protect its data "
                       "or make it writable before converting it to a tensor. This type of "
                       "warning will be suppressed for the rest of this program.",
                       1) < 0) {
        throw py::error_already_set();  // warnings turned into errors
      }
    }
  }
  Tensor t = tensor_from_buffer(obj);
  if (t.numel() == 0) {
    // NumPy's buffer export invents row-major strides for an empty array; torch reads the
    // array's own (zeros for np.zeros((2, 0, 3))).
    std::vector<int64_t> elements;
    for (const py::handle stride : array.attr("strides")) {
      elements.push_back(stride.cast<int64_t>() / static_cast<int64_t>(t.itemsize()));
    }
    t = tensorplay::detail::make_tensor(t.storage(), t.dtype(), t.sizes(), elements, 0);
  }
  return t;
}

void tensor_releasebuffer(PyObject*, Py_buffer* view) {
  delete static_cast<BufferInternal*>(view->internal);
  view->internal = nullptr;
}

int tensor_getbuffer(PyObject* self, Py_buffer* view, int flags) {
  if (!view) {
    PyErr_SetString(PyExc_BufferError, "tensorplay.Tensor: NULL Py_buffer");
    return -1;
  }
  const Tensor& t = unchecked_tensor(self);
  if (!t.is_cpu()) {
    return buffer_error(view, "can't export a " + t.device().str() +
                                  " tensor through the buffer protocol; copy it to the host "
                                  "first with Tensor.cpu()");
  }
  const char* format = buffer_format(t.dtype());
  if (!format) {
    return buffer_error(view, std::string("tensorplay.Tensor of dtype ") +
                                  std::string(dtype_name(t.dtype())) +
                                  " cannot be exported through the buffer protocol (neither "
                                  "Python nor NumPy has a bfloat16 type); convert it first, "
                                  "e.g. t.float()");
  }
  TP_PY_TRY
  const auto ndim = static_cast<std::size_t>(t.dim());
  const auto item = static_cast<Py_ssize_t>(t.element_size());
  auto internal = std::make_unique<BufferInternal>();
  internal->storage = t.storage();
  internal->shape_and_strides.resize(2 * ndim);
  for (std::size_t i = 0; i < ndim; ++i) {
    internal->shape_and_strides[i] = static_cast<Py_ssize_t>(t.size(static_cast<int64_t>(i)));
    internal->shape_and_strides[ndim + i] =
        static_cast<Py_ssize_t>(t.stride(static_cast<int64_t>(i))) * item;
  }
  view->buf = t.numel() ? t.data_ptr() : nullptr;
  view->len = static_cast<Py_ssize_t>(t.numel()) * item;
  view->itemsize = item;
  view->readonly = 0;
  view->ndim = static_cast<int>(ndim);
  view->format = (flags & PyBUF_FORMAT) ? const_cast<char*>(format) : nullptr;
  view->shape = ndim ? internal->shape_and_strides.data() : nullptr;
  view->strides = ndim ? internal->shape_and_strides.data() + ndim : nullptr;
  view->suboffsets = nullptr;
  // The contiguity the consumer asked for, checked on the geometry just filled in (size-1
  // dims and empty tensors count as contiguous, as in NumPy).
  const int contiguity =
      flags & (PyBUF_C_CONTIGUOUS | PyBUF_F_CONTIGUOUS | PyBUF_ANY_CONTIGUOUS) & ~PyBUF_STRIDES;
  const char* refused = nullptr;
  if (contiguity == (PyBUF_C_CONTIGUOUS & ~PyBUF_STRIDES)) {
    if (!PyBuffer_IsContiguous(view, 'C')) refused = "C-contiguous";
  } else if (contiguity == (PyBUF_F_CONTIGUOUS & ~PyBUF_STRIDES)) {
    if (!PyBuffer_IsContiguous(view, 'F')) refused = "Fortran-contiguous";
  } else if (contiguity == (PyBUF_ANY_CONTIGUOUS & ~PyBUF_STRIDES)) {
    if (!PyBuffer_IsContiguous(view, 'A')) refused = "contiguous";
  }
  if (!refused && (flags & PyBUF_STRIDES) != PyBUF_STRIDES && !PyBuffer_IsContiguous(view, 'C')) {
    // A consumer that takes no strides reads the bytes as row-major.
    refused = "C-contiguous (the consumer does not take strides)";
  }
  if (refused) {
    return buffer_error(view, std::string("tensorplay.Tensor: the buffer consumer needs a ") +
                                  refused +
                                  " buffer and this tensor is not; call .contiguous() first");
  }
  if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES) view->strides = nullptr;
  if ((flags & PyBUF_ND) != PyBUF_ND) {
    // PyBUF_SIMPLE: one flat run of bytes, as PyBuffer_FillInfo describes it.
    view->ndim = 1;
    view->shape = nullptr;
  }
  view->internal = internal.release();
  Py_INCREF(self);
  view->obj = self;
  return 0;
  TP_PY_CATCH((view->obj = nullptr, -1))
}

void register_interop(const Target& t) {
  Registry::method(t.type, t.module, "numpy",
                   overload("self, *, force=False",
                            [](PyObject* self, bool force) { return tensor_numpy(self, force); }));
  Registry::function(t.module, "from_numpy",
                     overload("ndarray", [](PyObject* obj) { return from_numpy(obj); }));
  // torch.as_tensor: no copy when it can be avoided. A tensor of the asked dtype and device comes
  // back as the same object (`to` returns self); an ndarray is shared as by from_numpy, then
  // converted if another dtype is asked for; any other data (NumPy scalars included) is copied
  // as by tp.tensor.
  Registry::function(
      t.module, "as_tensor",
      overload("data, *, dtype=None, device=None",
               [](PyObject* data, std::optional<DType> dtype, std::optional<Device> device) {
                 Tensor r;
                 if (is_tensor(data)) {
                   r = unchecked_tensor(data);
                 } else if (numpy_isinstance(data, "ndarray")) {
                   r = tensor_from_numpy(data, /*warn_if_not_writeable=*/true);
                 } else {
                   r = tensor_from_data(data, dtype, false);
                 }
                 return r.to(device.value_or(r.device()), dtype.value_or(r.dtype()));
               }));

  // self is taken as PyObject*: these entries call the C API, so the GIL must stay held
  // (a Tensor parameter would release it for big tensors).
  Registry::method(
      t.type, t.module, "__dlpack__",
      overload("self, stream=None, *, max_version=None, dl_device=None, copy=None",
               [](PyObject* self, PyObject* stream, PyObject* max_version, PyObject* dl_device,
                  PyObject* copy) {
                 const Tensor& tensor = unchecked_tensor(self);
                 TP_CHECK(!tensor.requires_grad(),
                          "Can't export tensors that require gradient, use tensor.detach()");
                 TP_CHECK_TYPE(stream == Py_None || PyLong_CheckExact(stream),
                               "stream must be ``int`` or ``none``");
                 TP_CHECK_TYPE(copy == Py_None || PyBool_Check(copy),
                               "__dlpack__(): copy must be None or a bool, not ",
                               Py_TYPE(copy)->tp_name);
                 const bool versioned = wants_versioned(max_version);
                 if (dl_device != Py_None) {
                   const DLDevice here = tensorplay::detail::dlpack_device(tensor.device());
                   const bool same =
                       PyTuple_Check(dl_device) && PyTuple_GET_SIZE(dl_device) == 2 &&
                       detail::is_int_like(PyTuple_GET_ITEM(dl_device, 0)) &&
                       detail::is_int_like(PyTuple_GET_ITEM(dl_device, 1)) &&
                       detail::load_int(PyTuple_GET_ITEM(dl_device, 0)) == here.device_type &&
                       detail::load_int(PyTuple_GET_ITEM(dl_device, 1)) == here.device_id;
                   if (!same) {
                     PyObject* repr = PyObject_Repr(dl_device);
                     std::string text = repr ? PyUnicode_AsUTF8(repr) : "?";
                     Py_XDECREF(repr);
                     PyErr_Clear();
                     PyErr_Format(PyExc_BufferError,
                                  "__dlpack__(): cannot export a tensor on (%d, %d) to "
                                  "dl_device=%s: cross-device export is not supported",
                                  static_cast<int>(here.device_type), here.device_id, text.c_str());
                     throw py::error_already_set();
                   }
                 }
#if TENSORPLAY_USE_CUDA
                 // The consumer's stream waits for the producer's queued work (torch's rule).
                 if (stream != Py_None && tensor.is_cuda()) {
                   cuda::dlpack_sync_producer(tensor, detail::load_int(stream));
                 }
#endif
                 if (copy == Py_True) {
                   return dlpack_export(tensor.detach().clone(), versioned, true);
                 }
                 return dlpack_export(tensor, versioned, false);
               }));
  Registry::method(t.type, t.module, "__dlpack_device__", overload("self", [](PyObject* self) {
                     const DLDevice d =
                         tensorplay::detail::dlpack_device(unchecked_tensor(self).device());
                     return std::tuple<int64_t, int64_t>{d.device_type, d.device_id};
                   }));
  // torch.to_dlpack: the legacy capsule, without __dlpack__'s requires_grad check (as torch).
  Registry::function(t.module, "to_dlpack", overload("tensor", [](PyObject* obj) {
                       return dlpack_export(tensor_arg(obj, "to_dlpack"), false, false);
                     }));
  Registry::function(
      t.module, "from_dlpack", overload("ext_tensor", [](PyObject* ext) -> PyObject* {
        py::object capsule;
        if (PyCapsule_CheckExact(ext)) {
          capsule = py::reinterpret_borrow<py::object>(ext);
        } else if (PyObject_HasAttrString(ext, "__dlpack__")) {
          const py::object method = py::handle(ext).attr("__dlpack__");
          py::object stream = py::none();
#if TENSORPLAY_USE_CUDA
          // A CUDA producer is told the stream we will use (our current one), as torch does.
          if (PyObject_HasAttrString(ext, "__dlpack_device__")) {
            const py::tuple where = py::handle(ext).attr("__dlpack_device__")();
            if (where.size() == 2 && where[0].cast<int64_t>() == kDLCUDA) {
              stream = py::int_(
                  cuda::dlpack_consumer_stream(static_cast<DeviceIndex>(where[1].cast<int64_t>())));
            }
          }
#endif
          const auto call = [&](bool with_max_version) {
            py::dict kwargs;
            if (!stream.is_none()) kwargs["stream"] = stream;
            if (with_max_version) {
              kwargs["max_version"] = py::make_tuple(kDLPackMajorVersion, kDLPackMinorVersion);
            }
            return method(**kwargs);
          };
          try {
            capsule = call(true);
          } catch (py::error_already_set& e) {
            // Producers before the DLPack 1.0 protocol (NumPy < 1.25, torch < 2.4) have no
            // max_version and only make legacy capsules.
            if (!e.matches(PyExc_TypeError)) throw;
            capsule = call(false);
          }
        } else {
          invalid_capsule();
        }
        if (!PyCapsule_CheckExact(capsule.ptr())) invalid_capsule();
        return wrap(tensor_from_capsule(capsule.ptr()));
      }));

  // ---- private helpers of _tensor.py (pickling, copy, deepcopy) ------------------------------
  // The values, row-major, as bytes (any dtype, bfloat16 included).
  Registry::function(t.module, "_tensor_to_bytes", overload("tensor", [](PyObject* obj) {
                       const Tensor c = tensor_arg(obj, "_tensor_to_bytes").detach().contiguous();
                       return py::bytes(static_cast<const char*>(c.data_ptr()),
                                        static_cast<py::ssize_t>(c.nbytes()))
                           .release()
                           .ptr();
                     }));
  // The whole storage as bytes: what a pickle holds, as torch pickles storages, so a view comes
  // back with its strides and offset.
  Registry::function(t.module, "_storage_to_bytes", overload("tensor", [](PyObject* obj) {
                       const Storage& s = tensor_arg(obj, "_storage_to_bytes").storage();
                       return py::bytes(static_cast<const char*>(s.data()),
                                        static_cast<py::ssize_t>(s.nbytes()))
                           .release()
                           .ptr();
                     }));
  // The inverse of either: a new tensor of `cls` (a Tensor subclass, or Tensor when None) over a
  // copy of the bytes, contiguous (the bytes are its values) or with the given geometry (the
  // bytes are its storage).
  Registry::function(
      t.module, "_tensor_from_bytes",
      overload("data, dtype, size, cls=None, stride=None, storage_offset=0",
               [](PyObject* data, DType dtype, IntArrayRef size, PyObject* cls,
                  std::optional<IntArrayRef> stride, int64_t storage_offset) -> PyObject* {
                 TP_CHECK_TYPE(PyBytes_Check(data),
                               "_tensor_from_bytes(): data must be bytes, "
                               "not ",
                               Py_TYPE(data)->tp_name);
                 auto* type = cls == Py_None ? tensor_type() : reinterpret_cast<PyTypeObject*>(cls);
                 TP_CHECK_TYPE(
                     cls == Py_None || (PyType_Check(cls) && PyType_IsSubtype(type, tensor_type())),
                     "_tensor_from_bytes(): cls must be a subclass of Tensor");
                 const auto nbytes = static_cast<std::size_t>(PyBytes_GET_SIZE(data));
                 Tensor out;
                 if (!stride) {
                   out = empty(size, TensorOptions().dtype(dtype));
                   TP_CHECK_VALUE(nbytes == out.nbytes(), "_tensor_from_bytes(): ", nbytes,
                                  " bytes do not make a tensor of size ", size, " and dtype ",
                                  dtype_name(dtype));
                   if (nbytes) std::memcpy(out.data_ptr(), PyBytes_AS_STRING(data), nbytes);
                 } else {
                   bool valid = storage_offset >= 0 && stride->size() == size.size();
                   for (const int64_t st : *stride) valid = valid && st >= 0;
                   TP_CHECK_VALUE(
                       valid && tensorplay::detail::storage_nbytes(size, *stride, itemsize(dtype),
                                                                   storage_offset) <= nbytes,
                       "_tensor_from_bytes(): ", nbytes,
                       " bytes of storage do not hold a tensor of size ", size, ", stride ",
                       *stride, ", offset ", storage_offset, " and dtype ", dtype_name(dtype));
                   Storage storage(use_byte_size, nbytes);
                   if (nbytes) std::memcpy(storage.mutable_data(), PyBytes_AS_STRING(data), nbytes);
                   out = tensorplay::detail::make_tensor(std::move(storage), dtype, size, *stride,
                                                         storage_offset);
                 }
                 // torch's rebuild installs the storage with set_, a version bump: an unpickled
                 // tensor reports _version 1 whatever the original's was.
                 out.unsafeGetTensorImpl()->bump_version();
                 return make_tensor_object(type, std::move(out));
               }));
  // Storage aliasing for deepcopy, as torch's storage-level memo: views of one storage deep-copy
  // to views of one new storage.
  Registry::function(t.module, "_storage_key", overload("tensor", [](PyObject* obj) {
                       return reinterpret_cast<std::intptr_t>(
                           tensor_arg(obj, "_storage_key").storage().unsafeGetStorageImpl());
                     }));
  // A copy of the whole storage, held by a 1-d uint8 tensor.
  Registry::function(t.module, "_storage_copy", overload("tensor", [](PyObject* obj) {
                       const Storage& src = tensor_arg(obj, "_storage_copy").storage();
                       const auto n = src.nbytes();
                       Storage copy(use_byte_size, n);
                       if (n) std::memcpy(copy.mutable_data(), src.data(), n);
                       return tensorplay::detail::make_tensor(std::move(copy), kByte,
                                                              {static_cast<int64_t>(n)}, {1});
                     }));
  // A new tensor of like's type, dtype and geometry over owner's storage (copy.copy, deepcopy).
  Registry::function(
      t.module, "_storage_alias", overload("owner, like", [](PyObject* owner, PyObject* like) {
        const Tensor& o = tensor_arg(owner, "_storage_alias");
        const Tensor& l = tensor_arg(like, "_storage_alias");
        TP_CHECK_VALUE(
            tensorplay::detail::storage_nbytes(l.sizes(), l.strides(), l.itemsize(),
                                               l.storage_offset()) <= o.storage().nbytes(),
            "_storage_alias(): the owner's storage is too small for the geometry");
        Tensor alias = tensorplay::detail::make_tensor(o.storage(), l.dtype(), l.sizes(),
                                                       l.strides(), l.storage_offset());
        // torch's copy and deepcopy go through set_ (a version bump), so the copy reports 1.
        alias.unsafeGetTensorImpl()->bump_version();
        return make_tensor_object(Py_TYPE(like), std::move(alias));
      }));
}

}  // namespace tensorplay::python::bindings
