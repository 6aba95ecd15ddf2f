"""Group, instance, RMS and local response normalization, written with Tensor operations
(layer_norm and batch_norm, older, live beside the activations)."""
from __future__ import annotations

import math

import numpy as np

import gradjit
from gradjit.autograd.function import Function
from gradjit.nn.functional.activation import check_mixed_dtypes, normalize_batch
from gradjit.nn.functional.conv import pad
from gradjit.tensor.refusals import refuse_integers
from gradjit.tensor.scalar_overloads import add_scalar


def _affine(out, weight, bias, channel_shape):
    if weight is not None:
        out = out * weight.reshape(channel_shape)
    return out if bias is None else out + bias.reshape(channel_shape)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Each sample's channels in `num_groups` groups, each group normalized over its channels
    and positions (biased variance), then a per-channel affine map."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    n, channels = input.shape[0], input.shape[1]
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    # PyTorch's message shows the weight's shape (an absent one's as [0]) for either
    shown = [0] if weight is None else list(weight.shape)
    for name, given in (("weight", weight), ("bias", bias)):
        if given is not None and (given.dim() != 1 or given.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {shown} and input "
                               f"of shape {list(input.shape)}")
    size = [n * channels // num_groups, num_groups, *input.shape[2:]]
    if math.prod(size) // num_groups == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{size}")
    check_mixed_dtypes(input, weight, bias)
    refuse_integers("GroupNormKernelImpl", input)
    group_size = channels // num_groups * math.prod(input.shape[2:])  # no -1: n may be 0

    def normalize(input, weight, bias):
        grouped = input.reshape(n, num_groups, group_size)
        mean = grouped.mean(-1, keepdim=True)
        var = grouped.var(-1, correction=0, keepdim=True)
        out = ((grouped - mean) * (var + eps).rsqrt()).reshape(input.shape)
        out = _affine(out, weight, bias, (1, -1) + (1,) * (input.dim() - 2))
        # float parameters on a half/bfloat16 input give the input's dtype, as torch's kernel
        return out if out.dtype == input.dtype else out.to(input.dtype)
    return gradjit.autograd.composite("NativeGroupNormBackward0", normalize, input, weight, bias)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Each (sample, channel) normalized over its positions: batch_norm of the input seen as
    one sample of N*C channels (weight and bias repeated), as PyTorch computes it; running
    statistics, when given, move towards the mean over the batch of the per-instance
    statistics."""
    if use_input_stats and math.prod(input.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{input.shape}")
    check_mixed_dtypes(input, weight, bias)
    n, channels = input.shape[0], input.shape[1]
    as_channels = input.contiguous().view(1, n * channels, *input.shape[2:])
    means, variances, weights, biases = (None if t is None else t.repeat(n) for t in (
        running_mean, running_var, weight, bias))
    out = normalize_batch(as_channels, means, variances, weights, biases, use_input_stats,
                          momentum, eps)
    with gradjit.no_grad():
        for running, repeated in ((running_mean, means), (running_var, variances)):
            if running is not None and use_input_stats:
                running.copy_(repeated.reshape(n, channels).mean(0))
    return out.view(input.shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """input / sqrt(mean(input**2) + eps) over the last dims, times weight; eps defaults to
    the dtype's machine epsilon."""
    normalized_shape = tuple(normalized_shape) if not isinstance(normalized_shape, int) else \
        (normalized_shape,)
    if not normalized_shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if weight is not None and tuple(weight.shape) != normalized_shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(normalized_shape)}")
    if tuple(input.shape[input.dim() - len(normalized_shape):]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input "
                           f"with shape [*{', '.join(map(str, normalized_shape))}], but got "
                           f"input of size{list(input.shape)}")
    refuse_integers("rms_norm", input)
    eps = gradjit.finfo(input.dtype).eps if eps is None else eps
    dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))
    out = input * add_scalar(input.pow(2).mean(dims, keepdim=True), eps).rsqrt()
    return out if weight is None else out * weight


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """input / (k + alpha * mean of squares over `size` neighbouring channels) ** beta, the
    window zero-padded by size // 2 channels before and (size - 1) // 2 after: PyTorch's
    average pool over the channels of the squares seen as one plane (4-D and up: a volume)."""
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          "
                         f"input (got {input.dim()} dimensions)")
    if input.numel() == 0:
        return input
    squares = input.mul(input)
    before, after = size // 2, (size - 1) // 2
    if input.dim() == 3:
        padded = pad(squares.unsqueeze(1), (0, 0, before, after))
        mean = gradjit.nn.functional.avg_pool2d(padded, (size, 1), stride=1).squeeze(1)
    else:
        shape = input.shape
        padded = pad(squares.view(shape[0], 1, shape[1], shape[2], -1),
                     (0, 0, 0, 0, before, after))
        mean = gradjit.nn.functional.avg_pool3d(padded, (size, 1, 1), stride=1).squeeze(1)
        mean = mean.view(shape)
    return input / mean.mul(alpha).add(k).pow(beta)


class CrossMapLRN2d(Function):
    """nn.CrossMapLRN2d's function, Lua Torch's SpatialCrossMapLRN as PyTorch keeps it:
    x / (k + alpha / size * s) ** beta over 4-d input, with s the sum of squares over channels
    c - h .. c + h (h = (size - 1) // 2) plus channel 0's always (its running sum never drops
    it), and a backward that sums over channels c - p .. c + size - 1 - p, p = size - h.
    Both windows are PyTorch's, so values and gradients are its own."""

    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             f"instead.")
        channels, half = input.shape[1], int((size - 1) / 2)
        c, j = np.arange(channels)[:, None], np.arange(channels)
        window = (j == 0) | ((j >= c - half) & (j <= c + half))
        scale = _over_channels(window, input * input) * (alpha / size) + k
        output = input * scale.pow(-beta)
        ctx.save_for_backward(input, output)
        ctx.scale, ctx.size, ctx.alpha, ctx.beta = scale, size, alpha, beta
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output = ctx.saved_tensors
        size, channels = ctx.size, input.shape[1]
        back = int(size - (size - 1) / 2)
        c, j = np.arange(channels)[:, None], np.arange(channels)
        window = (j >= c - back) & (j <= c + size - 1 - back)
        ratio = _over_channels(window, grad_output * output / ctx.scale)
        return (ctx.scale.pow(-ctx.beta) * grad_output -
                input * ratio * (2 * ctx.alpha * ctx.beta / size), None, None, None, None)


def _over_channels(window, x):
    """out[:, c] = the sum of x[:, j] over the j where window[c, j]."""
    mix = gradjit.tensor(window.astype(np.float64), dtype=x.dtype)
    return (mix @ x.flatten(2)).reshape(x.shape)
