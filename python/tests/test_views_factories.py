"""View/shape ops, joins and factories, side by side with torch 1.13.

Each case is a function f(m, ...) run once with m = tensorplay and once with m = torch on the
same inputs; the results must agree in shape, strides, storage offset, dtype and values, and a
view must alias its base exactly where torch's does (same byte distance between data pointers)
and share its version counter.
"""
import unittest

import tensorplay as tp

try:
    import torch
except ImportError:  # the comparisons need torch; without it the module is skipped
    torch = None

MODS = (tp, torch)


def dname(dtype):
    return str(dtype).split(".")[-1]


def base3(m):
    return m.arange(24, dtype=m.float32).view(2, 3, 4)


def base2(m):
    return m.arange(6).view(2, 3)


def ones_dim(m):
    return m.arange(6.0).view(1, 3, 1, 2)


def col(m):
    return m.arange(3.0).view(3, 1)


# (name, input maker, op, writable): `writable` views get a fill_ through them (not for
# overlapping views, which torch refuses to write).
VIEWS = [
    ("view", base3, lambda m, x: x.view(4, 6), True),
    ("view tuple", base3, lambda m, x: x.view((6, 4)), True),
    ("view -1", base3, lambda m, x: x.view(-1, 3), True),
    ("view kw", base3, lambda m, x: x.view(size=(24,)), True),
    ("view dtype", base3, lambda m, x: x.view(m.int32), True),
    ("view dtype narrower", base3, lambda m, x: x.view(m.int16), True),
    ("view dtype kw", base2, lambda m, x: x.view(dtype=m.float64), True),
    ("view_as", base3, lambda m, x: x.view_as(m.empty(3, 8)), True),
    ("reshape", base3, lambda m, x: x.reshape(6, 4), True),
    ("reshape fn", base3, lambda m, x: m.reshape(x, (-1,)), True),
    ("reshape copy", base3, lambda m, x: x.transpose(0, 1).reshape(-1), False),
    ("reshape_as", base3, lambda m, x: x.reshape_as(m.empty(4, 6)), True),
    ("as_strided", base3, lambda m, x: x.as_strided((3, 2), (2, 5), 1), True),
    ("as_strided fn", base3, lambda m, x: m.as_strided(x, (4,), (3,)), True),
    ("as_strided overlap", base3, lambda m, x: x.as_strided((3, 3), (1, 1)), False),
    ("as_strided of view", base3, lambda m, x: x[1].as_strided((2,), (1,)), True),
    ("transpose", base3, lambda m, x: x.transpose(0, 2), True),
    ("transpose fn", base3, lambda m, x: m.transpose(x, -1, 0), True),
    ("swapdims", base3, lambda m, x: x.swapdims(0, 1), True),
    ("swapdims fn", base3, lambda m, x: m.swapdims(x, 1, 2), True),
    ("swapaxes", base3, lambda m, x: x.swapaxes(2, 1), True),
    ("swapaxes fn", base3, lambda m, x: m.swapaxes(x, 0, -1), True),
    ("t", base2, lambda m, x: x.t(), True),
    ("t fn", base2, lambda m, x: m.t(x), True),
    ("t 1-d", base2, lambda m, x: x[0].t(), True),
    ("permute", base3, lambda m, x: x.permute(2, 0, 1), True),
    ("permute tuple", base3, lambda m, x: x.permute((1, 2, 0)), True),
    ("permute fn", base3, lambda m, x: m.permute(x, (2, 1, 0)), True),
    ("expand", col, lambda m, x: x.expand(2, 3, 4), False),
    ("expand -1", col, lambda m, x: x.expand((-1, 5)), False),
    ("expand_as", col, lambda m, x: x.expand_as(m.empty(3, 2)), False),
    ("squeeze", ones_dim, lambda m, x: x.squeeze(), True),
    ("squeeze dim", ones_dim, lambda m, x: x.squeeze(0), True),
    ("squeeze fn", ones_dim, lambda m, x: m.squeeze(x, -2), True),
    ("squeeze no-op", ones_dim, lambda m, x: x.squeeze(1), True),
    ("unsqueeze", base3, lambda m, x: x.unsqueeze(0), True),
    ("unsqueeze fn", base3, lambda m, x: m.unsqueeze(x, -1), True),
    ("flatten", base3, lambda m, x: x.flatten(), True),
    ("flatten start", base3, lambda m, x: x.flatten(1), True),
    ("flatten fn", base3, lambda m, x: m.flatten(x, 0, 1), True),
    ("flatten copy", base3, lambda m, x: x.transpose(1, 2).flatten(1), False),
    ("unflatten", base3, lambda m, x: x.unflatten(1, (3, 1)), True),
    ("unflatten fn", base3, lambda m, x: m.unflatten(x, -1, (2, -1)), True),
    ("diagonal", base3, lambda m, x: x.diagonal(), True),
    ("diagonal offset", base3, lambda m, x: x.diagonal(1, 1, 2), True),
    ("diagonal fn", base3, lambda m, x: m.diagonal(x, offset=-1, dim1=2, dim2=0), True),
    ("unfold", base3, lambda m, x: x.unfold(2, 2, 1), False),
    ("unfold step", base3, lambda m, x: x.unfold(1, 2, 2), True),
    ("movedim", base3, lambda m, x: x.movedim(0, 2), True),
    ("movedim fn tuple", base3, lambda m, x: m.movedim(x, (0, 1), (2, 0)), True),
    ("moveaxis", base3, lambda m, x: x.moveaxis(-1, 0), True),
    ("moveaxis fn", base3, lambda m, x: m.moveaxis(x, (2,), (1,)), True),
    ("narrow", base3, lambda m, x: x.narrow(1, 1, 2), True),
    ("narrow fn", base3, lambda m, x: m.narrow(x, 2, 1, 2), True),
    ("narrow tensor start", base3, lambda m, x: x.narrow(2, m.tensor(1), 3), True),
    ("select", base3, lambda m, x: x.select(1, 2), True),
    ("select fn", base3, lambda m, x: m.select(x, 0, -1), True),
]

