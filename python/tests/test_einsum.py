"""einsum and cdist through Python, side by side with torch 1.13: values, shapes, dtypes and
strides (test_parity's comparison), the argument forms (operands as arguments, as one list, the
sublist form), many equations with random operands, gradients and node names, and the exact
messages of every error. Skipped when torch is not importable."""
import math
import unittest

import tensorplay as tp

try:
    import torch
except ImportError:
    torch = None

import test_parity

# make_env's names: x, y [2, 3]; v [3]; m [2, 3, 4]; d [2, 2] float64; s 0-d; i int64 [2, 3].
EXPRESSIONS = """
lib.einsum('ij,kj->ik', x, y); lib.einsum('ij,kj', x, y); lib.einsum('ij,kj->ik', [x, y]); lib.einsum('ij,kj->ik', (x, y))
lib.einsum('ij->ji', x); lib.einsum('ij', x); lib.einsum('ji', x); lib.einsum('ij->', x); lib.einsum('ij->j', x)
lib.einsum('ii', d); lib.einsum('ii->i', d); lib.einsum('i,j->ij', v, v); lib.einsum('i,i', v, v); lib.einsum('i,i->i', v, v)
lib.einsum('bij,bkj->bik', m, m); lib.einsum('...ij,...kj', m, m); lib.einsum('...ij->...', m); lib.einsum('i...->...i', m)
lib.einsum('ij,ij->ij', x, y); lib.einsum('ij,j->i', x, v); lib.einsum('ij,j', x, v); lib.einsum('...j,j', m.transpose(1, 2), lib.ones(3))
lib.einsum('', s); lib.einsum('->', s); lib.einsum(',', s, s); lib.einsum('...,...', s, v); lib.einsum('i,->i', v, s)
lib.einsum(' i j -> j i ', x); lib.einsum('aB->Ba', x); lib.einsum('Ba', x); lib.einsum('ij,kj->ik', i, i); lib.einsum('ij->', i)
lib.einsum(x, [0, 1], y, [2, 1], [0, 2]); lib.einsum(x, [0, 1], y, [2, 1]); lib.einsum(m, [Ellipsis, 0, 1], [1, Ellipsis])
lib.einsum('ij,jk->ik', xt, x); lib.einsum('ij,jk->ki', xt, x); lib.einsum('bij->jb', m[:, 1:, ::2])
lib.einsum('ij,jk->ik', lib.ones(0, 3), x.t()); lib.einsum('ij,jk->ik', lib.ones(2, 0), lib.ones(0, 4)); lib.einsum('i,j->ij', lib.ones(0), v)
lib.cdist(x, y); lib.cdist(x, y, p=1); lib.cdist(x, y, p=0); lib.cdist(x, y, p=float('inf')); lib.cdist(x, y, 0.5); lib.cdist(x, y, 3)
lib.cdist(x, y, compute_mode='use_mm_for_euclid_dist'); lib.cdist(x, y, compute_mode='donot_use_mm_for_euclid_dist')
lib.cdist(m, m); lib.cdist(m, m[0]); lib.cdist(xt.t(), y); lib.cdist(d, d); lib.cdist(lib.ones(0, 3), y); lib.cdist(lib.ones(2, 0), lib.ones(4, 0))
"""

ERRORS = """
lib.einsum('ij', m); lib.einsum('i$j', x); lib.einsum('ij,jk', x); lib.einsum('ij', x, y); lib.einsum('ij')
lib.einsum('i..j', x); lib.einsum('...i...', x); lib.einsum('ij->..', x); lib.einsum('...ij->......', x)
lib.einsum('ij->ii', x); lib.einsum('ij->k', x); lib.einsum('ij->$', x); lib.einsum('ii', x); lib.einsum('ij,ij', x, x.t())
lib.einsum('...ij,...jk', lib.ones(2, 2, 3), lib.ones(3, 3, 4)); lib.einsum('ijk...', x); lib.einsum('ij-ji', x)
lib.einsum(x, [0, 52]); lib.einsum('ij,jk->ik', x, x.t().double())
lib.cdist(i, x); lib.cdist(x, i); lib.cdist(v, x); lib.cdist(x, v); lib.cdist(x, d); lib.cdist(x, y, p=-1)
lib.cdist(x, y, compute_mode='bad'); lib.cdist(x, x.double()); lib.cdist(m, lib.ones(3, 5, 4)); lib.cdist(h[None], h[None])
"""

