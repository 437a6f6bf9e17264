#!/usr/bin/env python3
"""Writes torch_golden.safetensors: inputs, outputs and gradients of the ops of the ops issue
(index families, shape ops, data-dependent ops, einsum, cdist, nn::functional) as Debian's torch
1.13 computes them. tests/ops/torch_golden_test.cpp runs the same calls (its table names the same
cases) and compares.

    /usr/bin/python3 tests/ops/data/make_torch_golden.py     # torch 1.13, numpy

Per case `<name>`: inputs `<name>.in<i>`, outputs `<name>.out<j>` (every tensor a call returns, in
order), and for cases with gradients the weights `<name>.w` of the loss `(out0 * w).sum()` and
`<name>.grad<i>` for each input that requires grad. The file is written by hand in the
safetensors layout (the `safetensors` package is not in Debian), sorted by name.
"""
import json
import os
import struct

import torch
import torch.nn.functional as F

assert torch.__version__.startswith("1.13"), torch.__version__

CASES = []


def case(name, inputs, fn, grad=()):
    CASES.append((name, inputs, fn, tuple(grad)))


def f64(*shape, scale=1.0):
    return torch.randn(*shape, dtype=torch.float64) * scale


def li(*v):
    return torch.tensor(v, dtype=torch.int64)


def rows_perm(rows, n, k):
    return torch.stack([torch.randperm(n)[:k] for _ in range(rows)])


torch.manual_seed(1234)
I = torch.randint
# ---- index families --------------------------------------------------------------------------
case("gather.dim1", [f64(3, 4), I(0, 4, (3, 5))], lambda x, i: x.gather(1, i), [0])
case("gather.int32.dim0", [I(-9, 9, (4, 3), dtype=torch.int32), I(0, 4, (2, 3))],
     lambda x, i: x.gather(0, i))
case("scatter.src", [f64(3, 5), rows_perm(3, 5, 4), f64(3, 4)],
     lambda s, i, src: s.scatter(1, i, src), [0, 2])
case("scatter.value", [torch.randn(3, 5), rows_perm(3, 5, 4)], lambda s, i: s.scatter(1, i, 2.5))
case("scatter_add", [f64(3, 5), I(0, 5, (3, 6)), f64(3, 6)],
     lambda s, i, src: s.scatter_add(1, i, src), [0, 2])
for red in ["sum", "prod", "mean", "amax", "amin"]:
    for incl in [True, False]:
        case(f"scatter_reduce.{red}.{'self' if incl else 'noself'}",
             [f64(3, 5), I(0, 5, (3, 6)), f64(3, 6)],
             lambda s, i, src, red=red, incl=incl: s.scatter_reduce(1, i, src, red,
                                                                    include_self=incl), [0, 2])
case("index_select", [f64(5, 3), li(4, 0, 0, 2)], lambda x, i: x.index_select(0, i), [0])
case("index_select.int64.dim1", [I(-9, 9, (3, 5)), li(1, 3)], lambda x, i: x.index_select(1, i))
case("index_add.alpha", [f64(5, 3), li(0, 2, 0, 4), f64(4, 3)],
     lambda s, i, src: s.index_add(0, i, src, alpha=2), [0, 2])
case("index_copy", [f64(5, 3), li(4, 1, 2), f64(3, 3)], lambda s, i, src: s.index_copy(0, i, src),
     [0, 2])
case("index_fill", [f64(3, 5), li(0, 3)], lambda s, i: s.index_fill(1, i, -1.5), [0])
case("index_put.accumulate", [f64(4, 5), li(0, 1, 0, 3), li(2, 2, 2, 4), f64(4)],
     lambda s, i0, i1, v: s.index_put((i0, i1), v, accumulate=True), [0, 3])
case("index_put.assign", [f64(4, 5), li(0, 1, 3), li(2, 2, 4), f64(3)],
     lambda s, i0, i1, v: s.index_put((i0, i1), v), [0, 3])
case("masked_select.broadcast", [f64(3, 4), torch.tensor([True, False, True, True])],
     lambda x, m: x.masked_select(m), [0])
case("masked_scatter", [f64(3, 4), torch.rand(3, 4) > 0.5, f64(12)],
     lambda s, m, src: s.masked_scatter(m, src), [0, 2])
