"""Tensor methods written in Python: the cold paths (pickling, copying, NumPy's __array__) only.

The exchange itself (buffer protocol, numpy(), from_numpy, DLPack) is C++, in interop.cpp; the
private ``_C._tensor_to_bytes`` / ``_tensor_from_bytes`` / ``_storage_*`` helpers used here come
from there too.
"""
import copy as _copy

from . import _C

Tensor = _C.Tensor


# ---- pickling ---------------------------------------------------------------------------------
# A pickle holds the tensor's whole storage as bytes (so any dtype works without NumPy, bfloat16
# included), its geometry (size, stride, storage offset), dtype and requires_grad, as torch's
# pickles do: a view comes back with its strides and offset over its own copy of the storage.
# As in torch each tensor pickles its own storage, so tensors sharing memory do not share it
# after a round trip (copy.deepcopy keeps the sharing). Pickles without a stride (older ones)
# hold the values row-major.
def _rebuild_tensor(cls, data, dtype, size, requires_grad, state=None, stride=None,
                    storage_offset=0):
    t = _C._tensor_from_bytes(data, dtype, size, None if cls is Tensor else cls, stride,
                              storage_offset)
    if requires_grad:
        t.requires_grad_(True)
    if state:
        t.__dict__.update(state)
    return t


# A quantized tensor pickles its integers (a dense tensor, pickled as above) and its
# quantization parameters, as torch's _rebuild_qtensor does; it comes back contiguous.
def _rebuild_qtensor(cls, int_repr, qscheme, params, requires_grad, state=None):
    if qscheme == _C.per_tensor_affine:
        t = _C._make_per_tensor_quantized_tensor(int_repr, *params)
    else:
        t = _C._make_per_channel_quantized_tensor(int_repr, *params)
    if state:
        t.__dict__.update(state)
    return t


def _reduce_ex(self, protocol):
    # A Python subclass's attributes travel with it, as in torch's _rebuild_from_type_v2.
    state = getattr(self, "__dict__", None) or None
    if self._is_quantized():
        q = self.qscheme()
        params = ((self.q_scale(), self.q_zero_point()) if q == _C.per_tensor_affine else
                  (self.q_per_channel_scales(), self.q_per_channel_zero_points(),
                   self.q_per_channel_axis()))
        return (_rebuild_qtensor, (type(self), self.int_repr(), q, params, False, state))
    return (
        _rebuild_tensor,
        (type(self), _C._storage_to_bytes(self), self.dtype, tuple(self.shape), self.requires_grad,
         state, self.stride(), self.storage_offset()),
    )


# ---- copy.copy / copy.deepcopy ----------------------------------------------------------------
def _copy_tensor(self):
    # torch's copy.copy goes through its pickling reduce, which shares the storage: the copy is a
    # new leaf over the same memory, with requires_grad carried over and no grad.
    if self._is_quantized():  # an alias that carries the quantizer
        return self.detach()
    new = _C._storage_alias(self, self)
    if self.requires_grad:
        new.requires_grad_(True)
    state = getattr(self, "__dict__", None)
    if state:
        new.__dict__.update(state)
    return new


def _deepcopy_tensor(self, memo):
    if not self.is_leaf:
        raise RuntimeError(
            "Only Tensors created explicitly by the user "
            "(graph leaves) support the deepcopy protocol at the moment"
        )
    if id(self) in memo:
        return memo[id(self)]
    if self._is_quantized():  # new integers, the (immutable) parameters shared
        memo[id(self)] = self.clone()
        return memo[id(self)]
    # One new storage per old storage (torch memoizes storages too): tensors that share memory
    # share it in the copy. The key is a tuple so it never collides with the id() keys.
    key = ("tensorplay.storage", _C._storage_key(self))
    owner = memo.get(key)
    if owner is None:
        owner = _C._storage_copy(self)
        memo[key] = owner
    new = _C._storage_alias(owner, self)
    if self.requires_grad:
        new.requires_grad_(True)
    if self.grad is not None:
        new.grad = _copy.deepcopy(self.grad, memo)
    state = getattr(self, "__dict__", None)
    if state:
        new.__dict__.update(_copy.deepcopy(state, memo))
    memo[id(self)] = new
    return new


# ---- NumPy --------------------------------------------------------------------------------------
def _array(self, dtype=None):
    # np.asarray(t) takes the buffer protocol first; this is its fallback (and numpy's explicit
    # __array__ callers), so it follows numpy()'s rules, as torch's __array__ does.
    a = self.numpy()
    return a if dtype is None else a.astype(dtype, copy=False)


# ---- Python protocols torch defines in Python ---------------------------------------------------
def _contains(self, element):
    # `2 in t`: any element equal (torch's rule), not iteration over rows.
    if isinstance(element, (Tensor, int, float, bool)):
        return bool((self == element).any().item())
    raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                       "{}.".format(type(element)))


def _format(self, spec):
    # f"{t:.3f}" formats a 0-d tensor's value; anything else formats its repr, as torch does.
    if self.dim() == 0 and type(self) is Tensor:
        return self.item().__format__(spec)
    return object.__format__(self, spec)


Tensor.__contains__ = _contains
Tensor.__format__ = _format
Tensor.__reduce_ex__ = _reduce_ex
Tensor.__copy__ = _copy_tensor
Tensor.__deepcopy__ = _deepcopy_tensor
Tensor.__array__ = _array
Tensor.retains_grad = property(lambda self: self.retains_grad_())
Tensor.is_quantized = property(lambda self: self._is_quantized())


# torch.unique / Tensor.unique and unique_consecutive: Python functions in torch too, whose return
# form (a tensor, or a tuple with the inverse indices and/or counts) follows the flags.
def _unique_result(out, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return out, inverse, counts
    if return_inverse:
        return out, inverse
    if return_counts:
        return out, counts
    return out


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    out, inverse, counts = _C._unique2(input, sorted, return_inverse, return_counts, dim)
    return _unique_result(out, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    out, inverse, counts = _C._unique_consecutive(input, return_inverse, return_counts, dim)
    return _unique_result(out, inverse, counts, return_inverse, return_counts)


Tensor.unique = unique
Tensor.unique_consecutive = unique_consecutive
