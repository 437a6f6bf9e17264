"""tensorplay.nn.functional's linear, convolution and pooling against torch 1.13: values and
gradients of every case on the same float64 inputs (strides, padding incl. 'same', dilation,
groups, transposed, ceil_mode, count_include_pad, adaptive sizes, channels-last inputs), node
names, and the exception types of bad calls. Skipped when torch is not importable."""
import random
import unittest

import tensorplay as tp
import tensorplay.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:
    torch = None


def data(*shape, seed=0):
    rng = random.Random(hash((shape, seed)))
    n = 1
    for s in shape:
        n *= s
    return [rng.uniform(-1.0, 1.0) for _ in range(n)], shape


def pair(shape, seed=0, channels_last=False):
    values, _ = data(*shape, seed=seed)
    a = tp.tensor(values, dtype=tp.float64).reshape(shape)
    b = torch.tensor(values, dtype=torch.float64).reshape(shape)
    if channels_last:
        a = a.contiguous(memory_format=tp.channels_last)
        b = b.contiguous(memory_format=torch.channels_last)
    return a.requires_grad_(), b.requires_grad_()


# (name, f(F, x, w, b), x shape, w shape, b shape or None, channels-last x)
CASES = [
    ("linear", lambda F, x, w, b: F.linear(x, w, b), (4, 3), (5, 3), (5,), False),
    ("linear 3d", lambda F, x, w, b: F.linear(x, w), (2, 4, 3), (5, 3), None, False),
    ("bilinear", lambda F, x, w, b: F.bilinear(x, x * 2, w, b), (4, 3), (2, 3, 3), (2,), False),
    ("conv1d", lambda F, x, w, b: F.conv1d(x, w, b, stride=2, padding=1), (2, 4, 9), (3, 4, 3),
     (3,), False),
    ("conv1d same", lambda F, x, w, b: F.conv1d(x, w, b, padding="same", dilation=2),
     (2, 4, 9), (3, 4, 4), (3,), False),
    ("conv2d", lambda F, x, w, b: F.conv2d(x, w, b, 1, 1), (2, 3, 6, 5), (4, 3, 3, 3), (4,),
     False),
    ("conv2d groups", lambda F, x, w, b: F.conv2d(x, w, b, (2, 1), (1, 2), (1, 2), 2),
     (2, 4, 7, 6), (6, 2, 3, 2), (6,), False),
    ("conv2d channels-last", lambda F, x, w, b: F.conv2d(x, w, b, padding="same"),
     (2, 3, 5, 5), (4, 3, 2, 3), (4,), True),
    ("conv2d valid 1x1", lambda F, x, w, b: F.conv2d(x, w, None, 1, "valid"), (2, 3, 4, 4),
     (5, 3, 1, 1), None, False),
    ("conv3d", lambda F, x, w, b: F.conv3d(x, w, b, 1, (1, 0, 1)), (1, 2, 3, 4, 3),
     (2, 2, 2, 2, 2), (2,), False),
    ("conv_transpose1d", lambda F, x, w, b: F.conv_transpose1d(x, w, b, 2, 1, 1), (2, 3, 5),
     (3, 2, 3), (2,), False),
    ("conv_transpose2d", lambda F, x, w, b: F.conv_transpose2d(x, w, b, 2, 1, 1, 2, 1),
     (2, 4, 3, 4), (4, 3, 3, 3), (6,), False),
    ("conv_transpose3d", lambda F, x, w, b: F.conv_transpose3d(x, w, None, 2), (1, 2, 2, 2, 3),
     (2, 2, 2, 2, 2), None, False),
    ("max_pool2d", lambda F, x, w, b: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), (2, 3, 7, 8),
     None, None, False),
    ("max_pool2d dilated", lambda F, x, w, b: F.max_pool2d(x, 2, 1, 1, 2), (2, 3, 7, 8), None,
     None, True),
    ("max_pool2d indices", lambda F, x, w, b: F.max_pool2d(x, 2, return_indices=True)[1] * 1.0,
     (2, 3, 6, 6), None, None, False),
    ("max_pool1d", lambda F, x, w, b: F.max_pool1d(x, 3, 2, 1), (2, 3, 9), None, None, False),
    ("avg_pool2d", lambda F, x, w, b: F.avg_pool2d(x, 3, 2, 1, True, False), (2, 3, 7, 8), None,
     None, False),
    ("avg_pool2d divisor", lambda F, x, w, b: F.avg_pool2d(x, 2, divisor_override=3),
     (2, 3, 6, 6), None, None, True),
    ("avg_pool1d", lambda F, x, w, b: F.avg_pool1d(x, 4, 3, 2), (2, 3, 10), None, None, False),
    ("adaptive_avg_pool2d", lambda F, x, w, b: F.adaptive_avg_pool2d(x, (3, 4)), (2, 3, 7, 9),
     None, None, False),
    ("adaptive_avg_pool2d 1", lambda F, x, w, b: F.adaptive_avg_pool2d(x, 1), (2, 3, 7, 9),
     None, None, False),
    ("adaptive_avg_pool1d", lambda F, x, w, b: F.adaptive_avg_pool1d(x, 4), (2, 3, 9), None,
     None, False),
    ("adaptive_max_pool2d", lambda F, x, w, b: F.adaptive_max_pool2d(x, (3, 4)), (2, 3, 7, 9),
     None, None, True),
    ("adaptive_max_pool1d", lambda F, x, w, b: F.adaptive_max_pool1d(x, 4), (2, 3, 9), None,
     None, False),
    ("max_pool3d", lambda F, x, w, b: F.max_pool3d(x, (3, 2, 2), 2, 1, ceil_mode=True),
     (2, 2, 5, 6, 4), None, None, False),
    ("max_pool3d indices", lambda F, x, w, b: F.max_pool3d(x, 2, return_indices=True)[1] * 1.0,
     (1, 2, 4, 4, 6), None, None, False),
    ("avg_pool3d", lambda F, x, w, b: F.avg_pool3d(x, 3, 2, 1, True, False), (2, 2, 5, 6, 4),
     None, None, False),
    ("adaptive_avg_pool3d", lambda F, x, w, b: F.adaptive_avg_pool3d(x, (3, None, 2)),
     (2, 2, 5, 6, 4), None, None, False),
    ("adaptive_max_pool3d", lambda F, x, w, b: F.adaptive_max_pool3d(x, 2), (2, 2, 5, 6, 4),
     None, None, False),
    ("interpolate area 5-d", lambda F, x, w, b: F.interpolate(x, size=(3, 4, 2), mode="area"),
     (1, 2, 5, 6, 4), None, None, False),
    ("softmax", lambda F, x, w, b: F.softmax(x, 1), (3, 4), None, None, False),
    ("log_softmax", lambda F, x, w, b: F.log_softmax(x, -1), (3, 4), None, None, False),
    ("softmin", lambda F, x, w, b: F.softmin(x, 0), (3, 4), None, None, False),
]


