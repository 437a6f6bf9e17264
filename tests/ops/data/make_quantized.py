#!/usr/bin/env python3
"""Writes quantized_cases.txt, the PyTorch 1.13 reference for tests/ops/quantized_test.cpp.

    /usr/bin/python3 tests/ops/data/make_quantized.py   (Debian's torch 1.13)

One record per case, a line per field, `key value value ...`, ended by `end`. Floats are
written with 9 significant digits (float32 round-trips) and doubles with 17; a repr line is the
repr with newlines escaped as \\n. Fields by op:

  quantize_per_tensor:  dtype shape input scale zp int deq [repr]
  quantize_per_channel: dtype shape input scales zps axis int deq [repr]
  add add_relu mul mul_relu: dtype shape_a a_int a_scale a_zp shape_b b_int b_scale b_zp
                        scale zp int
  linear:               x_shape x_int x_scale x_zp w_shape w_int (w_scale w_zp | w_scales
                        w_zps) bias scale zp int (torch's onednn kernel; within one step)
"""
import math
import os

import torch

torch.manual_seed(18)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "quantized_cases.txt")
lines = []


def f9(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return "%.9g" % v


def emit(key, values):
    lines.append(key + " " + " ".join(values))


def ints(t):
    return [str(int(v)) for v in t.reshape(-1).tolist()]


def floats(t):
    return [f9(v) for v in t.reshape(-1).tolist()]


def qrepr(q, ns):
    """repr(q) as torch 1.13's _str_intern builds it for a quantized tensor, with the dtype and
    qscheme objects printed in namespace `ns`: torch's own _tensor_str and _add_suffixes, so
    that the line wrapping accounts for the longer "tensorplay." names. With ns="torch" it must
    equal repr(q) (checked below)."""
    ts = torch._tensor_str
    prefix, indent = "tensor(", 7
    suffixes = ["size=" + str(tuple(q.shape)), "dtype=" + str(q.dtype).replace("torch", ns, 1),
                "quantization_scheme=" + str(q.qscheme()).replace("torch", ns, 1)]
    if q.qscheme() == torch.per_tensor_affine:
        suffixes += ["scale=" + str(q.q_scale()), "zero_point=" + str(q.q_zero_point())]
    else:
        suffixes += ["scale=" + str(q.q_per_channel_scales()).replace("torch.", ns + "."),
                     "zero_point=" + str(q.q_per_channel_zero_points()).replace("torch.", ns + "."),
                     "axis=" + str(q.q_per_channel_axis())]
    body = ts._tensor_str(q.dequantize(), indent)
    return ts._add_suffixes(prefix + body, suffixes, indent, force_newline=False)


def repr_line(q):
    assert qrepr(q, "torch") == repr(q), (qrepr(q, "torch"), repr(q))
    return "repr " + qrepr(q, "tensorplay").replace("\n", "\\n")


def shape(t):
    return [str(s) for s in t.shape] or ["-"]  # "-" marks a 0-d shape


DTYPES = {"quint8": torch.quint8, "qint8": torch.qint8, "qint32": torch.qint32}

# ---- quantize_per_tensor --------------------------------------------------------------------
special = torch.tensor([float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 3e9, -3e9, 0.0,
                        -0.0, 1e-30])
for name, dt in DTYPES.items():
    for scale, zp in [(0.1, 10), (1.0, 0), (0.05, -3 if name != "quint8" else 3), (2.5, 1),
                      (0.00214854861, 0), (1e-05, 7)]:
        ties = (torch.arange(-20, 21, dtype=torch.float32) + 0.5) * scale
        rnd = torch.randn(25) * 150 * scale
        for inp in [ties, rnd, special, torch.tensor([0.273939937] * 3)]:
            q = torch.quantize_per_tensor(inp, scale, zp, dt)
            lines.append("case quantize_per_tensor")
            emit("dtype", [name])
            emit("shape", shape(inp))
            emit("input", floats(inp))
            emit("scale", ["%.17g" % scale])
            emit("zp", [str(zp)])
            emit("int", ints(q.int_repr()))
            emit("deq", floats(q.dequantize()))
            lines.append("end")

# shapes and reprs
for name, dt in DTYPES.items():
    for inp, scale, zp in [
        (torch.tensor([[-1.0, 0.0, 0.26], [2.5, 3.0, 100.0]]), 0.1, 10),
        (torch.tensor([1.5]), 0.1, 10),
        (torch.tensor(1.5), 0.1, 10),
        (torch.tensor([]), 0.1, 10),
        (torch.zeros(2, 0, 3), 0.5, 0),
        (torch.linspace(-3, 3, 24).reshape(2, 3, 4), 0.02, 5),
        (torch.tensor([1e-3, 2e-3]), 1e-05, 0),
        (torch.tensor([123456.0, -7.0]), 1000.0, 0),
        (torch.tensor([0.5, 1.25]), 0.25, 2),
    ]:
        q = torch.quantize_per_tensor(inp, scale, zp, dt)
        lines.append("case quantize_per_tensor")
        emit("dtype", [name])
        emit("shape", shape(inp))
        emit("input", floats(inp))
        emit("scale", ["%.17g" % scale])
        emit("zp", [str(zp)])
        emit("int", ints(q.int_repr()))
        emit("deq", floats(q.dequantize()))
        lines.append(repr_line(q))
        lines.append("end")

# ---- quantize_per_channel -------------------------------------------------------------------
for name, dt in DTYPES.items():
    lo = 0 if name == "quint8" else -5
    for shp, axis in [((2, 3), 0), ((2, 3), 1), ((2, 3, 4), 1), ((3, 2, 2), 2), ((4,), 0)]:
        inp = torch.randn(shp) * 3
        c = shp[axis]
        scales = torch.rand(c, dtype=torch.float64) * 0.2 + 0.01
        zps = torch.randint(lo, lo + 10, (c,))
        q = torch.quantize_per_channel(inp, scales, zps, axis, dt)
        lines.append("case quantize_per_channel")
        emit("dtype", [name])
        emit("shape", shape(inp))
        emit("input", floats(inp))
        emit("scales", ["%.17g" % v for v in scales.tolist()])
        emit("zps", [str(v) for v in zps.tolist()])
        emit("axis", [str(axis)])
        emit("int", ints(q.int_repr()))
        emit("deq", floats(q.dequantize()))
        lines.append(repr_line(q))
        lines.append("end")

# ---- quantized add / mul --------------------------------------------------------------------
OPS = {"add": torch.ops.quantized.add, "add_relu": torch.ops.quantized.add_relu,
       "mul": torch.ops.quantized.mul, "mul_relu": torch.ops.quantized.mul_relu}
for name, dt in [("quint8", torch.quint8), ("qint8", torch.qint8)]:
    base = torch.uint8 if name == "quint8" else torch.int8
    lo, hi = (0, 256) if name == "quint8" else (-128, 128)
    for op, fn in OPS.items():
        for sa, za, sb, zb, s, z, sa_shape, sb_shape in [
            (0.1, 10, 0.2, 3, 0.15, 7, (37,), (37,)),
            (0.05, 0, 0.05, 0, 0.1, 0, (5, 8), (8,)),
            (0.5, 20, 0.25, 1, 1.0, 2, (2, 1, 4), (3, 1)),
            (0.02, 2, 0.03, 5, 0.01, 4, (64,), (64,)),
        ]:
            a = torch._make_per_tensor_quantized_tensor(
                torch.randint(lo, hi, sa_shape, dtype=base), sa, za)
            b = torch._make_per_tensor_quantized_tensor(
                torch.randint(lo, hi, sb_shape, dtype=base), sb, zb)
            r = fn(a, b, s, z)
            lines.append("case " + op)
            emit("dtype", [name])
            emit("shape_a", shape(a))
            emit("a_int", ints(a.int_repr()))
            emit("a_scale", ["%.17g" % sa])
            emit("a_zp", [str(za)])
            emit("shape_b", shape(b))
            emit("b_int", ints(b.int_repr()))
            emit("b_scale", ["%.17g" % sb])
            emit("b_zp", [str(zb)])
            emit("scale", ["%.17g" % s])
            emit("zp", [str(z)])
            emit("int", ints(r.int_repr()))
            lines.append("end")

# ---- quantized linear -----------------------------------------------------------------------
for per_channel in [False, True]:
    for m, k, n in [(4, 5, 3), (2, 16, 8)]:
        x = torch._make_per_tensor_quantized_tensor(
            torch.randint(0, 256, (m, k), dtype=torch.uint8), 0.05, 128)
        wi = torch.randint(-127, 128, (n, k), dtype=torch.int8)
        if per_channel:
            ws = torch.rand(n, dtype=torch.float64) * 0.02 + 0.005
            w = torch._make_per_channel_quantized_tensor(wi, ws, torch.zeros(n, dtype=torch.long), 0)
        else:
            w = torch._make_per_tensor_quantized_tensor(wi, 0.01, 0)
        bias = torch.randn(n)
        packed = torch.ops.quantized.linear_prepack(w, bias)
        s, z = 0.08, 120
        r = torch.ops.quantized.linear(x, packed, s, z)
        lines.append("case linear")
        emit("x_shape", shape(x))
        emit("x_int", ints(x.int_repr()))
        emit("x_scale", ["0.05"])
        emit("x_zp", ["128"])
        emit("w_shape", shape(w))
        emit("w_int", ints(w.int_repr()))
        if per_channel:
            emit("w_scales", ["%.17g" % v for v in ws.tolist()])
            emit("w_zps", ["0"] * n)
        else:
            emit("w_scale", ["0.01"])
            emit("w_zp", ["0"])
        emit("bias", floats(bias))
        emit("scale", ["%.17g" % s])
        emit("zp", [str(z)])
        emit("int", ints(r.int_repr()))
        lines.append("end")

with open(OUT, "w") as f:
    f.write("# Generated by make_quantized.py with torch " + torch.__version__ + "; do not edit.\n")
    f.write("\n".join(lines) + "\n")
print("wrote", OUT, len(lines), "lines")