# (name, input maker, op) for the ops returning a tuple of views.
MULTI = [
    ("split", base3, lambda m, x: x.split(2, dim=2)),
    ("split uneven", base3, lambda m, x: x.split(2, 1)),
    ("split sizes", base3, lambda m, x: x.split([1, 3], 2)),
    ("split fn", base3, lambda m, x: m.split(x, 2)),
    ("split fn sizes", base3, lambda m, x: m.split(x, [1, 2], dim=1)),
    ("split_with_sizes", base3, lambda m, x: x.split_with_sizes([2, 1], 1)),
    ("split_with_sizes fn", base3, lambda m, x: m.split_with_sizes(x, (1, 1, 2), dim=-1)),
    ("chunk", base3, lambda m, x: x.chunk(2, 2)),
    ("chunk uneven", base3, lambda m, x: x.chunk(2, 1)),
    ("chunk fn", base3, lambda m, x: m.chunk(x, 3, dim=-1)),
    ("unbind", base3, lambda m, x: x.unbind(1)),
    ("unbind fn", base3, lambda m, x: m.unbind(x)),
]

# (name, input maker, in-place op): the op returns self, reshaped in place.
INPLACE = [
    ("transpose_", base3, lambda m, x: x.transpose_(0, 2)),
    ("swapdims_", base3, lambda m, x: x.swapdims_(0, 1)),
    ("swapaxes_", base3, lambda m, x: x.swapaxes_(1, 2)),
    ("t_", base2, lambda m, x: x.t_()),
    ("squeeze_", ones_dim, lambda m, x: x.squeeze_()),
    ("squeeze_ dim", ones_dim, lambda m, x: x.squeeze_(2)),
    ("unsqueeze_", base3, lambda m, x: x.unsqueeze_(1)),
    ("as_strided_", base3, lambda m, x: x.as_strided_((2, 2), (1, 4), 2)),
    ("as_strided_ fn", base3, lambda m, x: m.as_strided_(x, (3,), (5,))),
    ("resize_ smaller", base3, lambda m, x: x.resize_(2, 5)),
    ("resize_ tuple", base3, lambda m, x: x.resize_((4, 3, 2))),
    ("resize_as_", base3, lambda m, x: x.resize_as_(m.empty(3, 2))),
    ("resize_as_ fn", base3, lambda m, x: m.resize_as_(x, m.empty(24))),
]

