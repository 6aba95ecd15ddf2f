"""torch.memory_format: the order in which a tensor's dimensions lie in memory, held by its
numpy array's strides (copies keep it, elementwise results follow it, as in PyTorch)."""
from __future__ import annotations

import numpy as np


class memory_format:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

_CHANNELS_LAST_RANK = {channels_last: 4, channels_last_3d: 5}


def order_of(fmt, rank):
    """The dimensions of a `rank`-d tensor in `fmt`, outermost in memory first."""
    need = _CHANNELS_LAST_RANK.get(fmt)
    if need is None:
        return tuple(range(rank))
    if rank != need:
        raise RuntimeError(f"required rank {need} tensor to use {fmt.name} format")
    return (0, *range(2, rank), 1)


def laid_out(array, order):
    """A copy of `array` whose dimensions lie in memory in `order` (outermost first)."""
    return array.transpose(order).copy().transpose(np.argsort(order))


def dense_order(shape, strides):
    """The dimensions by decreasing stride (ties in order): the dim_order of a dense tensor."""
    return tuple(sorted(range(len(shape)), key=lambda d: -strides[d]))


def follows(shape, strides, fmt):
    """Whether elements with these strides lie densely in `fmt`'s order (size-1 dimensions'
    strides do not count)."""
    if fmt in _CHANNELS_LAST_RANK and len(shape) != _CHANNELS_LAST_RANK[fmt]:
        return False
    return dense_in(shape, strides, order_of(fmt, len(shape)))


def dense_in(shape, strides, order) -> bool:
    """Whether elements with these strides (counted in elements) lie densely in `order`,
    outermost first (size-1 dimensions' strides do not count)."""
    expected = 1
    for d in reversed(order):
        if shape[d] != 1 and strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def grad_layout(array):
    """The order PyTorch's AccumulateGrad lays a first .grad out in for a parameter over
    `array`: the parameter's own where its elements lie densely, C order where not."""
    order = dense_order(array.shape, array.strides)
    strides = [step // array.itemsize for step in array.strides]
    return order if dense_in(array.shape, strides, order) else tuple(range(array.ndim))
