"""``tensorplay.memory``: torch.cuda's memory instruments for our caching allocators.

Every function takes the device as torch does (``"cpu"``, ``"cuda:0"``, a ``tensorplay.device``,
an int for a CUDA index; default ``"cpu"``) and returns what the torch.cuda function of the
same name returns, in torch's format, so torch's tools read it:

* ``memory_stats`` and ``memory_allocated`` / ``max_memory_allocated`` / ``memory_reserved`` /
  ``max_memory_reserved`` / ``reset_peak_memory_stats``: torch.cuda.memory_stats()'s keys.
  The CPU allocator has no small/large pools, so it reports the ``.all.`` keys only.
* ``memory_summary``: torch.cuda.memory_summary()'s table.
* ``memory_snapshot``: torch.cuda.memory_snapshot()'s list of segments (torch 1.13's
  ``torch.cuda._memory_viz`` reads it); ``_snapshot``: torch 2.x's dict (``segments``,
  ``device_traces``); ``_dump_snapshot(path)``: that dict pickled, as torch writes it.
* ``_record_memory_history``: the last ``max_entries`` alloc / free / segment events with
  their stacks (``stacks="python"``: the Python frames, ``"cpp"``: the C++ frames, ``"all"``).
* ``compare(before, after)``: the leak finder, the blocks alive in ``after`` and not in
  ``before``, grouped by allocation site.

On the CPU every block is one system allocation (a segment with one block); addresses are
block starts, a tensor's data pointer is 64 bytes (the block header) further. The C++ side is
``include/tensorplay/memory/`` (what is exact and when: core/caching_allocator.hpp).
"""
import pickle
import sys

from . import _C

__all__ = [
    "memory_stats", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "reset_peak_memory_stats", "memory_summary", "memory_snapshot",
    "compare",
]


def _device(device):
    """The device argument as the string the C++ side parses."""
    if device is None:
        return "cpu"
    if isinstance(device, bool) or not isinstance(device, (int, str, _C.device)):
        raise TypeError(f"memory functions take a device (str, tensorplay.device or int), "
                        f"not {type(device).__name__}")
    if isinstance(device, int):
        return f"cuda:{device}"
    return str(device)


def memory_stats(device="cpu"):
    """torch.cuda.memory_stats(device): a dict of the allocator's counters."""
    return _C._memory_stats(_device(device))


def memory_allocated(device="cpu"):
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device="cpu"):
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device="cpu"):
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device="cpu"):
    return memory_stats(device)["reserved_bytes.all.peak"]


def reset_peak_memory_stats(device="cpu"):
    _C._memory_reset_peak_memory_stats(_device(device))


def memory_summary(device="cpu", abbreviated=False):
    """torch.cuda.memory_summary(device, abbreviated): the table, as a string."""
    return _C._memory_summary(_device(device), bool(abbreviated))


def memory_snapshot(device="cpu"):
    """torch.cuda.memory_snapshot(): the list of segments, each with its blocks."""
    return _C._memory_snapshot(_device(device))


def _record_memory_history(enabled=True, max_entries=100000, stacks="all", device="cpu"):
    """Starts (``enabled`` true, or torch 2.x's ``"all"``) or stops (false / None) recording.

    Keeps the last ``max_entries`` events (torch 2.x's unbounded default, ``sys.maxsize`` or
    None, means a ring of 100000 here). Starting again drops what was recorded; stopping keeps
    it for ``_snapshot``.
    """
    if max_entries is None or max_entries >= sys.maxsize:
        max_entries = 100000
    if not isinstance(max_entries, int) or isinstance(max_entries, bool):
        raise TypeError(f"max_entries must be an int, not {type(max_entries).__name__}")
    if max_entries < 0:
        raise ValueError(f"_record_memory_history: max_entries must be positive, got {max_entries}")
    on = enabled not in (None, False) and enabled != "None"
    _C._memory_record_history(on, max_entries if on else 1, stacks, _device(device))


def _snapshot(device="cpu"):
    """torch 2.x's torch.cuda.memory._snapshot(): {"segments": ..., "device_traces": ...}."""
    return _C._memory_snapshot_dict(_device(device))


def _dump_snapshot(filename="dump_snapshot.pickle", device="cpu"):
    """Pickles ``_snapshot(device)`` to ``filename``, as torch.cuda.memory._dump_snapshot."""
    snapshot = _snapshot(device)
    with open(filename, "wb") as f:
        pickle.dump(snapshot, f)


def _segments_of(snapshot):
    if isinstance(snapshot, dict):
        if "segments" not in snapshot:
            raise ValueError("compare: a snapshot dict must have a 'segments' key "
                             "(tensorplay.memory._snapshot())")
        return snapshot["segments"]
    if isinstance(snapshot, (list, tuple)):
        return snapshot
    raise TypeError(f"compare: expected memory_snapshot()'s list or _snapshot()'s dict, "
                    f"not {type(snapshot).__name__}")


def _site(block):
    frames = block.get("frames")
    if frames is None and block.get("history"):
        frames = block["history"][0].get("frames")
    return tuple((f["filename"], f["line"], f["name"]) for f in (frames or ()))


def compare(before, after):
    """The blocks active in ``after`` and not in ``before`` (same address and size), grouped by
    allocation site, largest total first: a list of ``{"frames", "count", "size"}`` dicts.

    Blocks allocated while history was off have no frames and share the site ``()``.
    """
    old = set()
    for seg in _segments_of(before):
        for b in seg["blocks"]:
            if b["state"] == "active_allocated":
                old.add((b.get("address", seg["address"]), b["size"]))
    sites = {}
    for seg in _segments_of(after):
        for b in seg["blocks"]:
            key = (b.get("address", seg["address"]), b["size"])
            if b["state"] != "active_allocated" or key in old:
                continue
            site = _site(b)
            entry = sites.setdefault(site, {"frames": [dict(zip(("filename", "line", "name"), f))
                                                       for f in site],
                                            "count": 0, "size": 0})
            entry["count"] += 1
            entry["size"] += b["size"]
    return sorted(sites.values(), key=lambda e: -e["size"])