case("take", [f64(3, 4), torch.tensor([[0, -1, 5], [11, 2, 2]])], lambda x, i: x.take(i), [0])
case("put.accumulate", [f64(3, 4), li(0, 5, 5, -1, 2), f64(5)],
     lambda s, i, src: s.put(i, src, accumulate=True), [0, 2])
case("nonzero", [I(0, 2, (3, 4))], lambda x: x.nonzero())
case("nonzero.bool.3d", [torch.rand(2, 3, 2) > 0.5], lambda x: torch.nonzero(x))
case("where.one_arg", [I(0, 2, (3, 4))], lambda x: torch.where(x))
# ---- shape ops -------------------------------------------------------------------------------
case("repeat_interleave.tensor", [f64(3, 2), li(1, 0, 2)],
     lambda x, r: x.repeat_interleave(r, dim=0), [0])
case("repeat_interleave.int", [f64(2, 3)], lambda x: x.repeat_interleave(2), [0])
case("tile", [f64(2, 3)], lambda x: x.tile((2, 1, 2)), [0])
case("flip", [f64(2, 3, 4)], lambda x: x.flip((0, 2)), [0])
case("roll.dims", [f64(3, 4)], lambda x: x.roll((1, -2), (0, 1)), [0])
case("roll.flat", [f64(3, 4)], lambda x: x.roll(5), [0])
case("rot90.k1", [f64(2, 3)], lambda x: x.rot90(1, (0, 1)), [0])
case("rot90.k3", [f64(2, 3, 2)], lambda x: x.rot90(3, (1, 2)), [0])
case("tril.diag-1", [f64(4, 5)], lambda x: x.tril(-1), [0])
case("triu.diag1", [f64(4, 5)], lambda x: x.triu(1), [0])
case("tril.batched", [f64(2, 3, 3)], lambda x: x.tril(), [0])
case("diag.1d", [f64(3)], lambda x: x.diag(1), [0])
case("diag.2d", [f64(3, 4)], lambda x: x.diag(-1), [0])
case("diag_embed", [f64(2, 3)], lambda x: torch.diag_embed(x, 1, 0, 2), [0])
case("diagflat", [f64(2, 2)], lambda x: x.diagflat(-1), [0])
case("trace", [f64(3, 4)], lambda x: x.trace(), [0])
case("kron", [f64(2, 3), f64(3, 2)], lambda a, b: torch.kron(a, b), [0, 1])
case("cross.dim1", [f64(4, 3), f64(4, 3)], lambda a, b: torch.cross(a, b, dim=1), [0, 1])
case("tensordot", [f64(2, 3, 4), f64(3, 4, 5)],
     lambda a, b: torch.tensordot(a, b, dims=([1, 2], [0, 1])), [0, 1])
case("block_diag", [f64(2, 2), f64(1, 3)], lambda a, b: torch.block_diag(a, b), [0, 1])
# ---- data-dependent and search ops -----------------------------------------------------------
case("unique.sorted", [I(0, 5, (10,))],
     lambda x: torch.unique(x, sorted=True, return_inverse=True, return_counts=True))
case("unique.dim0", [torch.tensor([[1, 2, 3], [0, 5, 1], [1, 2, 3], [0, 5, 0], [0, 5, 1]])],
     lambda x: torch.unique(x, dim=0, return_inverse=True, return_counts=True))
case("unique_consecutive", [li(1, 1, 2, 2, 3, 1, 1, 2)],
     lambda x: torch.unique_consecutive(x, return_inverse=True, return_counts=True))
case("bincount.weights", [I(0, 5, (12,)), f64(12)],
     lambda x, w: torch.bincount(x, w, minlength=7))
case("histc", [torch.randn(20)], lambda x: torch.histc(x, bins=5, min=-1, max=1))
case("bucketize.right", [f64(3, 4), torch.sort(f64(5)).values],
     lambda x, b: torch.bucketize(x, b, right=True))
case("searchsorted.2d", [torch.sort(f64(3, 5), dim=1).values, f64(3, 4)],
     lambda s, v: torch.searchsorted(s, v))
case("searchsorted.side_right.int32", [torch.sort(f64(6)).values, f64(2, 3)],
     lambda s, v: torch.searchsorted(s, v, side="right", out_int32=True))
