"""Quantized tensors from Python, side by side with torch 1.13 where torch has the same call.

Each comparison runs the same function with m = tensorplay and m = torch: integers (int_repr),
parameters, dequantized values and repr (with "torch." renamed) must agree.
"""
import copy
import pickle
import unittest

import tensorplay as tp

try:
    import torch
except ImportError:  # the comparisons need torch; those tests are skipped without it
    torch = None

needs_torch = unittest.skipIf(torch is None, "torch is not installed")


def data(m):
    return m.tensor([[-1.0, 0.0, 0.26, 0.25], [2.5, 3.0, 100.0, -0.05]])


def per_tensor(m, dtype="quint8", scale=0.1, zp=10):
    return m.quantize_per_tensor(data(m), scale, zp, getattr(m, dtype))


def per_channel(m, dtype="qint8", axis=0):
    n = 2 if axis == 0 else 4
    scales = m.tensor([0.1, 0.2, 0.05, 0.3][:n], dtype=m.float64)
    zps = m.tensor([0, 5, -3 if dtype != "quint8" else 3, 1][:n])  # quint8's are unsigned
    return m.quantize_per_channel(data(m), scales, zps, axis, getattr(m, dtype))


class TestQuantizedObjects(unittest.TestCase):
    def test_dtypes_and_schemes(self):
        self.assertEqual(repr(tp.quint8), "tensorplay.quint8")
        self.assertEqual(repr(tp.qint8), "tensorplay.qint8")
        self.assertEqual(repr(tp.qint32), "tensorplay.qint32")
        self.assertEqual(repr(tp.per_tensor_affine), "tensorplay.per_tensor_affine")
        self.assertEqual(repr(tp.per_channel_affine), "tensorplay.per_channel_affine")
        self.assertEqual(tp.qint32.itemsize, 4)
        self.assertFalse(tp.quint8.is_floating_point)
        with self.assertRaisesRegex(RuntimeError, "isSignedType not supported for quantized"):
            tp.quint8.is_signed
        for obj in (tp.quint8, tp.qint32, tp.per_tensor_affine, tp.per_channel_affine):
            self.assertIs(pickle.loads(pickle.dumps(obj)), obj)

    def test_accessors(self):
        q = per_tensor(tp)
        self.assertTrue(q.is_quantized)
        self.assertFalse(data(tp).is_quantized)
        self.assertIs(q.dtype, tp.quint8)
        self.assertIs(q.qscheme(), tp.per_tensor_affine)
        self.assertEqual(q.q_scale(), 0.1)
        self.assertEqual(q.q_zero_point(), 10)
        self.assertIs(q.int_repr().dtype, tp.uint8)
        c = per_channel(tp)
        self.assertIs(c.qscheme(), tp.per_channel_affine)
        self.assertEqual(c.q_per_channel_axis(), 0)
        self.assertEqual(c.q_per_channel_zero_points().tolist(), [0, 5])
        self.assertIs(c.q_per_channel_scales().dtype, tp.float64)

    def test_errors_are_typed(self):
        x = data(tp)
        q = per_tensor(tp)
        with self.assertRaisesRegex(NotImplementedError, "QuantizedCPU"):
            q + q
        with self.assertRaisesRegex(NotImplementedError, "aten::q_scale"):
            x.q_scale()
        with self.assertRaisesRegex(RuntimeError, "zero_point 300 is above upper bound"):
            tp.quantize_per_tensor(x, 0.1, 300, tp.quint8)
        with self.assertRaisesRegex(ValueError, "scale must be a positive finite number"):
            tp.quantize_per_tensor(x, 0.0, 3, tp.quint8)
        with self.assertRaisesRegex(IndexError, "Channel axis out of range"):
            tp.quantize_per_channel(x, tp.tensor([0.1]), tp.tensor([0]), 2, tp.qint8)
        with self.assertRaisesRegex(RuntimeError, "Setting strides is possible only on uniformly"):
            per_channel(tp).t()
        with self.assertRaisesRegex(RuntimeError, "Both inputs to Add must have the same"):
            tp.ops.quantized.add(q, per_channel(tp, "quint8"), 0.2, 3)
        with self.assertRaises(TypeError):
            tp.quantize_per_tensor(x, "0.1", 3, tp.quint8)

    def test_pickle_and_copy(self):
        for q in (per_tensor(tp), per_tensor(tp, "qint32"), per_channel(tp), per_channel(tp, "quint8", 1),
                  per_tensor(tp)[1]):
            for r in (pickle.loads(pickle.dumps(q)), copy.deepcopy(q)):
                self.assertTrue(r.is_quantized)
                self.assertTrue(tp.equal(r, q))
                self.assertEqual(repr(r), repr(q))
            alias = copy.copy(q)
            self.assertEqual(alias.data_ptr(), q.data_ptr())
            self.assertTrue(tp.equal(alias, q))


