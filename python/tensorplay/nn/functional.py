"""tensorplay.nn.functional, mirroring torch.nn.functional (torch 1.13's signatures): activations,
normalisation, the losses (nll_loss and cross_entropy over class indices too), embedding,
one_hot, cosine_similarity, normalize and dropout.

The kernels and autograd nodes are C++ (tensorplay._C._nn, as torch._C._nn); this file does what
torch's functional.py does in Python before calling in: the inplace= switch, reduction strings,
the size checks and warnings of the losses, and the batch-size checks of the normalisations.
"""
import warnings

from .. import _C

_nn = _C._nn

__all__ = [
    "relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "selu_",
    "gelu", "silu", "mish", "softplus", "hardtanh", "hardtanh_", "hardsigmoid", "hardswish",
    "layer_norm", "group_norm", "batch_norm", "instance_norm", "mse_loss", "l1_loss",
    "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "kl_div", "cosine_similarity", "normalize", "dropout", "nll_loss", "cross_entropy",
    "embedding", "one_hot", "pairwise_distance",
]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_enum(reduction):
    """torch.nn._reduction.get_enum."""
    if reduction not in _REDUCTIONS:
        raise ValueError("{} is not a valid value for reduction".format(reduction))
    return _REDUCTIONS[reduction]


def _legacy_reduction(size_average, reduce):
    """torch.nn._reduction.legacy_get_string (the deprecated size_average/reduce pair)."""
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' "
                  "instead.".format("mean"))
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


def _reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return reduction


def _warn_size(input, target):
    if target.size() != input.size():
        warnings.warn(
            "Using a target size ({}) that is different to the input size ({}). This will likely "
            "lead to incorrect results due to broadcasting. Please ensure they have the same "
            "size.".format(target.size(), input.size()), stacklevel=3)


# ---- activations --------------------------------------------------------------------------------

def relu(input, inplace=False):
    return _nn.relu_(input) if inplace else _nn.relu(input)


def relu_(input):
    return _nn.relu_(input)


def relu6(input, inplace=False):
    return _nn.relu6_(input) if inplace else _nn.relu6(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        return _nn.leaky_relu_(input, negative_slope)
    return _nn.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return _nn.leaky_relu_(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    return _nn.elu_(input, alpha) if inplace else _nn.elu(input, alpha)


def elu_(input, alpha=1.0):
    return _nn.elu_(input, alpha)


def selu(input, inplace=False):
    return _nn.selu_(input) if inplace else _nn.selu(input)


def selu_(input):
    return _nn.selu_(input)


def gelu(input, approximate="none"):
    return _nn.gelu(input, approximate)


def silu(input, inplace=False):
    return _nn.silu_(input) if inplace else _nn.silu(input)


def mish(input, inplace=False):
    return _nn.mish_(input) if inplace else _nn.mish(input)


def softplus(input, beta=1, threshold=20):
    return _nn.softplus(input, beta, threshold)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if inplace:
        return _nn.hardtanh_(input, min_val, max_val)
    return _nn.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return _nn.hardtanh_(input, min_val, max_val)


def hardsigmoid(input, inplace=False):
    return _nn.hardsigmoid_(input) if inplace else _nn.hardsigmoid(input)


def hardswish(input, inplace=False):
    return _nn.hardswish_(input) if inplace else _nn.hardswish(input)


# ---- normalisation ------------------------------------------------------------------------------

def _verify_batch_size(size):
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input size "
                         "{}".format(size))


def _verify_spatial_size(size):
    size_prods = 1
    for i in range(2, len(size)):
        size_prods *= size[i]
    if size_prods == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size "
                         "{}".format(size))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return _nn.layer_norm(input, list(normalized_shape), weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups]
                       + list(input.size()[2:]))
    return _nn.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    if training:
        _verify_batch_size(input.size())
    return _nn.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _nn.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                             momentum, eps)


# ---- losses -------------------------------------------------------------------------------------

