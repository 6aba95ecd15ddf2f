"""Padding and convolutions as compositions: every window offset is a strided slice,
so a convolution is one contraction of the stacked slices with the kernel (im2col)."""
from __future__ import annotations

import math

import numpy as np

import gradjit
from gradjit.tensor.dtypes import CPP_NAMES

_INDEX_MODES = ("reflect", "replicate", "circular")


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
    if mode != "constant" and value:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if mode != "constant" and input.dim() not in (len(pad) // 2 + 1, len(pad) // 2 + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    dims = len(pad) // 2
    if mode in _PAD_NODES and not all(input.shape[1 if input.dim() == dims + 2 else 0:]):
        raise RuntimeError(f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with "
                           "possibly 0 batch size and other non-zero dimensions for input, but "
                           f"got: {list(input.shape)}")
    if mode == "circular":  # PyTorch copies the wrapped slices in: no node of its own
        return _circular(input, pad)
    if mode == "constant":  # one fresh tensor (never a view of input), as torch's
        return gradjit.autograd.composite("ConstantPadNdBackward0", lambda x: _pad_constants(
            x, pad, 0 if value is None else value), input)
    return gradjit.autograd.composite(_PAD_NODES[mode].format(len(pad) // 2),
                                      lambda x: _padded(x, pad, mode, value), input)


# PyTorch's kernel of each indexed mode, by the number of padded dims
_PAD_NODES = {"reflect": "ReflectionPad{}DBackward0", "replicate": "ReplicationPad{}DBackward0"}


def _padded(input, pad, mode, value):
    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        length = out.shape[dim]
        if mode == "reflect" and max(before, after) >= length:
            raise RuntimeError(f"Argument #4: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding "
                               f"({before}, {after}) at dimension {dim} of input "
                               f"{list(input.shape)}")
        kept = length - max(-before, 0) - max(-after, 0)
        if mode == "circular" and kept <= 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        if mode == "circular" and max(before, after) > length:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "circular" and max(before, after) > kept:  # PyTorch's copies overlap
            raise RuntimeError("unsupported operation: some elements of the input tensor "
                               "and the written-to tensor refer to a single memory "
                               "location. Please clone() the tensor before performing the "
                               "operation.")
        positions = _source_positions(mode, length, before, after)
        out = out[_dim_slice(out.dim(), dim, gradjit.tensor(positions))]
    return out


def _circular(input, pad):
    """Circular padding as PyTorch writes it (its graph is these copies): the input, cropped
    where an amount is negative, copied into a fresh tensor, then along each dim from the last
    the padding before and after copied from the other end of what is there already."""
    _padded(input, pad, "circular", None)  # its checks, in PyTorch's order
    dims = [(input.dim() - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]
    shape = list(input.shape)
    for dim, before, after in dims:
        shape[dim] += before + after
    out = input.new_empty(shape)
    into, source = out, input
    for dim, before, after in dims:
        into = into.narrow(dim, max(before, 0), shape[dim] - max(before, 0) - max(after, 0))
        source = source.narrow(dim, max(-before, 0),
                               input.shape[dim] - max(-before, 0) - max(-after, 0))
    into.copy_(source)
    for dim, before, after in dims:
        if before > 0:
            out.narrow(dim, 0, before).copy_(out.narrow(dim, shape[dim] - before - max(after, 0),
                                                        before))
        if after > 0:
            out.narrow(dim, shape[dim] - after, after).copy_(out.narrow(dim, max(before, 0),
                                                                        after))
    return out


def _source_positions(mode, length, before, after):
    """Which input position each output position copies along one dim; a negative amount
    crops that side, as PyTorch's (circular wraps around what the crops leave)."""
    if mode == "circular":
        lo, hi = max(-before, 0), length - max(-after, 0)
        return np.arange(-max(before, 0), hi - lo + max(after, 0)) % (hi - lo) + lo
    at = np.arange(-before, length + after)
    if mode == "replicate":
        return np.clip(at, 0, length - 1)
    last = length - 1  # reflect: mirrored at both ends, the ends not repeated
    return last - np.abs(last - np.abs(at))


def _pad_constants(input, pad, value):
    out = input
    for i in range(len(pad) // 2):
        out = _pad_constant(out, input.dim() - 1 - i, pad[2 * i], pad[2 * i + 1], value)
    return out.clone()  # crops alone would leave a view of the input


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


def _window_index(kernel, stride, dilation, out_sizes):
    """For each kernel offset, the strided slices of the spatial dims it sees."""
    for offset in np.ndindex(*kernel):
        yield tuple(slice(o * d, o * d + s * (size - 1) + 1, s)
                    for o, d, s, size in zip(offset, dilation, stride, out_sizes))


def _windows(input, kernel, stride, dilation, out_sizes):
    """The strided slices of `input` (batch, channels, *spatial), one per kernel offset,
    stacked after the channels: (batch, channels, prod(kernel), *out_sizes)."""
    slices = [input[(slice(None), slice(None)) + index]
              for index in _window_index(kernel, stride, dilation, out_sizes)]
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


def check_bias(bias, weight, out_channels, transposed=""):
    """A convolution's bias: one value per output channel."""
    if bias is not None and tuple(bias.shape) != (out_channels,):
        raise RuntimeError(f"Given {transposed}weight of size {list(weight.shape)}, expected "
                           f"bias to be 1-dimensional with {out_channels} elements, but got "
                           f"bias of size {list(bias.shape)} instead")


def _check_conv(input, weight, stride, padding, dilation, groups, n):
    """PyTorch's checks of a convolution's arguments (input batched) that precede the shapes',
    in its order."""
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    # convNd spells a number as n of them; the weight's rank decides the dims
    for what, value in (("stride", stride), ("padding", padding), ("dilation", dilation)):
        if padding != "same" and not isinstance(value, str) and \
                len(_tuple(value, n)) not in (1, weight.dim() - 2):
            raise RuntimeError(f"expected {what} to be a single integer value or a list of "
                               f"{weight.dim() - 2} values to match the convolution dimensions, "
                               f"but got {what}={list(_tuple(value, n))}")
    if padding == "same" and any(s != 1 for s in _tuple(stride, n)):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    if not isinstance(padding, str) and min(_tuple(padding, n)) < 0:
        raise RuntimeError("negative padding is not supported")
    if min(_tuple(stride, n)) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(_tuple(dilation, n)) < 0:
        raise RuntimeError("dilation should be greater than zero")
    if min(_tuple(dilation, n)) == 0:
        # a later check of PyTorch's: it runs a 1-d convolution as a 2-d one of height 1
        shown = [1] * (n == 1) + list(_tuple(dilation, n))
        raise RuntimeError(f"dilation should be greater than zero, but got {shown}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if input.dim() != weight.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-"
                           f"dimensional weight{list(weight.shape)}, but got {input.dim()}-"
                           f"dimensional input of size {list(input.shape)} instead")
    if weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {list(weight.shape)} instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{list(weight.shape)}] "
                           "instead")


def _conv(input, weight, bias, stride, padding, dilation, groups, n, name):
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({CPP_NAMES[input.dtype.legacy]}) and bias type "
                           f"({CPP_NAMES[bias.dtype.legacy]}) should be the same")
    input, unbatched = _batched(input, n, name)
    _check_conv(input, weight, stride, padding, dilation, groups, n)
    if input.dtype != weight.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.legacy} but found "
                           f"{weight.dtype.legacy}")
    if padding == "same" and all(s == 1 for s in _tuple(stride, n)):
        input, padding = _odd_padding(input, weight, dilation, n)
    out = gradjit.autograd.composite(
        "ConvolutionBackward0", lambda input, weight, bias: _convolve(
            input, weight, bias, stride, padding, dilation, groups, n), input, weight, bias)
    return out.squeeze(0) if unbatched else out


