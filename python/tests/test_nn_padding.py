"""tensorplay.nn.functional.pad and interpolate, tensorplay.constant_pad_nd and the _C._nn
padding and upsampling ops, side by side with torch 1.13: values, shapes, dtypes and strides
(channels-last inputs included), gradients and node names, and the exception types of every
error path. Skipped when torch is not importable."""
import unittest

import tensorplay as tp

try:
    import torch
except ImportError:
    torch = None

import test_parity

# m: arange(24.) as [2, 3, 4]; m4/m5 the same values as [1, 2, 3, 4] and [1, 1, 2, 3, 4].
EXPRESSIONS = """
lib.nn.functional.pad(m, (1, 2)); lib.nn.functional.pad(m, (1, 2, 0, 1), value=-1.5); lib.nn.functional.pad(i, (2, 1), value=7)
lib.nn.functional.pad(m, (-1, 1, 1, -2)); lib.nn.functional.pad(m, (-1, -1)); lib.nn.functional.pad(b, (1, 1), value=1)
lib.constant_pad_nd(m, (1, 1)); lib.constant_pad_nd(m, (0, 0, 1, 0, 1, 1), 2.5); lib.constant_pad_nd(i, (1, 0), 1.5)
lib.nn.functional.pad(m.reshape(1, 2, 3, 4).contiguous(memory_format=lib.channels_last), (1, 1, 1, 1))
lib.nn.functional.pad(m, (3, 2), mode='reflect'); lib.nn.functional.pad(m, (2, 1, 1, 2), mode='reflect'); lib.nn.functional.pad(m[0], (2, -1), mode='reflect')
lib.nn.functional.pad(m[None, None], (1, 2, 2, 1, 1, 0), mode='reflect'); lib.nn.functional.pad(m[None], (1, 1, 1, 1), mode='reflect', value=0.0)
lib.nn.functional.pad(m, (4, 1), mode='replicate'); lib.nn.functional.pad(m, (2, 1, 3, 0), mode='replicate'); lib.nn.functional.pad(m[None], (1, 2, 0, 1, 2, 1), mode='replicate')
lib.nn.functional.pad(m, (2, 3), mode='circular'); lib.nn.functional.pad(m[None], (1, -2, 2, 1), mode='circular'); lib.nn.functional.pad(m[None, None], (1, 1, 2, 0, 1, 1), mode='circular')
lib.nn.functional.pad(m.transpose(1, 2), (1, 2), mode='reflect'); lib.nn.functional.pad(m.transpose(1, 2), (1, 2), mode='replicate'); lib.nn.functional.pad(m.transpose(1, 2), (1, 2), mode='circular')
lib.nn.functional.pad(m.reshape(1, 2, 3, 4).contiguous(memory_format=lib.channels_last), (1, 1, 1, 1), mode='reflect')
lib.nn.functional.pad(m.double(), (1, 1), mode='reflect'); lib.nn.functional.pad(m.double(), (1, 1), mode='replicate')
lib._C._nn.reflection_pad2d(m, [1, 1, 2, 0]); lib._C._nn.replication_pad3d(m[None], [1, 0, 0, 1, 1, 1]); lib._C._nn.reflection_pad1d(m, [1, 1])
lib.nn.functional.interpolate(m, scale_factor=2); lib.nn.functional.interpolate(m, size=7); lib.nn.functional.interpolate(m, scale_factor=0.6)
lib.nn.functional.interpolate(m[None], size=(5, 3)); lib.nn.functional.interpolate(m[None], scale_factor=(1.5, 2.3)); lib.nn.functional.interpolate(m[None, None], size=(3, 4, 5))
lib.nn.functional.interpolate(m[None], size=(5, 3), mode='nearest-exact'); lib.nn.functional.interpolate(m, size=9, mode='nearest-exact'); lib.nn.functional.interpolate(m[None, None], scale_factor=1.5, mode='nearest-exact')
lib.nn.functional.interpolate(m, size=7, mode='linear'); lib.nn.functional.interpolate(m, size=7, mode='linear', align_corners=True); lib.nn.functional.interpolate(m, scale_factor=0.7, mode='linear')
lib.nn.functional.interpolate(m[None], size=(5, 7), mode='bilinear'); lib.nn.functional.interpolate(m[None], size=(2, 3), mode='bilinear', align_corners=True); lib.nn.functional.interpolate(m[None], scale_factor=1.7, mode='bilinear')
lib.nn.functional.interpolate(m[None], scale_factor=1.7, mode='bilinear', recompute_scale_factor=True); lib.nn.functional.interpolate(m[None], scale_factor=(0.5, 2), mode='bilinear', align_corners=True)
lib.nn.functional.interpolate(m[None], size=(5, 6), mode='bicubic'); lib.nn.functional.interpolate(m[None], size=(4, 3), mode='bicubic', align_corners=True); lib.nn.functional.interpolate(m[None], scale_factor=2.2, mode='bicubic')
lib.nn.functional.interpolate(m[None, None], size=(3, 5, 2), mode='trilinear'); lib.nn.functional.interpolate(m[None, None], scale_factor=2, mode='trilinear', align_corners=True)
lib.nn.functional.interpolate(m[None].contiguous(memory_format=lib.channels_last), size=(5, 7)); lib.nn.functional.interpolate(m[None].contiguous(memory_format=lib.channels_last), size=(5, 7), mode='bilinear')
lib.nn.functional.interpolate(m[None].contiguous(memory_format=lib.channels_last), size=(5, 7), mode='bicubic'); lib.nn.functional.interpolate(m.transpose(1, 2), size=5, mode='linear')
lib.nn.functional.interpolate(m[None].byte(), scale_factor=2); lib.nn.functional.interpolate(m.double(), size=5, mode='linear'); lib.nn.functional.interpolate(lib.zeros(0, 2, 3, 4), size=(2, 2), mode='bilinear')
lib.nn.functional.interpolate(m[None], scale_factor=2, mode='bilinear').grad_fn is None
"""

