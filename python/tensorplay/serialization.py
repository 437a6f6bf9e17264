"""tp.save / tp.load in PyTorch's torch.save zip format (include/tensorplay/serialize/torch_zip.hpp).

Files written here load in ``torch.load`` and files written by ``torch.save`` load here, with
their views still sharing storage. What can be saved is what a checkpoint holds: tensors and
dict / OrderedDict / list / tuple containers of them with str, int, float, bool and None leaves.
Loading never runs code: the unpickler knows only the globals torch.save emits for those objects
and refuses every other one (as torch's ``weights_only=True``), whatever ``weights_only`` says.
"""
import os
from collections import OrderedDict

from . import _C

__all__ = ["save", "load"]


def _is_path(f):
    return isinstance(f, (str, bytes, os.PathLike))


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Saves ``obj`` to ``f`` (a path or a writable binary file) as torch.save does."""
    if pickle_module is not None:
        raise TypeError("save(): pickle_module is not supported: tensorplay writes torch.save's "
                        "zip format with its own pickler")
    if pickle_protocol != 2:
        raise ValueError("save(): tensorplay writes pickle protocol 2 (torch.save's default), "
                         "got pickle_protocol={}".format(pickle_protocol))
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("save(): the legacy (non-zip) torch.save format is not "
                                  "supported; tensorplay writes the zip format")
    data = _C._torch_zip_save(obj)
    if _is_path(f):
        with open(f, "wb") as out:
            out.write(data)
    else:
        f.write(data)


def _device_map(map_location):
    # torch's map_location forms that do not need storages: None, a device or its string, or a
    # {saved location: device} dict. Files hold CPU tensors after loading here, so the question
    # is only where to move them.
    if map_location is None:
        return None
    if isinstance(map_location, dict):
        target = map_location.get("cpu")
        return None if target is None else _C.device(target)
    if isinstance(map_location, (str, _C.device)):
        return _C.device(map_location)
    raise TypeError("load(): map_location must be None, a device, a string or a dict; tensorplay "
                    "has no storage objects to pass to a callable, got {}".format(
                        type(map_location).__name__))


def _move(obj, device, memo):
    if isinstance(obj, _C.Tensor):
        key = id(obj)
        if key not in memo:
            memo[key] = obj.to(device)
        return memo[key]
    if isinstance(obj, OrderedDict):
        return OrderedDict((k, _move(v, device, memo)) for k, v in obj.items())
    if isinstance(obj, dict):
        return {k: _move(v, device, memo) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_move(v, device, memo) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_move(v, device, memo) for v in obj)
    return obj


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None,
         **pickle_load_args):
    """Loads what ``torch.save`` (or :func:`save`) wrote to ``f`` (a path or a binary file).

    ``mmap=True`` (torch 2.1's option) maps the file instead of copying the storages: tensors
    point into a private copy-on-write mapping (writes never reach the file; storages cannot
    grow)."""
    if pickle_module is not None:
        raise TypeError("load(): pickle_module is not supported: tensorplay reads torch.save's "
                        "zip format with its own restricted unpickler")
    if pickle_load_args:
        raise TypeError("load(): unexpected keyword arguments {}".format(
            sorted(pickle_load_args)))
    device = _device_map(map_location)
    if _is_path(f):
        obj = _C._torch_zip_load_file(os.fsdecode(f), bool(mmap))
    elif mmap:
        raise ValueError("f must be a string filename in order to use mmap argument")
    else:
        obj = _C._torch_zip_load(f.read())
    if device is not None and device.type != "cpu":
        obj = _move(obj, device, {})
    return obj
