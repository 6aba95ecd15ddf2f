"""Triangles, diagonals and grids (tril, triu, diagonal, diag, diag_embed, trace, kron,
meshgrid) on array-likes. A diagonal is a strided slice of the flattened matrix, and placing a
vector on one is a pad with interior padding, so both are views with views as gradients."""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ops.array import reshape, shape_of, sum_, transpose, where
from gradjit.ops.shaping import asarray, broadcast_arrays, moveaxis, ravel


def tril(m, k=0):
    x = asarray(m)
    return where(np.tri(*shape_of(x)[-2:], k=k, dtype=bool), x, E.zeros_like(x))


def triu(m, k=0):
    x = asarray(m)
    return where(np.tri(*shape_of(x)[-2:], k=k - 1, dtype=bool), E.zeros_like(x), x)


def _diagonal_span(n, m, offset):
    """The length of the diagonal `offset` of an n x m matrix and its first flat position."""
    length = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    return length, (offset if offset >= 0 else -offset * m) if length else 0


def _steps_shorter(x, axis1, axis2):
    """Whether a tensor's memory steps less along axis1 than along axis2 (a column-major
    LAPACK result): only the flattening of the pair in that order is a view of the memory,
    and the diagonal must be one for a write through it to reach the tensor."""
    stride = getattr(x, "stride", None)
    if not callable(stride):
        return False
    steps = stride()
    return abs(steps[axis1]) < abs(steps[axis2])


def diagonal(a, offset=0, axis1=0, axis2=1):
    """numpy's diagonal: the axes axis1, axis2 go, the diagonal becomes the last axis."""
    x = asarray(a)
    shape = shape_of(x)
    if len(shape) < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    axis1, axis2 = normalize_axis_index(axis1, len(shape)), normalize_axis_index(axis2,
                                                                                  len(shape))
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    if _steps_shorter(x, axis1, axis2):  # diagonal k of x is diagonal -k of its transpose
        axis1, axis2, offset = axis2, axis1, -offset
    rest = [i for i in range(len(shape)) if i not in (axis1, axis2)]
    x = transpose(x, rest + [axis1, axis2])
    batch, n, m = tuple(shape[i] for i in rest), shape[axis1], shape[axis2]
    length, start = _diagonal_span(n, m, offset)
    flat = reshape(x, batch + (n * m,))
    stop = start + (length - 1) * (m + 1) + 1 if length else start
    return S.slice_(flat, start=(0,) * len(batch) + (start,), stop=batch + (stop,),
                    step=(1,) * len(batch) + (m + 1,))


def diag_embed(v, offset=0, axis1=-2, axis2=-1):
    """The last axis of v placed on diagonal `offset` of new square axes axis1, axis2 (of
    the result), zeros elsewhere."""
    x = asarray(v)
    shape = shape_of(x)
    batch, n = shape[:-1], shape[-1]
    size = n + abs(offset)
    _, start = _diagonal_span(size, size, offset)
    used = (n - 1) * (size + 1) + 1 if n else 0
    zeros = (0,) * len(batch)
    flat = S.pad(x, low=zeros + (start,), high=zeros + (size * size - start - used,),
                 interior=zeros + (size,), value=0)
    out = reshape(flat, batch + (size, size))
    rank = len(batch) + 2
    axes = (normalize_axis_index(axis1, rank), normalize_axis_index(axis2, rank))
    return moveaxis(out, (rank - 2, rank - 1), axes)


def diag(v, k=0):
    x = asarray(v)
    rank = len(shape_of(x))
    if rank == 1:
        return diag_embed(x, k)
    if rank == 2:
        return diagonal(x, k)
    raise ValueError("Input must be 1- or 2-d.")


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    return sum_(diagonal(a, offset, axis1, axis2), -1, dtype=dtype)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    rank = len(xi)
    axes = list(range(rank))
    if indexing == "xy" and rank > 1:
        axes[0], axes[1] = 1, 0
    out = tuple(reshape(ravel(x), tuple(-1 if i == axis else 1 for i in range(rank)))
                for x, axis in zip(xi, axes))
    return out if sparse else broadcast_arrays(*out)


__all__ = ["diag", "diag_embed", "diagonal", "meshgrid", "trace", "tril", "triu"]
