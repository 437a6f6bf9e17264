"""Sizes beyond int64, from Python: the size parser and the checked element and byte counts
behind every size-taking entry point, side by side with torch 1.13.

Two kinds of size: an element that does not fit in int64 at all (the parser refuses it, a
TypeError naming its position), and elements that fit but whose product does (the C++ checks:
"numel: integer multiplication overflow" where torch's TensorImpl counts elements, "Storage size
calculation overflowed" where it sizes a storage).
"""
import unittest

import tensorplay as tp

try:
    import torch
except ImportError:  # the comparisons need torch; without it only our side is checked
    torch = None

BIG = (2, 4, 2**29, 2**29)  # numel 2^61 fits; as float64 bytes (2^64) it does not
HUGE = (2**32, 2**32)  # numel 2^64
NUMEL = "numel: integer multiplication overflow"


class Index:
    """An int-like (__index__) whose value does not fit in int64."""

    def __index__(self):
        return 2**64


def raised(f, m):
    try:
        f(m)
    except Exception as e:  # noqa: BLE001 - the point is to capture whatever is raised
        return type(e).__name__, str(e).split("\n")[0]
    return None


class SizeParser(unittest.TestCase):
    # (call, 1-based position of the bad element); torch names the op and the parameter and
    # says "tuple of SymInts" for some; our binding layer's message starts at "argument".
    CASES = [
        (lambda m: m.empty(2**63), 1),
        (lambda m: m.empty(2**64), 1),
        (lambda m: m.zeros([2, 2**63]), 2),
        (lambda m: m.zeros((2, -(2**63) - 1)), 2),
        (lambda m: m.ones(2, 2**64), 2),
        (lambda m: m.full((2**63,), 1.0), 1),
        (lambda m: m.empty(size=(2, 2**64)), 2),
        (lambda m: m.empty(1).view(1, 2**63), 2),
        (lambda m: m.empty(1).reshape(2, 2**64), 2),
        (lambda m: m.empty(1).expand([2, 2**63]), 2),
        (lambda m: m.empty(1).resize_(2, 2**64), 2),
        (lambda m: m.empty(1).permute(2**63), 1),
        (lambda m: m.empty(1).sum((2**63,)), 1),
    ]

    def test_element_beyond_int64_is_a_type_error(self):
        for f, pos in self.CASES:
            want = f"but found element of type int at pos {pos}"
            self.assertEqual(
                raised(f, tp), ("TypeError", "argument must be tuple of ints, " + want))
            if torch is not None:
                kind, msg = raised(f, torch)
                self.assertEqual(kind, "TypeError")
                self.assertTrue(msg.endswith(want), msg)

    def test_index_objects_are_named_by_their_type(self):
        f = lambda m: m.empty([2, Index()])  # noqa: E731
        self.assertEqual(raised(f, tp), ("TypeError", "argument must be tuple of ints, but found "
                                                      "element of type Index at pos 2"))
        if torch is not None:
            self.assertTrue(raised(f, torch)[1].endswith("found element of type Index at pos 2"))

    def test_legacy_constructor(self):
        for f in (lambda m: m.Tensor(2**63), lambda m: m.Tensor(2, 2**64)):
            got = raised(f, tp)
            self.assertEqual(got[0], "TypeError")
            self.assertRegex(got[1], r"^new\(\): argument 'size' must be tuple of ints, but found "
                                     r"element of type int at pos [12]$")
            if torch is not None:
                self.assertEqual(got, raised(f, torch))

    def test_a_lone_int_is_a_runtime_error(self):
        # Not a list element: torch's "Overflow when unpacking long".
        f = lambda m: m.empty(2, 3).select(0, 2**64)  # noqa: E731
        self.assertEqual(raised(f, tp), ("RuntimeError", "Overflow when unpacking long"))
        if torch is not None:
            self.assertEqual(raised(f, tp), raised(f, torch))


