"""Transposed convolutions as ordinary ones: the input spread out by the stride (zeros
between its elements), padded by dilation * (kernel - 1) - padding on each side (plus
output_padding after), and convolved with the kernel flipped, its in and out channels
swapped within each group."""
from __future__ import annotations

import gradjit
from gradjit.nn.functional.conv import (_batched, _tuple, check_bias, conv1d, conv2d, conv3d,
                                        pad)


def _spread(input, dim, stride):
    """input with stride - 1 zeros between neighbours along dim."""
    if stride == 1:
        return input
    length = input.shape[dim]
    zeros = list(input.shape)
    zeros.insert(dim + 1, stride - 1)
    gaps = gradjit.zeros(zeros, dtype=input.dtype)
    woven = gradjit.cat([input.unsqueeze(dim + 1), gaps], dim + 1)
    merged = woven.reshape(*input.shape[:dim], length * stride, *input.shape[dim + 1:])
    return merged.narrow(dim, 0, (length - 1) * stride + 1)


def _sides(named, separator=" "):
    """`name_side: value` for each (name, values, fill); PyTorch reports a 1-D case as 2-D,
    with a height of `fill`."""
    parts = []
    for name, values, fill in named:
        values = (fill,) * max(2 - len(values), 0) + tuple(values)
        sides = ("depth", "height", "width")[-len(values):]
        parts += [f"{name}_{side}: {value}" for side, value in zip(sides, values)]
    return separator.join(parts)


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                    n, name, conv):
    input, unbatched = _batched(input, n, name)
    out = gradjit.autograd.composite(
        "ConvolutionBackward0", lambda input, weight, bias: _transposed(
            input, weight, bias, stride, padding, output_padding, groups, dilation, n, name,
            conv), input, weight, bias)
    return out.squeeze(0) if unbatched else out


def _transposed(input, weight, bias, stride, padding, output_padding, groups, dilation, n,
                name, conv):
    stride, padding = _tuple(stride, n), _tuple(padding, n)
    output_padding, dilation = _tuple(output_padding, n), _tuple(dilation, n)
    if min(output_padding) < 0:
        raise RuntimeError("negative output_padding is not supported")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{list(weight.shape)}] "
                           "instead")
    if min(dilation) <= 0:
        raise RuntimeError("dilation should be greater than zero, but got "
                           + _sides((("dilation", dilation, 1),), ", "))
    if any(o >= max(s, d) for o, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError("output padding must be smaller than either stride or dilation, "
                           "but got " + _sides((("output_padding", output_padding, 0),
                                                ("stride", stride, 1),
                                                ("dilation", dilation, 1))))
    in_channels, per_group = weight.shape[0], weight.shape[1]
    if input.shape[1] != in_channels:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {in_channels} channels, but got "
                           f"{input.shape[1]} channels instead")
    check_bias(bias, weight, per_group * groups, "transposed=1, ")
    kernel = tuple(weight.shape[2:])
    sizes = tuple(input.shape[2:])
    out_sizes = [(length - 1) * s - 2 * p + d * (k - 1) + o + 1 for length, s, p, d, k, o
                 in zip(sizes, stride, padding, dilation, kernel, output_padding)]
    if any(size <= 0 for size in out_sizes):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, sizes))}). "
                           "Calculated output size per channel: "
                           f"({' x '.join(map(str, out_sizes))}). Output size is too small")
    swapped = weight.reshape(groups, in_channels // groups, per_group, *kernel).transpose(1, 2)
    swapped = swapped.reshape(groups * per_group, in_channels // groups, *kernel)
    swapped = swapped.flip(*range(2, 2 + n))
    spread = input
    for axis, s in enumerate(stride):
        spread = _spread(spread, 2 + axis, s)
    amounts = []
    for k, p, o, d in reversed(list(zip(kernel, padding, output_padding, dilation))):
        edge = d * (k - 1) - p
        amounts += [edge, edge + o]
    return conv(pad(spread, amounts), swapped, bias, 1, 0, dilation, groups)


def _conv_transpose_nd(n, conv):
    def conv_transpose(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                       groups=1, dilation=1):
        return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                               dilation, n, f"conv_transpose{n}d", conv)
    conv_transpose.__name__ = conv_transpose.__qualname__ = f"conv_transpose{n}d"
    return conv_transpose


conv_transpose1d, conv_transpose2d, conv_transpose3d = map(
    _conv_transpose_nd, (1, 2, 3), (conv1d, conv2d, conv3d))