ERRORS = """
lib.nn.functional.pad(m, (1,)); lib.nn.functional.pad(m, (1, 1, 1, 1, 1, 1, 1, 1)); lib.nn.functional.pad(m, (1, 1), mode='foo')
lib.nn.functional.pad(m, (1, 1), mode='reflect', value=2.0); lib.nn.functional.pad(m, (4, 4), mode='reflect'); lib.nn.functional.pad(v, (1, 1), mode='reflect')
lib.nn.functional.pad(m, (1, 1, 1, 1, 1, 1), mode='replicate'); lib.nn.functional.pad(m[None], (5, 5, 1, 1), mode='circular'); lib.nn.functional.pad(m[None], (-4, -1, 1, 1), mode='circular')
lib.nn.functional.pad(x, (1, 1), mode='circular'); lib.nn.functional.pad(i, (1, 1), mode='reflect'); lib.nn.functional.pad(i, (1, 1), mode='replicate')
lib.constant_pad_nd(m, (1,)); lib.constant_pad_nd(m, (1, 1, 1, 1, 1, 1, 1, 1)); lib.constant_pad_nd(m, (-4, 0, 1, 1)); lib.constant_pad_nd(m, (-5, 1))
lib._C._nn.replication_pad1d(m, [-3, -3]); lib._C._nn.replication_pad2d(m, [1, 1, 1]); lib._C._nn.replication_pad2d(lib.ones(2, 0, 3, 4), [1, 1, 1, 1])
lib.nn.functional.interpolate(m, size=2, scale_factor=2); lib.nn.functional.interpolate(m); lib.nn.functional.interpolate(m, size=(2, 3))
lib.nn.functional.interpolate(m, scale_factor=(2, 3)); lib.nn.functional.interpolate(m, size=2, recompute_scale_factor=True); lib.nn.functional.interpolate(m, size=2, align_corners=True)
lib.nn.functional.interpolate(m, size=2, antialias=True); lib.nn.functional.interpolate(m[None], size=2, mode='linear'); lib.nn.functional.interpolate(m, size=2, mode='bilinear')
lib.nn.functional.interpolate(m, size=2, mode='trilinear'); lib.nn.functional.interpolate(m[None, None], size=2, mode='bilinear'); lib.nn.functional.interpolate(x, size=2)
lib.nn.functional.interpolate(m, size=2, mode='foo'); lib.nn.functional.interpolate(m, size=2, mode='bicubic'); lib.nn.functional.interpolate(m, size=0)
lib.nn.functional.interpolate(m, scale_factor=0.1); lib.nn.functional.interpolate(lib.ones(1, 0, 3, 4), size=(2, 2)); lib.nn.functional.interpolate(i[None], size=4)
lib.nn.functional.interpolate(m[None].half(), size=4, mode='bilinear'); lib.nn.functional.interpolate(m.byte(), size=4, mode='linear'); lib.nn.functional.interpolate(m, size=3.5)
lib._C._nn.upsample_nearest2d(m[None], None, None); lib._C._nn.upsample_nearest2d(m[None], [2, 2], [2.0, 2.0]); lib._C._nn.upsample_nearest2d(m, [2, 2], None)
"""

