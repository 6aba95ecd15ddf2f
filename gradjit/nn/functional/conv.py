"""Padding, convolutions and pooling as compositions: every window offset is a strided slice,
so a convolution is one contraction of the stacked slices with the kernel (im2col)."""
from __future__ import annotations

import math

import numpy as np

import gradjit

_INDEX_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _dim_slice(ndim, dim, index):
    return (slice(None),) * (dim % ndim) + (index,)


def pad(input, pad, mode="constant", value=None):
    """`pad` lists (before, after) pairs from the last dim backwards."""
    if len(pad) % 2 or len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length must be divisible by 2" if len(pad) % 2 else
                           "Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.dim()}")
    if mode not in ("constant", *_INDEX_MODES):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant" and input.dim() not in (len(pad) // 2 + 1, len(pad) // 2 + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        if mode == "constant":
            out = _pad_constant(out, dim, before, after, 0 if value is None else value)
        else:
            length = out.shape[dim]
            if mode == "reflect" and max(before, after) >= length:
                raise RuntimeError(f"Argument #4: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding "
                                   f"({before}, {after}) at dimension {dim} of input "
                                   f"{list(input.shape)}")
            if mode == "circular" and max(before, after) > length:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            # Which input position each output position copies, along this dim.
            positions = np.pad(np.arange(length), (before, after), _INDEX_MODES[mode])
            out = out[_dim_slice(out.dim(), dim, gradjit.tensor(positions))]
    return out


def _pad_constant(input, dim, before, after, value):
    """Negative amounts crop, as in PyTorch."""
    length = input.shape[dim]
    input = input.narrow(dim, max(-before, 0), length - max(-before, 0) - max(-after, 0))
    parts = []
    if before > 0:
        parts.append(_filled(input, dim, before, value))
    parts.append(input)
    if after > 0:
        parts.append(_filled(input, dim, after, value))
    return gradjit.cat(parts, dim) if len(parts) > 1 else input


def _filled(like, dim, amount, value):
    shape = list(like.shape)
    shape[dim] = amount
    return gradjit.full(shape, value, dtype=like.dtype, device=like.device)


def _tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def _windows(input, kernel, stride, dilation, out_sizes):
    """The strided slices of `input` (batch, channels, *spatial), one per kernel offset,
    stacked after the channels: (batch, channels, prod(kernel), *out_sizes)."""
    slices = []
    for offset in np.ndindex(*kernel):
        index = tuple(slice(o * d, o * d + s * (size - 1) + 1, s)
                      for o, d, s, size in zip(offset, dilation, stride, out_sizes))
        slices.append(input[(slice(None), slice(None)) + index])
    if not slices:
        raise RuntimeError("kernel size should be greater than zero")
    return gradjit.stack(slices, 2)


def _out_size(length, kernel, stride, dilation, ceil_mode=False):
    span = length - dilation * (kernel - 1) - 1
    return (math.ceil if ceil_mode else math.floor)(span / stride) + 1


def _batched(input, n, name):
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    return (input, False) if input.dim() == n + 2 else (input.unsqueeze(0), True)


