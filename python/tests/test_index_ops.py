"""The index families through Python, side by side with torch 1.13: gather, scatter*,
index_select/add/copy, take, put, index_put, masked_select/scatter, nonzero, argwhere, where;
values, dtypes, shapes, gradients, and the exception types of bad calls. Skipped when torch is
not importable."""
import unittest

import tensorplay as tp

try:
    import torch
except ImportError:
    torch = None

import test_parity
from test_parity import make_env

EXPRESSIONS = """
x.gather(1, lib.tensor([[0, 1], [1, 0]])); lib.gather(x, 0, lib.tensor([[1, 0, 1]]))
x.t().gather(0, lib.tensor([[2, 0], [1, 1]])); lib.gather(lib.tensor(3.0), 0, lib.tensor(0))
x.scatter(1, lib.tensor([[0, 1], [1, 0]]), y); x.scatter(1, lib.tensor([[2], [0]]), 7.5)
lib.scatter(x, 0, lib.tensor([[1, 0, 1]]), y); x.scatter(1, lib.tensor([[0, 0]]), y, reduce="add")
x.scatter(1, lib.tensor([[0, 0]]), 2.0, reduce="multiply"); i.scatter(0, lib.tensor([[1]]), 9)
x.scatter_add(1, lib.tensor([[0, 0, 2], [1, 1, 1]]), y); lib.scatter_add(i, 0, lib.tensor([[1, 1, 0]]), i)
x.scatter_reduce(1, lib.tensor([[0, 0, 2]]), y, "sum"); x.scatter_reduce(1, lib.tensor([[0, 0, 2]]), y, "prod")
x.scatter_reduce(1, lib.tensor([[0, 0, 2]]), y, "mean"); x.scatter_reduce(0, lib.tensor([[1, 0, 1]]), y, "amax")
x.scatter_reduce(1, lib.tensor([[0, 0, 2]]), y, "amin", include_self=False); i.scatter_reduce(1, lib.tensor([[0, 0, 2]]), i, "mean")
x.index_select(1, lib.tensor([2, 0, 2])); lib.index_select(x, 0, lib.tensor([1])); m.index_select(2, lib.tensor([3, 0]))
x.index_select(1, lib.tensor([2, 0], dtype=lib.int32)); xt.index_select(1, lib.tensor([1]))
x.index_add(1, lib.tensor([0, 0]), y[:, :2]); x.index_add(0, lib.tensor([1]), y[:1], alpha=2); lib.index_add(i, 1, lib.tensor([2]), i[:, :1])
x.index_copy(1, lib.tensor([2, 0]), y[:, :2]); lib.index_copy(x, 0, lib.tensor([1, 0]), y)
x.take(lib.tensor([[5, 0], [-1, 2]])); lib.take(xt, lib.tensor([1, 4])); i.take(lib.tensor(3))
x.put(lib.tensor([0, 0]), lib.tensor([1.0, 2.0]), accumulate=True); lib.put(xt, lib.tensor([1]), lib.tensor([9.0]))
x.masked_select(x > 1); lib.masked_select(x, b); m.masked_select(m > 20); h.masked_select(h > 0)
x.masked_scatter(b, y * 10); lib.masked_scatter(v, lib.tensor([True, False, True]), y.flatten())
x.nonzero(); lib.nonzero(i); x.nonzero(as_tuple=True); lib.nonzero(b, as_tuple=True); lib.nonzero(s)
lib.argwhere(x); x.argwhere(); lib.where(x > 1); lib.where(b)
x.index_put((lib.tensor([0, 0]),), lib.tensor(1.0), accumulate=True)
lib.index_put(x, (lib.tensor([1, 0]), lib.tensor([2, 2])), lib.tensor([5.0, 6.0]))
"""

ERRORS = """
x.gather(1, lib.tensor([[0, 5]])); x.gather(1, lib.tensor([[0]], dtype=lib.int32)); x.gather(3, lib.tensor([[0]]))
x.scatter(1, lib.tensor([[0]]), y.double()); x.scatter(1, lib.tensor([[9]]), 1.0); x.scatter(1, lib.tensor([[0]]), y, reduce="mean")
x.scatter_reduce(1, lib.tensor([[0]]), y, "max"); x.index_select(1, lib.tensor([[0]]))
x.index_add(1, lib.tensor([0]), y); x.index_copy(1, lib.tensor([7]), y[:, :1]); x.take(lib.tensor([6]))
x.put_(lib.tensor([0, 1]), lib.tensor([1.0])); x.masked_select(i); x.masked_scatter(x > 0, lib.tensor([1.0]))
x.index_put_((lib.tensor([5]),), lib.tensor(1.0))
"""