JOINS = [
    ("cat", lambda m: m.cat([base2(m), base2(m) * 2])),
    ("cat dim", lambda m: m.cat((base2(m), base2(m)[:, :1]), 1)),
    ("cat neg dim", lambda m: m.cat([base3(m), base3(m)], dim=-1)),
    ("cat one", lambda m: m.cat([base2(m)])),
    ("cat skips empty 1-d", lambda m: m.cat([base2(m), m.empty(0, dtype=m.int64)])),
    ("cat dtype promotion", lambda m: m.cat([base2(m), base2(m).float()])),
    ("concat", lambda m: m.concat([base2(m), base2(m)], 1)),
    ("stack", lambda m: m.stack([base2(m), base2(m) + 1])),
    ("stack dim", lambda m: m.stack((base2(m), base2(m)), dim=2)),
    ("stack neg dim", lambda m: m.stack([base3(m), base3(m)], -2)),
]

# Errors: (name, op(m), exception type, compare the message with torch's).
ERRORS = [
    ("view bad size", lambda m: base2(m).view(4), RuntimeError, True),
    ("view two -1", lambda m: base2(m).view(-1, -1), RuntimeError, True),
    ("view non-viewable", lambda m: base2(m).t().view(6), RuntimeError, True),
    ("view dtype odd", lambda m: base3(m)[:, :, :3].view(m.float64), RuntimeError, True),
    ("view str", lambda m: base2(m).view("a"), TypeError, False),
    ("view float size", lambda m: base2(m).view(2.0, 3), TypeError, False),
    ("reshape str", lambda m: m.reshape(base2(m), "a"), TypeError, False),
    ("reshape bad", lambda m: base2(m).reshape(5), RuntimeError, True),
    ("as_strided negative offset", lambda m: base2(m).as_strided((2,), (1,), -1),
     RuntimeError, True),
    ("as_strided out of bounds", lambda m: base2(m).as_strided((2, 4), (4, 1)),
     RuntimeError, True),
    ("as_strided stride str", lambda m: base2(m).as_strided((2,), "a"), TypeError, False),
    ("transpose dim range", lambda m: base2(m).transpose(0, 5), IndexError, True),
    ("transpose float", lambda m: base2(m).transpose(0, 1.0), TypeError, False),
    ("t 3-d", lambda m: base3(m).t(), RuntimeError, True),
    ("t_ 3-d", lambda m: base3(m).t_(), RuntimeError, True),
    ("permute count", lambda m: base3(m).permute(0, 1), RuntimeError, True),
    ("permute repeat", lambda m: base3(m).permute(0, 1, 1), RuntimeError, True),
    ("permute fn varargs", lambda m: m.permute(base2(m), 1, 0), TypeError, False),
    ("expand fewer", lambda m: col(m).expand(3), RuntimeError, True),
    ("expand mismatch", lambda m: col(m).expand(2, 4), RuntimeError, True),
    ("expand_as str", lambda m: col(m).expand_as("a"), TypeError, False),
    ("squeeze range", lambda m: ones_dim(m).squeeze(4), IndexError, True),
    ("squeeze float", lambda m: ones_dim(m).squeeze(1.5), TypeError, False),
    ("unsqueeze range", lambda m: base2(m).unsqueeze(4), IndexError, True),
    ("unsqueeze_ range", lambda m: base2(m).unsqueeze_(-4), IndexError, True),
    ("flatten order", lambda m: base3(m).flatten(2, 0), RuntimeError, True),
    ("unflatten product", lambda m: base3(m).unflatten(1, (2, 2)), RuntimeError, True),
    ("split sizes sum", lambda m: base2(m).split([1, 1], 1), RuntimeError, True),
    ("split_with_sizes negative", lambda m: base2(m).split_with_sizes([4, -1], 1),
     RuntimeError, True),
    ("split str", lambda m: base2(m).split("a"), TypeError, False),
    ("chunk zero", lambda m: base2(m).chunk(0), RuntimeError, True),
    ("unbind range", lambda m: base2(m).unbind(2), IndexError, True),
    ("diagonal same dims", lambda m: base3(m).diagonal(0, 1, 1), RuntimeError, True),
    ("unfold too big", lambda m: base2(m).unfold(1, 4, 1), RuntimeError, True),
    ("unfold step", lambda m: base2(m).unfold(1, 2, 0), RuntimeError, True),
    ("movedim repeat", lambda m: base3(m).movedim((0, 1), (0, 0)), RuntimeError, True),
    ("movedim lengths", lambda m: base3(m).movedim((0, 1), (0,)), RuntimeError, True),
    ("movedim str", lambda m: m.movedim(base3(m), "a", 0), TypeError, False),
    ("narrow past end", lambda m: base2(m).narrow(1, 2, 2), RuntimeError, True),
    ("narrow negative length", lambda m: base2(m).narrow(1, 0, -1), RuntimeError, True),
    ("narrow tensor start 1-d", lambda m: base2(m).narrow(1, m.tensor([1]), 1),
     RuntimeError, True),
    ("narrow tensor start float", lambda m: base2(m).narrow(1, m.tensor(1.0), 1),
     RuntimeError, True),
    ("select range", lambda m: base2(m).select(0, 5), IndexError, True),
    ("select 0-d", lambda m: m.tensor(1).select(0, 0), IndexError, True),
    # torch 1.13 reports "numel: integer multiplication overflow" here; the C++ names the
    # negative dimension instead.
    ("resize_ negative", lambda m: base2(m).resize_(-1), RuntimeError, False),
    ("resize_as_ str", lambda m: base2(m).resize_as_("a"), TypeError, False),
    ("cat empty list", lambda m: m.cat([]), RuntimeError, True),
    ("cat shapes", lambda m: m.cat([base2(m), m.zeros(2, 4)]), RuntimeError, True),
    ("cat dim range", lambda m: m.cat([base2(m), base2(m)], 2), IndexError, True),
    ("cat str", lambda m: m.cat("a"), TypeError, False),
    ("cat non-tensor item", lambda m: m.cat([base2(m), 1]), TypeError, False),
    ("stack shapes", lambda m: m.stack([base2(m), m.zeros(2, 4)]), RuntimeError, True),
    ("stack empty", lambda m: m.stack([]), RuntimeError, True),
]