def _conv(input, weight, bias, stride, padding, dilation, groups, n, name):
    input, unbatched = _batched(input, n, name)
    stride, dilation = _tuple(stride, n), _tuple(dilation, n)
    kernel = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        # 'same' splits the total padding with the odd element on the right, as PyTorch does.
        totals = [d * (k - 1) if padding == "same" else 0 for d, k in zip(dilation, kernel)]
        pairs = [(t // 2, t - t // 2) for t in totals]
    else:
        pairs = [(p, p) for p in _tuple(padding, n)]
    channels = input.shape[1]
    if channels != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, "
                           f"expected input{list(input.shape)} to have "
                           f"{weight.shape[1] * groups} channels, but got {channels} channels "
                           "instead")
    input = pad(input, [a for pair in reversed(pairs) for a in pair])
    padded = tuple(input.shape[2:])
    if any(d * (k - 1) + 1 > length for d, k, length in zip(dilation, kernel, padded)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(str(d * (k - 1) + 1) for d, k in zip(dilation, kernel))})"
                           ". Kernel size can't be greater than actual input size")
    out_sizes = [_out_size(length, k, s, d)
                 for length, k, s, d in zip(input.shape[2:], kernel, stride, dilation)]
    cols = _windows(input, kernel, stride, dilation, out_sizes)
    batch, out_channels = input.shape[0], weight.shape[0]
    cols = cols.reshape(batch, groups, channels // groups * math.prod(kernel), -1)
    kernels = weight.reshape(groups, out_channels // groups, -1)
    out = kernels.matmul(cols).reshape(batch, out_channels, *out_sizes)
    if bias is not None:
        out = out + bias.reshape((-1,) + (1,) * n)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def _pool(input, kernel_size, stride, padding, dilation, ceil_mode, fill, name):
    """The windows of a pooling (batch, channels, prod(kernel), *out) and the output sizes,
    after padding by `fill`; a ceil_mode window may start in the padding on the right but not
    past it."""
    if input.dim() not in (3, 4) or not input.numel():
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    input, unbatched = _batched(input, 2, name)
    kernel = _tuple(kernel_size, 2)
    stride = kernel if stride is None or stride == [] else _tuple(stride, 2)
    padding, dilation = _tuple(padding, 2), _tuple(dilation, 2)
    if any(2 * p > k for p, k in zip(padding, kernel)):
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                           f"pad={padding[0]}, kernel_size={kernel[0]} and dilation="
                           f"{dilation[0]}")
    out_sizes, extra = [], []
    for length, k, s, p, d in zip(input.shape[2:], kernel, stride, padding, dilation):
        size = _out_size(length + 2 * p, k, s, d, ceil_mode)
        if ceil_mode and (size - 1) * s >= length + p:
            size -= 1
        out_sizes.append(size)
        extra.append(max((size - 1) * s + d * (k - 1) + 1 - (length + 2 * p), 0))
    amounts = [a for p, e in zip(reversed(padding), reversed(extra)) for a in (p, p + e)]
    windows = _windows(pad(input, amounts, value=fill), kernel, stride, dilation, out_sizes)
    return windows, unbatched, (kernel, stride, padding, extra, out_sizes)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if return_indices:
        raise NotImplementedError("max_pool2d(return_indices=True) is not supported")
    windows, unbatched, _ = _pool(input, kernel_size, stride, padding, dilation, ceil_mode,
                                  -math.inf, "max_pool2d")
    out = windows.max(2).values
    return out.squeeze(0) if unbatched else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    windows, unbatched, (kernel, stride, padding, extra, _) = _pool(
        input, kernel_size, stride, padding, 1, ceil_mode, 0, "avg_pool2d")
    total = windows.sum(2)
    if divisor_override is not None:
        out = total / divisor_override
    else:
        # Each window's divisor counts its elements inside the input, or inside the padded
        # input with count_include_pad; the ceil_mode overhang never counts.
        ones = gradjit.ones(input.shape[-2:], dtype=input.dtype)
        if count_include_pad:
            ones = pad(ones, [padding[1], padding[1], padding[0], padding[0]], value=1)
            amounts = [0, extra[1], 0, extra[0]]
        else:
            amounts = [padding[1], padding[1] + extra[1], padding[0], padding[0] + extra[0]]
        counts = _windows(pad(ones, amounts)[None, None], kernel, stride, (1, 1),
                          list(total.shape[-2:])).sum(2)[0, 0]
        out = total / counts
    return out.squeeze(0) if unbatched else out


def _as_2d(input, *params):
    """A 1-d pooling as the 2-d one over a height of 1: (N, C, L) -> (N, C, 1, L)."""
    return (input.unsqueeze(-2),) + tuple(
        None if p is None or p == [] else (default, _tuple(p, 1)[0])
        for p, default in params)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if return_indices:
        raise NotImplementedError("max_pool1d(return_indices=True) is not supported")
    input2d, kernel, stride, padding, dilation = _as_2d(
        input, (kernel_size, 1), (stride, 1), (padding, 0), (dilation, 1))
    return max_pool2d(input2d, kernel, stride, padding, dilation, ceil_mode).squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    input2d, kernel, stride, padding = _as_2d(input, (kernel_size, 1), (stride, 1),
                                              (padding, 0))
    return avg_pool2d(input2d, kernel, stride, padding, ceil_mode,
                      count_include_pad).squeeze(-2)