class CheckedCounts(unittest.TestCase):
    # Each refused exactly as torch 1.13 refuses it (same exception, same message).
    CASES = [
        lambda m: m.empty(HUGE),
        lambda m: m.empty(BIG, dtype=m.float64),
        lambda m: m.empty(2**32, 2**32, 0),
        lambda m: m.zeros(BIG, dtype=m.float64),
        lambda m: m.ones(HUGE),
        lambda m: m.full(BIG, 1.0, dtype=m.float64),
        lambda m: m.rand(BIG, dtype=m.float64),
        lambda m: m.Tensor(2**62, 4),
        lambda m: m.Tensor(2**60, 4),
        lambda m: m.arange(0, 2**62, 2**-10),
        lambda m: m.arange(0, 2**61, 1, dtype=m.float64),
        lambda m: m.linspace(0, 1, 2**61, dtype=m.float64),
        lambda m: m.eye(2**32, 2**32),
        lambda m: m.eye(2**31, 2**31, dtype=m.float64),
        lambda m: m.empty(1, dtype=m.float64).resize_(HUGE),
        lambda m: m.empty(1, dtype=m.float64).resize_(BIG),
        lambda m: m.empty(1, dtype=m.float64).resize_as_(
            m.empty(1, dtype=m.float64).expand(BIG)),
        lambda m: m.empty(1).expand(HUGE),
        lambda m: m.empty(1).expand(2**32, 2**32, 0),
        lambda m: m.empty(1).as_strided(HUGE, (0, 0)),
        lambda m: m.empty(0).view(2**62, 4),
        lambda m: m.empty(0).reshape(2**62, 4, 0),
        lambda m: m.empty(4).view(2**62, 4, -1),
        lambda m: m.zeros_like(m.empty(1, dtype=m.float64).expand(2**61)),
        lambda m: m.empty(1).expand(2**62).unfold(0, 4, 1),
        lambda m: m.cat([m.empty(1, dtype=m.float64).expand(2**60)] * 2),
        lambda m: m.stack([m.empty(1).expand(2**62)] * 4),
    ]

    def test_refused_as_torch_refuses(self):
        for f in self.CASES:
            got = raised(f, tp)
            self.assertIsNotNone(got)
            self.assertEqual(got[0], "RuntimeError")
            if torch is not None:
                self.assertEqual(got, raised(f, torch))

    def test_resize_leaves_the_tensor_alone(self):
        # torch sets the new sizes before it finds the overflow; we check first.
        x = tp.empty(1, dtype=tp.float64)
        with self.assertRaisesRegex(RuntimeError, "^Storage size calculation overflowed"):
            x.resize_(BIG)
        with self.assertRaisesRegex(RuntimeError, "^" + NUMEL + "$"):
            x.resize_(HUGE)
        self.assertEqual(tuple(x.shape), (1,))

    def test_views_of_many_elements_over_few_bytes(self):
        # 2^61 float64 elements repeated over one: legal views, as in torch.
        for m in (tp, torch) if torch is not None else (tp,):
            x = m.zeros(1, dtype=m.float64).expand(2**61)
            self.assertEqual(x.numel(), 2**61)
            self.assertEqual(tuple(x.view(2**31, -1).shape), (2**31, 2**30))
            self.assertEqual(x[2**61 - 1].item(), 0.0)

    def test_cat_total_length_beyond_int64(self):
        # torch's sum wraps (a negative dimension, or an empty result for four inputs).
        x = tp.empty(1).expand(2**62)
        for n in (2, 4):
            with self.assertRaisesRegex(
                    RuntimeError, r"^torch.cat\(\): the total size of the inputs in dimension 0 "
                                  r"overflows int64$"):
                tp.cat([x] * n)


class SizeNumel(unittest.TestCase):
    def test_wraps_as_torch(self):
        # torch.Size.numel() multiplies modulo 2**64: both of these give 0, without a crash.
        for sizes in ([2 ** 62, 4], [2 ** 32, 2 ** 32, 0], [3, 5]):
            expected = torch.Size(sizes).numel() if torch is not None else None
            got = tp.Size(sizes).numel()
            if expected is not None:
                self.assertEqual(got, expected)
        self.assertEqual(tp.zeros(3, 5).shape.numel(), 15)


if __name__ == "__main__":
    unittest.main()