@unittest.skipIf(torch is None, "torch is needed for the side-by-side comparisons")
class Base(unittest.TestCase):
    def assertSame(self, a, b, what=""):
        """tp tensor a matches torch tensor b: geometry, dtype and values."""
        self.assertEqual(tuple(a.shape), tuple(b.shape), what)
        self.assertEqual(tuple(a.stride()), tuple(b.stride()), what)
        self.assertEqual(a.storage_offset(), b.storage_offset(), what)
        self.assertEqual(dname(a.dtype), dname(b.dtype), what)
        self.assertEqual(a.tolist(), b.tolist(), what)

    def assertAliases(self, view, base, tview, tbase, what=""):
        """view lies at the same byte distance from base's data as torch's does."""
        self.assertEqual(view.data_ptr() - base.data_ptr(),
                         tview.data_ptr() - tbase.data_ptr(), what)
        self.assertEqual(view.data_ptr(),
                         base.data_ptr() - base.storage_offset() * base.element_size()
                         + view.storage_offset() * view.element_size(), what)

    def assertSameError(self, fn, exc, same_message, what=""):
        with self.assertRaises(exc, msg=what) as theirs:
            fn(torch)
        with self.assertRaises(exc, msg=what) as ours:
            fn(tp)
        if same_message:  # the C++ names its own type where torch says torch.FloatTensor
            self.assertEqual(str(ours.exception).replace("tensorplay.", "torch."),
                             str(theirs.exception), what)