@unittest.skipIf(torch is None, "torch is not importable")
class IndexOpsParity(unittest.TestCase):
    assert_same = test_parity.Parity.assert_same  # values, shapes, dtypes, strides, offsets, repr

    def test_expressions(self):
        self.assertGreaterEqual(test_parity.check_expressions(self, EXPRESSIONS), 45)

    def test_errors_have_torch_exception_types(self):
        test_parity.check_exception_types(self, ERRORS)

    def test_in_place_forms_and_versions(self):
        statements = ["x.scatter_(1, lib.tensor([[0, 1]]), 5.0)",
                      "x.scatter_add_(0, lib.tensor([[1, 1, 0]]), y)",
                      "x.scatter_reduce_(1, lib.tensor([[2, 2]]), y, 'amax')",
                      "x.index_add_(1, lib.tensor([0]), y[:, :1], alpha=3)",
                      "x.index_copy_(0, lib.tensor([1]), y[:1])",
                      "x.put_(lib.tensor([5, 5]), lib.tensor([1.0, 2.0]), True)",
                      "x.masked_scatter_(x > 1, y.flatten())",
                      "x.index_put_((lib.tensor([1, 1]), lib.tensor([0, 0])), lib.tensor(2.0), True)"]
        for stmt in statements:
            envs = make_env(tp), make_env(torch)
            for env in envs:
                exec(stmt, env)
            self.assertEqual(envs[0]["x"].tolist(), envs[1]["x"].tolist(), stmt)
            self.assertEqual(envs[0]["x"]._version, envs[1]["x"]._version, stmt)

    def test_gradients(self):
        cases = ["x.gather(1, lib.tensor([[0, 0], [2, 1]]))",
                 "x.scatter(1, lib.tensor([[0, 1]]), y[:1, :2])",
                 "x.scatter_add(1, lib.tensor([[0, 0, 2]]), y[:1])",
                 "x.scatter_reduce(1, lib.tensor([[0, 0, 2]]), y[:1], 'prod')",
                 "x.scatter_reduce(1, lib.tensor([[0, 0, 2], [1, 1, 1]]), y, 'amax')",
                 "x.scatter_reduce(1, lib.tensor([[0, 0, 2]]), y[:1], 'mean', include_self=False)",
                 "x.index_select(1, lib.tensor([2, 2, 0]))",
                 "x.index_add(1, lib.tensor([0, 0]), y[:, :2], alpha=2)",
                 "x.index_copy(1, lib.tensor([2, 0]), y[:, :2])",
                 "x.take(lib.tensor([5, 5, 0]))",
                 "x.put(lib.tensor([1, 4]), y[0, :2])",
                 "x.masked_select(x > 0.5)",
                 "x.masked_scatter(x > 0.5, y * 2)",
                 "x.index_put((lib.tensor([1, 1]),), y[0], accumulate=True)"]
        for expr in cases:
            grads = []
            for lib in (tp, torch):
                xv = lib.tensor([[0.25, 1.5, -2.0], [3.0, 0.75, -0.5]], requires_grad=True)
                yv = lib.tensor([[1.0, -1.0, 2.0], [0.5, 4.0, -3.0]], requires_grad=True)
                out = eval(expr, {"lib": lib, "x": xv, "y": yv})
                name = out.grad_fn.name()
                (out * lib.arange(out.numel()).reshape(out.shape).float()).sum().backward()
                grads.append((name, xv.grad.tolist(),
                              None if yv.grad is None else yv.grad.tolist()))
            self.assertEqual(grads[0][0], grads[1][0], expr)
            for ours, theirs in zip(grads[0][1:], grads[1][1:]):
                self.assertEqual(ours is None, theirs is None, expr)
                if ours is not None:
                    for p, q in zip(test_parity.flat(ours), test_parity.flat(theirs)):
                        self.assertAlmostEqual(p, q, places=5, msg=expr)


if __name__ == "__main__":
    unittest.main()
