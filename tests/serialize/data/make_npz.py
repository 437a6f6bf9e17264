#!/usr/bin/python3
"""Generates the reference .npz files of tests/serialize/npz_test.cpp into npz/.

Made with NumPy 1.24.2 (Debian's /usr/bin/python3):
    cd tests/serialize/data && /usr/bin/python3 make_npz.py
plain.npz is np.savez's output (stored members, zip64 local extra fields), compressed.npz
np.savez_compressed's (deflated members) of the same arrays; the C++ test knows their values.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npz")
ARRAYS = {
    "w": np.arange(6, dtype=np.float32).reshape(2, 3),
    "idx": np.array([3, -1, 7], dtype=np.int64),
    "flag": np.array(True),
    "ft": np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3)),
}

os.makedirs(OUT, exist_ok=True)
np.savez(os.path.join(OUT, "plain.npz"), **ARRAYS)
np.savez_compressed(os.path.join(OUT, "compressed.npz"), **ARRAYS)
for name in ("plain.npz", "compressed.npz"):
    with np.load(os.path.join(OUT, name)) as f:
        assert sorted(f.files) == sorted(ARRAYS)
        for k, v in ARRAYS.items():
            assert np.array_equal(f[k], v) and f[k].dtype == v.dtype