class TestViews(Base):
    def test_single_views(self):
        for name, make, op, writable in VIEWS:
            with self.subTest(name):
                x, tx = make(tp), make(torch)
                v, tv = op(tp, x), op(torch, tx)
                self.assertSame(v, tv, name)
                shares = tv.storage().data_ptr() == tx.storage().data_ptr()
                if shares:
                    self.assertAliases(v, x, tv, tx, name)
                else:  # a copy: a fresh allocation, not an alias
                    self.assertEqual(v._version, 0, name)
                if shares and writable:
                    before = x._version
                    v.fill_(7)
                    tv.fill_(7)
                    self.assertEqual(x.tolist(), tx.tolist(), name)
                    self.assertEqual(x._version, before + 1, name)
                    self.assertEqual(v._version, x._version, name)

    def test_multi_views(self):
        for name, make, op in MULTI:
            with self.subTest(name):
                x, tx = make(tp), make(torch)
                parts, tparts = op(tp, x), op(torch, tx)
                self.assertIsInstance(parts, tuple)
                self.assertEqual(len(parts), len(tparts), name)
                for p, tq in zip(parts, tparts):
                    self.assertSame(p, tq, name)
                    self.assertAliases(p, x, tq, tx, name)
                parts[-1].fill_(-1)
                tparts[-1].fill_(-1)
                self.assertEqual(x.tolist(), tx.tolist(), name)
                self.assertEqual(parts[0]._version, x._version, name)
                self.assertEqual(x._version, 1, name)

    def test_inplace(self):
        for name, make, op in INPLACE:
            with self.subTest(name):
                x, tx = make(tp), make(torch)
                ptr = x.data_ptr() - x.storage_offset() * x.element_size()
                r, tr = op(tp, x), op(torch, tx)
                self.assertIs(r, x, name)
                self.assertSame(x, tx, name)
                self.assertEqual(x.data_ptr(), ptr + x.storage_offset() * x.element_size(), name)

    def test_inplace_view_of_view_shares_version(self):
        versions = []
        for m in MODS:  # the in-place geometry change counts as a write, as in torch
            x = base3(m)
            v = x[0]
            v.transpose_(0, 1)
            w = v.narrow(0, 1, 2)
            w.fill_(1)
            versions.append((x._version, v._version, w._version, x.tolist()))
        self.assertEqual(versions[0], versions[1])

    def test_resize_grows_and_keeps_prefix(self):
        x, tx = base2(tp), base2(torch)
        x.resize_(3, 4)
        tx.resize_(3, 4)
        self.assertEqual(tuple(x.shape), (3, 4))
        self.assertEqual(x.stride(), tx.stride())
        self.assertEqual(x.flatten()[:6].tolist(), tx.flatten()[:6].tolist())
        y, ty = base3(tp), base3(torch)
        y.resize_(2, 3, 2, 2, memory_format=tp.channels_last)
        ty.resize_(2, 3, 2, 2, memory_format=torch.channels_last)
        self.assertEqual(y.stride(), ty.stride())

    def test_squeeze_dims_tuple(self):
        # torch 2.0's squeeze(dims) (1.13 takes one int): the same as squeezing one at a time
        x, tx = ones_dim(tp), ones_dim(torch)
        for dims, steps in (((0, 2), (2, 0)), ((-2,), (-2,)), ((), ()), ((0, 1), (0,))):
            with self.subTest(dims=dims):
                expected = tx
                for d in steps:
                    expected = expected.squeeze(d)
                for v in (x.squeeze(dims), tp.squeeze(x, dim=dims)):
                    self.assertSame(v, expected, dims)
                    self.assertAliases(v, x, expected, tx, dims)

    def test_joins(self):
        for name, op in JOINS:
            with self.subTest(name):
                self.assertSame(op(tp), op(torch), name)

    def test_join_out(self):
        for fn in ("cat", "concat", "stack"):
            with self.subTest(fn):
                out, tout = tp.empty(0, dtype=tp.int64), torch.empty(0, dtype=torch.int64)
                r = getattr(tp, fn)([base2(tp), base2(tp)], 1, out=out)
                tr = getattr(torch, fn)([base2(torch), base2(torch)], 1, out=tout)
                self.assertIs(r, out)
                self.assertSame(out, tout, fn)

    def test_errors(self):
        for name, fn, exc, same in ERRORS:
            with self.subTest(name):
                self.assertSameError(fn, exc, same, name)

    def test_names_match_torch(self):
        methods = ("view view_as reshape reshape_as as_strided as_strided_ transpose transpose_ "
                   "swapdims swapdims_ swapaxes swapaxes_ t t_ permute expand expand_as squeeze "
                   "squeeze_ unsqueeze unsqueeze_ flatten unflatten split split_with_sizes "
                   "chunk unbind diagonal unfold movedim moveaxis narrow select resize_ "
                   "resize_as_ new_zeros new_ones new_empty new_full new_tensor").split()
        functions = ("reshape as_strided as_strided_ transpose swapdims swapaxes t permute "
                     "squeeze unsqueeze flatten unflatten split split_with_sizes chunk unbind "
                     "diagonal movedim moveaxis narrow select resize_as_ cat concat stack "
                     "zeros ones empty full arange linspace eye rand randn randint manual_seed "
                     "zeros_like ones_like empty_like full_like rand_like randn_like "
                     "randint_like scalar_tensor empty_strided get_default_dtype").split()
        for n in methods:
            self.assertTrue(hasattr(torch.Tensor, n), n)
            self.assertTrue(hasattr(tp.Tensor, n), n)
        for n in functions:
            self.assertTrue(hasattr(torch, n), n)
            self.assertTrue(hasattr(tp, n), n)
        # torch has these only as methods (or not at all): so does tp
        for n in ("view", "view_as", "reshape_as", "expand", "expand_as", "unfold", "t_",
                  "transpose_", "squeeze_", "unsqueeze_", "resize_", "alias"):
            self.assertEqual(hasattr(tp, n), hasattr(torch, n), n)
        for n in ("cat", "stack", "alias", "slice"):
            self.assertEqual(hasattr(tp.Tensor, n), hasattr(torch.Tensor, n), n)


