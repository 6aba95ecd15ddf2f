"""Adaptive pooling, channel dropout and normalize: PyTorch's bins (bin i of n over a length
L spans [floor(i L / n), ceil((i + 1) L / n))), masks drawn per (sample, channel) as PyTorch
draws them, and its grad_fn names."""
from __future__ import annotations

import itertools
import math

import numpy as np

import gradjit
from gradjit.nn.functional.activation import masked_dropout
from gradjit.nn.functional.pooling import window_max
from gradjit.tensor.refusals import refuse_integers
from gradjit.warn import warn_past_wrappers


def _sizes(output_size, input, spatial, name, kind):
    """output_size as PyTorch reads it: a number for every spatial dim, None keeping the
    input's, every one at least 0 (the checks in its order, with its error types)."""
    if isinstance(output_size, int):
        sizes = (output_size,) * spatial
    else:
        sizes = tuple(output_size)
        if input.dim() <= len(sizes):
            raise ValueError(f"Input dimension should be at least {len(sizes) + 1}")
        sizes = tuple(n if s is None else int(s)
                      for s, n in zip(sizes, input.shape[input.dim() - len(sizes):]))
    if input.dim() not in (spatial + 1, spatial + 2):
        colon = ":" * (kind == "max")
        raise RuntimeError(f"{name}(): Expected {spatial + 1}D or {spatial + 2}D tensor, but "
                           f"got{colon} {list(input.shape)}")
    if len(sizes) != spatial:
        raise RuntimeError(f"{name}: output_size must be {spatial}" if kind == "avg" else
                           f"{name}(): internal error: output_size.size() must be {spatial}")
    if min(sizes) < 0:
        if kind == "avg":  # PyTorch's 3-D message has no space before the third size
            listed = ", ".join(map(str, sizes[:2])) + "".join(f",{s}" for s in sizes[2:])
            raise RuntimeError(f"{name}: elements of output_size must be greater than or equal "
                               f"to 0 but received {{{listed}}}")
        shape = [*input.shape[:-spatial], *sizes]
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: "
                           f"{shape}")
    # PyTorch's 2-d average pooling lets the channels be empty, its other kernels do not
    _nonempty(input, input.dim() - spatial if (kind, spatial) == ("avg", 2) else 1, name)
    refuse_integers(name if spatial == 2 else f"{name}_cpu", input)
    return tuple(input.shape[-spatial:]), sizes


def _nonempty(input, first, name):
    for dim in range(first, input.dim()):
        if not input.shape[dim]:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {dim} being empty")