case("cummax", [f64(3, 5)], lambda x: torch.cummax(x, 1), [0])
case("cummin", [f64(3, 5)], lambda x: torch.cummin(x, 1), [0])
case("kthvalue", [f64(3, 5)], lambda x: torch.kthvalue(x, 2, 1), [0])
case("median.dim", [f64(3, 5)], lambda x: torch.median(x, 1), [0])
case("median.all", [f64(3, 5)], lambda x: torch.median(x), [0])
case("nanmedian.dim", [torch.tensor([[1.0, float("nan"), 3.0, 0.5], [2.0, 4.0, float("nan"),
                                                                   float("nan")]],
                                    dtype=torch.float64)], lambda x: torch.nanmedian(x, 1))
case("mode", [I(0, 3, (3, 7))], lambda x: torch.mode(x, 1))
for interp in ["linear", "lower", "higher", "midpoint", "nearest"]:
    case(f"quantile.{interp}", [f64(3, 5), torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)],
         lambda x, q, interp=interp: torch.quantile(x, q, dim=1, interpolation=interp), [0])
case("nanquantile", [torch.tensor([[1.0, float("nan"), 3.0, 0.5, 2.0]], dtype=torch.float64)],
     lambda x: torch.nanquantile(x, 0.3, dim=1, keepdim=True))
with_nan = f64(3, 4)
with_nan[0, 1] = with_nan[2, 3] = float("nan")
case("nansum.dim", [with_nan.clone()], lambda x: torch.nansum(x, 1), [0])
case("nanmean.dim", [with_nan.clone()], lambda x: torch.nanmean(x, 1), [0])
case("count_nonzero.dim0", [I(0, 3, (3, 4))], lambda x: torch.count_nonzero(x, 0))
# ---- einsum and cdist ------------------------------------------------------------------------
case("einsum.bmm", [f64(2, 3, 4), f64(2, 4, 5)], lambda a, b: torch.einsum("bij,bjk->bik", a, b),
     [0, 1])
case("einsum.diag", [f64(3, 3)], lambda a: torch.einsum("ii->i", a), [0])
case("einsum.ellipsis", [f64(2, 3, 4)], lambda a: torch.einsum("...ij->...ji", a), [0])
case("einsum.dot", [f64(3, 4), f64(3, 4)], lambda a, b: torch.einsum("ij,ij->", a, b), [0, 1])
case("einsum.chain", [f64(2, 3), f64(3, 4), f64(4, 2)],
     lambda a, b, c: torch.einsum("ij,jk,kl->il", a, b, c), [0, 1, 2])
for p in [2.0, 1.0, 0.0, 3.0, float("inf")]:
    case(f"cdist.p{p:g}", [f64(2, 4, 3), f64(2, 5, 3)], lambda a, b, p=p: torch.cdist(a, b, p=p),
         [0, 1])
# ---- nn.functional ---------------------------------------------------------------------------
case("conv1d.groups", [f64(2, 4, 9), f64(6, 2, 3), f64(6)],
     lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, groups=2), [0, 1, 2])
case("conv2d.dilation", [f64(2, 3, 7, 6), f64(4, 3, 3, 2), f64(4)],
     lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 0), dilation=(1, 2)),
     [0, 1, 2])
case("conv2d.same", [f64(1, 2, 5, 5), f64(3, 2, 3, 3)],
     lambda x, w: F.conv2d(x, w, padding="same"), [0, 1])
case("conv3d", [f64(1, 2, 4, 5, 4), f64(3, 2, 2, 3, 2), f64(3)],
     lambda x, w, b: F.conv3d(x, w, b, padding=(1, 0, 1)), [0, 1, 2])
case("conv_transpose2d", [f64(2, 4, 4, 3), f64(4, 3, 3, 3), f64(3)],
     lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
     [0, 1, 2])
case("conv_transpose1d.groups", [f64(1, 4, 5), f64(4, 1, 3)],
     lambda x, w: F.conv_transpose1d(x, w, stride=2, groups=2), [0, 1])
case("max_pool2d.indices", [f64(2, 3, 7, 6)],
     lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True), [0])