def same_geometry(m, x):
    return (tuple(x.shape), tuple(x.stride()), dname(x.dtype), x.requires_grad)


# (name, op(m)): deterministic factories, compared in full.
FACTORIES = [
    ("zeros varargs", lambda m: m.zeros(2, 3)),
    ("zeros tuple", lambda m: m.zeros((2, 3))),
    ("zeros list kw", lambda m: m.zeros(size=[3])),
    ("zeros 0-d", lambda m: m.zeros(())),
    ("zeros dtype", lambda m: m.zeros(2, dtype=m.int32)),
    ("zeros requires_grad", lambda m: m.zeros(2, requires_grad=True)),
    ("ones", lambda m: m.ones(2, 2, dtype=m.float64)),
    ("ones bool", lambda m: m.ones(3, dtype=m.bool)),
    ("ones device", lambda m: m.ones(2, device="cpu")),
    ("full float", lambda m: m.full((2, 2), 1.5)),
    ("full int", lambda m: m.full((2,), 7)),
    ("full bool", lambda m: m.full((2,), True)),
    ("full dtype", lambda m: m.full([3], 7, dtype=m.float64)),
    ("full 0-d", lambda m: m.full((), 2.0)),
    ("scalar_tensor", lambda m: m.scalar_tensor(3)),
    ("scalar_tensor bool", lambda m: m.scalar_tensor(True)),
    ("scalar_tensor dtype", lambda m: m.scalar_tensor(2.5, dtype=m.float64)),
    ("arange end", lambda m: m.arange(5)),
    ("arange float end", lambda m: m.arange(2.5)),
    ("arange start end", lambda m: m.arange(1, 5)),
    ("arange mixed", lambda m: m.arange(1, 5.0)),
    ("arange step", lambda m: m.arange(1, 10, 3)),
    ("arange float step", lambda m: m.arange(0, 1, 0.1)),
    ("arange negative step", lambda m: m.arange(10, 0, -3)),
    ("arange kw end", lambda m: m.arange(end=4)),
    ("arange kw start", lambda m: m.arange(start=1, end=4)),
    ("arange kw step", lambda m: m.arange(0, 6, step=2)),
    ("arange dtype", lambda m: m.arange(5, dtype=m.float64)),
    ("arange bool", lambda m: m.arange(True)),
    ("arange requires_grad", lambda m: m.arange(3.0, requires_grad=True)),
    ("linspace", lambda m: m.linspace(0, 1, 5)),
    ("linspace kw", lambda m: m.linspace(-2, 3, steps=7, dtype=m.float64)),
    ("linspace int", lambda m: m.linspace(0, 10, 4, dtype=m.int64)),
    ("linspace one", lambda m: m.linspace(3, 5, 1)),
    ("eye", lambda m: m.eye(3)),
    ("eye rect", lambda m: m.eye(2, 3)),
    ("eye kw", lambda m: m.eye(3, m=2, dtype=m.bool)),
    ("zeros_like", lambda m: m.zeros_like(base3(m).transpose(0, 2))),
    ("ones_like dtype", lambda m: m.ones_like(base2(m), dtype=m.float32)),
    ("ones_like contiguous", lambda m: m.ones_like(base2(m).t(),
                                                   memory_format=m.contiguous_format)),
    ("full_like", lambda m: m.full_like(base2(m), 2.7)),
    ("full_like dtype", lambda m: m.full_like(base2(m), 2.5, dtype=m.float64)),
    ("full_like non-dense", lambda m: m.full_like(base3(m)[:, ::2].transpose(1, 2), 1)),
    ("new_zeros", lambda m: base3(m).new_zeros(2, 3)),
    ("new_zeros tuple", lambda m: base2(m).new_zeros((2,))),
    ("new_ones dtype", lambda m: base2(m).new_ones(2, dtype=m.int32)),
    ("new_full", lambda m: base2(m).new_full((2, 2), 2.5)),
    ("new_full float", lambda m: base3(m).new_full([3], 2)),
    ("new_tensor", lambda m: base3(m).new_tensor([1, 2])),
    ("new_tensor int", lambda m: base2(m).new_tensor([1.5, 2.5])),
    ("new_tensor dtype", lambda m: base2(m).new_tensor([[1, 2]], dtype=m.float64)),
    ("new_tensor grad", lambda m: base3(m).new_tensor([1.0], requires_grad=True)),
    ("tensor requires_grad", lambda m: m.tensor([1.0, 2.0], requires_grad=True)),
]

