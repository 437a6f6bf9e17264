#!/usr/bin/python3
"""Checks that Python reads what tensorplay's serialize headers write.

Usage (the integrator wires this into CI):
    export TENSORPLAY_SERIALIZE_OUT=$(mktemp -d)
    <unit test binary> '[serialize]'          # zip_test and torch_zip_test write their files
    /usr/bin/python3 tests/serialize/data/check_torchzip.py "$TENSORPLAY_SERIALIZE_OUT"

Checks: Python's zipfile reads the ZipWriter's archives (stored, deflated, forced zip64) with good
CRCs; numpy loads the .npz; torch 1.13's torch.load(weights_only=True) loads each torch file that
tensorplay re-saved from the reference files in torchzip/ (nested.pt: without weights_only,
which in torch 1.13 cannot read floats) and finds the same object: container
types (dict vs OrderedDict), leaves, tensor dtypes/values/sizes/strides/offsets/requires_grad,
storage sharing and tensor identity. A Parameter comes back as a tensor that requires grad
(tensorplay has no Parameter type). Exits non-zero with a message on the first difference.
"""
import collections
import os
import sys
import zipfile

import numpy as np
import torch

out = sys.argv[1]
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torchzip")
pattern = bytes((i * 31 + 7) % 251 for i in range(1000))

for name in ("writer.zip", "writer_zip64.zip"):
    with zipfile.ZipFile(os.path.join(out, name)) as z:
        assert z.testzip() is None, name
        assert z.read("stored.bin") == pattern, name
        assert z.read("deflated.bin") == pattern, name
        assert z.getinfo("deflated.bin").compress_type == zipfile.ZIP_DEFLATED
        assert z.read("empty") == b"", name
        # The stored record's data starts on a 64-byte boundary (PyTorchStreamWriter's layout).
        info = z.getinfo("stored.bin")
        with open(os.path.join(out, name), "rb") as f:
            f.seek(info.header_offset + 26)
            n, m = np.frombuffer(f.read(4), dtype="<u2")
        assert (info.header_offset + 30 + n + m) % 64 == 0, name

npz = np.load(os.path.join(out, "writer.npz"))
assert np.array_equal(npz["a"], np.arange(6.0).reshape(2, 3) * 0.5)
assert npz["b"].dtype == np.uint8 and list(npz["b"]) == [1, 2, 3, 4]


def same(a, b, path):
    if isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor), path
        assert a.dtype == b.dtype, (path, a.dtype, b.dtype)
        assert a.size() == b.size() and a.stride() == b.stride(), (path, a.stride(), b.stride())
        assert a.storage_offset() == b.storage_offset(), path
        assert a.requires_grad == b.requires_grad, path
        assert torch.equal(a.detach(), b.detach()), path
        return
    assert type(a) is type(b), (path, type(a), type(b))
    if isinstance(a, dict):
        assert list(a.keys()) == list(b.keys()), path
        for k in a:
            same(a[k], b[k], path + "/" + str(k))
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, "%s/%d" % (path, i))
    else:
        assert a == b, (path, a, b)


for name in ("state_dict.pt", "views.pt", "dtypes.pt", "nested.pt"):
    ref = torch.load(os.path.join(here, name))
    # torch 1.13's weights_only unpickler lacks BINFLOAT (opcode 'G'), so nested.pt (which has
    # floats) fails there even as torch itself wrote it; it is loaded with the full unpickler.
    ours = torch.load(os.path.join(out, name), weights_only=name != "nested.pt")
    if name == "nested.pt":  # Parameter -> tensor that requires grad
        ref["param"] = ref["param"].detach().requires_grad_(True)
        assert ours["tup"][0] is ours["grad"] and ours["tup"][1] is ours["grad"]
    same(ref, ours, name)
    if name == "views.pt":
        ptr = ours["x"].storage().data_ptr()
        assert ours["t"].storage().data_ptr() == ptr and ours["s"].storage().data_ptr() == ptr
    if name == "state_dict.pt":
        assert isinstance(ours, collections.OrderedDict)
        model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
        model.load_state_dict(ours)
print("check_torchzip: all files read back by zipfile, numpy and torch.load")
