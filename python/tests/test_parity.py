"""The comparison suite: the same expressions through torch and tensorplay, compared on values,
shapes, dtypes, strides, storage offsets and repr. Skipped when torch is not importable."""
import math
import unittest

import tensorplay as tp

try:
    import torch
except ImportError:
    torch = None


def make_env(lib):
    x = lib.tensor([[1.0, -2.0, 3.5], [4.0, 0.5, -6.0]])
    return {
        "lib": lib,
        "x": x,
        "y": lib.tensor([[0.5, 2.0, -1.0], [3.0, -0.25, 2.0]]),
        "xt": x.t(),
        "v": lib.tensor([1.0, 2.0, 3.0]),
        "i": lib.tensor([[3, -1, 4], [1, 5, -9]]),
        "u": lib.tensor([7, 2, 9, 2]),
        "b": lib.tensor([[True, False, True], [False, False, True]]),
        "d": lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64),
        "h": lib.tensor([1.0, 2.5, -3.0], dtype=lib.float16),
        "s": lib.tensor(2.5),
        "m": lib.arange(24.0).reshape(2, 3, 4),
    }


EXPRESSIONS = """
x + y; x - y; x * y; x / y; x // y; x % y; x ** 2; 2 ** v; -x; abs(x); x @ y.t()
x + 1; 1 - x; 3 * x; 1 / x; x + i; i + 1; i / 2; i // 2; i % 3; i * 2.5; b + 1
x + v; xt + y.t(); x * s; h + 1; h * x.t().contiguous()[:, 0]; d + 1; b & b; i | 2; u ^ 1
x < y; x <= 1; x == y; x != 0; 2 > x; x.eq(y); x.gt(0); x.ne(y)
x.exp(); x.abs().log(); x.abs().sqrt(); x.sin(); x.tanh(); x.sigmoid(); x.neg(); x.relu()
x.floor(); x.ceil(); x.round(); x.trunc(); x.frac(); x.sign(); x.clamp(-1, 1); x.clamp(min=0)
x.reciprocal(); x.square(); x.abs().rsqrt(); x.exp2(); x.expm1(); x.abs().log1p()
xt.exp(); xt * 2; xt + xt; xt.contiguous(); xt.clone(); m.permute(2, 0, 1).exp()
x.sum(); x.sum(0); x.sum(1, keepdim=True); x.sum((0, 1)); i.sum(); b.sum(); x.mean(); x.mean(0)
x.prod(); x.prod(1); x.max(); x.min(); x.max(1); x.min(0); x.amax(1); x.argmax(); x.argmax(1)
x.var(); x.std(0); x.var(1, unbiased=False); x.norm(); x.norm(1); x.all(); b.any(1)
x.logsumexp(1); x.cumsum(1); x.cumprod(0); x.softmax(1); x.log_softmax(0); i.cumsum(0)
x.sort(); x.sort(0, descending=True); x.argsort(1); x.topk(2); u.sort(stable=True)
x.mm(y.t()); d.mm(d); x.matmul(v); v.dot(v); v.outer(v); m.bmm(m.transpose(1, 2)); x.t().mv(v[:2])
lib.matmul(m, m.transpose(1, 2)); lib.addmm(d, d, d, beta=2, alpha=0.5); x.mv(v)
x[0]; x[-1]; x[:, 1]; x[..., None]; x[None]; x[1, ::2]; x[:, 1:]; m[1, ..., ::3]; x[0, 1]
x[x > 1]; x[b]; x[[0, 1], [2, 0]]; x[i > 0]; m[:, [0, 2]]; x[lib.tensor([1, 0])]
x.view(3, 2); x.view(-1); x.reshape(6, 1); x.t(); x.transpose(0, 1); m.permute(1, 2, 0)
x.unsqueeze(1); x.unsqueeze(-1).squeeze(); x.flatten(); m.flatten(1); x.expand(2, 2, 3)
x.narrow(1, 1, 2); x.select(1, 2); m.diagonal(0, 1, 2); v.unfold(0, 2, 1); m.movedim(0, 2)
x.split(2, 1); x.chunk(2, 1); x.unbind(1); lib.cat([x, y], 1); lib.stack([x, y]); lib.cat([x, y])
x.as_strided((2, 2), (1, 2), 1); x.contiguous().view(3, 2).t(); m[:, 1].t(); x.T; m.mT
lib.where(b, x, y); x.masked_fill(b, 0); lib.zeros(2, 3); lib.ones(3, dtype=lib.int32)
lib.full((2, 2), 7); lib.full((2,), 1.5); lib.arange(5); lib.arange(1, 4, 0.5); lib.arange(2.0)
lib.linspace(0, 1, 5); lib.eye(3); lib.eye(2, 3); lib.zeros_like(x); lib.ones_like(i)
lib.full_like(x, 2); lib.empty(2, 3).shape; x.to(lib.int64); i.to(lib.float32); x.double()
x.long(); b.float(); x.tolist(); i.tolist(); x[0, 0].item(); x.dtype; x.shape; x.stride()
x.is_contiguous(); xt.is_contiguous(); x.numel(); x.dim(); len(x); x.size(1); i.dtype
"""


def split_expressions(text):
    """The expressions of a block written `a; b` per line."""
    for line in text.strip().splitlines():
        for expr in line.split("; "):
            if expr.strip():
                yield expr.strip()


def expressions():
    return split_expressions(EXPRESSIONS)


