"""tensorplay.nn.functional against torch 1.13's torch.nn.functional: values and gradients of
every op on the same inputs, in-place forms, node names, and the error types and messages of
the checks. Skipped when torch is not importable."""
import unittest
import warnings

import tensorplay as tp
import tensorplay.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:
    torch = None

X = [[-3.0, -1.5, -0.25, 0.0], [0.4, 1.0, 2.5, 3.5], [-0.7, 0.2, 4.0, -2.2]]
T = [[0.3, -0.2, 0.9, 0.1], [0.5, 0.7, -1.0, 2.0], [0.0, 0.6, 0.8, -0.4]]
P = [[0.1, 0.3, 0.5, 0.7], [0.9, 0.2, 0.4, 0.6], [0.8, 0.35, 0.45, 0.05]]


def pair(data, requires_grad=True):
    a = tp.tensor(data, dtype=tp.float64, requires_grad=requires_grad)
    b = torch.tensor(data, dtype=torch.float64, requires_grad=requires_grad)
    return a, b


def as_list(t):
    return t.detach().tolist()


# (name, f(F, x, t, p) over both libraries' functional modules, which inputs to differentiate)
CASES = [
    ("relu", lambda F, x, t, p: F.relu(x)),
    ("relu6", lambda F, x, t, p: F.relu6(x * 2)),
    ("leaky_relu", lambda F, x, t, p: F.leaky_relu(x, 0.2)),
    ("elu", lambda F, x, t, p: F.elu(x, 0.7)),
    ("selu", lambda F, x, t, p: F.selu(x)),
    ("gelu", lambda F, x, t, p: F.gelu(x)),
    ("gelu tanh", lambda F, x, t, p: F.gelu(x, approximate="tanh")),
    ("silu", lambda F, x, t, p: F.silu(x)),
    ("mish", lambda F, x, t, p: F.mish(x)),
    ("softplus", lambda F, x, t, p: F.softplus(x, beta=2, threshold=5)),
    ("hardtanh", lambda F, x, t, p: F.hardtanh(x, -2.0, 3.0)),
    ("hardsigmoid", lambda F, x, t, p: F.hardsigmoid(x)),
    ("hardswish", lambda F, x, t, p: F.hardswish(x)),
    ("layer_norm", lambda F, x, t, p: F.layer_norm(x, (4,), t[0], p[0], 1e-5)),
    ("layer_norm 2d", lambda F, x, t, p: F.layer_norm(x, [3, 4])),
    ("group_norm", lambda F, x, t, p: F.group_norm(x.reshape(1, 6, 2), 3, t[1].repeat(2)[:6],
                                                     p[1].repeat(2)[:6])),
    ("batch_norm train", lambda F, x, t, p: F.batch_norm(x, None, None, t[0], p[0], True)),
    ("batch_norm eval", lambda F, x, t, p: F.batch_norm(x.t(), t[2][:3].detach(),
                                                          p[2][:3].detach() + 1, None, None)),
    ("instance_norm", lambda F, x, t, p: F.instance_norm(x.reshape(1, 3, 4), weight=t[0][:3])),
    ("mse", lambda F, x, t, p: F.mse_loss(x, t)),
    ("mse none", lambda F, x, t, p: F.mse_loss(x, t, reduction="none")),
    ("l1", lambda F, x, t, p: F.l1_loss(x, t, reduction="sum")),
    ("smooth_l1", lambda F, x, t, p: F.smooth_l1_loss(x, t, beta=0.5)),
    ("huber", lambda F, x, t, p: F.huber_loss(x, t, reduction="none", delta=0.8)),
    ("bce", lambda F, x, t, p: F.binary_cross_entropy(p, t.sigmoid(), weight=p[0].detach())),
    ("bce logits", lambda F, x, t, p: F.binary_cross_entropy_with_logits(
        x, p, pos_weight=p[1].detach() * 3, reduction="sum")),
    ("kl", lambda F, x, t, p: F.kl_div(x, p, reduction="batchmean")),
    ("kl log", lambda F, x, t, p: F.kl_div(x, t, reduction="none", log_target=True)),
    ("cosine", lambda F, x, t, p: F.cosine_similarity(x, t)),
    ("cosine dim 0", lambda F, x, t, p: F.cosine_similarity(x, t, dim=0)),
    ("pairwise", lambda F, x, t, p: F.pairwise_distance(x, t)),
    ("pairwise p1 keepdim", lambda F, x, t, p: F.pairwise_distance(x, t[0], p=1, keepdim=True)),
    ("normalize", lambda F, x, t, p: F.normalize(x)),
    ("normalize p1", lambda F, x, t, p: F.normalize(x, p=1, dim=0)),
    ("nll", lambda F, x, t, p: F.nll_loss(x, t.argmax(1))),
    ("nll none weight", lambda F, x, t, p: F.nll_loss(x, t.argmax(1), weight=p[0].detach(),
                                                      reduction="none")),
    ("nll ignore", lambda F, x, t, p: F.nll_loss(x, t.argmax(1), ignore_index=2)),
    ("cross_entropy", lambda F, x, t, p: F.cross_entropy(x, t.argmax(1))),
    ("cross_entropy smoothing", lambda F, x, t, p: F.cross_entropy(
        x, t.argmax(1), weight=p[0].detach(), label_smoothing=0.2)),
    ("cross_entropy probabilities", lambda F, x, t, p: F.cross_entropy(x, p.softmax(1))),
    ("embedding", lambda F, x, t, p: F.embedding(t.argmax(0), x)),
    ("embedding padding", lambda F, x, t, p: F.embedding(p.argmax(0), x, padding_idx=1)),
]


