#!/usr/bin/python3
"""Generates the reference .npy files of tests/serialize/numpy_test.cpp into npy/.

Made with NumPy 1.24.2 and torch 1.13 (Debian's /usr/bin/python3):
    cd tests/serialize/data && /usr/bin/python3 make_npy.py
Every file except the hand-built ones (py2_long, align16, dquote) is np.save's or
np.lib.format.write_array's own output; the hand-built ones are checked to load in NumPy.

Values: element i (in C order of the logical array) of each dtype is value(code, i) below; the
C++ test computes the same formula. Torch's view of each file (torch.from_numpy) is checked
here to have the strides the C++ loader gives (C strides, or Fortran strides for F order).
"""
import io
import os

import numpy as np
import torch
from numpy.lib import format as fmt

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npy")
CODES = ["b1", "u1", "i1", "i2", "i4", "i8", "f2", "f4", "f8"]


def value(code, i):
    return {
        "b1": i % 3 == 1,
        "u1": (i * 37) % 256,
        "i1": (i * 37) % 256 - 128,
        "i2": i * 1001 - 12000,
        "i4": i * 100003 - 1200000,
        "i8": i * 1000000007 - 3000000000,
        "f2": i * 0.5 - 3.0,
        "f4": i * 0.25 - 2.5,
        "f8": i * 0.1 - 1.0,
    }[code]


def pattern(code, shape, order="<"):
    n = int(np.prod(shape))
    dt = np.dtype(code).newbyteorder(order) if code[1] != "1" else np.dtype(code)
    return np.array([value(code, i) for i in range(n)], dtype=dt).reshape(shape)


def c_strides(shape):
    out, run = [], 1
    for s in reversed(shape):
        out.append(run)
        run *= max(s, 1)
    return tuple(reversed(out))


def f_strides(shape):
    out, run = [], 1
    for s in shape:
        out.append(run)
        run *= max(s, 1)
    return tuple(out)


def save(name, arr, **kw):
    path = os.path.join(OUT, name + ".npy")
    if kw:
        with open(path, "wb") as f:
            fmt.write_array(f, arr, **kw)
    else:
        np.save(path, arr)
    back = np.load(path)
    assert back.dtype == arr.dtype and back.shape == arr.shape
    assert np.array_equal(back, arr)
    return path


def check_torch_strides(path, strides):
    a = np.load(path)
    if a.dtype.byteorder == ">":
        return  # torch.from_numpy refuses big-endian arrays
    t = torch.from_numpy(a)
    assert t.stride() == strides, (path, t.stride(), strides)


def raw(name, header, data, align):
    """A hand-built version 1.0 file: `header` padded to `align`."""
    hlen = len(header) + 1
    pad = (align - (10 + hlen) % align) % align
    blob = b"\x93NUMPY\x01\x00" + (hlen + pad).to_bytes(2, "little")
    blob += header.encode("latin1") + b" " * pad + b"\n" + data
    path = os.path.join(OUT, name + ".npy")
    with open(path, "wb") as f:
        f.write(blob)
    return path


def main():
    os.makedirs(OUT, exist_ok=True)
    for code in CODES:
        a = pattern(code, (2, 3))
        check_torch_strides(save("c_" + code, a), c_strides((2, 3)))
        f = np.asfortranarray(pattern(code, (2, 3, 4)))
        assert f.flags.f_contiguous and not f.flags.c_contiguous
        check_torch_strides(save("f_" + code, f), f_strides((2, 3, 4)))
        if code[1] != "1":
            save("be_" + code, pattern(code, (2, 3), ">"))
            save("fbe_" + code, np.asfortranarray(pattern(code, (2, 3, 4), ">")))

    save("scalar_f8", pattern("f8", ()))
    save("scalar_b1", np.array(True))
    save("vec_i8", pattern("i8", (5,)))
    save("empty_f4", pattern("f4", (0, 3)))
    save("empty_i2", pattern("i2", (4, 0, 2)))
    # Neither C- nor F-contiguous: np.save writes it in C order.
    nc = pattern("i4", (2, 3, 4)).transpose(1, 0, 2)
    assert not nc.flags.c_contiguous and not nc.flags.f_contiguous
    save("noncontig_i4", nc)
    save("many_dims_u1", pattern("u1", (2,) + (1,) * 18 + (3,)))
    # (11 + len(dict)) % 64 == 0: format.py pads a full 64 bytes, not 0.
    p = save("pad64_f4", pattern("f4", (0, 1, 1, 1) + (10,) * 8))
    with open(p, "rb") as fh:
        assert fh.read(192).endswith(b" " * 64 + b"\n")
    save("v2_f4", pattern("f4", (2, 3)), version=(2, 0))
    save("v3_f4", pattern("f4", (2, 3)), version=(3, 0))
    save("v2_f_f8", np.asfortranarray(pattern("f8", (2, 3))), version=(2, 0))

    # Hand-built headers NumPy accepts: Python 2's long ints, NumPy < 1.9's 16-byte alignment,
    # double quotes, no trailing comma, odd whitespace.
    data = pattern("i4", (2, 3)).tobytes()
    for name, header, align in [
        ("py2_long", "{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }", 64),
        ("align16", "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", 16),
        ("dquote", '{"shape":(2,3),"fortran_order":False,\n\t"descr":"<i4"}', 64),
    ]:
        path = raw(name, header, data, align)
        back = np.load(path)
        assert np.array_equal(back, pattern("i4", (2, 3))), name

    sizes = {n: os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT)}
    print(len(sizes), "files,", sum(sizes.values()), "bytes; largest", max(sizes.values()))


if __name__ == "__main__":
    main()
