"""Zero-copy exchange (buffer protocol, NumPy, DLPack), pickling and copying of tensorplay.Tensor.

NumPy and torch are optional: the tests that need them are skipped without them.
"""
import copy
import ctypes
import gc
import os
import pickle
import subprocess
import sys
import unittest
import warnings
import weakref

import tensorplay as tp

try:
    import numpy as np
except ImportError:  # pragma: no cover
    np = None
try:
    import torch
    import torch.utils.dlpack as torch_dlpack
except ImportError:  # pragma: no cover
    torch = None

needs_numpy = unittest.skipIf(np is None, "numpy is not installed")
needs_torch = unittest.skipIf(torch is None or np is None, "torch is not installed")

# tensorplay dtype -> (buffer format, itemsize, numpy dtype name)
FORMATS = [
    (tp.bool, "?", 1, "bool"),
    (tp.uint8, "B", 1, "uint8"),
    (tp.int8, "b", 1, "int8"),
    (tp.int16, "h", 2, "int16"),
    (tp.int32, "i", 4, "int32"),
    (tp.int64, "l", 8, "int64"),
    (tp.float16, "e", 2, "float16"),
    (tp.float32, "f", 4, "float32"),
    (tp.float64, "d", 8, "float64"),
]
ALL_DTYPES = [d for d, *_ in FORMATS] + [tp.bfloat16]


def values(dtype, n=6):
    if dtype == tp.bool:
        return [bool(i % 2) for i in range(n)]
    if dtype.is_floating_point:
        return [i * 0.5 - 1 for i in range(n)]
    return [i * 3 - (0 if dtype == tp.uint8 else 4) for i in range(n)]


def capsule_name(capsule):
    return repr(capsule).split('"')[1]


# ---- raw buffer requests with chosen flags (memoryview always asks PyBUF_FULL_RO) -------------
class Py_buffer(ctypes.Structure):
    _fields_ = [
        ("buf", ctypes.c_void_p),
        ("obj", ctypes.c_void_p),
        ("len", ctypes.c_ssize_t),
        ("itemsize", ctypes.c_ssize_t),
        ("readonly", ctypes.c_int),
        ("ndim", ctypes.c_int),
        ("format", ctypes.c_char_p),
        ("shape", ctypes.POINTER(ctypes.c_ssize_t)),
        ("strides", ctypes.POINTER(ctypes.c_ssize_t)),
        ("suboffsets", ctypes.POINTER(ctypes.c_ssize_t)),
        ("internal", ctypes.c_void_p),
    ]


PyBUF_SIMPLE, PyBUF_WRITABLE, PyBUF_FORMAT, PyBUF_ND = 0, 0x1, 0x4, 0x8
PyBUF_STRIDES = 0x10 | PyBUF_ND
PyBUF_C_CONTIGUOUS = 0x20 | PyBUF_STRIDES
PyBUF_F_CONTIGUOUS = 0x40 | PyBUF_STRIDES
PyBUF_ANY_CONTIGUOUS = 0x80 | PyBUF_STRIDES
PyBUF_RECORDS = PyBUF_STRIDES | PyBUF_WRITABLE | PyBUF_FORMAT

_get_buffer = ctypes.pythonapi.PyObject_GetBuffer
_get_buffer.argtypes = [ctypes.py_object, ctypes.POINTER(Py_buffer), ctypes.c_int]
_get_buffer.restype = ctypes.c_int
_release_buffer = ctypes.pythonapi.PyBuffer_Release
_release_buffer.argtypes = [ctypes.POINTER(Py_buffer)]
_release_buffer.restype = None


def request(obj, flags):
    """(ndim, shape, strides, format, len) of a buffer obtained with `flags`, then released."""
    view = Py_buffer()
    _get_buffer(obj, ctypes.byref(view), flags)  # raises the exporter's error
    try:
        shape = None if not view.shape else tuple(view.shape[i] for i in range(view.ndim))
        strides = None if not view.strides else tuple(view.strides[i] for i in range(view.ndim))
        fmt = view.format.decode() if view.format else None
        return view.ndim, shape, strides, fmt, view.len
    finally:
        _release_buffer(ctypes.byref(view))


