"""F.unfold (the im2col columns of a convolution) and F.fold (its adjoint: each column added
back at its window, overlaps summing)."""
from __future__ import annotations

import math

import numpy as np

from gradjit.nn.functional.conv import _batched, _out_size, _tuple, _windows, pad
from gradjit.nn.functional.transposed import _spread
from gradjit.tensor.arith import kernel
from gradjit.tensor.refusals import refuse_integers


def _blocks(spatial, kernel, dilation, padding, stride, check=True):
    """The number of windows along each dim, PyTorch's unfold error when one is not
    positive (fold first compares their product with its input's length)."""
    blocks = [_out_size(length + 2 * p, k, s, d)
              for length, k, s, d, p in zip(spatial, kernel, stride, dilation, padding)]
    if check and any(b < 1 for b in blocks):
        raise RuntimeError(f"Given input with spatial size {tuple(spatial)}, kernel_size="
                           f"{kernel}, dilation={dilation}, padding={padding}, calculated shape "
                           f"of the array of sliding blocks as {tuple(blocks)}, but its "
                           "components must be at least one.")
    return blocks


@kernel("Im2ColBackward0")
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    input, unbatched = _batched(input, 2, "unfold")
    refuse_integers("im2col_out_cpu", input)
    kernel, dilation = _tuple(kernel_size, 2), _tuple(dilation, 2)
    padding, stride = _tuple(padding, 2), _tuple(stride, 2)
    blocks = _blocks(input.shape[2:], kernel, dilation, padding, stride)
    input = pad(input, [padding[1], padding[1], padding[0], padding[0]])
    cols = _windows(input, kernel, stride, dilation, blocks)
    cols = cols.reshape(input.shape[0], input.shape[1] * math.prod(kernel), math.prod(blocks))
    return cols.squeeze(0) if unbatched else cols


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    if input.dim() not in (2, 3) or not all(input.shape[1 if input.dim() == 3 else 0:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    unbatched = input.dim() == 2
    input = input.unsqueeze(0) if unbatched else input
    output_size, kernel = _tuple(output_size, 2), _tuple(kernel_size, 2)
    dilation, padding, stride = _tuple(dilation, 2), _tuple(padding, 2), _tuple(stride, 2)
    area = math.prod(kernel)
    if input.shape[1] % area:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={input.shape[1]} and "
                           f"kernel_size={kernel}.")
    blocks = _blocks(output_size, kernel, dilation, padding, stride, check=False)
    if input.shape[2] != math.prod(blocks):
        raise RuntimeError(
            f"Given output_size={output_size}, kernel_size={kernel}, dilation={dilation}, "
            f"padding={padding}, stride={stride}, expected size of input's dimension 2 to match "
            f"the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
            f"{math.prod(blocks)}, but got input.size(2)={input.shape[2]}.")
    if any(b < 1 for b in blocks):
        raise RuntimeError(
            f"Given output_size={output_size}, kernel_size={kernel}, dilation={dilation}, "
            f"padding={padding}, stride={stride}, calculated shape of the array of sliding "
            f"blocks as {tuple(blocks)}, which is too small (non-positive)")
    batch, channels = input.shape[0], input.shape[1] // area
    cols = input.reshape(batch, channels, area, *blocks)
    padded = [length + 2 * p for length, p in zip(output_size, padding)]
    out = None
    for k, offset in enumerate(np.ndindex(*kernel)):
        block = cols[:, :, k]
        amounts = []
        for i in (1, 0):
            block = _spread(block, 2 + i, stride[i])
            start = offset[i] * dilation[i]
            amounts += [start, padded[i] - start - block.shape[2 + i]]
        block = pad(block, amounts)
        out = block if out is None else out + block
    out = pad(out, [-padding[1], -padding[1], -padding[0], -padding[0]])
    return out.squeeze(0) if unbatched else out