@unittest.skipIf(torch is None, "torch is not importable")
class TestNNFunctional(unittest.TestCase):
    def assertClose(self, a, b, tol=1e-10):
        if isinstance(a, list):
            self.assertEqual(len(a), len(b))
            for x, y in zip(a, b):
                self.assertClose(x, y, tol)
        else:
            self.assertLessEqual(abs(a - b), tol * (1 + abs(b)), (a, b))

    def test_values_gradients_and_nodes(self):
        warnings.simplefilter("ignore")
        for name, f in CASES:
            with self.subTest(name):
                (x, tx), (t, tt), (p, tpp) = pair(X), pair(T), pair(P)
                y, ty = f(F, x, t, p), f(TF, tx, tt, tpp)
                self.assertClose(as_list(y), as_list(ty))
                self.assertEqual(y.grad_fn.name(), ty.grad_fn.name())
                y.sum().backward()
                ty.sum().backward()
                for a, b in ((x, tx), (t, tt), (p, tpp)):
                    if b.grad is None:
                        self.assertIsNone(a.grad)
                    else:
                        # torch's hardsigmoid/hardswish backward scale by a float32 1/6 even in
                        # float64; ours is the double 1/6.
                        tol = 1e-7 if name.startswith("hard") else 1e-9
                        self.assertClose(as_list(a.grad), as_list(b.grad), tol)

    def test_inplace(self):
        for name in ["relu", "relu6", "leaky_relu", "elu", "selu", "silu", "mish", "hardtanh",
                     "hardsigmoid", "hardswish"]:
            with self.subTest(name):
                x, tx = pair(X, requires_grad=False)
                r = getattr(F, name)(x, inplace=True)
                tr = getattr(TF, name)(tx, inplace=True)
                self.assertIs(r, x)
                self.assertClose(as_list(x), as_list(tx))
                self.assertClose(as_list(r), as_list(tr))

    def test_dropout(self):
        x = tp.ones(1000, dtype=tp.float64, requires_grad=True)
        y = F.dropout(x, 0.25)
        kept = sum(1 for v in y.tolist() if v != 0)
        self.assertTrue(650 < kept < 850, kept)
        self.assertEqual(y.grad_fn.name(), "MulBackward0")
        self.assertIs(F.dropout(x, 0.5, training=False), x)
        z = tp.ones(10)
        self.assertIs(F.dropout(z, 0.5, inplace=True), z)

    def test_running_stats(self):
        rm, trm = pair([0.5, -0.5, 0.1], requires_grad=False)
        rv, trv = pair([2.0, 0.5, 1.5], requires_grad=False)
        x, tx = pair(X, requires_grad=False)
        F.batch_norm(x.t(), rm, rv, training=True, momentum=0.3)
        TF.batch_norm(tx.t(), trm, trv, training=True, momentum=0.3)
        self.assertClose(rm.tolist(), trm.tolist())
        self.assertClose(rv.tolist(), trv.tolist())

    def test_errors(self):
        warnings.simplefilter("ignore")
        x, tx = pair(X, requires_grad=False)
        checks = [
            (lambda F, x: F.mse_loss(x, x, reduction="foo"), "foo is not a valid value"),
            (lambda F, x: F.dropout(x, 1.5), "dropout probability has to be between 0 and 1"),
            (lambda F, x: F.layer_norm(x, (3,)), "Given normalized_shape=[3], expected input"),
            (lambda F, x: F.group_norm(x.reshape(3, 4, 1), 3), "divisible by num_groups"),
            (lambda F, x: F.batch_norm(x[:1], None, None, training=True),
             "Expected more than 1 value per channel when training"),
            (lambda F, x: F.batch_norm(x, None, None), "running_mean must be defined"),
            (lambda F, x: F.instance_norm(x.reshape(3, 4, 1)),
             "Expected more than 1 spatial element when training"),
            (lambda F, x: F.binary_cross_entropy(x, x), "all elements of input should be between"),
            (lambda F, x: F.binary_cross_entropy(x.sigmoid(), x[0].sigmoid()),
             "that is different to the input size"),
            (lambda F, x: F.binary_cross_entropy_with_logits(x, x[0]), "must be the same as input"),
            (lambda F, x: F.smooth_l1_loss(x, x, beta=-1), "does not support negative values"),
            (lambda F, x: F.huber_loss(x, x, delta=0), "does not support non-positive values"),
            (lambda F, x: F.gelu(x, approximate="x"), "approximate argument must be either"),
            (lambda F, x: F.leaky_relu(x.long()), "not implemented for 'Long'"),
            (lambda F, x: F.kl_div(x.long(), x.long()), "Integral inputs not supported"),
            (lambda F, x: F.cosine_similarity(x.long(), x.long()), "expected common dtype"),
        ]
        for f, message in checks:
            with self.subTest(message):
                with self.assertRaises(Exception) as theirs:
                    f(TF, tx)
                with self.assertRaises(type(theirs.exception)) as ours:
                    f(F, x)
                self.assertIn(message, str(ours.exception))
                self.assertIn(message, str(theirs.exception))

    def test_warnings(self):
        x, _ = pair(X, requires_grad=False)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            F.mse_loss(x, x[0])
        self.assertTrue(any("Using a target size" in str(e.message) for e in w))


if __name__ == "__main__":
    unittest.main()
