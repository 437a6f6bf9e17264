"""einsum and cdist: Python functions in torch too (torch/functional.py), which turn their
argument forms into one call of the C++ kernel (tensorplay._C._einsum / _cdist)."""
from . import _C
from ._C import Tensor

__all__ = ['einsum', 'cdist']


def _parse_subscript(n):
    if n is Ellipsis:
        return '...'
    if 0 <= n < 26:
        return chr(ord('A') + n)
    if 26 <= n < 52:
        return chr(ord('a') + n - 26)
    raise ValueError('einsum(): subscript in subscript list is not within the valid range [0, 52)')


def einsum(*args):
    """einsum(equation, *operands), einsum(equation, [operands]) or the sublist form
    einsum(op1, sublist1, op2, sublist2, ..., [sublist_out]), as torch.einsum."""
    if len(args) < 2:
        raise ValueError('einsum(): must specify the equation string and at least one operand, '
                         'or at least one operand and its subscripts list')
    if isinstance(args[0], Tensor):
        # The sublist form: operands interleaved with their subscript lists, then optionally the
        # output's list (an odd number of arguments).
        equation = ','.join(''.join(_parse_subscript(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += '->' + ''.join(_parse_subscript(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation = args[0]
        operands = args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]  # the older form: the operands as one list
    return _C._einsum(equation, list(operands))


_CDIST_MODES = {
    'use_mm_for_euclid_dist_if_necessary': None,
    'use_mm_for_euclid_dist': 1,
    'donot_use_mm_for_euclid_dist': 2,
}


def cdist(x1, x2, p=2., compute_mode='use_mm_for_euclid_dist_if_necessary'):
    """The p-norm distance between each pair of rows of x1 [B..., P, M] and x2 [B..., R, M]."""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _C._cdist(x1, x2, float(p), _CDIST_MODES[compute_mode])
