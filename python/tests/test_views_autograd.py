"""Autograd through views, run side by side with torch: every view knows its base, in-place ops
with a grad-requiring operand through a view of a plain tensor give the base CopySlices, views
made in no_grad/inference mode and multi-view outputs refuse in-place writes that record, and
.grad follows the leaf's layout. Skipped when torch is not importable."""
import unittest

import tensorplay as tp

try:
    import torch
except ImportError:
    torch = None


def outcome(fn):
    """(kind, payload): ('ok', value) or ('error', message)."""
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the exception type is compared separately
        return ("error", type(e).__name__ + ": " + str(e))


def fn_name(t):
    """grad_fn's name without torch's namespace (torch says torch::autograd::CopySlices)."""
    return t.grad_fn.name().split("::")[-1] if t.grad_fn is not None else None


def describe(t):
    if t is None:
        return None
    return (tuple(t.shape), t.requires_grad, t.is_leaf,
            fn_name(t),
            t.detach().tolist())


SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


@scenario
def setitem_of_plain_tensor(lib):
    x = lib.zeros(3)
    y = lib.tensor(1.5, requires_grad=True)
    x[0] = y * 2
    (x * lib.tensor([2.0, 3.0, 4.0])).sum().backward()
    return fn_name(x), describe(y.grad), x.requires_grad


@scenario
def narrow_mul_(lib):
    a = lib.tensor([1.0, 2.0, 3.0])
    b = lib.tensor([5.0], requires_grad=True)
    a.narrow(0, 1, 1).mul_(b)
    a.sum().backward()
    return fn_name(a), describe(b.grad), describe(a)


@scenario
def view_before_base_joined(lib):
    x = lib.zeros(3)
    v = x.select(0, 1)
    r = lib.ones(3, requires_grad=True)
    x.add_(r)
    before = (v.requires_grad, fn_name(v), v.is_leaf)
    (v * 3).backward()
    return before, describe(r.grad)


@scenario
def view_before_leaf(lib):
    x = lib.zeros(3)
    v = x[0]
    x.requires_grad_()
    return v.requires_grad, fn_name(v), v.is_leaf, outcome(lambda: v.mul_(2))


@scenario
def no_grad_views(lib):
    x = lib.ones(3, requires_grad=True).clone()
    with lib.no_grad():
        v = x[0:2]
    r1 = (v.requires_grad, fn_name(v), outcome(lambda: v.mul_(2)))
    p = lib.zeros(3)
    with lib.no_grad():
        pv = p[0:2]
    r2 = outcome(lambda: pv.mul_(lib.ones(2, requires_grad=True)))
    y = lib.ones(3, requires_grad=True).clone()
    with lib.no_grad():
        w = y[0]
    y.mul_(2)
    r3 = outcome(lambda: fn_name(w))
    return r1, r2, r3


@scenario
def inference_views(lib):
    z = lib.ones(3, requires_grad=True).clone()
    with lib.inference_mode():
        iv = z[0:2]
    r1 = (iv.is_inference(), iv._is_view(), outcome(lambda: iv.mul_(2)))
    z.mul_(2)
    r2 = outcome(lambda: fn_name(iv))
    with lib.inference_mode():
        t = lib.ones(3)
        tv = t[0]
    return r1, r2, tv._is_view(), tv._base is None


@scenario
def multi_output_views(lib):
    x = lib.ones(2, 3, requires_grad=True).clone()
    r = [outcome(lambda: x.unbind()[0].mul_(2)), outcome(lambda: x.split(1)[1].add_(1)),
         outcome(lambda: x.chunk(2)[0].zero_())]
    p = lib.ones(2, 3)
    a, b = p.unbind()
    a.mul_(2)
    r.append(p.tolist())
    r.append(outcome(lambda: b.mul_(lib.ones(3, requires_grad=True))))
    return r


@scenario
def bases(lib):
    x = lib.ones(2, 3)
    i = lib.ones(2, 3, dtype=lib.int64)
    return (x[0][1:]._base is x, x.t().unsqueeze(0)[0]._base is x, x.unbind()[1]._base is x,
            x._base is None, i[0]._base is i, i.detach()._is_view(), x.view(lib.int32)._is_view(),
            x[0]._is_view())


@scenario
def grad_layout(lib):
    t = lib.arange(6.0).reshape(2, 3).t().requires_grad_()
    (t * 2).sum().backward()
    w = lib.arange(6.0).reshape(3, 2).t().requires_grad_()
    lib.ones(4, 2).mm(w).sum().backward()
    return t.grad.stride(), w.grad.stride(), describe(w.grad)


@unittest.skipIf(torch is None, "torch is not importable")
class ViewsAutogradParity(unittest.TestCase):
    def test_scenarios(self):
        for name, fn in SCENARIOS.items():
            with self.subTest(name):
                mine = repr(fn(tp)).replace("tensorplay", "torch")
                theirs = repr(fn(torch))
                self.assertEqual(mine, theirs)


if __name__ == "__main__":
    unittest.main()