def _bins(length, count):
    return [(i * length // count, -(-(i + 1) * length // count)) for i in range(count)]


def _adaptive_avg(input, output_size, spatial):
    name = f"adaptive_avg_pool{spatial}d"
    inputs, sizes = _sizes(output_size, input, spatial, name, "avg")
    dims = tuple(range(-spatial, 0))
    if sizes == (1,) * spatial:  # PyTorch takes the mean
        return input.mean(dims, keepdim=True)

    def pool(x):
        rows = x
        for axis, (length, count) in enumerate(zip(inputs, sizes)):
            dim = x.dim() - spatial + axis
            rows = gradjit.stack([rows.narrow(dim, lo, hi - lo).mean(dim)
                                  for lo, hi in _bins(length, count)], dim)
        return rows
    return gradjit.autograd.composite(f"AdaptiveAvgPool{spatial}DBackward0", pool, input)


def _adaptive_max(input, output_size, spatial):
    """(values, indices): each bin's maximum and its flat position in the input's spatial
    dims, chosen as PyTorch's kernel chooses (window_max)."""
    name = f"adaptive_max_pool{spatial}d"
    inputs, sizes = _sizes(output_size, input, spatial, name, "max")
    strides = [math.prod(inputs[axis + 1:]) for axis in range(spatial)]

    def pool(x):
        values, indices = [], []
        for cell in itertools.product(*(_bins(length, count)
                                        for length, count in zip(inputs, sizes))):
            region = x[(Ellipsis,) + tuple(slice(lo, hi) for lo, hi in cell)]
            value, local = window_max(region.flatten(-spatial), -1)
            index = 0
            for (lo, hi), stride in reversed(list(zip(cell, strides))):
                index = index + (local % (hi - lo) + lo) * stride
                local = local // (hi - lo)
            values.append(value)
            indices.append(index)
        lead = tuple(x.shape[:-spatial])
        return (gradjit.stack(values, -1).reshape(*lead, *sizes),
                gradjit.stack(indices, -1).reshape(*lead, *sizes))
    return gradjit.autograd.composite(f"AdaptiveMaxPool{spatial}DBackward0", pool, input)


def _as_2d(input, output_size, pool2d, name):
    """A 1-D pooling as PyTorch runs it: the 2-D one over a unit height, squeezed."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"{name})")
    if not isinstance(output_size, int) and len(output_size) != 1:
        raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got "
                           f"{len(output_size)})")
    if name == "adaptive_max_pool1d":  # checked before the unit height is added
        _nonempty(input, 1, name)
    size = output_size if isinstance(output_size, int) else output_size[0]
    out = pool2d(input.unsqueeze(-2), (1, size))
    return tuple(o.squeeze(-2) for o in out) if isinstance(out, tuple) else out.squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    return _as_2d(input, output_size, adaptive_avg_pool2d, "adaptive_avg_pool1d")


def adaptive_avg_pool2d(input, output_size):
    return _adaptive_avg(input, output_size, 2)


def adaptive_avg_pool3d(input, output_size):
    return _adaptive_avg(input, output_size, 3)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _as_2d(input, output_size, adaptive_max_pool2d_with_indices, "adaptive_max_pool1d")


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, 2)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, 3)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out = _adaptive_max(input, output_size, 2)
    return out if return_indices else out[0]


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out = _adaptive_max(input, output_size, 3)
    return out if return_indices else out[0]


def _feature_dropout(input, p, training, inplace, batched):
    """Whole channels zeroed with probability p, the rest scaled by 1 / (1 - p): one draw per
    (sample, channel); an unbatched input gets the batch dim added for the draw, as PyTorch's."""
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    out = masked_dropout(input, p, training, inplace, lambda: gradjit.bernoulli(
        gradjit.empty(shape, dtype=input.dtype), 1 - p))
    if not batched:
        out = out.squeeze_(0) if inplace else out.squeeze(0)
    return out


def _warn_feature_dims(name, input, spatial):
    if input.dim() not in (spatial + 1, spatial + 2):
        warn_past_wrappers(
            f"{name}: Received a {input.dim()}-D input to {name}, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            f"warning, please use dropout instead. Note that {name} exists to provide "
            f"channel-wise dropout on inputs with {spatial} spatial dimensions, a channel "
            f"dimension, and an optional batch dimension (i.e. {spatial + 1}D or "
            f"{spatial + 2}D inputs).", stacklevel=3)


def dropout1d(input, p=0.5, training=True, inplace=False):
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note "
            "that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _feature_dropout(input, p, training, inplace, batched=input.dim() == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    _warn_feature_dims("dropout2d", input, 2)
    if input.dim() == 3:
        # PyTorch still reads a 3-D input as (N, C, L), not as an unbatched (C, H, W)
        warn_past_wrappers(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _feature_dropout(input, p, training, inplace, batched=True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    _warn_feature_dims("dropout3d", input, 3)
    return _feature_dropout(input, p, training, inplace, batched=input.dim() == 5)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input divided by its p-norm along dim (at least eps)."""
    norm = gradjit.linalg.vector_norm(input, p, dim, keepdim=True).clamp_min(eps)
    result = input / norm.expand_as(input)
    if out is not None:
        out.copy_(result)
        return out
    return result


def pdist(input, p=2):
    """The p-norm distances between the rows of a matrix, pairs (i < j) in row-major order."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    first, second = np.triu_indices(input.shape[0], 1)
    return gradjit.autograd.composite(
        "PdistBackward0", lambda x: gradjit.linalg.vector_norm(
            x[gradjit.tensor(first)] - x[gradjit.tensor(second)], p, -1), input)


# the torch-level functions, under nn.functional's names too
cosine_similarity, pairwise_distance = gradjit.cosine_similarity, gradjit.pairwise_distance

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
           "adaptive_max_pool3d_with_indices", "cosine_similarity", "dropout1d", "dropout2d",
           "dropout3d", "normalize", "pairwise_distance", "pdist"]
