#!/usr/bin/env python3
"""Generates the safetensors reference files for tests/serialize/safetensors_test.cpp.

Run with Debian's interpreter (numpy and torch 1.13): /usr/bin/python3 make_safetensors.py
from this directory. The `safetensors` package is not installed there (nor reachable), so the
files are laid out here by hand from the format's definition, following the reference writer
(huggingface/safetensors, safetensors/src/tensor.rs, `prepare` and `Metadata::serialize`):

  * 8 bytes: N, the header length, little-endian u64;
  * N bytes: compact JSON (serde_json: no spaces; non-ASCII written raw), "__metadata__" first
    when given, then one entry per tensor {"dtype", "shape", "data_offsets"} in this key order,
    the tensors sorted by the reference's Dtype enum order descending (BOOL U8 I8 F8_E5M2
    F8_E4M3 I16 U16 F16 BF16 I32 U32 F32 F64 I64 U64 is ascending), then by name; the JSON is
    padded with spaces to a multiple of 8;
  * the tensors' bytes, row-major little-endian, back to back in that order.

The tensor bytes come from torch 1.13 (tensor.numpy().tobytes(), bfloat16 through its int16
bit pattern), so the files check the C++ reader against torch's values for every dtype, and the
C++ writer against this layout byte for byte. The C++ test also checks the byte vectors of the
reference implementation's own unit tests (test_serialization, test_empty,
test_serialization_forced_alignement in tensor.rs), which pin the layout independently of this
script.
"""
import json
import struct

import torch

# The reference's Dtype enum order (the writer sorts by it, descending).
ORDER = ["BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "I16", "U16", "F16", "BF16", "I32", "U32",
         "F32", "F64", "I64", "U64"]
NAMES = {torch.bool: "BOOL", torch.uint8: "U8", torch.int8: "I8", torch.int16: "I16",
         torch.float16: "F16", torch.bfloat16: "BF16", torch.int32: "I32",
         torch.float32: "F32", torch.float64: "F64", torch.int64: "I64"}


def tensor_bytes(t):
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def save(tensors, metadata=None):
    items = sorted(tensors.items(), key=lambda kv: kv[0])
    items.sort(key=lambda kv: ORDER.index(NAMES[kv[1].dtype]), reverse=True)  # stable
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    offset, blobs = 0, []
    for name, t in items:
        b = tensor_bytes(t)
        header[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def main():
    base = torch.arange(6).reshape(2, 3)
    all_dtypes = {
        "bool": base % 2 == 1,
        "u8": (base * 40).to(torch.uint8),
        "i8": (base * -20).to(torch.int8),
        "i16": (base * -1000).to(torch.int16),
        "i32": (base * -100000).to(torch.int32),
        "i64": (base * -(10 ** 12)).to(torch.int64),
        "f16": (base.to(torch.float32) / 3).to(torch.float16),
        "bf16": (base.to(torch.float32) / 3).to(torch.bfloat16),
        "f32": base.to(torch.float32) / 3,
        "f64": base.to(torch.float64) / 3,
    }
    with open("safetensors/all_dtypes.safetensors", "wb") as f:
        f.write(save(all_dtypes, {"format": "pt"}))
    # 0-d, empty and a few same-dtype tensors (the name order within a dtype); a non-ASCII name.
    shapes = {
        "scalar": torch.tensor(2.5, dtype=torch.float32),
        "empty": torch.zeros(0, 3, dtype=torch.float32),
        "b": torch.tensor([1.0, 2.0], dtype=torch.float32),
        "a.weight": torch.tensor([[1, 2], [3, 4]], dtype=torch.int64),
        "caf\u00e9": torch.tensor([7], dtype=torch.int8),
    }
    with open("safetensors/shapes.safetensors", "wb") as f:
        f.write(save(shapes))


if __name__ == "__main__":
    main()