# (expression of x, a [1, 2, 3, 4] float64 leaf) -> node names and gradients compared with torch.
GRADIENTS = [
    "F.pad(x, (1, 2, 0, 1), value=3.0)", "F.pad(x, (-1, 1, 1, -1))",
    "F.pad(x, (2, 1, 1, 2), mode='reflect')", "F.pad(x[0], (2, 3), mode='reflect')",
    "F.pad(x[None], (1, 2, 2, 1, 1, 0), mode='reflect')",
    "F.pad(x, (3, 1, 2, 0), mode='replicate')", "F.pad(x[0], (3, 1), mode='replicate')",
    "F.pad(x[None], (1, 0, 1, 2, 2, 1), mode='replicate')",
    "F.pad(x, (1, 2, 2, 1), mode='circular')", "F.pad(x[0], (1, 2), mode='circular')",
    "F.interpolate(x, size=(5, 7))", "F.interpolate(x[0], scale_factor=2.5)",
    "F.interpolate(x[None], size=(3, 4, 5))", "F.interpolate(x, size=(5, 3), mode='nearest-exact')",
    "F.interpolate(x[0], size=7, mode='linear')",
    "F.interpolate(x[0], size=7, mode='linear', align_corners=True)",
    "F.interpolate(x, size=(5, 7), mode='bilinear')",
    "F.interpolate(x, scale_factor=1.5, mode='bilinear', align_corners=True)",
    "F.interpolate(x, size=(5, 6), mode='bicubic')",
    "F.interpolate(x, size=(2, 7), mode='bicubic', align_corners=True)",
    "F.interpolate(x[None], size=(3, 5, 2), mode='trilinear')",
    "F.interpolate(x.transpose(2, 3), size=(5, 7), mode='bilinear')",
    "F.interpolate(x.contiguous(memory_format=lib.channels_last), size=(5, 7), mode='bilinear')",
]


def env(lib):
    e = test_parity.make_env(lib)
    e["F"] = lib.nn.functional
    return e


@unittest.skipIf(torch is None, "torch is not importable")
class PaddingParity(unittest.TestCase):
    assert_same = test_parity.Parity.assert_same

    def test_expressions(self):
        self.assertGreaterEqual(test_parity.check_expressions(self, EXPRESSIONS), 60)

    def test_errors_have_torch_exception_types(self):
        test_parity.check_exception_types(self, ERRORS)

    def test_gradients_and_node_names(self):
        for expr in GRADIENTS:
            with self.subTest(expr=expr):
                got = []
                for lib in (tp, torch):
                    x = lib.sin(lib.arange(24, dtype=lib.float64) * 1.3).reshape(1, 2, 3, 4)
                    x.requires_grad_()
                    out = eval(expr, dict(env(lib), x=x))
                    w = lib.cos(lib.arange(out.numel(), dtype=lib.float64) * 0.7)
                    (out * w.reshape(out.shape)).sum().backward()
                    got.append((type(out.grad_fn).__name__ if lib is torch else
                                out.grad_fn.name(), out.tolist(), x.grad.tolist()))
                self.assertEqual(got[0][0], got[1][0])
                for a, b in zip(test_parity.flat(list(got[0][1:])),
                                test_parity.flat(list(got[1][1:]))):
                    self.assertAlmostEqual(a, b, places=9)


if __name__ == "__main__":
    unittest.main()