case("max_pool1d.dilation", [f64(2, 3, 9)], lambda x: F.max_pool1d(x, 3, 2, dilation=2), [0])
case("avg_pool2d.ceil", [f64(2, 3, 7, 6)],
     lambda x: F.avg_pool2d(x, (3, 2), 2, 1, ceil_mode=True, count_include_pad=False), [0])
case("avg_pool2d.divisor", [f64(1, 2, 5, 4)], lambda x: F.avg_pool2d(x, 2, divisor_override=3),
     [0])
case("avg_pool1d", [f64(2, 3, 8)], lambda x: F.avg_pool1d(x, 3, 2, 1), [0])
case("adaptive_avg_pool2d", [f64(2, 3, 7, 9)], lambda x: F.adaptive_avg_pool2d(x, (3, 4)), [0])
case("adaptive_max_pool2d", [f64(2, 3, 7, 9)],
     lambda x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True), [0])
case("adaptive_avg_pool1d", [f64(2, 3, 10)], lambda x: F.adaptive_avg_pool1d(x, 4), [0])
case("max_pool3d.indices", [f64(2, 2, 5, 6, 4)],
     lambda x: F.max_pool3d(x, (3, 2, 2), (2, 1, 2), (1, 1, 0), ceil_mode=True,
                            return_indices=True), [0])
case("max_pool3d.dilation", [f64(1, 2, 5, 5, 5)], lambda x: F.max_pool3d(x, 2, 1, 0, (2, 1, 2)),
     [0])
case("avg_pool3d.ceil", [f64(2, 2, 5, 6, 4)],
     lambda x: F.avg_pool3d(x, (3, 2, 2), 2, 1, ceil_mode=True, count_include_pad=False), [0])
case("avg_pool3d.divisor", [f64(1, 2, 4, 4, 5)], lambda x: F.avg_pool3d(x, 2, divisor_override=3),
     [0])
case("adaptive_avg_pool3d", [f64(2, 2, 5, 7, 6)], lambda x: F.adaptive_avg_pool3d(x, (3, 4, 2)),
     [0])
case("adaptive_max_pool3d", [f64(1, 2, 5, 7, 6)],
     lambda x: F.adaptive_max_pool3d(x, (2, 3, 4), return_indices=True), [0])
case("interpolate.area_5d", [f64(1, 2, 6, 5, 4)],
     lambda x: F.interpolate(x, size=(4, 3, 3), mode="area"), [0])


def bn_train(x, w, b, rm, rv):
    rm, rv = rm.clone(), rv.clone()
    y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1, eps=1e-5)
    return y, rm, rv


case("batch_norm.train", [f64(4, 3, 5), f64(3), f64(3), torch.zeros(3, dtype=torch.float64),
                          torch.ones(3, dtype=torch.float64)], bn_train, [0, 1, 2])
case("batch_norm.eval", [f64(4, 3), f64(3), f64(3), f64(3), torch.rand(3, dtype=torch.float64)],
     lambda x, w, b, rm, rv: F.batch_norm(x, rm, rv, w, b, training=False, eps=1e-3), [0, 1, 2])
case("layer_norm", [f64(3, 4, 5), f64(4, 5), f64(4, 5)],
     lambda x, w, b: F.layer_norm(x, (4, 5), w, b), [0, 1, 2])
case("group_norm", [f64(2, 6, 4), f64(6), f64(6)], lambda x, w, b: F.group_norm(x, 3, w, b),
     [0, 1, 2])
case("instance_norm", [f64(2, 3, 5)], lambda x: F.instance_norm(x), [0])
case("embedding.padding_idx", [f64(6, 3), torch.tensor([[0, 2, 5], [2, 2, 1]])],
     lambda w, i: F.embedding(i, w, padding_idx=2), [0])
case("one_hot", [li(0, 3, 1)], lambda x: F.one_hot(x, 5))
ACT = {
    "gelu": lambda x: F.gelu(x),
    "gelu.tanh": lambda x: F.gelu(x, approximate="tanh"),
    "elu": lambda x: F.elu(x, 0.5),
    "selu": F.selu,
    "silu": F.silu,
    "mish": F.mish,
    "softplus": lambda x: F.softplus(x, beta=2, threshold=1),
    "hardswish": F.hardswish,
    "hardsigmoid": F.hardsigmoid,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
    "relu6": F.relu6,
    "hardtanh": lambda x: F.hardtanh(x, -0.5, 0.7),
}
for n, fn in ACT.items():
    case(f"act.{n}", [f64(3, 5, scale=3.0)], fn, [0])
