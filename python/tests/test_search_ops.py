"""Data-dependent ops through Python, side by side with torch 1.13: count_nonzero, nansum,
nanmean, cummax, cummin, bincount, histc, searchsorted, bucketize, unique, unique_consecutive.
Skipped when torch is not importable."""
import unittest

import tensorplay as tp

try:
    import torch
except ImportError:
    torch = None

import test_parity

EXPRESSIONS = """
lib.count_nonzero(x); x.count_nonzero(1); lib.count_nonzero(i, (0, 1)); b.count_nonzero()
lib.nansum(x); x.nansum(1); lib.nansum(x, 1, keepdim=True); lib.nansum(i); x.nanmean(); lib.nanmean(x, 0)
(x / lib.tensor([1.0, 0.0, 1.0]) * 0).nansum(); (x * lib.tensor([1.0, float('nan'), 1.0])).nanmean(1)
x.cummax(1); lib.cummin(x, 0); lib.cummax(i, 1); u.cummin(0)
lib.bincount(u); u.bincount(minlength=12); lib.bincount(u, weights=v.repeat(2)[:4]); lib.bincount(u, u)
lib.histc(x, bins=4); x.histc(3, min=-2, max=2); lib.histc(d, 5, 0, 5)
lib.searchsorted(lib.tensor([1, 3, 5, 7, 9]), u); lib.searchsorted(lib.tensor([1, 3, 5, 7, 9]), u, right=True)
lib.searchsorted(lib.tensor([1.0, 3, 5]), 4); lib.searchsorted(lib.tensor([1, 3, 5, 7, 9]), u, side="right", out_int32=True)
lib.searchsorted(lib.tensor([[1, 3, 5], [2, 4, 6]]), lib.tensor([[3, 6], [3, 6]]))
lib.bucketize(u, lib.tensor([1, 3, 5, 7, 9])); lib.bucketize(x, lib.tensor([-1.0, 0.0, 2.0]), right=True); lib.bucketize(4, lib.tensor([1, 3, 5]))
lib.unique(u); lib.unique(u, return_inverse=True); lib.unique(u, return_counts=True)
lib.unique(i, return_inverse=True, return_counts=True); u.unique(); lib.unique(m.long() % 3, dim=2)
lib.unique(lib.tensor([[1, 2], [0, 5], [1, 2]]), dim=0, return_inverse=True, return_counts=True)
lib.unique_consecutive(lib.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True)
lib.unique_consecutive(lib.tensor([[1, 1], [1, 1], [2, 3]]), dim=0); u.unique_consecutive()
"""

ERRORS = """
lib.nanmean(i); lib.bincount(lib.tensor([0, -1])); lib.bincount(x); lib.bincount(u, minlength=-1)
lib.histc(i); lib.histc(x, bins=0); lib.histc(x, 4, 3, 1); lib.bucketize(x, lib.tensor([[1.0]]))
lib.searchsorted(lib.tensor([1, 3]), u, side="foo"); lib.searchsorted(lib.tensor([1, 3]), u, side="left", right=True)
lib.unique(i, dim=3); lib.cummax(x, 2)
"""


@unittest.skipIf(torch is None, "torch is not importable")
class SearchOpsParity(unittest.TestCase):
    assert_same = test_parity.Parity.assert_same  # values, shapes, dtypes, strides, offsets, repr

    def test_expressions(self):
        self.assertGreaterEqual(test_parity.check_expressions(self, EXPRESSIONS), 40)

    def test_errors_have_torch_exception_types(self):
        test_parity.check_exception_types(self, ERRORS)

    def test_gradients(self):
        for expr in ["x.nansum(1)", "x.nanmean()", "x.cummax(1)[0]", "x.cummin(0)[0]"]:
            grads = []
            for lib in (tp, torch):
                xv = lib.tensor([[0.25, 1.5, -2.0], [3.0, 0.75, -0.5]], requires_grad=True)
                out = eval(expr, {"lib": lib, "x": xv})
                (out * lib.arange(out.numel()).reshape(out.shape).float()).sum().backward()
                grads.append((out.grad_fn.name(), xv.grad.tolist()))
            self.assertEqual(grads[0], grads[1], expr)


if __name__ == "__main__":
    unittest.main()