# Uninitialised results: only the geometry is compared.
EMPTIES = [
    ("empty", lambda m: m.empty(2, 3)),
    ("empty tuple dtype", lambda m: m.empty((4,), dtype=m.int16)),
    ("empty channels_last", lambda m: m.empty(2, 3, 4, 5, memory_format=m.channels_last)),
    ("empty_like", lambda m: m.empty_like(base3(m).permute(2, 0, 1))),
    ("empty_like contiguous", lambda m: m.empty_like(base2(m).t(),
                                                     memory_format=m.contiguous_format)),
    ("empty_like dtype", lambda m: m.empty_like(base2(m), dtype=m.float64, requires_grad=True)),
    ("empty_strided", lambda m: m.empty_strided((2, 3), (1, 2))),
    ("empty_strided dtype", lambda m: m.empty_strided((2, 2), (4, 1), dtype=m.int32)),
    ("new_empty", lambda m: base2(m).new_empty(3, 2)),
    ("new_empty tuple", lambda m: base3(m).new_empty((1,), dtype=m.float64)),
]

# Random factories: with the same seed tp draws torch's values (same mt19937 and transforms;
# randn only below 16 elements, where torch does not switch to its vectorised sampler).
RANDOM = [
    ("rand", lambda m: m.rand(2, 3)),
    ("rand tuple dtype", lambda m: m.rand((5,), dtype=m.float64)),
    ("rand generator None", lambda m: m.rand(3, generator=None)),
    ("randn", lambda m: m.randn(4)),
    ("randn dtype", lambda m: m.randn(2, 2, dtype=m.float64, requires_grad=True)),
    ("randint high", lambda m: m.randint(10, (3,))),
    ("randint low high", lambda m: m.randint(3, 10, (2, 2))),
    ("randint kw", lambda m: m.randint(low=-5, high=5, size=(4,), dtype=m.int32)),
    ("randint kw high", lambda m: m.randint(high=3, size=[4])),
    ("rand_like", lambda m: m.rand_like(base3(m).transpose(0, 1))),
    ("randn_like", lambda m: m.randn_like(base2(m), dtype=m.float64)),
    ("randint_like", lambda m: m.randint_like(base2(m), 5)),
    ("randint_like low", lambda m: m.randint_like(base3(m), 2, 9)),
]

