"""``tensorplay.ops.quantized``: torch.ops.quantized's kernels for quantized tensors.

add, add_relu, mul and mul_relu are the C++ ops (``_C._quantized``). torch's quantized linear
takes its weight prepacked (``linear_prepack(W, B)``, an opaque object); here the packed form is
simply the pair, and ``linear(X, packed, scale, zero_point)`` computes with int8 weights and an
integer accumulation (see ops/quantized.hpp).
"""
from . import _C


class _Quantized:
    add = staticmethod(_C._quantized.add)
    add_relu = staticmethod(_C._quantized.add_relu)
    mul = staticmethod(_C._quantized.mul)
    mul_relu = staticmethod(_C._quantized.mul_relu)

    @staticmethod
    def linear_prepack(W, B=None):
        return (W, B)

    @staticmethod
    def linear_unpack(packed):
        return packed

    @staticmethod
    def linear(X, W_prepack, Y_scale_i, Y_zero_point_i):
        W, B = W_prepack
        return _C._quantized._linear(X, W, B, Y_scale_i, Y_zero_point_i)


quantized = _Quantized()
