"""Order statistics through Python, side by side with torch 1.13: kthvalue, median, nanmedian,
mode, quantile, nanquantile (values, indices where torch determines them, shapes, dtypes, strides,
the return_types names), their gradients and node names, and the exception types of the error
paths. Skipped when torch is not importable."""
import unittest

import tensorplay as tp

try:
    import torch
except ImportError:
    torch = None

import test_parity

NAN = "lib.tensor([[1.0, float('nan'), 3.0, 2.0], [float('nan'), float('nan'), 0.5, 4.0]])"

EXPRESSIONS = f"""
lib.kthvalue(x, 2); x.kthvalue(1, 0); x.kthvalue(2, 0, keepdim=True); xt.kthvalue(3, 0); i.kthvalue(2); u.kthvalue(3)
lib.kthvalue(m, 2, 1); m.permute(2, 0, 1).kthvalue(3, -1); lib.kthvalue(s, 1); d.kthvalue(1, 1, True); lib.kthvalue(lib.tensor(True), 1)
x.median(); lib.median(i); u.median(); d.median(); lib.median(lib.tensor([])); s.median(); lib.median(h.bfloat16())
x.median(1); lib.median(x, 0, keepdim=True); xt.median(1); u.median(0); lib.median(m, 2); i.median(0)
x.nanmedian(); lib.nanmedian(x, 1); i.nanmedian(); m.nanmedian(1, True)
{NAN}.median(); {NAN}.median(1); {NAN}.nanmedian(); {NAN}.nanmedian(1); {NAN}.kthvalue(3, 1)
lib.tensor([float('nan')]).nanmedian(0); lib.median(lib.zeros(2, 0), 0); lib.mode(lib.zeros(2, 0), 0)
lib.mode(u); u.mode(0, True); lib.mode(lib.tensor([[1, 2, 2], [3, 3, 1]]), 0); b.mode(1); h.mode(); x.mode(0)
lib.mode(lib.tensor([1.0, 2.0, 2.0, 1.0, 3.0])); lib.mode(lib.tensor([float('nan'), 1.0, 1.0, float('nan')])); s.mode()
lib.quantile(x, 0.3); x.quantile(0.5, 1); lib.quantile(x, lib.tensor([0.1, 0.9]), dim=0); d.quantile(0.25, 1, keepdim=True)
lib.quantile(m, lib.tensor([0.2, 0.7]), 1, True); m.quantile(lib.tensor([0.5]), dim=2); xt.quantile(0.4, 0)
lib.quantile(x, 0.3, interpolation='lower'); lib.quantile(x, 0.3, interpolation='higher'); x.quantile(0.3, interpolation='midpoint')
lib.quantile(lib.tensor([0.0, 1.0, 2.0, 3.0]), lib.tensor([0.5, 0.25, 1 / 6]), interpolation='nearest'); lib.quantile(s, 0.3, 0)
lib.quantile({NAN}, 0.5, 1); lib.nanquantile({NAN}, 0.5, 1); {NAN}.nanquantile(lib.tensor([0.0, 0.6, 1.0]), 1, interpolation='nearest')
lib.nanquantile(x, 0.75); lib.nanquantile(lib.tensor([float('nan')]), 0.5); lib.quantile(x, 0.5, keepdim=True)
"""

ERRORS = f"""
lib.kthvalue(x, 0); lib.kthvalue(x, 4); lib.kthvalue(x, 1, 2); lib.kthvalue(lib.tensor([]), 1); lib.kthvalue(b, 1)
lib.kthvalue(h, 1); lib.kthvalue(s, 2); lib.median(b); lib.median(h); lib.median(h, 0); lib.nanmedian(b, 0)
lib.median(lib.zeros(2, 0), 1); lib.nanmedian(lib.zeros(2, 0), 1); lib.median(s, 1); lib.mode(lib.tensor([]))
lib.mode(x, 3); lib.quantile(x, 1.5); lib.quantile(x, lib.tensor([0.5, -1.0])); lib.quantile(i, 0.5)
lib.quantile(x, 0.5, interpolation='cubic'); lib.nanquantile(x, 0.5, interpolation='Linear'); lib.quantile(lib.tensor([]), 0.5)
lib.quantile(x, lib.tensor([[0.5]])); lib.quantile(x, lib.tensor(0.5, dtype=lib.float64)); lib.quantile(x, 0.5, 2)
lib.quantile(x, 0.5, out=lib.zeros(1, dtype=lib.int64))
"""