FACTORY_ERRORS = [
    ("zeros negative", lambda m: m.zeros(-1), RuntimeError, True),
    ("zeros str", lambda m: m.zeros(2, "a"), TypeError, False),
    ("zeros no size", lambda m: m.zeros(), TypeError, False),
    ("zeros dtype str", lambda m: m.zeros(2, dtype="float"), TypeError, False),
    ("zeros device int", lambda m: m.zeros(2, device=1.5), TypeError, False),
    ("ones int requires_grad", lambda m: m.ones(2, dtype=m.int64, requires_grad=True),
     RuntimeError, True),
    ("full no value", lambda m: m.full((2,)), TypeError, False),
    ("full str value", lambda m: m.full((2,), "a"), TypeError, False),
    ("arange zero step", lambda m: m.arange(0, 1, 0), RuntimeError, True),
    ("arange sign", lambda m: m.arange(0, 5, -1), RuntimeError, True),
    ("arange inf", lambda m: m.arange(0, float("inf")), RuntimeError, True),
    ("arange str", lambda m: m.arange("a"), TypeError, False),
    ("arange int requires_grad", lambda m: m.arange(3, requires_grad=True), RuntimeError, True),
    ("linspace negative", lambda m: m.linspace(0, 1, -1), RuntimeError, True),
    ("linspace float steps", lambda m: m.linspace(0, 1, 2.5), TypeError, False),
    ("eye negative", lambda m: m.eye(-1), RuntimeError, True),
    ("eye negative m", lambda m: m.eye(2, -3), RuntimeError, True),
    ("rand generator", lambda m: m.rand(2, generator="a"), TypeError, False),
    ("rand int dtype", lambda m: m.rand(2, dtype=m.int64), RuntimeError, True),
    ("randn int dtype", lambda m: m.randn(2, dtype=m.int64), RuntimeError, True),
    ("randint empty range", lambda m: m.randint(5, 2, (2,)), RuntimeError, True),
    ("randint float high", lambda m: m.randint(2.5, (2,)), TypeError, False),
    ("rand_like int", lambda m: m.rand_like(base2(m)), RuntimeError, True),
    ("randint_like empty range", lambda m: m.randint_like(base2(m), 3, 3), RuntimeError, True),
    ("empty_like str", lambda m: m.empty_like("a"), TypeError, False),
    ("empty_like both formats", lambda m: m.empty_like(base2(m), memory_format="x"),
     TypeError, False),
    ("new_full no value", lambda m: base2(m).new_full((2,)), TypeError, False),
    ("new_zeros int requires_grad", lambda m: base2(m).new_zeros(2, requires_grad=True),
     RuntimeError, True),
    ("new_tensor int requires_grad", lambda m: base2(m).new_tensor([1], requires_grad=True),
     RuntimeError, True),
    ("manual_seed overflow", lambda m: m.manual_seed(2 ** 64), RuntimeError, True),
    ("manual_seed negative overflow", lambda m: m.manual_seed(-2 ** 64), RuntimeError, True),
    ("manual_seed str", lambda m: m.manual_seed("a"), ValueError, False),
    ("scalar_tensor tensor", lambda m: m.scalar_tensor([1]), TypeError, False),
]


class TestFactories(Base):
    def test_values(self):
        for name, op in FACTORIES:
            with self.subTest(name):
                a, b = op(tp), op(torch)
                self.assertSame(a, b, name)
                self.assertEqual(a.requires_grad, b.requires_grad, name)

    def test_uninitialised(self):
        for name, op in EMPTIES:
            with self.subTest(name):
                self.assertEqual(same_geometry(tp, op(tp)), same_geometry(torch, op(torch)), name)

    def test_random_matches_torch_and_reproduces(self):
        for name, op in RANDOM:
            with self.subTest(name):
                tp.manual_seed(123)
                torch.manual_seed(123)
                a, b = op(tp), op(torch)
                self.assertSame(a, b, name)
                self.assertEqual(a.requires_grad, b.requires_grad, name)
                tp.manual_seed(123)
                self.assertEqual(op(tp).tolist(), a.tolist(), name)

    def test_manual_seed_wraps_negative(self):
        tp.manual_seed(-1)
        a = tp.rand(3).tolist()
        tp.manual_seed(2 ** 64 - 1)
        self.assertEqual(tp.rand(3).tolist(), a)
        torch.manual_seed(-1)
        self.assertEqual(torch.rand(3).tolist(), a)
        tp.manual_seed(7.9)  # int(seed), as torch
        b = tp.randn(2).tolist()
        tp.manual_seed(7)
        self.assertEqual(tp.randn(2).tolist(), b)

    def test_eye_m_none(self):
        self.assertSame(tp.eye(3, None), torch.eye(3))

    def test_default_dtype(self):
        self.assertIs(tp.get_default_dtype(), tp.float32)
        self.assertIs(tp.zeros(1).dtype, tp.get_default_dtype())

    def test_new_tensor_copies(self):
        x = base2(tp)
        y = x.new_tensor(x)
        self.assertEqual(y.tolist(), x.tolist())
        self.assertNotEqual(y.data_ptr(), x.data_ptr())

    def test_errors(self):
        for name, fn, exc, same in FACTORY_ERRORS:
            with self.subTest(name):
                self.assertSameError(fn, exc, same, name)


if __name__ == "__main__":
    unittest.main()
