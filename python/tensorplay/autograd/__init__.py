"""tensorplay.autograd: backward, grad and the grad-mode context managers (torch.autograd)."""
from .. import _C
from .grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode


def _as_tuple(x):
    if x is None or isinstance(x, (tuple, list)):
        return x
    return (x,)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False):
    """Accumulates the gradients of ``tensors`` into the leaves' ``.grad``."""
    _C._backward(_as_tuple(tensors), _as_tuple(grad_tensors), retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned as a tuple."""
    return _C._grad(_as_tuple(outputs), _as_tuple(inputs), _as_tuple(grad_outputs),
                    retain_graph, create_graph, allow_unused)