def _odd_padding(input, weight, dilation, n):
    """padding='same' as PyTorch runs it: an odd total pads its extra element on the right
    first (a ConstantPadNd node of its own), then both sides get total // 2."""
    totals = [d * (k - 1) for d, k in zip(_tuple(dilation, n), weight.shape[2:])]
    if all(t % 2 == 0 for t in totals):
        return input, "same"
    return pad(input, [a for t in reversed(totals) for a in (0, t % 2)]), [t // 2 for t in totals]


def _convolve(input, weight, bias, stride, padding, dilation, groups, n):
    """The convolution of a batched input: windows of it times the kernels."""
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
    check_bias(bias, weight, weight.shape[0])
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
    # (the window count spelled out: an empty batch leaves -1 ambiguous)
    cols = cols.reshape(batch, groups, channels // groups * math.prod(kernel),
                        math.prod(out_sizes))
    kernels = weight.reshape(groups, out_channels // groups, -1)
    out = kernels.matmul(cols).reshape(batch, out_channels, *out_sizes)
    return out if bias is None else out + bias.reshape((-1,) + (1,) * n)


def _conv_nd(n):
    def conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        return _conv(input, weight, bias, stride, padding, dilation, groups, n, f"conv{n}d")
    conv.__name__ = conv.__qualname__ = f"conv{n}d"
    return conv


conv1d, conv2d, conv3d = map(_conv_nd, (1, 2, 3))


def conv_tbc(input, weight, bias, pad=0):
    """A 1-d convolution over time-major (T, N, C_in) input with a (k, C_in, C_out) filter."""
    def tbc(input, weight, bias):
        out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
        return out.permute(2, 0, 1)
    return gradjit.autograd.composite("ConvTbcBackward0", tbc, input, weight, bias)