case("cross_entropy.weight_ignore_smoothing",
     [f64(5, 4), li(0, 3, 1, 2, 1), torch.rand(4, dtype=torch.float64) + 0.5],
     lambda x, t, w: F.cross_entropy(x, t, w, ignore_index=1, label_smoothing=0.1), [0])
case("cross_entropy.probs", [f64(3, 4), torch.softmax(f64(3, 4), 1)],
     lambda x, t: F.cross_entropy(x, t, label_smoothing=0.2), [0])
case("cross_entropy.spatial_sum", [f64(2, 3, 2, 2), I(0, 3, (2, 2, 2))],
     lambda x, t: F.cross_entropy(x, t, reduction="sum"), [0])
case("nll_loss.weight", [torch.log_softmax(f64(4, 5), 1), li(1, 0, 4, 4),
                         torch.rand(5, dtype=torch.float64) + 0.5],
     lambda x, t, w: F.nll_loss(x, t, w), [0])
case("mse_loss.sum", [f64(3, 4), f64(3, 4)], lambda x, t: F.mse_loss(x, t, reduction="sum"),
     [0, 1])
case("l1_loss.none", [f64(3, 4), f64(3, 4)], lambda x, t: F.l1_loss(x, t, reduction="none"), [0])
case("smooth_l1_loss", [f64(3, 4), f64(3, 4)], lambda x, t: F.smooth_l1_loss(x, t, beta=0.5), [0])
case("huber_loss", [f64(3, 4, scale=2.0), f64(3, 4)], lambda x, t: F.huber_loss(x, t, delta=1.5),
     [0])
case("binary_cross_entropy.weight", [torch.rand(6, dtype=torch.float64) * 0.9 + 0.05,
                                     torch.rand(6, dtype=torch.float64),
                                     torch.rand(6, dtype=torch.float64)],
     lambda x, t, w: F.binary_cross_entropy(x, t, w), [0])
case("bce_with_logits.pos_weight", [f64(4, 3), torch.rand(4, 3, dtype=torch.float64),
                                    torch.rand(3, dtype=torch.float64) + 0.5],
     lambda x, t, pw: F.binary_cross_entropy_with_logits(x, t, pos_weight=pw), [0])
case("kl_div.batchmean_log_target", [torch.log_softmax(f64(3, 4), 1), torch.log_softmax(f64(3, 4), 1)],
     lambda x, t: F.kl_div(x, t, reduction="batchmean", log_target=True), [0])
case("cosine_similarity", [f64(3, 5), f64(3, 5)], lambda a, b: F.cosine_similarity(a, b, dim=1),
     [0, 1])
case("normalize.p1_dim0", [f64(3, 4)], lambda x: F.normalize(x, p=1.0, dim=0), [0])