class TestBufferProtocol(unittest.TestCase):
    def test_formats_shapes_strides(self):
        for dtype, fmt, size, _ in FORMATS:
            t = tp.tensor(values(dtype), dtype=dtype).view(2, 3)
            m = memoryview(t)
            self.assertEqual(m.format, fmt, dtype)
            self.assertEqual(m.itemsize, size)
            self.assertEqual(m.shape, (2, 3))
            self.assertEqual(m.strides, (3 * size, size))
            self.assertEqual(m.nbytes, 6 * size)
            self.assertFalse(m.readonly)
            self.assertIs(m.obj, t)
            m.release()

    def test_non_contiguous_strides_in_bytes(self):
        t = tp.tensor(values(tp.int32, 12), dtype=tp.int32).view(3, 4)
        m = memoryview(t.t())
        self.assertEqual(m.shape, (4, 3))
        self.assertEqual(m.strides, (4, 16))
        self.assertFalse(m.c_contiguous)
        self.assertEqual(m.tolist(), t.t().tolist())
        n = memoryview(t.narrow(1, 1, 2))  # storage offset
        self.assertEqual(n.tolist(), [r[1:3] for r in t.tolist()])

    def test_zero_dim_and_empty(self):
        m = memoryview(tp.tensor(2.5, dtype=tp.float64))
        self.assertEqual(m.ndim, 0)
        self.assertEqual(m.shape, ())
        self.assertEqual(m.tolist(), 2.5)
        e = memoryview(tp.empty(0, 3))
        self.assertEqual(e.shape, (0, 3))
        self.assertEqual(e.nbytes, 0)

    def test_writes_go_both_ways(self):
        t = tp.tensor([1, 2, 3], dtype=tp.int64)
        m = memoryview(t)
        m[0] = 10
        self.assertEqual(t.tolist(), [10, 2, 3])
        t[2] = 30
        self.assertEqual(m.tolist(), [10, 2, 30])

    def test_bfloat16_refused(self):
        t = tp.tensor([1.0, 2.0], dtype=tp.bfloat16)
        with self.assertRaisesRegex(BufferError, "bfloat16 cannot be exported through the buffer"):
            memoryview(t)

    def test_flags(self):
        t = tp.tensor(values(tp.float32, 6)).view(2, 3)
        tt = t.t()
        self.assertEqual(request(t, PyBUF_RECORDS), (2, (2, 3), (12, 4), "f", 24))
        self.assertEqual(request(tt, PyBUF_RECORDS), (2, (3, 2), (4, 12), "f", 24))
        # No PyBUF_FORMAT: format NULL; no strides asked: strides NULL; SIMPLE: flat bytes.
        self.assertEqual(request(t, PyBUF_ND), (2, (2, 3), None, None, 24))
        self.assertEqual(request(t, PyBUF_SIMPLE), (1, None, None, None, 24))
        self.assertEqual(request(t, PyBUF_WRITABLE)[4], 24)
        self.assertEqual(request(t, PyBUF_C_CONTIGUOUS)[2], (12, 4))
        self.assertEqual(request(tt, PyBUF_F_CONTIGUOUS)[2], (4, 12))
        self.assertEqual(request(tt, PyBUF_ANY_CONTIGUOUS)[2], (4, 12))
        with self.assertRaisesRegex(BufferError, "needs a C-contiguous buffer"):
            request(tt, PyBUF_C_CONTIGUOUS)
        with self.assertRaisesRegex(BufferError, "needs a Fortran-contiguous buffer"):
            request(t, PyBUF_F_CONTIGUOUS)
        strided = t.as_strided((2, 2), (3, 2))  # neither C nor F contiguous
        with self.assertRaisesRegex(BufferError, "needs a contiguous buffer"):
            request(strided, PyBUF_ANY_CONTIGUOUS)
        with self.assertRaisesRegex(BufferError, "does not take strides"):
            request(tt, PyBUF_ND)
        with self.assertRaisesRegex(BufferError, "does not take strides"):
            request(tt, PyBUF_SIMPLE)
        # Size-1 dims never count against contiguity.
        row = t.as_strided((1, 3), (100, 1))
        self.assertEqual(request(row, PyBUF_C_CONTIGUOUS)[1:3], ((1, 3), (400, 4)))
        self.assertEqual(request(row, PyBUF_ND)[1], (1, 3))
        with self.assertRaisesRegex(BufferError, "needs a C-contiguous buffer"):
            request(t.narrow(1, 0, 1), PyBUF_C_CONTIGUOUS)
        self.assertEqual(bytes(memoryview(t)), bytes(memoryview(t.contiguous())))

    def test_view_keeps_storage_alive(self):
        t = tp.tensor([1.5, 2.5, 3.5], dtype=tp.float64)
        ref = weakref.ref(t)
        m = memoryview(t)
        del t
        gc.collect()
        self.assertIsNotNone(ref())  # view.obj holds the tensor
        self.assertEqual(m.tolist(), [1.5, 2.5, 3.5])
        m.release()
        del m
        gc.collect()
        self.assertIsNone(ref())

    def test_requires_grad_exports(self):
        # Only numpy() refuses requires_grad (torch's rule); the buffer is raw memory.
        t = tp.tensor([1.0, 2.0], requires_grad=True)
        self.assertEqual(memoryview(t).tolist(), [1.0, 2.0])


