"""The Vulkan backend from Python, with torch's names: moving tensors (`x.vulkan()`,
`x.to('vulkan')`, `device='vulkan'` factories), `is_vulkan`, printing with the device suffix,
ops against the CPU result, views that materialise, autograd through the device, and the typed
errors. Runs where the module was built with the Vulkan backend (TENSORPLAY_USE_VULKAN, as the
release preset builds it) and the machine has a Vulkan device (CI: Mesa's lavapipe)."""
import math
import unittest

import tensorplay as tp

HAS_VULKAN = tp.is_vulkan_available()


@unittest.skipUnless(HAS_VULKAN, "no Vulkan device, or a module built without the Vulkan "
                                 "backend: the Vulkan tests are skipped")
class VulkanTest(unittest.TestCase):
    def assert_close(self, got, want, tol=1e-5):
        self.assertTrue(got.is_vulkan, got.device)
        got = got.cpu()
        self.assertEqual(got.shape, want.shape)
        self.assertEqual(got.dtype, want.dtype)
        for g, w in zip(got.flatten().tolist(), want.flatten().tolist()):
            self.assertTrue(math.isclose(g, w, rel_tol=tol, abs_tol=tol), (g, w))

    def test_moves_and_attributes(self):
        a = tp.tensor([[1.0, 2.0], [3.0, 4.0]])
        moved = (a.vulkan(), a.to("vulkan"), a.to(tp.device("vulkan")), a.to(device="vulkan:0"))
        for v in moved:
            self.assertTrue(v.is_vulkan)
            self.assertFalse(a.is_vulkan)
            self.assertEqual(v.device, tp.device("vulkan:0"))
            self.assertEqual(v.device.type, "vulkan")
            self.assertIs(v.dtype, tp.float32)
            self.assertEqual(v.shape, (2, 2))
            self.assertEqual(v.cpu().tolist(), a.tolist())
            self.assertEqual(v.to("cpu").tolist(), a.tolist())
        d = a.vulkan().to("cpu", tp.float64)
        self.assertIs(d.dtype, tp.float64)
        self.assertFalse(d.is_vulkan)
        # Every dtype makes the round trip (a byte copy needs no compute feature).
        for dtype in (tp.float64, tp.int64, tp.int32, tp.int16, tp.int8, tp.uint8, tp.bool):
            x = tp.tensor([0, 1, 2, 3]).to(dtype)
            self.assertEqual(x.vulkan().cpu().tolist(), x.tolist())

    def test_factories(self):
        self.assertEqual(tp.zeros(2, 3, device="vulkan").cpu().tolist(), [[0.0] * 3] * 2)
        self.assertEqual(tp.ones(3, device="vulkan").cpu().tolist(), [1.0] * 3)
        self.assertEqual(tp.full((2,), 7.5, device="vulkan").cpu().tolist(), [7.5, 7.5])
        self.assertEqual(tp.arange(4.0, device="vulkan").cpu().tolist(), [0.0, 1.0, 2.0, 3.0])
        self.assertEqual(tp.eye(2, device="vulkan").cpu().tolist(), [[1.0, 0.0], [0.0, 1.0]])
        v = tp.empty(2, device="vulkan")
        self.assertTrue(tp.zeros_like(v).is_vulkan)

    def test_printing(self):
        v = tp.tensor([1.0, 2.5]).vulkan()
        self.assertEqual(repr(v), "tensor([1.0000, 2.5000], device='vulkan:0')")
        self.assertEqual(str(tp.zeros(2, device="vulkan")),
                         "tensor([0., 0.], device='vulkan:0')")

    def test_ops_match_the_cpu(self):
        a = tp.randn(3, 4)
        b = tp.randn(4).abs() + 0.5
        m = tp.randn(4, 5)
        va, vb, vm = a.vulkan(), b.vulkan(), m.vulkan()
        cases = (
            lambda x, y, z: x + y,
            lambda x, y, z: x * y - 2,
            lambda x, y, z: (x / y).exp(),
            lambda x, y, z: tp.maximum(x, y),
            lambda x, y, z: x.clamp(-0.5, 0.5),
            lambda x, y, z: tp.where(x > 0, x, y),
            lambda x, y, z: x.sum(1),
            lambda x, y, z: x.mean(),
            lambda x, y, z: x.amax(0, keepdim=True),
            lambda x, y, z: x.softmax(1),
            lambda x, y, z: x @ z,
            lambda x, y, z: tp.cat([x, x], 0),
            lambda x, y, z: x.t().sigmoid(),
        )
        for i, f in enumerate(cases):
            with self.subTest(case=i):
                self.assert_close(f(va, vb, vm), f(a, b, m), tol=1e-4)
        self.assertEqual((va > 0).cpu().tolist(), (a > 0).tolist())
        self.assertAlmostEqual(va.sum().item(), a.sum().item(), places=4)

    def test_int_and_float64_compute(self):
        for dtype in (tp.int32, tp.int64, tp.float64):
            a = tp.arange(-3, 5, dtype=dtype)
            v = a.vulkan()
            self.assertIs((v * 3 - 1).dtype, dtype)
            self.assertEqual((v * 3 - 1).cpu().tolist(), (a * 3 - 1).tolist())
            self.assertEqual(tp.maximum(v, -v).cpu().tolist(),
                             tp.maximum(a, -a).tolist())
            self.assertEqual((v > 0).cpu().tolist(), (a > 0).tolist())
            self.assertEqual(v.clamp(-1, 2).cpu().tolist(), a.clamp(-1, 2).tolist())
            self.assertEqual(v.sum().item(), a.sum().item())
            self.assertIs(v.sum().dtype, a.sum().dtype)
            self.assertEqual(v.amax().item(), 4)
        d = tp.tensor([1.0 + 1e-12, -7.5], dtype=tp.float64).vulkan()
        self.assertEqual((d * 1).cpu().tolist(), [1.0 + 1e-12, -7.5])
        self.assertEqual(d.fmod(2).cpu().tolist(), [1.0 + 1e-12, -1.5])

    def test_in_place_and_out(self):
        v = tp.ones(3, device="vulkan")
        v.add_(2).mul_(tp.tensor([1.0, 2.0, 3.0]).vulkan())
        self.assertEqual(v.cpu().tolist(), [3.0, 6.0, 9.0])
        out = tp.empty(3, device="vulkan")
        tp.add(v, 1, out=out)
        self.assertEqual(out.cpu().tolist(), [4.0, 7.0, 10.0])
        v[1] = 0
        self.assertEqual(v.cpu().tolist(), [3.0, 0.0, 9.0])

    def test_views_materialise(self):
        # Vulkan has no strided addressing: a view is a contiguous copy with its own storage.
        base = tp.arange(6.0).reshape(2, 3).vulkan()
        t = base.t()
        self.assertTrue(t.is_contiguous())
        base.add_(10)
        self.assertEqual(t.cpu().tolist(), [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]])

    def test_autograd(self):
        w = tp.randn(3, requires_grad=True)
        x = tp.tensor([1.0, 2.0, 3.0]).vulkan()
        loss = (w.vulkan() * x).exp().sum()
        self.assertTrue(loss.is_vulkan)
        loss.backward()
        self.assertFalse(w.grad.is_vulkan)
        want = (w.detach() * tp.tensor([1.0, 2.0, 3.0])).exp() * tp.tensor([1.0, 2.0, 3.0])
        for g, e in zip(w.grad.tolist(), want.tolist()):
            self.assertTrue(math.isclose(g, e, rel_tol=1e-4))

    def test_errors(self):
        v = tp.ones(2, device="vulkan")
        with self.assertRaisesRegex(TypeError, "can't convert vulkan:0 device type tensor to "
                                               "numpy. Use Tensor.cpu()"):
            v.numpy()
        self.assertEqual(v.numpy(force=True).tolist(), [1.0, 1.0])
        # Every dtype computes on the device; an op with no device kernel says so by name.
        d = tp.ones(2, dtype=tp.float64, device="vulkan").exp()
        self.assertEqual(d.dtype, tp.float64)
        for x in d.cpu().tolist():
            self.assertTrue(math.isclose(x, math.e, rel_tol=1e-15))
        with self.assertRaisesRegex(RuntimeError, "Could not run 'aten::sort' with arguments "
                                                  "from the 'Vulkan' backend"):
            v.sort()
        with self.assertRaisesRegex(RuntimeError, "Expected all tensors to be on the same "
                                                  "device"):
            v + tp.ones(2)


if __name__ == "__main__":
    unittest.main()