def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    return _nn.mse_loss(input, target, _reduction_enum(reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    return _nn.l1_loss(input, target, _reduction_enum(reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    return _nn.smooth_l1_loss(input, target, _reduction_enum(reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0):
    _warn_size(input, target)
    return _nn.huber_loss(input, target, _reduction_enum(reduction), delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    reduction_enum = _reduction_enum(reduction)
    if target.size() != input.size():
        raise ValueError(
            "Using a target size ({}) that is different to the input size ({}) is deprecated. "
            "Please ensure they have the same size.".format(target.size(), input.size()))
    if weight is not None:
        weight = weight.expand(_broadcast_shape(target.size(), weight.size()))
    return _nn.binary_cross_entropy(input, target, weight, reduction_enum)


def _broadcast_shape(a, b):
    """torch._C._infer_size: the broadcast of two shapes."""
    a, b = list(a), list(b)
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError("The size of tensor a ({}) must match the size of tensor b ({}) "
                               "at non-singleton dimension {}".format(x, y, i))
        out.append(y if x == 1 else x)
    return out


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    reduction = _reduction(size_average, reduce, reduction)
    reduction_enum = _reduction_enum(reduction)
    if not (target.size() == input.size()):
        raise ValueError("Target size ({}) must be the same as input size ({})".format(
            target.size(), input.size()))
    return _nn.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction_enum)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        reduction_enum = _reduction_enum(_legacy_reduction(size_average, reduce))
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support "
                "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
                "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
                "major release.")
        reduction_enum = _reduction_enum("sum" if reduction == "batchmean" else reduction)
    reduced = _nn.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


# ---- distance, normalize, dropout ---------------------------------------------------------------

def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    return _nn.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return _nn.pairwise_distance(x1, x2, float(p), eps, keepdim)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    result = _nn.normalize(input, float(p), dim, eps)
    if out is not None:
        out.resize_(result.shape)
        out.copy_(result)
        return out
    return result


def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    return _nn.dropout_(input, p, training) if inplace else _nn.dropout(input, p, training)


# ---- losses over class indices, embedding -------------------------------------------------------

def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    return _nn.nll_loss_nd(input, target, weight, _reduction_enum(reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    reduction = _reduction(size_average, reduce, reduction)
    return _nn.cross_entropy_loss(input, target, weight, _reduction_enum(reduction), ignore_index,
                                  label_smoothing)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        from ..autograd import no_grad
        with no_grad():
            _nn.embedding_renorm_(weight, input, max_norm, norm_type)
    return _nn.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def one_hot(tensor, num_classes=-1):
    return _nn.one_hot(tensor, num_classes)


# ---- padding and interpolation (torch.nn.functional.pad / interpolate) --------------------------
__all__ += ["pad", "interpolate"]


def pad(input, pad, mode="constant", value=None):
    return _nn.pad(input, pad, mode, value)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """torch 1.13's F.interpolate: its argument checks in Python, then the .vec upsample op."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of "
                    f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format.")
            output_size = size
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, C, "
                    "d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        import math
        output_size = [int(math.floor(float(input.size(i + 2)) * scale_factors[i]))
                       for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic") and input.ndim == 4):
        raise ValueError("Anti-alias option is only supported for bilinear and bicubic modes")
    if antialias:
        raise NotImplementedError("interpolate(): antialias=True is not implemented in tensorplay "
                                  "yet")
    nd = input.dim()
    ops = {(3, "nearest"): "upsample_nearest1d", (4, "nearest"): "upsample_nearest2d",
           (5, "nearest"): "upsample_nearest3d", (3, "nearest-exact"): "_upsample_nearest_exact1d",
           (4, "nearest-exact"): "_upsample_nearest_exact2d",
           (5, "nearest-exact"): "_upsample_nearest_exact3d", (3, "linear"): "upsample_linear1d",
           (4, "bilinear"): "upsample_bilinear2d", (5, "trilinear"): "upsample_trilinear3d",
           (4, "bicubic"): "upsample_bicubic2d"}
    if (nd, mode) in ops:
        op = getattr(_nn, ops[(nd, mode)])
        if mode in ("nearest", "nearest-exact"):
            return op(input, output_size, scale_factors)
        return op(input, output_size, align_corners, scale_factors)
    if mode == "area" and nd in (3, 4, 5):
        pool = {3: _nn.adaptive_avg_pool1d, 4: _nn.adaptive_avg_pool2d,
                5: _nn.adaptive_avg_pool3d}[nd]
        return pool(input, output_size)
    needs = {"linear": 3, "bilinear": 4, "trilinear": 5}
    if mode in needs and 3 <= nd <= 5:
        raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {needs[mode]}D input")
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        " (got {}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
        "nearest-exact (got {})".format(nd, mode))


# ---- linear, convolution, pooling, softmax ------------------------------------------------------
__all__ += [
    "linear", "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d", "max_pool1d", "max_pool2d", "max_pool1d_with_indices",
    "max_pool2d_with_indices", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
    "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "softmax",
    "log_softmax", "softmin", "max_pool3d", "max_pool3d_with_indices", "avg_pool3d",
    "adaptive_avg_pool3d", "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices",
]

linear = _nn.linear
bilinear = _nn.bilinear
conv1d = _nn.conv1d
conv2d = _nn.conv2d
conv3d = _nn.conv3d
conv_transpose1d = _nn.conv_transpose1d
conv_transpose2d = _nn.conv_transpose2d
conv_transpose3d = _nn.conv_transpose3d
avg_pool1d = _nn.avg_pool1d
avg_pool2d = _nn.avg_pool2d
avg_pool3d = _nn.avg_pool3d
adaptive_avg_pool1d = _nn.adaptive_avg_pool1d


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _nn.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _nn.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _nn.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    out = _nn.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return out if return_indices else out[0]


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    out = _nn.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return out if return_indices else out[0]


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    out = _nn.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return out if return_indices else out[0]


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _nn.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _nn.adaptive_max_pool2d(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out = _nn.adaptive_max_pool1d(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out = _nn.adaptive_max_pool2d(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _nn.adaptive_max_pool3d(input, _adaptive_size(input, output_size, 3))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out = _nn.adaptive_max_pool3d(input, _adaptive_size(input, output_size, 3))
    return out if return_indices else out[0]


def _adaptive_size(input, output_size, nd):
    # torch accepts None for a dim kept at the input's size.
    if isinstance(output_size, (tuple, list)):
        output_size = [input.shape[-nd + i] if s is None else s for i, s in enumerate(output_size)]
    return output_size


def adaptive_avg_pool2d(input, output_size):
    return _nn.adaptive_avg_pool2d(input, _adaptive_size(input, output_size, 2))


def adaptive_avg_pool3d(input, output_size):
    return _nn.adaptive_avg_pool3d(input, _adaptive_size(input, output_size, 3))


def _softmax_dim(ndim):
    """torch.nn.functional._get_softmax_dim: the implicit dim (deprecated), with its warning."""
    warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call "
                  "to include dim=X as an argument.")
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return input.log_softmax(dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return (-input).softmax(dim, dtype=dtype)
