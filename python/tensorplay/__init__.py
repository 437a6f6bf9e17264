"""TensorPlay from Python: ``import tensorplay as tp``. The API mirrors ``torch``.

The extension ``tensorplay._C`` holds the tensor type and every op; this package adds the few
conveniences written in Python (context managers, pickling, autograd's argument handling).
"""
from . import _C
from ._C import *  # noqa: F401,F403  (Tensor, dtypes, devices, ops, factories)
from ._C import Tensor, Size, device, dtype, memory_format, is_grad_enabled
from ._C import _make_per_tensor_quantized_tensor, _make_per_channel_quantized_tensor  # noqa: F401
from . import _tensor  # noqa: F401  (Python-level Tensor methods)
from ._tensor import unique, unique_consecutive  # noqa: F401
from .functional import einsum, cdist  # noqa: F401
from . import _tensor_str  # noqa: F401  (PRINT_OPTS)
from . import autograd
from . import cuda
from . import memory  # noqa: F401  (torch.cuda's memory instruments, every device)
from . import nn
from . import safetensors  # noqa: F401  (safetensors.torch's save_file / load_file / safe_open)
from . import ops  # noqa: F401  (tp.ops.quantized: torch.ops.quantized's kernels)
from .serialization import save, load  # noqa: F401  (torch.save's zip format)
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode

from ._version import __version__  # generated from config.hpp (CMake, setup.py)
