"""The shape ops (flip, roll, rot90, repeat, tile, repeat_interleave, tril/triu, diag*, trace,
broadcast_to/broadcast_tensors, meshgrid, atleast_*, the stacks, block_diag, cross, kron,
tensordot, tensor_split/hsplit/vsplit/dsplit) through tensorplay and torch 1.13: values, shapes,
dtypes, grad_fn names, out= and the exception type of every error. Without torch, the checks
that need no comparison still run."""
import unittest

import tensorplay as tp

try:
    import torch
except ImportError:
    torch = None


def make_env(lib):
    x = lib.arange(12.0).reshape(3, 4)
    return {
        "lib": lib,
        "x": x,
        "xt": x.t(),
        "e": lib.arange(4.0).expand(3, 4),
        "v": lib.tensor([1.0, -2.0, 3.0]),
        "w": lib.tensor([0.5, 4.0, -1.0]),
        "i": lib.tensor([[3, -1, 4], [1, 5, -9]]),
        "b": lib.tensor([[True, False, True], [False, False, True]]),
        "h": lib.tensor([[1.0, 2.5], [-3.0, 4.0]], dtype=lib.float16),
        "s": lib.tensor(2.5),
        "m": lib.arange(24.0).reshape(2, 3, 4),
        "r": lib.tensor([1, 0, 2]),
        "c": lib.arange(12.0).reshape(4, 3),
    }


EXPRESSIONS = """
x.flip(0); x.flip(0, 1); x.flip((1,)); lib.flip(m, [0, 2]); xt.flip(0); e.flip(1); i.flip(1)
b.flip(0); h.flip(1); s.flip(0); x.fliplr(); lib.flipud(x); lib.fliplr(m); b.flipud()
x.roll(1); x.roll(1, 0); x.roll((1, -2), (0, 1)); lib.roll(m, 5); lib.roll(xt, -1, 1); s.roll(3)
x.rot90(); x.rot90(2); x.rot90(-1); x.rot90(3, [1, 0]); lib.rot90(m, 1, [0, 2]); i.rot90(0)
x.repeat(2, 1); x.repeat(1, 2, 1); s.repeat(2, 3); i.repeat(2, 2); xt.repeat(1, 2); b.repeat(2, 1)
x.tile((2,)); lib.tile(v, (2, 2)); e.tile(2, 1); m.tile(1, 1, 1)
x.repeat_interleave(2); x.repeat_interleave(2, 0); x.repeat_interleave(2, dim=1)
x.repeat_interleave(lib.tensor([1, 0, 2]), dim=0); lib.repeat_interleave(r); s.repeat_interleave(3)
lib.repeat_interleave(x, lib.tensor([2]), dim=1); lib.repeat_interleave(r, output_size=3)
lib.repeat_interleave(i, 2, dim=0, output_size=4); h.repeat_interleave(2, 1)
x.tril(); x.tril(1); x.triu(-1); lib.tril(m, 1); lib.triu(xt); i.tril(); b.triu(); h.tril(-1)
e.triu(1); lib.tril(x, diagonal=-2); x.clone().tril_(); x.clone().triu_(2)
v.diag(); v.diag(1); x.diag(); x.diag(-1); lib.diag(i); lib.diag(b, 1); xt.diag(1)
lib.diag_embed(x); lib.diag_embed(x, 1, 0, 2); x.diag_embed(-1, 2, 1); i.diag_embed()
x.diagflat(); lib.diagflat(v, -1); s.diagflat(); xt.diagflat(1)
x.trace(); lib.trace(xt); i.trace(); lib.trace(lib.zeros(0, 2))
x.broadcast_to((2, 3, 4)); lib.broadcast_to(v, (2, 3)); lib.broadcast_tensors(x, v[:1])
lib.broadcast_tensors(v.unsqueeze(1), x[0], s)
lib.meshgrid(v, w, indexing="ij"); lib.meshgrid(v, x[0], indexing="xy"); lib.meshgrid([v, s], indexing="ij")
lib.atleast_1d(s); lib.atleast_1d(x); lib.atleast_2d(v); lib.atleast_3d(s); lib.atleast_3d(x)
lib.atleast_2d(s, v); lib.atleast_3d([v, m])
lib.hstack([x, x]); lib.hstack((v, w, s.view(1))); lib.vstack([v, w]); lib.vstack([x, x[0]])
lib.row_stack([v, w]); lib.dstack([x, x]); lib.dstack([v, w]); lib.column_stack([v, w])
lib.column_stack([c.t(), v.view(3, 1)]); lib.hstack([v, i[0]])
lib.block_diag(x, v, s); lib.block_diag(i, b); lib.block_diag(x[:0])
lib.cross(c, c.flip(0), dim=1); lib.cross(c.t(), c.t().roll(1, 1)); c.cross(c.flip(1), 1)
(lib.linalg_cross(c, c[:1]) if lib.__name__ == "tensorplay" else lib.linalg.cross(c, c[:1]))
lib.cross(i, i.flip(0), dim=1)
lib.kron(x, v); x.kron(x); lib.kron(i, i[0]); lib.kron(s, v); lib.kron(b, b)
lib.tensordot(m, c, 1); lib.tensordot(m, x, ([1, 2], [0, 1])); lib.tensordot(v, w, 0)
lib.tensordot(m, m, dims=([0, 1], [0, 1])); lib.tensordot(x, c, ([1], [0]))
x.tensor_split(2); x.tensor_split([1, 3], 1); lib.tensor_split(m, 3, dim=2)
lib.tensor_split(x, lib.tensor([1, 2]), 1); x.hsplit(2); lib.hsplit(x, [1]); m.vsplit([1])
lib.vsplit(x, 3); m.dsplit(2); lib.dsplit(m, [1, 3]); x.split([1, 2]); lib.split(x, [3, 1], 1)
"""