@needs_numpy
class TestNumpy(unittest.TestCase):
    def test_numpy_dtypes_and_values(self):
        for dtype, _, _, npname in FORMATS:
            t = tp.tensor(values(dtype), dtype=dtype).view(2, 3)
            a = t.numpy()
            self.assertIsInstance(a, np.ndarray)
            self.assertEqual(a.dtype, np.dtype(npname), dtype)
            self.assertEqual(a.tolist(), t.tolist())
            self.assertTrue(a.flags.writeable)
            self.assertTrue(a.flags.c_contiguous)

    def test_numpy_shares_memory(self):
        t = tp.tensor([1.0, 2.0, 3.0])
        a = t.numpy()
        a[0] = 100
        self.assertEqual(t.tolist(), [100.0, 2.0, 3.0])
        t[1] = -5
        self.assertEqual(a.tolist(), [100.0, -5.0, 3.0])
        b = t.numpy()
        self.assertTrue(np.shares_memory(a, b))

    def test_numpy_non_contiguous_zero_dim_empty(self):
        t = tp.tensor(values(tp.int16, 12), dtype=tp.int16).view(3, 4)
        a = t.t().numpy()
        self.assertEqual(a.strides, (2, 8))
        self.assertEqual(a.tolist(), t.t().tolist())
        z = tp.tensor(7, dtype=tp.int32).numpy()
        self.assertEqual(z.shape, ())
        self.assertEqual(z.item(), 7)
        self.assertEqual(tp.empty(0, 2).numpy().shape, (0, 2))

    def test_numpy_errors(self):
        t = tp.tensor([1.0], requires_grad=True)
        with self.assertRaisesRegex(
            RuntimeError,
            r"^Can't call numpy\(\) on Tensor that requires grad\. "
            r"Use tensor\.detach\(\)\.numpy\(\) instead\.$",
        ):
            t.numpy()
        with self.assertRaisesRegex(RuntimeError, "requires grad"):
            t.__array__()
        # np.asarray reads the buffer protocol before __array__, and the buffer does not look
        # at autograd (unlike torch, which has no buffer protocol and refuses here).
        self.assertEqual(np.asarray(t).tolist(), [1.0])
        a = t.numpy(force=True)  # force detaches
        self.assertEqual(a.tolist(), [1.0])
        with self.assertRaisesRegex(TypeError, "^Got unsupported ScalarType BFloat16$"):
            tp.tensor([1.0], dtype=tp.bfloat16).numpy()
        with self.assertRaisesRegex(TypeError, "takes 0 positional arguments"):
            tp.tensor([1.0]).numpy(True)  # force is keyword-only, as in torch

    def test_asarray_and_array_method(self):
        t = tp.tensor([[1, 2], [3, 4]], dtype=tp.int32)
        a = np.asarray(t)
        self.assertEqual(a.dtype, np.int32)
        a[0, 0] = 9
        self.assertEqual(t.tolist()[0][0], 9)
        f = np.asarray(t, dtype=np.float64)
        self.assertEqual(f.dtype, np.float64)
        self.assertEqual(t.__array__().dtype, np.int32)
        self.assertEqual(t.__array__(np.float32).dtype, np.float32)
        self.assertEqual(np.array(t).tolist(), [[9, 2], [3, 4]])
        # bfloat16 has no buffer format: NumPy falls back to __array__ -> numpy()'s TypeError.
        with self.assertRaisesRegex(TypeError, "BFloat16"):
            np.asarray(tp.tensor([1.0], dtype=tp.bfloat16))

    def test_array_keeps_tensor_alive(self):
        t = tp.tensor([1.0, 2.0, 3.0], dtype=tp.float64)
        ref = weakref.ref(t)
        a = t.numpy()
        del t
        gc.collect()
        self.assertEqual(a.tolist(), [1.0, 2.0, 3.0])
        a[1] = 20
        self.assertEqual(a.tolist(), [1.0, 20.0, 3.0])
        del a
        gc.collect()
        self.assertIsNone(ref())

    def test_from_numpy_dtypes(self):
        for dtype, _, _, npname in FORMATS:
            a = np.array(values(dtype), dtype=npname).reshape(2, 3)
            t = tp.from_numpy(a)
            self.assertEqual(t.dtype, dtype)
            self.assertEqual(t.tolist(), a.tolist())
            self.assertEqual(t.stride(), (3, 1))
        self.assertEqual(tp.from_numpy(np.zeros(2, dtype=np.longlong)).dtype, tp.int64)
        self.assertEqual(tp.from_numpy(np.zeros(2, dtype=np.intc)).dtype, tp.int32)

    def test_from_numpy_shares_memory(self):
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        t = tp.from_numpy(a)
        t[0, 0] = 42
        self.assertEqual(a[0, 0], 42)
        a[1, 2] = -1
        self.assertEqual(t.tolist()[1][2], -1)
        self.assertTrue(np.shares_memory(t.numpy(), a))

    def test_from_numpy_strided_zero_dim_empty(self):
        a = np.arange(24, dtype=np.int64).reshape(4, 6)
        v = a[1:, ::2]
        t = tp.from_numpy(v)
        self.assertEqual(t.tolist(), v.tolist())
        self.assertEqual(t.stride(), (6, 2))
        self.assertEqual(tp.from_numpy(a.T).stride(), (1, 6))
        z = tp.from_numpy(np.array(3.5))
        self.assertEqual(z.dim(), 0)
        self.assertEqual(z.item(), 3.5)
        self.assertEqual(tuple(tp.from_numpy(np.zeros((0, 4))).shape), (0, 4))

    def test_from_numpy_keeps_array_alive(self):
        a = np.arange(5, dtype=np.float64)
        ref = weakref.ref(a)
        t = tp.from_numpy(a)
        del a
        gc.collect()
        self.assertIsNotNone(ref())
        self.assertEqual(t.tolist(), [0.0, 1.0, 2.0, 3.0, 4.0])
        t[0] = 7
        self.assertEqual(t.tolist()[0], 7.0)
        v = t.narrow(0, 1, 2)  # a view keeps the array too
        del t
        gc.collect()
        self.assertIsNotNone(ref())
        self.assertEqual(v.tolist(), [1.0, 2.0])
        del v
        gc.collect()
        self.assertIsNone(ref())

    def test_from_numpy_errors(self):
        with self.assertRaisesRegex(TypeError, r"^expected np\.ndarray \(got list\)$"):
            tp.from_numpy([1, 2])
        with self.assertRaisesRegex(TypeError, r"expected np\.ndarray \(got Tensor\)"):
            tp.from_numpy(tp.tensor([1]))
        with self.assertRaisesRegex(
            TypeError,
            r"^can't convert np\.ndarray of type numpy\.uint16\. The only supported types are: "
            r"float64, float32, float16, int64, int32, int16, int8, uint8, and bool\.$",
        ):
            tp.from_numpy(np.zeros(2, dtype=np.uint16))
        for bad, name in [(np.complex64, "complex64"), (np.object_, "object_"),
                          (np.uint64, "uint64")]:
            with self.assertRaisesRegex(TypeError, "of type numpy." + name):
                tp.from_numpy(np.zeros(2, dtype=bad))
        with self.assertRaisesRegex(TypeError, "numpy.void"):
            tp.from_numpy(np.zeros(2, dtype=[("a", np.int16), ("b", np.int16)]))
        with self.assertRaisesRegex(ValueError, "^At least one stride in the given numpy array "
                                                "is negative"):
            tp.from_numpy(np.arange(3)[::-1])
        with self.assertRaisesRegex(ValueError, "byte order different from the native"):
            tp.from_numpy(np.zeros(2, dtype=">f4"))
        raw = np.zeros(8, dtype=np.uint8)
        odd = np.lib.stride_tricks.as_strided(raw[:6].view(np.int16), shape=(2,), strides=(3,))
        with self.assertRaisesRegex(ValueError, "not a multiple of the element byte size"):
            tp.from_numpy(odd)

    def test_from_numpy_readonly_warns_once(self):
        code = (
            "import warnings, numpy as np, tensorplay as tp\n"
            "a = np.arange(3.0); a.flags.writeable = False\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    t = tp.from_numpy(a); tp.from_numpy(a)\n"
            "assert t.tolist() == [0.0, 1.0, 2.0]\n"
            "assert len(w) == 1 and w[0].category is UserWarning, w\n"
            "print(str(w[0].message))\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=dict(os.environ))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("The given NumPy array is not writable", out.stdout)

    def test_round_trip(self):
        a = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
        b = tp.from_numpy(a).numpy()
        self.assertTrue(np.shares_memory(a, b))
        np.testing.assert_array_equal(a, b)

    def test_no_leaks(self):
        a = np.arange(64, dtype=np.float32)
        gc.collect()
        cache = tp._C._identity_cache_size()
        refs = sys.getrefcount(a)
        for _ in range(10000):
            t = tp.from_numpy(a)
            b = t.numpy()
            c = np.asarray(t)
            m = memoryview(t)
            u = tp.from_dlpack(t.__dlpack__())
            w = np.from_dlpack(u)
            cap = t.__dlpack__(max_version=(1, 0))  # never consumed: its destructor frees it
            del t, b, c, m, u, w, cap
        gc.collect()
        self.assertEqual(tp._C._identity_cache_size(), cache)
        self.assertEqual(sys.getrefcount(a), refs)


# ---- DLPack ---------------------------------------------------------------------------------------
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_new.restype = ctypes.py_object
_LEGACY_NAME = b"dltensor"  # PyCapsule_New keeps the pointer: the bytes must outlive the capsule


class ForeignProducer:
    """A hand-made legacy capsule over 4 float32s, counting its deleter's calls."""

    def __init__(self, code=2, bits=32):
        self.data = (ctypes.c_float * 4)(1.0, 2.0, 3.0, 4.0)
        self.shape = (ctypes.c_int64 * 1)(4)
        self.calls = 0

        def deleter(_):
            self.calls += 1

        self.deleter = DELETER(deleter)
        self.managed = DLManagedTensor()
        dl = self.managed.dl_tensor
        dl.data = ctypes.addressof(self.data)
        dl.device = DLDevice(1, 0)
        dl.ndim = 1
        dl.dtype = DLDataType(code, bits, 1)
        dl.shape = self.shape
        dl.strides = None
        self.managed.deleter = self.deleter
        self.capsule = _capsule_new(ctypes.addressof(self.managed), _LEGACY_NAME, None)


class TestDLPack(unittest.TestCase):
    def test_capsules(self):
        t = tp.tensor([1.0, 2.0])
        self.assertEqual(capsule_name(t.__dlpack__()), "dltensor")
        self.assertEqual(capsule_name(t.__dlpack__(None)), "dltensor")
        self.assertEqual(capsule_name(t.__dlpack__(stream=-1)), "dltensor")
        self.assertEqual(capsule_name(t.__dlpack__(max_version=(1, 0))), "dltensor_versioned")
        self.assertEqual(capsule_name(t.__dlpack__(max_version=(1, 3))), "dltensor_versioned")
        self.assertEqual(capsule_name(t.__dlpack__(max_version=(0, 8))), "dltensor")
        self.assertEqual(capsule_name(tp.to_dlpack(t)), "dltensor")
        self.assertEqual(t.__dlpack_device__(), (1, 0))

    def test_round_trip_consumes(self):
        for dtype in ALL_DTYPES:
            t = tp.tensor(values(dtype), dtype=dtype).view(2, 3)
            for kw in ({}, {"max_version": (1, 0)}):
                cap = t.__dlpack__(**kw)
                u = tp.from_dlpack(cap)
                self.assertEqual(capsule_name(cap), "used_" + capsule_name(t.__dlpack__(**kw)))
                self.assertEqual(u.dtype, dtype)
                self.assertEqual(u.tolist(), t.tolist())
                self.assertEqual(u.data_ptr(), t.data_ptr())
                with self.assertRaisesRegex(
                    RuntimeError,
                    r"^from_dlpack received an invalid capsule\. Note that DLTensor capsules can "
                    r"be consumed only once, so you might have already constructed a tensor "
                    r"from it once\.$",
                ):
                    tp.from_dlpack(cap)

    def test_from_object_with_dlpack(self):
        t = tp.tensor([[1, 2, 3], [4, 5, 6]], dtype=tp.int32)
        u = tp.from_dlpack(t.t())
        self.assertIsNot(u, t)
        self.assertEqual(u.stride(), (1, 3))
        self.assertEqual(u.tolist(), t.t().tolist())
        u[0, 0] = 99
        self.assertEqual(t.tolist()[0][0], 99)
        z = tp.from_dlpack(tp.tensor(5.0))
        self.assertEqual(z.dim(), 0)
        self.assertEqual(z.item(), 5.0)

    def test_export_options(self):
        t = tp.tensor([1.0, 2.0])
        copied = tp.from_dlpack(t.__dlpack__(copy=True))
        copied[0] = 50
        self.assertEqual(t.tolist(), [1.0, 2.0])
        shared = tp.from_dlpack(t.__dlpack__(copy=False, dl_device=(1, 0)))
        shared[0] = 50
        self.assertEqual(t.tolist(), [50.0, 2.0])

    def test_export_errors(self):
        g = tp.tensor([1.0], requires_grad=True)
        with self.assertRaisesRegex(
            RuntimeError, r"^Can't export tensors that require gradient, use tensor\.detach\(\)$"
        ):
            g.__dlpack__()
        self.assertEqual(capsule_name(g.detach().__dlpack__()), "dltensor")
        self.assertEqual(capsule_name(tp.to_dlpack(g)), "dltensor")  # as torch.to_dlpack
        t = tp.tensor([1.0])
        with self.assertRaisesRegex(TypeError, r"^stream must be ``int`` or ``none``$"):
            t.__dlpack__(stream="s")
        with self.assertRaisesRegex(TypeError, "max_version must be None or a tuple"):
            t.__dlpack__(max_version=1)
        with self.assertRaisesRegex(TypeError, "max_version must be None or a tuple"):
            t.__dlpack__(max_version=(1.0, 0))
        with self.assertRaisesRegex(TypeError, "copy must be None or a bool"):
            t.__dlpack__(copy=1)
        with self.assertRaisesRegex(BufferError, "cross-device export is not supported"):
            t.__dlpack__(dl_device=(2, 0))
        with self.assertRaisesRegex(TypeError, "must be Tensor"):
            tp.to_dlpack([1.0])

    def test_from_dlpack_errors(self):
        with self.assertRaisesRegex(RuntimeError, "from_dlpack received an invalid capsule"):
            tp.from_dlpack(5)

        class Bad:
            def __dlpack__(self, stream=None):
                return "not a capsule"

        with self.assertRaisesRegex(RuntimeError, "from_dlpack received an invalid capsule"):
            tp.from_dlpack(Bad())

        class Raises:
            def __dlpack__(self, stream=None, max_version=None):
                raise BufferError("producer refuses")

        with self.assertRaisesRegex(BufferError, "producer refuses"):
            tp.from_dlpack(Raises())

    def test_foreign_capsule_ownership(self):
        p = ForeignProducer()
        t = tp.from_dlpack(p.capsule)
        self.assertEqual(capsule_name(p.capsule), "used_dltensor")
        self.assertEqual(t.tolist(), [1.0, 2.0, 3.0, 4.0])
        t[0] = 10
        self.assertEqual(p.data[0], 10.0)
        v = t.narrow(0, 1, 2)
        del t
        gc.collect()
        self.assertEqual(p.calls, 0)  # the view still uses the memory
        del v
        gc.collect()
        self.assertEqual(p.calls, 1)

    def test_failed_import_leaves_capsule_unconsumed(self):
        p = ForeignProducer(code=5, bits=64)  # complex: TensorPlay has no complex dtype
        with self.assertRaisesRegex(RuntimeError, "^Unsupported code 5$"):
            tp.from_dlpack(p.capsule)
        self.assertEqual(capsule_name(p.capsule), "dltensor")
        self.assertEqual(p.calls, 0)
        p2 = ForeignProducer(code=2, bits=8)
        with self.assertRaisesRegex(RuntimeError, "^Unsupported kFloat bits 8$"):
            tp.from_dlpack(p2.capsule)
        self.assertEqual(capsule_name(p2.capsule), "dltensor")

    def test_unconsumed_capsule_releases(self):
        t = tp.tensor([1.0, 2.0])
        ref = weakref.ref(t)
        for kw in ({}, {"max_version": (1, 0)}):
            cap = t.__dlpack__(**kw)
            del cap
        del t
        gc.collect()
        self.assertIsNone(ref())

    @needs_numpy
    def test_capsule_holds_storage(self):
        a = np.arange(4.0)
        refs = sys.getrefcount(a)
        t = tp.from_numpy(a)
        cap = t.__dlpack__()
        del t
        gc.collect()
        self.assertGreater(sys.getrefcount(a), refs)  # the unconsumed capsule holds the array
        u = tp.from_dlpack(cap)
        del cap
        gc.collect()
        self.assertGreater(sys.getrefcount(a), refs)  # now the importer does
        self.assertEqual(u.tolist(), [0.0, 1.0, 2.0, 3.0])
        del u
        gc.collect()
        self.assertEqual(sys.getrefcount(a), refs)

    @needs_numpy
    def test_numpy(self):
        t = tp.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tp.float64)
        a = np.from_dlpack(t)
        self.assertEqual(a.tolist(), t.tolist())
        t[0, 0] = -1  # numpy 1.24 marks DLPack imports read-only: write on our side
        self.assertEqual(a[0, 0], -1.0)
        at = np.from_dlpack(t.t())
        self.assertEqual(at.tolist(), t.t().tolist())
        # numpy 1.24's __dlpack__ takes no max_version: from_dlpack falls back to the legacy call.
        n = np.arange(6, dtype=np.int16).reshape(2, 3)[:, 1:]
        u = tp.from_dlpack(n)
        self.assertEqual(u.dtype, tp.int16)
        self.assertEqual(u.tolist(), n.tolist())
        u[0, 0] = 77
        self.assertEqual(n[0, 0], 77)
        ref = weakref.ref(t)
        del t
        gc.collect()
        self.assertIsNone(ref())  # the capsule holds the storage, not the Python object
        self.assertEqual(a.tolist(), [[-1.0, 2.0], [3.0, 4.0]])

    @needs_torch
    def test_torch(self):
        t = tp.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        x = torch.from_dlpack(t)
        self.assertEqual(x.tolist(), t.tolist())
        x[0, 0] = 100
        self.assertEqual(t.tolist()[0][0], 100.0)
        t[1, 2] = -6
        self.assertEqual(x[1, 2].item(), -6.0)
        y = torch_dlpack.from_dlpack(t.t().__dlpack__())
        self.assertEqual(y.stride(), (1, 3))
        self.assertEqual(y.tolist(), t.t().tolist())
        # torch -> tensorplay, through __dlpack__ (legacy fallback) and through a capsule
        s = torch.arange(12, dtype=torch.int64).view(3, 4)[:, ::2]
        u = tp.from_dlpack(s)
        self.assertEqual(u.tolist(), s.tolist())
        self.assertEqual(u.stride(), (4, 2))
        u[0, 0] = 55
        self.assertEqual(s[0, 0].item(), 55)
        v = tp.from_dlpack(torch.utils.dlpack.to_dlpack(torch.ones(2, dtype=torch.bfloat16)))
        self.assertEqual(v.dtype, tp.bfloat16)
        for dtype in ALL_DTYPES:
            if dtype == tp.bool:
                continue
            src = tp.tensor(values(dtype), dtype=dtype)
            self.assertEqual(tp.from_dlpack(torch.from_dlpack(src)).tolist(), src.tolist())
        # Lifetimes: the consumer keeps the memory, not the Python wrapper.
        ref = weakref.ref(t)
        del t
        gc.collect()
        self.assertIsNone(ref())
        self.assertEqual(x[0].tolist(), [100.0, 2.0, 3.0])

    @needs_torch
    @unittest.skipIf(torch is not None and not torch.__version__.startswith("1."), "torch 1.x")
    def test_torch_1x_has_no_bool(self):
        # torch 1.13's DLPack (v0.6) predates kDLBool: it can neither import nor export bool.
        b = tp.tensor([True, False])
        with self.assertRaisesRegex(RuntimeError, "Unsupported code 6"):
            torch.from_dlpack(b)
        with self.assertRaisesRegex(RuntimeError, "Bool type is not supported by dlpack"):
            tp.from_dlpack(torch.ones(2, dtype=torch.bool))
        self.assertEqual(tp.from_dlpack(b).tolist(), [True, False])  # TensorPlay to itself works


