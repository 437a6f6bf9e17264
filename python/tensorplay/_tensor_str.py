"""torch._tensor_str's ``PRINT_OPTS``: the printing options as attributes.

The options live in C++ (ops/print.hpp), where repr reads them; this object reads and writes
them there, so ``PRINT_OPTS.precision = 2`` and ``tp.set_printoptions(precision=2)`` are the
same change, as they are in torch.
"""
from . import _C

_NAMES = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")


class _PrintOptions:
    __slots__ = ()

    def __repr__(self):
        return "PRINT_OPTS({})".format(
            ", ".join("{}={!r}".format(k, v) for k, v in _C._get_printoptions().items()))


def _option(name):
    def get(self):
        return _C._get_printoptions()[name]

    def set(self, value):
        options = _C._get_printoptions()
        options[name] = value
        _C.set_printoptions(**options)

    return property(get, set)


for _name in _NAMES:
    setattr(_PrintOptions, _name, _option(_name))

PRINT_OPTS = _PrintOptions()