@unittest.skipIf(torch is None, "torch is not importable")
class TestConvPool(unittest.TestCase):
    def test_values_and_gradients(self):
        for name, f, xs, ws, bs, cl in CASES:
            with self.subTest(case=name):
                x = pair(xs, 1, cl)
                w = pair(ws, 2) if ws else (None, None)
                b = pair(bs, 3) if bs else (None, None)
                got, want = f(F, x[0], w[0], b[0]), f(TF, x[1], w[1], b[1])
                self.assertEqual(list(got.shape), list(want.shape))
                self.assertTrue(torch.allclose(torch.tensor(got.detach().tolist(),
                                                            dtype=torch.float64),
                                               want.detach().double(), atol=1e-10), name)
                if cl:
                    self.assertEqual(got.is_contiguous(memory_format=tp.channels_last),
                                     want.is_contiguous(memory_format=torch.channels_last))
                if not want.requires_grad:
                    continue
                self.assertEqual(got.grad_fn.name(),
                                 want.grad_fn.name(), name)
                g = pair(tuple(want.shape), 4)
                got.backward(g[0].detach())
                want.backward(g[1].detach())
                for mine, theirs in ((x[0], x[1]), (w[0], w[1]), (b[0], b[1])):
                    if theirs is None:
                        continue
                    self.assertTrue(torch.allclose(
                        torch.tensor(mine.grad.tolist(), dtype=torch.float64), theirs.grad,
                        atol=1e-10), name)

    def test_errors(self):
        bad = [
            lambda F, t: F.conv2d(t.randn(2, 3, 8, 8), t.randn(4, 2, 3, 3)),
            lambda F, t: F.conv2d(t.randn(8, 8), t.randn(4, 3, 3, 3)),
            lambda F, t: F.conv2d(t.randn(2, 3, 8, 8), t.randn(4, 3, 3, 3), stride=0),
            lambda F, t: F.conv2d(t.randn(2, 3, 8, 8), t.randn(4, 3, 3, 3), padding="foo"),
            lambda F, t: F.conv2d(t.randn(2, 3, 8, 8), t.randn(4, 3, 3, 3), stride=2,
                                  padding="same"),
            lambda F, t: F.conv2d(t.randn(2, 3, 2, 2), t.randn(4, 3, 3, 3)),
            lambda F, t: F.conv_transpose2d(t.randn(2, 3, 8, 8), t.randn(4, 3, 3, 3)),
            lambda F, t: F.max_pool2d(t.randn(2, 3, 6, 6), 2, 1, 2),
            lambda F, t: F.max_pool2d(t.randn(6, 6), 2),
            lambda F, t: F.avg_pool2d(t.randn(2, 3, 6, 6), 2, divisor_override=0),
            lambda F, t: F.adaptive_avg_pool2d(t.randn(6, 6), 2),
            lambda F, t: F.max_pool3d(t.randn(1, 2, 4, 4, 4), 2, 1, 2),
            lambda F, t: F.avg_pool3d(t.randn(1, 2, 4, 4, 4), 5),
            lambda F, t: F.adaptive_max_pool3d(t.randn(4, 4), 2),
            lambda F, t: F.bilinear(t.randn(2, 3), t.randn(2, 4), t.randn(5, 2, 4)),
            lambda F, t: F.linear(t.randn(2, 3), t.randn(4, 2)),
        ]
        for i, f in enumerate(bad):
            with self.subTest(case=i):
                caught = []
                for mod, lib in ((F, tp), (TF, torch)):
                    try:
                        f(mod, lib)
                        caught.append(None)
                    except Exception as e:  # noqa: BLE001 - the type is what is compared
                        caught.append(type(e).__name__)
                self.assertIsNotNone(caught[1])
                self.assertEqual(caught[0], caught[1])


if __name__ == "__main__":
    unittest.main()