MESSAGES = [
    ("lib.kthvalue(x, 4)", "kthvalue(): selected number k out of range for dimension 1"),
    ("lib.kthvalue(lib.zeros(2, 0), 1)", "kthvalue(): Expected reduction dim 1 to have non-zero size."),
    ("lib.median(h)", "\"median_cpu\" not implemented for 'Half'"),
    ("lib.median(h, 0)", "\"median_out\" not implemented for 'Half'"),
    ("lib.kthvalue(b, 1)", "\"kthvalue_cpu\" not implemented for 'Bool'"),
    ("lib.nanmedian(lib.zeros(2, 0), 1)", "median(): Expected reduction dim 1 to have non-zero size."),
    ("lib.mode(lib.tensor([]))", "mode(): Expected reduction dim 0 to have non-zero size."),
    ("lib.quantile(x, 1.5)", "quantile() q must be in the range [0, 1] but got 1.5"),
    ("lib.quantile(x, lib.tensor([0.5, -1.0]))", "quantile() q values must be in the range [0, 1]"),
    ("lib.quantile(i, 0.5)", "quantile() input tensor must be either float or double dtype"),
    ("lib.quantile(x, 0.5, interpolation='cubic')",
     "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got cubic"),
    ("lib.quantile(lib.tensor([]), 0.5)", "quantile() input tensor must be non-empty"),
    ("lib.quantile(x, lib.tensor([[0.5]]))", "quantile() q must be a scalar or 1D tensor"),
    ("lib.quantile(x, lib.tensor(0.5, dtype=lib.float64))",
     "quantile() q tensor must be same dtype as the input tensor"),
    ("lib.quantile(x, 0.5, out=lib.zeros(1, dtype=lib.int64))",
     "quantile() out tensor must be same dtype as the input tensor"),
]


@unittest.skipIf(torch is None, "torch is not importable")
class OrderStatsParity(unittest.TestCase):
    assert_same = test_parity.Parity.assert_same  # values, shapes, dtypes, strides, offsets, repr

    def test_expressions(self):
        self.assertGreaterEqual(test_parity.check_expressions(self, EXPRESSIONS), 60)

    def test_errors_have_torch_exception_types(self):
        test_parity.check_exception_types(self, ERRORS)

    def test_messages(self):
        for expr, message in MESSAGES:
            for lib in (tp, torch):
                with self.subTest(expr=expr, lib=lib.__name__):
                    with self.assertRaises(Exception) as caught:
                        eval(expr, test_parity.make_env(lib))
                    self.assertEqual(str(caught.exception).split("\n")[0], message)

    def test_out(self):
        for lib in (tp, torch):
            out = lib.zeros(0)
            r = lib.quantile(lib.tensor([3.0, 1.0, 2.0, 5.0, 4.0]), lib.tensor([0.1, 0.9]), out=out)
            self.assertIs(r, out)
            self.assertEqual([round(v, 5) for v in out.tolist()], [1.4, 4.6])

    def test_gradients(self):
        exprs = ["x.kthvalue(2, 1)[0]", "x.median()", "x.median(0)[0]", "x.nanmedian()",
                 "x.nanmedian(1, True)[0]", "x.mode(0)[0]", "x.quantile(0.3)",
                 "x.quantile(lib.tensor([0.2, 0.9]), 1)", "x.t().quantile(0.5, 0, interpolation='midpoint')",
                 "x.nanquantile(0.4, 1, interpolation='nearest')", "(x * 0 + 1).median()"]
        for expr in exprs:
            grads = []
            for lib in (tp, torch):
                xv = lib.tensor([[0.25, 1.5, -2.0], [3.0, 0.75, -0.5]], requires_grad=True)
                out = eval(expr, {"lib": lib, "x": xv})
                (out * lib.arange(1, out.numel() + 1).reshape(out.shape).float()).sum().backward()
                grads.append((out.grad_fn.name(), [round(v, 6) for v in xv.grad.flatten().tolist()]))
            self.assertEqual(grads[0], grads[1], expr)

    def test_q_gradient(self):
        for how in ("linear", "midpoint", "nearest"):
            grads = []
            for lib in (tp, torch):
                q = lib.tensor([0.3, 0.6], requires_grad=True)
                out = lib.quantile(lib.tensor([3.0, 1.0, 2.0, 5.0, 4.0], requires_grad=True), q,
                                   interpolation=how)
                out.sum().backward()
                grads.append(None if q.grad is None else q.grad.tolist())
            self.assertEqual(grads[0], grads[1], how)


if __name__ == "__main__":
    unittest.main()