# ---- every dtype (forward), empty and 0-d inputs ---------------------------------------------
DTYPES = {"bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
          "int32": torch.int32, "int64": torch.int64, "float16": torch.float16,
          "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64}


def of(dt, *shape):
    return (torch.randn(*shape) * 4).to(dt) if dt != torch.bool else torch.rand(*shape) > 0.5


for n, dt in DTYPES.items():
    case(f"dtype.{n}.gather", [of(dt, 3, 4), I(0, 4, (3, 2))], lambda x, i: x.gather(1, i))
    case(f"dtype.{n}.index_select", [of(dt, 4, 3), li(3, 0, 3)],
         lambda x, i: x.index_select(0, i))
    case(f"dtype.{n}.take", [of(dt, 3, 4), li(0, -1, 7)], lambda x, i: x.take(i))
    case(f"dtype.{n}.masked_select", [of(dt, 3, 4), torch.rand(3, 4) > 0.5],
         lambda x, m: x.masked_select(m))
    case(f"dtype.{n}.flip_roll", [of(dt, 2, 3, 4)], lambda x: x.flip((1,)).roll(2, 2))
    case(f"dtype.{n}.tril", [of(dt, 3, 4)], lambda x: x.tril(1))
    case(f"dtype.{n}.repeat_interleave", [of(dt, 2, 3), li(2, 0, 1)],
         lambda x, r: x.repeat_interleave(r, dim=1))
    case(f"dtype.{n}.nonzero", [of(dt, 3, 4)], lambda x: x.nonzero())
    case(f"dtype.{n}.index_fill", [of(dt, 3, 4), li(2, 0)], lambda x, i: x.index_fill(1, i, 1))
    if dt not in (torch.bool, torch.float16, torch.bfloat16):
        case(f"dtype.{n}.scatter_add", [of(dt, 3, 4), I(0, 4, (3, 5)), of(dt, 3, 5)],
             lambda s, i, src: s.scatter_add(1, i, src))
    if dt not in (torch.bool, torch.float16, torch.bfloat16):
        case(f"dtype.{n}.unique", [of(dt, 9)],
             lambda x: torch.unique(x, return_inverse=True, return_counts=True))
case("empty.gather", [f64(3, 4), torch.zeros(3, 0, dtype=torch.int64)],
     lambda x, i: x.gather(1, i), [0])
case("empty.index_select", [f64(0, 3), torch.zeros(0, dtype=torch.int64)],
     lambda x, i: x.index_select(0, i), [0])
case("empty.nonzero", [torch.zeros(3, 0, dtype=torch.int64)], lambda x: x.nonzero())
case("empty.unique", [torch.zeros(0, dtype=torch.int64)],
     lambda x: torch.unique(x, return_inverse=True, return_counts=True))
case("empty.cdist", [f64(0, 3), f64(4, 3)], lambda a, b: torch.cdist(a, b), [0, 1])
case("empty.masked_select", [f64(2, 3), torch.zeros(2, 3, dtype=torch.bool)],
     lambda x, m: x.masked_select(m), [0])
case("0d.gather", [torch.tensor(2.5, dtype=torch.float64), torch.tensor(0)],
     lambda x, i: x.gather(0, i), [0])
case("0d.take", [f64(2, 3), torch.tensor(4)], lambda x, i: x.take(i), [0])
# (forward only: torch 1.13's index_select backward of a 0-d input raises "Dimension specified as
# 0 but tensor has no dimensions"; one index, since torch 1.13 returns a 0-d tensor for [0, 0]
# where later torch and tensorplay raise "Index to scalar can have only 1 value")
case("0d.index_select", [torch.tensor(1.5, dtype=torch.float64), li(0)],
     lambda x, i: x.index_select(0, i))
case("0d.nonzero", [torch.tensor(3)], lambda x: x.nonzero())
case("0d.flip", [torch.tensor(2.0, dtype=torch.float64)], lambda x: x.flip((0,)), [0])
case("0d.masked_select", [torch.tensor(2.0, dtype=torch.float64), torch.tensor([True, False,
                                                                                True])],
     lambda x, m: x.masked_select(m), [0])

ST = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
      torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
      torch.bool: "BOOL", torch.uint8: "U8"}


def main():
    tensors = {}
    names = set()
    for name, inputs, fn, grad in CASES:
        assert name not in names, name
        names.add(name)
        ins = [t.clone().requires_grad_(k in grad) for k, t in enumerate(inputs)]
        out = fn(*ins)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        for k, t in enumerate(inputs):
            tensors[f"{name}.in{k}"] = t
        for k, t in enumerate(outs):
            tensors[f"{name}.out{k}"] = t.detach()
        if grad:
            w = torch.randn(outs[0].shape, dtype=outs[0].dtype)
            (outs[0] * w).sum().backward()
            tensors[f"{name}.w"] = w
            for k in grad:
                tensors[f"{name}.grad{k}"] = ins[k].grad
    header, blobs, offset = {}, [], 0
    for key in sorted(tensors):
        t = tensors[key].contiguous()
        if t.dtype == torch.bfloat16:  # numpy has no bfloat16: its bytes as int16
            t = t.view(torch.int16)
        data = t.numpy().tobytes() if t.numel() else b""
        header[key] = {"dtype": ST[tensors[key].dtype], "shape": list(t.shape),
                       "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_golden.safetensors")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head + b"".join(blobs))
    print(f"{len(CASES)} cases, {len(tensors)} tensors, {os.path.getsize(path)} bytes -> {path}")


if __name__ == "__main__":
    main()
