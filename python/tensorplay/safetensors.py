"""Hugging Face's safetensors format, as ``safetensors.torch`` offers it
(include/tensorplay/serialize/safetensors.hpp).

``load_file`` and ``safe_open`` map the file: each tensor's storage points into the mapping, which
is released when the last tensor made from it dies. Mapped tensors are read-only (writing one
raises; ``clone()`` gives a writable copy).
"""
import os

from . import _C

__all__ = ["save", "save_file", "load", "load_file", "safe_open"]


def _check(tensors, what):
    # safetensors.torch's own checks before writing: a dict of str -> contiguous, unshared tensors.
    if not isinstance(tensors, dict):
        raise ValueError("Expected a dict of [str, torch.Tensor] but received {}".format(
            type(tensors)))
    invalid = [k for k, v in tensors.items()
               if not isinstance(k, str) or not isinstance(v, _C.Tensor)]
    if invalid:
        raise ValueError("Key `{}` is invalid, expected str and torch.Tensor but received {} "
                         "and {}".format(invalid[0], type(invalid[0]),
                                         type(tensors[invalid[0]])))
    for k, v in tensors.items():
        if not v.is_contiguous():
            raise ValueError(
                "You are trying to save a non contiguous tensor: `{}` which is not allowed. It "
                "either means you are trying to save tensors which are reference of each other "
                "in which case it's recommended to save only the full tensors, and reslice at "
                "load time, or simply call `.contiguous()` on your tensor to pack it before "
                "saving.".format(k))
    by_storage = {}
    for k, v in tensors.items():
        if v.numel():
            by_storage.setdefault(_C._storage_key(v), []).append(k)
    shared = [sorted(names) for names in by_storage.values() if len(names) > 1]
    if shared:
        raise RuntimeError(
            "\n            Some tensors share memory, this will lead to duplicate memory on disk "
            "and potential differences when loading them again: {}.\n            A potential way "
            "to correctly save your model is to use `save_model`.\n            More information "
            "at https://huggingface.co/docs/safetensors/torch_shared_tensors\n            "
            .format(shared))
    if what is not None and not isinstance(what, dict):
        raise ValueError("metadata must be a dict of str to str")
    for k, v in (what or {}).items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise ValueError("metadata must be a dict of str to str, got {!r}: {!r}".format(k, v))


def save(tensors, metadata=None):
    """The bytes of a safetensors file holding ``tensors`` (a dict of str to Tensor)."""
    _check(tensors, metadata)
    return _C._safetensors_save(tensors, metadata or {})


def save_file(tensors, filename, metadata=None):
    """Writes ``tensors`` (a dict of str to Tensor) to ``filename``."""
    _check(tensors, metadata)
    _C._safetensors_save_file(tensors, os.fsdecode(filename), metadata or {})


def load(data):
    """The tensors of a safetensors file given as bytes (copied)."""
    return _C._safetensors_load(bytes(data))


def load_file(filename, device="cpu"):
    """The tensors of ``filename``, mapped (zero copy on the CPU)."""
    return _C._safetensors_load_file(os.fsdecode(filename), _C.device(device))


_FORMAT_DTYPES = {"bool": "BOOL", "uint8": "U8", "int8": "I8", "int16": "I16", "int32": "I32",
                  "int64": "I64", "float16": "F16", "bfloat16": "BF16", "float32": "F32",
                  "float64": "F64"}


class _SafeSlice:
    """What ``safe_open.get_slice`` returns: the tensor's shape and dtype, and slices of it."""

    def __init__(self, tensor):
        self._tensor = tensor

    def get_shape(self):
        return list(self._tensor.shape)

    def get_dtype(self):
        return _FORMAT_DTYPES[str(self._tensor.dtype).split(".")[-1]]

    def __getitem__(self, index):
        # A tensor of its own, as safetensors' slices are (the mapped tensor is read-only).
        return self._tensor[index].clone()


class safe_open:
    """Lazy access to a safetensors file: ``keys()``, ``get_tensor(name)``, ``get_slice(name)``,
    ``metadata()``."""

    def __init__(self, filename, framework="pt", device="cpu"):
        if framework not in ("pt", "torch", "tp", "tensorplay"):
            raise ValueError("framework {!r} is not supported: tensorplay's safe_open gives "
                             "tensorplay tensors (framework='pt')".format(framework))
        self._handle = _C._safetensors_open(os.fsdecode(filename), _C.device(device))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._handle = None
        return False

    def _open(self):
        if self._handle is None:
            raise RuntimeError("safe_open: the file is closed")
        return self._handle

    def keys(self):
        return self._open().keys()

    def get_tensor(self, name):
        return self._open().get_tensor(name)

    def get_slice(self, name):
        return _SafeSlice(self._open().get_tensor(name))

    def metadata(self):
        return self._open().metadata()
