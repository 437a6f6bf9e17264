"""``tensorplay.cuda``: torch.cuda's device queries and memory functions.

Without the CUDA backend compiled into the module, or on a machine without a driver or a GPU,
``is_available()`` is False and ``device_count()`` is 0; neither raises. The other functions
need a device and raise RuntimeError saying why there is none.
"""
from . import _C


def is_available():
    """Whether CUDA tensors can be made (torch.cuda.is_available)."""
    return _C._cuda_is_available()


def device_count():
    """The number of CUDA devices this process sees (torch.cuda.device_count)."""
    return _C._cuda_device_count()


def _backend(name):
    fn = getattr(_C, "_cuda_" + name, None)
    if fn is None:
        raise RuntimeError("TensorPlay was compiled without CUDA support (the module was built "
                           "without TENSORPLAY_USE_CUDA)")
    return fn


def _device_index(device):
    """torch.cuda's device argument: None (the current device), an int, 'cuda:N' or a device."""
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    device = _C.device(device) if isinstance(device, str) else device
    if device.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {device}")
    return -1 if device.index is None else device.index


def current_device():
    return _backend("current_device")()


def set_device(device):
    _backend("set_device")(_device_index(device))


def synchronize(device=None):
    """Waits for all work on the device (torch.cuda.synchronize)."""
    _backend("synchronize")(_device_index(device))


def empty_cache():
    """Returns the caching allocator's unused cached memory to the driver."""
    _backend("empty_cache")()


def memory_stats(device=None):
    """The caching allocator's statistics, with torch.cuda.memory_stats()'s keys."""
    return _backend("memory_stats")(_device_index(device))


def memory_allocated(device=None):
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device=None):
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device=None):
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device=None):
    return memory_stats(device)["reserved_bytes.all.peak"]


def reset_peak_memory_stats(device=None):
    _backend("reset_peak_memory_stats")(_device_index(device))


def _cuda_device(device):
    """A CUDA device string for tensorplay.memory, after checking CUDA is compiled in."""
    _backend("memory_stats")
    index = _device_index(device)
    return "cuda" if index < 0 else f"cuda:{index}"


def memory_summary(device=None, abbreviated=False):
    """torch.cuda.memory_summary: tensorplay.memory.memory_summary for a CUDA device."""
    from . import memory
    return memory.memory_summary(_cuda_device(device), abbreviated)


def memory_snapshot():
    """torch.cuda.memory_snapshot (snapshots are taken of the CPU allocator only for now: the
    CUDA device raises NotImplementedError)."""
    from . import memory
    return memory.memory_snapshot(_cuda_device(None))