# Equations over random operands of the given shapes: several operands (so the contraction
# order matters, compared to 1e-5), broadcasting, repeated operands and diagonals.
RANDOM_CASES = [
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
    ("ij,jk,kl", [(30, 2), (2, 30), (30, 1)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ii,i->i", [(3, 3), (3,)]),
    ("iij->ij", [(3, 3, 2)]),
    ("ijk,ikl,ilm->ijm", [(2, 3, 4), (2, 4, 5), (2, 5, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (4, 3, 4)]),
    ("ij,ij,ij->", [(2, 3), (2, 3), (2, 3)]),
    ("a,b,c,d->abcd", [(2,), (3,), (1,), (2,)]),
    ("ab,bc,cd,de->ae", [(2, 8), (8, 1), (1, 8), (8, 2)]),
    ("ij,jk->ik", [(3, 1), (4, 5)]),  # j of size 1 broadcast against 4
    ("abc,cd->abd", [(2, 0, 3), (3, 4)]),
]


def flat_close(case, a, b, tol, msg):
    case.assertEqual(tuple(a.shape), tuple(b.shape), msg)
    for p, q in zip(test_parity.flat(a.tolist()), test_parity.flat(b.tolist())):
        case.assertTrue(math.isclose(p, q, rel_tol=tol, abs_tol=tol), (msg, p, q))


@unittest.skipIf(torch is None, "torch is not importable")
class EinsumParity(unittest.TestCase):
    assert_same = test_parity.Parity.assert_same

    def test_expressions(self):
        self.assertGreaterEqual(test_parity.check_expressions(self, EXPRESSIONS), 55)

    def test_errors_have_torch_types_and_messages(self):
        test_parity.check_exception_types(self, ERRORS)
        envs = test_parity.make_env(tp), test_parity.make_env(torch)
        for expr in test_parity.split_expressions(ERRORS):
            with self.subTest(expr=expr):
                messages = []
                for env in envs:
                    try:
                        eval(expr, dict(env))
                    except Exception as e:  # noqa: BLE001 - the message is what is compared
                        messages.append(str(e).split("\n")[0])
                self.assertEqual(messages[0], messages[1].replace("torch", "tensorplay"), expr)

    def test_random_equations(self):
        torch.manual_seed(0)
        for eq, shapes in RANDOM_CASES:
            with self.subTest(eq=eq):
                ts = [torch.randn(*s, dtype=torch.float64) for s in shapes]
                ps = [tp.tensor(t.tolist(), dtype=tp.float64).reshape(*t.shape) for t in ts]
                flat_close(self, tp.einsum(eq, *ps), torch.einsum(eq, *ts), 1e-10, eq)

    def test_gradients(self):
        cases = [("ij,jk->ik", [(2, 3), (3, 4)]), ("i,i", [(3,), (3,)]), ("i,j->ij", [(3,), (2,)]),
                 ("ij->ji", [(2, 3)]), ("ij->", [(2, 3)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]),
                 ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
                 ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
                 ("...ij,...jk", [(2, 1, 2, 3), (4, 3, 2)])]
        torch.manual_seed(1)
        for eq, shapes in cases:
            with self.subTest(eq=eq):
                ts = [torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in shapes]
                ps = [tp.tensor(t.tolist(), dtype=tp.float64, requires_grad=True) for t in ts]
                ours, theirs = tp.einsum(eq, *ps), torch.einsum(eq, *ts)
                if len(shapes) <= 2:
                    self.assertEqual(ours.grad_fn.name(), theirs.grad_fn.name(), eq)
                w = torch.randn(theirs.shape, dtype=torch.float64)
                (ours * tp.tensor(w.tolist(), dtype=tp.float64)).sum().backward()
                (theirs * w).sum().backward()
                for p, t in zip(ps, ts):
                    flat_close(self, p.grad, t.grad, 1e-10, eq)

    def test_cdist_gradients(self):
        torch.manual_seed(2)
        for p in [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")]:
            for mode in ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                         "donot_use_mm_for_euclid_dist"]:
                for s1, s2 in [((3, 4), (5, 4)), ((2, 1, 3, 4), (3, 5, 4)), ((30, 3), (4, 3))]:
                    with self.subTest(p=p, mode=mode, shapes=(s1, s2)):
                        a = torch.randn(*s1, dtype=torch.float64, requires_grad=True)
                        b = torch.randn(*s2, dtype=torch.float64, requires_grad=True)
                        pa = tp.tensor(a.tolist(), dtype=tp.float64, requires_grad=True)
                        pb = tp.tensor(b.tolist(), dtype=tp.float64, requires_grad=True)
                        ours, theirs = tp.cdist(pa, pb, p, mode), torch.cdist(a, b, p, mode)
                        self.assertEqual(ours.grad_fn.name(), theirs.grad_fn.name())
                        flat_close(self, ours, theirs, 1e-8, "value")
                        w = torch.randn(theirs.shape, dtype=torch.float64)
                        (ours * tp.tensor(w.tolist(), dtype=tp.float64)).sum().backward()
                        (theirs * w).sum().backward()
                        flat_close(self, pa.grad, a.grad, 1e-8, "x1 grad")
                        flat_close(self, pb.grad, b.grad, 1e-8, "x2 grad")


if __name__ == "__main__":
    unittest.main()