ERRORS = """
x.flip(0, 0); x.flip(2); s.roll(1, 0); x.roll((1, 2), 0); x.roll((), ()); x.rot90(1, [0])
v.rot90(); x.rot90(1, [0, 0]); v.fliplr(); s.flipud(); x.repeat(2); x.repeat(-1, 1)
x.repeat_interleave(-1); x.repeat_interleave(lib.tensor([[1]])); x.repeat_interleave(lib.tensor([1, 2]), dim=0)
x.repeat_interleave(lib.tensor([1.0, 2.0, 3.0]), dim=0); lib.repeat_interleave(lib.tensor([1, -1]))
x.repeat_interleave(2, dim=2); v.tril(); s.triu(); v.clone().tril_(); lib.diag(m); lib.diag(s)
lib.diag_embed(x, 0, 1, 1); lib.diag_embed(x, 0, 0, 5); v.trace(); b.trace(); h.trace()
lib.cross(x, x, dim=1); lib.cross(c.t()[:2], c.t()[:2]); lib.cross(c, i[:, :3].t()[:1])
lib.cross(c[0].bool(), c[0].bool()); x.broadcast_to((3, 5)); x.broadcast_to((4,))
lib.broadcast_tensors(x, v); lib.meshgrid(x, v, indexing="ij"); lib.meshgrid([], indexing="ij")
lib.meshgrid(v, r, indexing="ij"); lib.meshgrid(v, w, indexing="foo"); lib.block_diag(m)
lib.hstack([]); lib.vstack([]); lib.dstack([]); lib.column_stack([]); lib.vstack([v, x[0]])
lib.tensordot(x, x, dims=([0], [1])); lib.tensordot(x, x, -1); lib.tensordot(x, x, ([0, 1], [0]))
lib.tensordot(x, i, ([1], [0])); lib.tril(x, out=lib.zeros(0, dtype=lib.int64))
x.tensor_split(0); v.hsplit(2); v.vsplit(2); x.dsplit(2)
"""


def split(text):
    for line in text.strip().splitlines():
        for expr in line.split("; "):
            if expr.strip():
                yield expr.strip()


def flat(v):
    if isinstance(v, list):
        for item in v:
            yield from flat(item)
    else:
        yield v


