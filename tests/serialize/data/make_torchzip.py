#!/usr/bin/python3
"""Generates the reference files of tests/serialize/{zip,pickle,torch_zip}_test.cpp.

Made with Debian's /usr/bin/python3 and torch 1.13 (python3-torch), numpy 1.24:
    /usr/bin/python3 tests/serialize/data/make_torchzip.py
writes tests/serialize/data/torchzip/*. The C++ tests check the values written here, so keep the
two in step. Everything is deterministic (no random data), so rerunning reproduces the files
byte for byte except for zip timestamps.
"""
import collections
import io
import os
import pickle
import zipfile

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torchzip")
os.makedirs(OUT, exist_ok=True)


def save(obj, name, **kw):
    torch.save(obj, os.path.join(OUT, name), **kw)


# A small model's state dict: an OrderedDict (with _metadata) of float tensors, plus BatchNorm's
# int64 0-d num_batches_tracked.
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
with torch.no_grad():
    model[0].weight.copy_(torch.arange(6.0).reshape(2, 3) / 4)
    model[0].bias.copy_(torch.tensor([0.5, -0.5]))
    model[1].running_mean.copy_(torch.tensor([1.0, 2.0]))
    model[1].num_batches_tracked.fill_(7)
save(model.state_dict(), "state_dict.pt")

# Views sharing one storage.
x = torch.arange(12.0).reshape(3, 4)
save({"x": x, "t": x.t(), "s": x[1:, 2:]}, "views.pt")

# Every dtype torch 1.13 saves that tensorplay has; 0-d, non-contiguous and empty tensors.
vals = [0, 1, 2, 3, 4, 5]
d = collections.OrderedDict()
d["bool"] = torch.tensor([True, False, True, True, False, False])
for name, dt in [("uint8", torch.uint8), ("int8", torch.int8), ("int16", torch.int16),
                 ("int32", torch.int32), ("int64", torch.int64), ("float16", torch.float16),
                 ("bfloat16", torch.bfloat16), ("float32", torch.float32),
                 ("float64", torch.float64)]:
    d[name] = (torch.tensor(vals, dtype=torch.float64) * (1 if "int" in name else 1.5)
               - (0 if "uint" in name else 2)).to(dt)
d["scalar"] = torch.tensor(3.25, dtype=torch.float64)
base = torch.arange(24, dtype=torch.int32).reshape(2, 3, 4)
d["noncontig"] = base.permute(2, 0, 1)[:, :, ::2]
d["empty"] = torch.zeros(0, 3)
save(d, "dtypes.pt")

# Containers and leaves; a Parameter and a tensor that requires grad.
p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
g = torch.tensor([3.0], requires_grad=True)
nested = {
    "list": [1, 2.5, "str", True, None, (1, "x", [3])],
    "dict": {"k": -5, 1: "int key"},
    "big": 2 ** 40,
    "neg": -(2 ** 40),
    "min": -(2 ** 63),
    "ord": collections.OrderedDict([("b", 1), ("a", 2)]),
    "param": p,
    "grad": g,
    "tup": (g, g),
}
save(nested, "nested.pt")
# The same object with pickle protocol 4 (FRAME, SHORT_BINUNICODE, MEMOIZE, STACK_GLOBAL).
save(nested, "nested_p4.pt", pickle_protocol=4)

# Raw pickles of the same leaves (no tensors) in protocols 2, 4 and 5.
plain = {k: v for k, v in nested.items() if k not in ("param", "grad", "tup")}
for proto in (2, 4, 5):
    with open(os.path.join(OUT, "plain_p%d.pkl" % proto), "wb") as f:
        pickle.dump(plain, f, protocol=proto)

# Zip archives written by Python's zipfile: a stored and a deflated entry and an archive comment.
with zipfile.ZipFile(os.path.join(OUT, "python.zip"), "w") as z:
    z.writestr(zipfile.ZipInfo("stored.txt"), b"hello stored\n", zipfile.ZIP_STORED)
    z.writestr(zipfile.ZipInfo("dir/deflated.bin"), bytes(range(256)) * 8, zipfile.ZIP_DEFLATED)
    z.writestr(zipfile.ZipInfo("empty"), b"", zipfile.ZIP_STORED)
    z.comment = b"an archive comment"
# force_zip64: zip64 extra fields in the local headers.
with zipfile.ZipFile(os.path.join(OUT, "python_zip64.zip"), "w") as z:
    with z.open("big.txt", "w", force_zip64=True) as f:
        f.write(b"zip64 entry")
