"""Grad-mode switches, usable as context managers and as decorators (as torch's)."""
import functools

from .. import _C


class _GradModeContext:
    """Grad mode `enabled` inside its block; the previous mode comes back after it."""

    def __init__(self, enabled=True):
        self._enabled = bool(enabled)

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self._clone():  # a fresh context per call: calls may nest or run in threads
                return fn(*args, **kwargs)
        return wrapper

    def _clone(self):
        return _GradModeContext(self._enabled)


class no_grad(_GradModeContext):
    """Disables gradient recording in its block."""

    def __init__(self):
        super().__init__(False)


class enable_grad(_GradModeContext):
    """Enables gradient recording in its block (inside a no_grad block)."""

    def __init__(self):
        super().__init__(True)


class set_grad_enabled(_GradModeContext):
    """Sets gradient recording on or off at once (as a call), and until the end of a with
    block, after which the previous mode comes back."""

    def __init__(self, mode):
        super().__init__(mode)
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)

    def __enter__(self):
        pass


class inference_mode(_GradModeContext):
    """Inference mode: no recording, and the tensors made inside have no version counter."""

    def __init__(self, mode=True):
        super().__init__(not mode)
        self._mode = mode
        self._guard = None

    def __enter__(self):
        self._guard = _C._InferenceMode(self._mode)
        self._guard.__enter__()

    def __exit__(self, *exc):
        self._guard.__exit__(*exc)
        self._guard = None

    def _clone(self):
        return inference_mode(self._mode)