class ShapeOpsAlone(unittest.TestCase):
    """Checks that need no torch."""

    def test_values(self):
        x = tp.arange(6.0).reshape(2, 3)
        self.assertEqual(x.flip(1).tolist(), [[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]])
        self.assertEqual(x.roll(1, 1).tolist(), [[2.0, 0.0, 1.0], [5.0, 3.0, 4.0]])
        self.assertEqual(x.repeat(1, 2).tolist(), [[0.0, 1.0, 2.0, 0.0, 1.0, 2.0],
                                                   [3.0, 4.0, 5.0, 3.0, 4.0, 5.0]])
        self.assertEqual(x.tril().tolist(), [[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]])
        self.assertEqual(tp.repeat_interleave(tp.tensor([2, 1])).tolist(), [0, 0, 1])
        self.assertEqual(x.trace().item(), 4.0)
        self.assertEqual(tp.kron(tp.tensor([1, 2]), tp.tensor([1, 10])).tolist(), [1, 10, 2, 20])

    def test_out_returns_out(self):
        x = tp.arange(6.0).reshape(2, 3)
        for fn, args in ((tp.tril, (x,)), (tp.triu, (x,)), (tp.diag, (x,)),
                         (tp.hstack, ([x, x],)), (tp.vstack, ([x, x],)),
                         (tp.dstack, ([x, x],)), (tp.column_stack, ([x, x],)),
                         (tp.kron, (x, x)), (tp.cross, (x.t(), x.t())),
                         (tp.tensordot, (x, x.t(), 1))):
            out = tp.empty(0)
            self.assertIs(fn(*args, out=out), out, fn.__name__)
            self.assertEqual(out.tolist(), fn(*args).tolist(), fn.__name__)
        y = x.clone()
        self.assertIs(y.tril_(), y)
        self.assertIs(y.triu_(1), y)

    def test_grad_fn_names(self):
        x = tp.randn(3, 4, requires_grad=True)
        v = tp.randn(3, requires_grad=True)
        cases = {
            "FlipBackward0": x.flip(0), "RollBackward0": x.roll(1), "Rot90Backward0": x.rot90(),
            "RepeatBackward0": x.tile(2), "IndexSelectBackward0": x.repeat_interleave(2),
            "TrilBackward0": x.tril(), "TriuBackward0": x.triu(), "DiagBackward0": v.diag(),
            "DiagEmbedBackward0": x.diag_embed(), "TraceBackward0": x.trace(),
            "BlockDiagBackward0": tp.block_diag(x, v), "CatBackward0": tp.hstack([x, x]),
            "LinalgCrossBackward0": tp.cross(x[:, :3], x[:, 1:]),
            "UnsafeViewBackward0": tp.kron(x, v), "ExpandBackward0": x.broadcast_to((2, 3, 4)),
        }
        for name, t in cases.items():
            self.assertEqual(t.grad_fn.name(), name)
        tp.block_diag(x, v).sum().backward()
        self.assertEqual(v.grad.tolist(), [1.0, 1.0, 1.0])


@unittest.skipIf(torch is None, "torch is not importable")
class ShapeOpsParity(unittest.TestCase):
    def assert_same(self, expr, ours, theirs):
        if isinstance(theirs, torch.Tensor):
            self.assertIsInstance(ours, tp.Tensor, expr)
            self.assertEqual(tuple(ours.shape), tuple(theirs.shape), expr)
            self.assertEqual(repr(ours.dtype), repr(theirs.dtype).replace("torch", "tensorplay"),
                             expr)
            if theirs.dtype.is_floating_point:
                for p, q in zip(flat(ours.tolist()), flat(theirs.tolist())):
                    self.assertAlmostEqual(p, q, places=4, msg=expr)
            else:
                self.assertEqual(ours.tolist(), theirs.tolist(), expr)
            tf = theirs.grad_fn.name() if theirs.grad_fn is not None else None
            of = ours.grad_fn.name() if ours.grad_fn is not None else None
            self.assertEqual(of, tf, expr)
        elif isinstance(theirs, (tuple, list)):
            self.assertEqual(type(ours).__name__, type(theirs).__name__, expr)
            self.assertEqual(len(ours), len(theirs), expr)
            for a, b in zip(ours, theirs):
                self.assert_same(expr, a, b)
        elif isinstance(theirs, float):
            self.assertAlmostEqual(ours, theirs, places=5, msg=expr)
        else:
            self.assertEqual(ours, theirs, expr)

    def test_expressions(self):
        envs = make_env(tp), make_env(torch)
        count = 0
        for expr in split(EXPRESSIONS):
            with self.subTest(expr=expr):
                self.assert_same(expr, eval(expr, dict(envs[0])), eval(expr, dict(envs[1])))
                count += 1
        self.assertGreater(count, 120)

    def test_expressions_with_grad(self):
        # The same expressions on inputs that require grad: the node names must agree too.
        def env(lib):
            e = make_env(lib)
            for k in ("x", "v", "w", "m", "c"):
                e[k] = e[k].clone().requires_grad_()
            e["xt"], e["e"] = e["x"].t(), e["v"][:1].expand(3, 4)
            return e
        envs = env(tp), env(torch)
        for expr in split(EXPRESSIONS):
            if "_(" in expr:
                continue  # in place on a clone: tested in C++
            with self.subTest(expr=expr):
                self.assert_same(expr, eval(expr, dict(envs[0])), eval(expr, dict(envs[1])))

    def test_errors(self):
        envs = make_env(tp), make_env(torch)
        for expr in split(ERRORS):
            with self.subTest(expr=expr):
                with self.assertRaises(Exception) as theirs:
                    eval(expr, dict(envs[1]))
                with self.assertRaises(Exception) as ours:
                    eval(expr, dict(envs[0]))
                self.assertEqual(type(ours.exception).__name__,
                                 type(theirs.exception).__name__, (expr, str(ours.exception)))


if __name__ == "__main__":
    unittest.main()