@needs_torch
class TestAgainstTorch(unittest.TestCase):
    def same(self, f):
        a, b = f(tp), f(torch)
        if isinstance(b, torch.Tensor):
            self.assertEqual(a.is_quantized, b.is_quantized)
            self.assertEqual(tuple(a.shape), tuple(b.shape))
            if b.is_quantized:
                self.assertEqual(str(a.dtype).split(".")[-1], str(b.dtype).split(".")[-1])
                self.assertEqual(a.int_repr().tolist(), b.int_repr().tolist())
                self.assertEqual(a.dequantize().tolist(), b.dequantize().tolist())
                self.assertEqual(str(a.qscheme()).split(".")[-1], str(b.qscheme()).split(".")[-1])
                if b.qscheme() == torch.per_tensor_affine:
                    self.assertEqual(a.q_scale(), b.q_scale())
                    self.assertEqual(a.q_zero_point(), b.q_zero_point())
                else:
                    self.assertEqual(a.q_per_channel_axis(), b.q_per_channel_axis())
                    self.assertEqual(a.q_per_channel_scales().tolist(),
                                     b.q_per_channel_scales().tolist())
                    self.assertEqual(a.q_per_channel_zero_points().tolist(),
                                     b.q_per_channel_zero_points().tolist())
            else:
                self.assertEqual(a.tolist(), b.tolist())
        else:
            self.assertEqual(a, b)

    def test_quantize(self):
        for dt in ("quint8", "qint8", "qint32"):
            for scale, zp in ((0.1, 10), (0.05, 3), (1.0, 0)):
                self.same(lambda m: per_tensor(m, dt, scale, zp))
            self.same(lambda m: per_channel(m, dt, 0))
            self.same(lambda m: per_channel(m, dt, 1))
        self.same(lambda m: m._make_per_tensor_quantized_tensor(
            m.tensor([1, 2, 255], dtype=m.uint8), 0.5, 3))
        self.same(lambda m: per_tensor(m).dequantize())
        self.same(lambda m: m.dequantize(per_channel(m)))

    def test_repr(self):
        # torch's own _str_intern steps with the dtype and qscheme named "tensorplay.", so the
        # line wrapping accounts for the longer names (tests/ops/data/make_quantized.py's qrepr).
        def torch_repr(q):
            ts = torch._tensor_str
            sfx = ["size=" + str(tuple(q.shape)),
                   "dtype=" + str(q.dtype).replace("torch", "tensorplay"),
                   "quantization_scheme=" + str(q.qscheme()).replace("torch", "tensorplay")]
            if q.qscheme() == torch.per_tensor_affine:
                sfx += ["scale=" + str(q.q_scale()), "zero_point=" + str(q.q_zero_point())]
            else:
                sfx += ["scale=" + str(q.q_per_channel_scales()).replace("torch.", "tensorplay."),
                        "zero_point=" + str(q.q_per_channel_zero_points()),
                        "axis=" + str(q.q_per_channel_axis())]
            return ts._add_suffixes("tensor(" + ts._tensor_str(q.dequantize(), 7), sfx, 7, False)

        for f in (lambda m: per_tensor(m), lambda m: per_channel(m), lambda m: per_tensor(m)[0, 1],
                  lambda m: m.quantize_per_tensor(m.tensor([]), 0.5, 1, m.qint8),
                  lambda m: per_tensor(m, "qint32", 1e-05, 0)):
            self.assertEqual(repr(f(tp)), torch_repr(f(torch)))

    def test_views(self):
        self.same(lambda m: per_tensor(m).t())
        self.same(lambda m: per_tensor(m)[1])
        self.same(lambda m: per_tensor(m)[:, 1:3])
        self.same(lambda m: per_tensor(m).view(8))
        self.same(lambda m: per_tensor(m).permute(1, 0))
        self.same(lambda m: per_channel(m)[:, 1:])
        # (not per_channel(m)[1:]: torch 1.13 turns a one-channel slice of a per-channel tensor
        # into a per-tensor one, same values; tensorplay keeps it per-channel with one channel)
        self.same(lambda m: per_channel(m).select(0, 1))
        self.same(lambda m: per_channel(m, "qint8", 1)[0])
        self.same(lambda m: per_channel(m).unsqueeze(0))
        q = per_tensor(tp)
        self.assertEqual(q.t().data_ptr(), q.data_ptr())

    def test_ops(self):
        self.same(lambda m: per_tensor(m).clone())
        self.same(lambda m: per_tensor(m).relu())
        self.same(lambda m: m.relu(per_tensor(m)))
        self.same(lambda m: per_tensor(m) == per_tensor(m, "qint8"))
        self.same(lambda m: per_tensor(m) == 0.3)
        self.same(lambda m: m.equal(per_tensor(m), per_tensor(m)))
        self.same(lambda m: per_tensor(m).clone().fill_(0.26))
        self.same(lambda m: per_channel(m).clone().fill_(0.26))
        self.same(lambda m: per_tensor(m).clone().copy_(data(m) * 2))
        for op in ("add", "add_relu", "mul", "mul_relu"):
            self.same(lambda m: getattr(m.ops.quantized, op)(per_tensor(m), per_tensor(m, "quint8", 0.05, 3),
                                                             0.2, 7))
            self.same(lambda m: getattr(m.ops.quantized, op)(per_tensor(m), per_tensor(m)[1], 0.2, 7))

    def test_linear(self):
        def run(m):
            x = m._make_per_tensor_quantized_tensor(
                m.tensor([[3, 200, 17, 128, 90], [255, 0, 64, 128, 31]], dtype=m.uint8), 0.05, 128)
            w = m._make_per_tensor_quantized_tensor(
                m.tensor([[1, -5, 100, 7, -127], [20, 30, -40, 50, 60], [0, 1, 2, 3, 4]],
                         dtype=m.int8), 0.01, 0)
            b = m.tensor([0.5, -1.0, 0.25])
            return m.ops.quantized.linear(x, m.ops.quantized.linear_prepack(w, b), 0.08, 120)
        a, b = run(tp), run(torch)
        for x, y in zip(a.int_repr().reshape(-1).tolist(), b.int_repr().reshape(-1).tolist()):
            self.assertLessEqual(abs(x - y), 1)


if __name__ == "__main__":
    unittest.main()
