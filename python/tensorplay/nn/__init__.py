"""tensorplay.nn, mirroring torch.nn: for now its functional interface
(``tensorplay.nn.functional``, ``import tensorplay.nn.functional as F``)."""
from . import functional  # noqa: F401
