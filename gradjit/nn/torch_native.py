"""torch.native_* normalizations and dropout (the kernels' forms: output plus the statistics
or mask kept for backward), the in-place and feature dropout forms, constant_pad_nd, the
generic convolution, the grid and antialiased upsampling kernels, poisson_nll_loss and
embedding_renorm_, over nn.functional."""
from __future__ import annotations

import gradjit
from gradjit.nn import functional as F
from gradjit.nn.functional.embedding_bag import _renorm_
from gradjit.nn.functional.interpolate import upsample_aa
from gradjit.nn.functional.spatial import _feature_dropout
from gradjit.nn.torch_namespace import _REDUCTIONS, _probability
from gradjit.tensor.arith import apply


def _channel_stats(input, dims, eps):
    """Mean and 1 / sqrt(biased variance + eps) over `dims`, kept as size-1 dims."""
    mean = input.mean(dims, keepdim=True)
    return mean, (input.var(dims, correction=0, keepdim=True) + eps).rsqrt()


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                      eps):
    """(output, save_mean, save_invstd): the batch's statistics per channel when training,
    empty tensors otherwise (nothing is saved then)."""
    out = apply("NativeBatchNormBackward0", lambda *_: F.batch_norm(
        input, running_mean, running_var, weight, bias, training, momentum, eps),
        *(t for t in (input, weight, bias) if t is not None), operands=(input, weight, bias))
    if not training:
        empty = gradjit.empty(0, dtype=input.dtype)
        return out, empty, empty.clone()
    dims = (0, *range(2, input.dim()))
    mean, invstd = _channel_stats(input.detach(), dims, eps)
    return out, mean.reshape(-1), invstd.reshape(-1)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(output, mean, rstd), the statistics shaped as the input with the normalized dims 1."""
    out = apply("NativeLayerNormBackward0", lambda *_: F.layer_norm(
        input, normalized_shape, weight, bias, eps),
        *(t for t in (input, weight, bias) if t is not None), operands=(input, weight, bias))
    dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))
    return (out, *_channel_stats(input.detach(), dims, eps))


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(output, mean, rstd), the statistics (N, group); all three share one backward node."""
    def normed(x, *affine):
        grouped = x.reshape(N, group, C // group * HxW)  # no -1: N may be 0
        mean, rstd = _channel_stats(grouped, -1, eps)
        out = ((grouped - mean) * rstd).reshape(x.shape)
        channel = (1, -1) + (1,) * (x.dim() - 2)
        if weight is not None:
            out = out * weight.reshape(channel)
        if bias is not None:
            out = out + bias.reshape(channel)
        return out, mean.reshape(N, group), rstd.reshape(N, group)
    return apply("NativeGroupNormBackward0", normed,
                 *(t for t in (input, weight, bias) if t is not None),
                 operands=(input, weight, bias))


def native_dropout(input, p, train):
    """(output, mask): the mask a bool tensor of the kept elements (all of them unless
    training); kept elements are scaled by 1 / (1 - p), or zeroed when p is 1."""
    if train is False:
        return apply("NativeDropoutBackward0", lambda x: x * 1, input), \
            gradjit.ones(tuple(input.shape), dtype=gradjit.bool)
    mask = gradjit.bernoulli(input.detach(), 1 - p).bool()
    scale = 0.0 if p == 1 else 1 / (1 - p)
    return apply("NativeDropoutBackward0", lambda x: x * mask * scale, input), mask


def dropout_(input, p, train):
    return F.dropout(input, _probability(p), train, inplace=True)


def alpha_dropout_(input, p, train):
    return F.alpha_dropout(input, _probability(p), train, inplace=True)


def feature_alpha_dropout_(input, p, train):
    return F.feature_alpha_dropout(input, _probability(p), train, inplace=True)


def feature_dropout(input, p, train):
    """Whole channels (dim 1) dropped, one draw per (sample, channel)."""
    return _feature_dropout(input, _probability(p), train, False, batched=True)


def feature_dropout_(input, p, train):
    return _feature_dropout(input, _probability(p), train, True, batched=True)


def constant_pad_nd(input, pad, value=0):
    """F.pad's constant mode with the aten kernel's checks and grad_fn."""
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(f"Length of pad should be no more than twice the number of "
                           f"dimensions of the input. Pad length is {len(pad)}while the input "
                           f"has {input.dim()}dimensions.")
    return apply("ConstantPadNdBackward0", lambda x: F.pad(x, list(pad), value=value), input)


_CONVOLUTIONS = {False: (F.conv1d, F.conv2d, F.conv3d),
                 True: (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)}


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """Every convolution in one signature: the weight's rank picks 1d/2d/3d."""
    conv = _CONVOLUTIONS[bool(transposed)][weight.dim() - 3]

    def run(*_):
        if transposed:
            return conv(input, weight, bias, stride, padding, output_padding, groups, dilation)
        return conv(input, weight, bias, stride, padding, dilation, groups)
    return apply("ConvolutionBackward0", run,
                 *(t for t in (input, weight, bias) if t is not None),
                 operands=(input, weight, bias))


def embedding_renorm_(input, indices, max_norm, norm_type):
    """The rows of `input` that `indices` name, scaled in place to norm at most max_norm."""
    _renorm_(input, indices, max_norm, norm_type)
    return input


_SAMPLING, _PADDING = ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection")


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """grid_sample with its modes given as numbers (the orders of _SAMPLING and _PADDING)."""
    return F.grid_sample(input, grid, _SAMPLING[interpolation_mode], _PADDING[padding_mode],
                         align_corners)


grid_sampler_2d = grid_sampler_3d = grid_sampler


def affine_grid_generator(theta, size, align_corners):
    return apply("AffineGridGeneratorBackward0",
                 lambda t: F.affine_grid(t, list(size), align_corners), theta)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_REDUCTIONS[reduction])


_upsample_bilinear2d_aa, _upsample_bicubic2d_aa = map(upsample_aa, ("linear", "cubic"))


def native_channel_shuffle(input, groups):
    return F.channel_shuffle(input, groups)


__all__ = ["_upsample_bicubic2d_aa", "_upsample_bilinear2d_aa",
           "affine_grid_generator", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
           "native_channel_shuffle", "poisson_nll_loss", "alpha_dropout_", "constant_pad_nd",
           "convolution", "dropout_",
           "embedding_renorm_", "feature_alpha_dropout_", "feature_dropout", "feature_dropout_",
           "native_batch_norm", "native_dropout", "native_group_norm", "native_layer_norm"]