def check_expressions(case, text):
    """Evaluates each expression with tensorplay and with torch (make_env's names) and compares
    the results with Parity.assert_same; returns how many matched."""
    envs = make_env(tp), make_env(torch)
    count = 0
    for expr in split_expressions(text):
        with case.subTest(expr=expr):
            Parity.assert_same(case, expr, eval(expr, dict(envs[0])), eval(expr, dict(envs[1])))
            count += 1
    return count


def check_exception_types(case, text):
    """Each expression must raise in torch, and raise the same exception type in tensorplay."""
    for expr in split_expressions(text):
        with case.subTest(expr=expr):
            caught = []
            for lib in (tp, torch):
                try:
                    eval(expr, make_env(lib))
                    caught.append(None)
                except Exception as e:  # noqa: BLE001 - the type is what is compared
                    caught.append(type(e).__name__)
            case.assertIsNotNone(caught[1], expr)
            case.assertEqual(caught[0], caught[1], expr)


@unittest.skipIf(torch is None, "torch is not importable")
class Parity(unittest.TestCase):
    def assert_same(self, expr, ours, theirs):
        if isinstance(theirs, torch.Tensor):
            self.assertIsInstance(ours, tp.Tensor, expr)
            self.assertEqual(tuple(ours.shape), tuple(theirs.shape), expr)
            self.assertEqual(repr(ours.dtype), repr(theirs.dtype).replace("torch", "tensorplay"),
                             expr)
            self.assertEqual(ours.stride(), theirs.stride(), expr)
            self.assertEqual(ours.storage_offset(), theirs.storage_offset(), expr)
            if theirs.dtype.is_floating_point:
                for p, q in zip(flat(ours.tolist()), flat(theirs.tolist())):
                    self.assertTrue(math.isclose(p, q, rel_tol=1e-4, abs_tol=1e-5) or
                                    (math.isnan(p) and math.isnan(q)), (expr, p, q))
            else:
                self.assertEqual(ours.tolist(), theirs.tolist(), expr)
                self.assertEqual(repr(ours), repr(theirs).replace("torch.", "tensorplay."), expr)
        elif isinstance(theirs, (tuple, list)) and not isinstance(theirs, torch.Size):
            self.assertEqual(type(ours).__name__, type(theirs).__name__, expr)
            self.assertEqual(len(ours), len(theirs), expr)
            if hasattr(theirs, "_fields"):
                self.assertEqual(ours._fields if hasattr(ours, "_fields") else
                                 ("values", "indices"), theirs._fields, expr)
            for a, b in zip(ours, theirs):
                self.assert_same(expr, a, b)
        elif isinstance(theirs, torch.dtype):
            self.assertEqual(repr(ours), repr(theirs).replace("torch", "tensorplay"), expr)
        elif isinstance(theirs, float):
            self.assertAlmostEqual(ours, theirs, places=5, msg=expr)
        else:
            self.assertEqual(ours, theirs, expr)

    def test_expressions(self):
        envs = make_env(tp), make_env(torch)
        count = 0
        for expr in expressions():
            with self.subTest(expr=expr):
                ours = eval(expr, dict(envs[0]))
                theirs = eval(expr, dict(envs[1]))
                self.assert_same(expr, ours, theirs)
                count += 1
        self.assertEqual(count, len(list(expressions())))
        self.assertGreater(count, 180)

    def test_assignments(self):
        statements = ["x[0] = 7", "x[:, 1] = -1", "x[..., 0] = y[:, 0]", "x[x > 1] = 0",
                      "x[b] = y[b]", "x[[0, 1], [2, 0]] = 5", "x[1] = lib.tensor([1., 2., 3.])",
                      "x[:] = 2.5", "x[0, ::2] = lib.tensor([8., 9.])", "m[:, [0, 2], 1] = 3",
                      "x[None, 1] = 4", "x[1:, :2] = lib.zeros(1, 2)",
                      "x += 1", "x[0] *= 2", "x.T[0] = 6", "i[i < 0] = 0"]
        for stmt in statements:
            envs = make_env(tp), make_env(torch)
            for env in envs:
                exec(stmt, env)
            for name in ("x", "m", "i"):
                self.assertEqual(envs[0][name].tolist(), envs[1][name].tolist(), stmt)
                self.assertEqual(envs[0][name]._version, envs[1][name]._version, stmt)

    def test_printed_forms(self):
        cases = ["lib.arange(12.0).reshape(3, 4) / 7", "lib.tensor([1e-5, 1.0, 1e5])",
                 "lib.tensor([[1, -20], [300, 4]])", "lib.arange(2000.0)",
                 "lib.tensor([float('nan'), float('inf'), -1.5])", "lib.zeros(0, 3)",
                 "lib.tensor([1.0, 2.0], dtype=lib.float64) * 1e10",
                 "lib.tensor([0.5, 1.5], requires_grad=True).exp()",
                 "lib.tensor(3.0, requires_grad=True)", "lib.ones(2, 2).t()[0]",
                 "lib.tensor([True, False]).view(2, 1)"]
        for expr in cases:
            ours, theirs = eval(expr, {"lib": tp}), eval(expr, {"lib": torch})
            self.assertEqual(repr(ours), repr(theirs).replace("torch.", "tensorplay."), expr)


def flat(v):
    if isinstance(v, list):
        for item in v:
            yield from flat(item)
    else:
        yield v


if __name__ == "__main__":
    unittest.main()
