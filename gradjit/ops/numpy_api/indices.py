"""numpy's conversions between flat indices and index tuples (unravel_index,
ravel_multi_index) on indices computed at run time: integer arithmetic on the strides, the
bounds read from the values (guarded under tracing) to raise numpy's errors."""
from __future__ import annotations

import numpy as np

from gradjit import ops

_MODES = ("raise", "wrap", "clip")


def _integers(x):
    x = ops.asarray(np.asarray(x) if isinstance(x, (list, tuple, int)) else x)
    if ops.result_type(x).numpy.kind not in "biu":
        raise TypeError("only int indices permitted")
    return ops.astype(x, np.int64)


def _strides(dims, order):
    """Each axis's step in the flat index: the last axis fastest for 'C', the first for 'F'."""
    if order in ("A", "K"):
        raise ValueError("only 'C' or 'F' order is permitted")
    if order not in ("C", "F"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    dims = tuple(int(d) for d in dims)
    walk = dims[::-1] if order == "C" else dims
    strides = np.cumprod((1,) + walk[:-1]).tolist()
    return dims, strides[::-1] if order == "C" else strides


def _unravel_index(indices, shape, order="C"):
    shape = (shape,) if isinstance(shape, (int, np.integer)) else shape
    dims, strides = _strides(shape, order)
    flat, size = _integers(indices), int(np.prod(dims))
    outside = ops.logical_or(ops.lt(flat, 0), ops.ge(flat, size))
    if bool(ops.any_(outside)):
        first = ops.getitem(ops.ravel(flat), ops.arg_extremum(ops.astype(outside, np.int64)))
        raise ValueError(f"index {int(first)} is out of bounds for array with size {size}")
    return tuple(ops.remainder(ops.floor_divide(flat, stride), dim)
                 for dim, stride in zip(dims, strides))


def _ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    dims, strides = _strides(dims, order)
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    flat = 0
    for index, dim, stride, how in zip(multi_index, dims, strides, modes):
        if how not in _MODES:
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got "
                             f"{how!r})")
        index = _integers(index)
        if how == "wrap":
            index = ops.remainder(index, dim)
        elif how == "clip":
            index = ops.clip(index, 0, dim - 1)
        elif bool(ops.any_(ops.logical_or(ops.lt(index, 0), ops.ge(index, dim)))):
            raise ValueError("invalid entry in coordinates array")
        flat = ops.add(flat, ops.mul(index, stride))
    return flat


def _ix(*args):
    """numpy's ix_: each 1-d sequence along its own axis of an open mesh; booleans by their
    nonzero positions (which a mask computed at run time cannot give: numpy's nonzero says)."""
    out = []
    for k, x in enumerate(args):
        x = ops.asarray(np.asarray(x) if isinstance(x, (list, tuple)) else x)
        if len(ops.shape_of(x)) != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if not ops.shape_of(x)[0]:
            x = ops.astype(x, np.intp)
        elif ops.result_type(x).numpy.kind == "b":
            x = np.nonzero(x)[0]
        out.append(ops.reshape(x, (1,) * k + (-1,) + (1,) * (len(args) - k - 1)))
    return tuple(out)


FUNCTIONS = {np.unravel_index: _unravel_index, np.ravel_multi_index: _ravel_multi_index,
             np.ix_: _ix}
