"""``tensorplay.cuda``: torch.cuda's device queries.

Without the CUDA backend compiled into the module, or on a machine without a driver or a GPU,
``is_available()`` is False and ``device_count()`` is 0; neither raises.
"""
from . import _C


def is_available():
    """Whether CUDA tensors can be made (torch.cuda.is_available)."""
    return _C._cuda_is_available()


def device_count():
    """The number of CUDA devices this process sees (torch.cuda.device_count)."""
    return _C._cuda_device_count()