# ---- pickle / copy ----------------------------------------------------------------------------
class Sub(tp.Tensor):
    pass


class TestPickleCopy(unittest.TestCase):
    def assertSameTensor(self, a, b):
        self.assertEqual(type(a), type(b))
        self.assertEqual(a.dtype, b.dtype)
        self.assertEqual(tuple(a.shape), tuple(b.shape))
        self.assertEqual(a.tolist(), b.tolist())
        self.assertEqual(a.requires_grad, b.requires_grad)

    def test_pickle_every_dtype(self):
        for dtype in ALL_DTYPES:
            t = tp.tensor(values(dtype), dtype=dtype).view(2, 3)
            for proto in range(pickle.HIGHEST_PROTOCOL + 1):
                u = pickle.loads(pickle.dumps(t, protocol=proto))
                self.assertSameTensor(t, u)
                self.assertNotEqual(u.data_ptr(), t.data_ptr())

    def test_pickle_layouts(self):
        t = tp.tensor(values(tp.float32, 12)).view(3, 4)
        for src in (t.t(), t.narrow(1, 1, 2), tp.tensor(2.5), tp.empty(0, 3),
                    t.as_strided((2, 2), (0, 1))):
            u = pickle.loads(pickle.dumps(src))
            self.assertSameTensor(src, u)
            # torch pickles the storage: the geometry survives, over memory of its own
            self.assertEqual((u.stride(), u.storage_offset()), (src.stride(), src.storage_offset()))
            if src.numel():
                self.assertNotEqual(u.data_ptr(), src.data_ptr())

    def test_pickle_requires_grad(self):
        a = tp.tensor([1.0, 2.0], requires_grad=True)
        u = pickle.loads(pickle.dumps(a))
        self.assertTrue(u.requires_grad and u.is_leaf)
        b = a * 2  # torch pickles non-leaves too: they come back as leaves
        v = pickle.loads(pickle.dumps(b))
        self.assertTrue(v.requires_grad and v.is_leaf)
        self.assertEqual(v.tolist(), [2.0, 4.0])
        self.assertIsNone(v.grad_fn)

    def test_pickle_containers_and_subclass(self):
        t = tp.tensor([1, 2, 3])
        d = pickle.loads(pickle.dumps({"x": t, "y": [t, tp.float16, tp.device("cpu")]}))
        self.assertIs(d["x"], d["y"][0])  # pickle's own memo
        self.assertEqual(d["y"][1], tp.float16)
        s = Sub([1.0, 2.0])
        s.tag = "hello"
        u = pickle.loads(pickle.dumps(s))
        self.assertIs(type(u), Sub)
        self.assertEqual(u.tag, "hello")
        self.assertEqual(u.tolist(), [1.0, 2.0])

    def test_rebuild_errors(self):
        with self.assertRaisesRegex(ValueError, "bytes do not make a tensor"):
            tp._C._tensor_from_bytes(b"abc", tp.float32, (1,))
        with self.assertRaisesRegex(TypeError, "data must be bytes"):
            tp._C._tensor_from_bytes("abc", tp.float32, (1,))
        with self.assertRaisesRegex(TypeError, "cls must be a subclass of Tensor"):
            tp._C._tensor_from_bytes(b"", tp.float32, (0,), int)
        with self.assertRaisesRegex(TypeError, "must be Tensor, not list"):
            tp._C._tensor_to_bytes([1])
        with self.assertRaisesRegex(ValueError, "storage is too small"):
            tp._C._storage_alias(tp.tensor([1.0]), tp.tensor([1.0, 2.0]))
        with self.assertRaisesRegex(TypeError, "must be Tensor, not int"):
            tp._C._storage_copy(1)

    def test_deepcopy(self):
        for dtype in ALL_DTYPES:
            t = tp.tensor(values(dtype), dtype=dtype).view(2, 3).t()
            u = copy.deepcopy(t)
            self.assertSameTensor(t, u)
            self.assertEqual(u.stride(), t.stride())
            self.assertNotEqual(u.data_ptr(), t.data_ptr())
        t = tp.tensor([1.0, 2.0])
        u = copy.deepcopy(t)
        u[0] = 9
        self.assertEqual(t.tolist(), [1.0, 2.0])

    def test_deepcopy_autograd(self):
        a = tp.tensor([1.0, 2.0], requires_grad=True)
        a.grad = tp.tensor([0.5, 0.5])
        u = copy.deepcopy(a)
        self.assertTrue(u.requires_grad and u.is_leaf)
        self.assertEqual(u.grad.tolist(), [0.5, 0.5])
        self.assertNotEqual(u.grad.data_ptr(), a.grad.data_ptr())
        with self.assertRaisesRegex(
            RuntimeError,
            r"^Only Tensors created explicitly by the user \(graph leaves\) support the deepcopy "
            r"protocol at the moment$",
        ):
            copy.deepcopy(a * 2)

    def test_deepcopy_memo_and_aliasing(self):
        t = tp.tensor([1.0, 2.0, 3.0, 4.0])
        a, b = copy.deepcopy([t, t])
        self.assertIs(a, b)
        whole, part = copy.deepcopy([t, t.narrow(0, 2, 2)])
        part[0] = 30  # views of one storage stay views of one (new) storage, as in torch
        self.assertEqual(whole.tolist(), [1.0, 2.0, 30.0, 4.0])
        self.assertEqual(t.tolist(), [1.0, 2.0, 3.0, 4.0])
        self.assertEqual(part.storage_offset(), 2)
        x, y = copy.deepcopy(t), copy.deepcopy(t)  # separate calls: separate storages
        x[0] = -1
        self.assertEqual(y.tolist()[0], 1.0)
        s = Sub([1.0])
        s.tag = [1]
        c = copy.deepcopy(s)
        self.assertIs(type(c), Sub)
        self.assertEqual(c.tag, [1])
        self.assertIsNot(c.tag, s.tag)

    def test_copy_shares_memory(self):
        # torch's copy.copy (through its storage-level reduce): a new leaf over the same memory.
        t = tp.tensor([1.0, 2.0, 3.0])
        c = copy.copy(t)
        self.assertIsNot(c, t)
        c[0] = 100
        self.assertEqual(t.tolist(), [100.0, 2.0, 3.0])
        a = tp.tensor([1.0], requires_grad=True)
        b = a * 2
        cb = copy.copy(b)
        self.assertTrue(cb.requires_grad and cb.is_leaf)
        self.assertIsNone(cb.grad_fn)
        v = copy.copy(t.t() if t.dim() > 1 else t.narrow(0, 1, 2))
        self.assertEqual(v.storage_offset(), 1)
        self.assertEqual(v.tolist(), [2.0, 3.0])
        s = Sub([1.0])
        s.tag = [1]
        cs = copy.copy(s)
        self.assertIs(type(cs), Sub)
        self.assertIs(cs.tag, s.tag)


if __name__ == "__main__":
    unittest.main()
