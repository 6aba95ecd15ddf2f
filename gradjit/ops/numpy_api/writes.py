"""numpy's functions that write into an array (copyto, put, place, putmask, fill_diagonal). A
traced array takes the written copy as its new value, as `x[i] = v` does; a Tensor is written
with copy_; a numpy array cannot hold a value computed at run time and is refused."""
from __future__ import annotations

import numpy as np

from gradjit import ops
from gradjit.ops.indexing import constant_value
from gradjit.ops.numpy_api.dtypes import stand_in


def _assign(dst, updated, name):
    if hasattr(dst, "_become"):  # a traced array
        dst._become(updated)
    elif hasattr(dst, "_edge"):  # a Tensor
        dst.copy_(updated)
    else:
        raise TypeError(f"np.{name}: the destination is a numpy array, which cannot hold a "
                        "value computed at run time; write into a traced array (for example "
                        "np.zeros_like(x)) or build the result with np.where")


def _array(x):
    return ops.asarray(np.asarray(x) if isinstance(x, (list, tuple)) else x)


def _dtype(x):
    return ops.result_type(x).numpy


def _cycled(values, n):
    """values flattened and repeated to length n, as numpy repeats a short source; None for no
    values (numpy then writes nothing)."""
    flat = ops.ravel(_array(values))
    size = ops.shape_of(flat)[0]
    if not size:
        return None
    return flat if size == n else ops.take(flat, np.arange(n) % size)


def _copyto(dst, src, casting="same_kind", where=True):
    target = _dtype(dst)
    if not np.can_cast(np.result_type(stand_in(src)), target, casting):
        raise TypeError(f"Cannot cast array data from {np.result_type(stand_in(src))!r} to "
                        f"{target!r} according to the rule '{casting}'")
    shape, source = ops.shape_of(dst), ops.shape_of(_array(src))
    if len(source) > len(shape) or any(s not in (1, d) for s, d in zip(source[::-1],
                                                                       shape[::-1])):
        raise ValueError(f"could not broadcast input array from shape {source} into shape "
                         f"{shape}")
    value = ops.broadcast_to(ops.astype(_array(src), target), shape)
    if where is not True:
        value = ops.where(ops.broadcast_to(_array(where), shape), value, dst)
    _assign(dst, value, "copyto")


def _flat_put(a, positions, values):
    values = _cycled(ops.astype(_array(values), _dtype(a)), len(positions))
    if values is None or not len(positions):
        return a
    return ops.reshape(ops.index_put(ops.ravel(a), positions, values), ops.shape_of(a))


def _put(a, ind, v, mode="raise"):
    ind = constant_value(ind) if hasattr(ind, "ir_type") else np.asarray(ind)
    if ind is None:
        raise TypeError("np.put: indices computed at run time are not supported; use np.where "
                        "or scatter_add")
    size = int(np.prod(ops.shape_of(a)))
    ind = np.asarray(ind, np.int64).ravel()
    if mode == "wrap":
        ind = ind % size
    elif mode == "clip":
        ind = np.clip(ind, 0, size - 1)
    elif mode == "raise":
        bad = ind[(ind < -size) | (ind >= size)]
        if len(bad):
            raise IndexError(f"index {bad[0]} is out of bounds for axis 0 with size {size}")
        ind = ind % size
    else:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    _assign(a, _flat_put(a, ind, v), "put")


def _mask(a, mask, name):
    mask = ops.astype(_array(mask), "bool")
    if int(np.prod(ops.shape_of(mask))) != int(np.prod(ops.shape_of(a))):
        raise ValueError(f"{name}: mask and data must be the same size")
    return ops.reshape(mask, ops.shape_of(a))


def _place(arr, mask, vals):
    """vals in order into the positions mask marks, repeated as needed."""
    mask = _mask(arr, mask, "place")
    flat = ops.ravel(mask)
    rank = ops.sub(ops.cumsum(ops.astype(flat, "i64"), 0), 1)  # how many marked before
    values = ops.ravel(ops.astype(_array(vals), _dtype(arr)))
    count = ops.shape_of(values)[0]
    if not count:
        if bool(ops.any_(flat)):
            raise ValueError("Cannot insert from an empty array!")
        return
    picked = ops.take(values, ops.remainder(ops.maximum(rank, 0), count))
    _assign(arr, ops.where(mask, ops.reshape(picked, ops.shape_of(arr)), arr), "place")


def _putmask(a, mask, values):
    """values[i % len(values)] at each flat position i that mask marks."""
    mask = _mask(a, mask, "putmask")
    size = int(np.prod(ops.shape_of(a)))
    spread = _cycled(ops.astype(_array(values), _dtype(a)), size)
    if spread is None:
        return
    _assign(a, ops.where(mask, ops.reshape(spread, ops.shape_of(a)), a), "putmask")


def _fill_diagonal(a, val, wrap=False):
    shape = ops.shape_of(a)
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    if len(shape) == 2:
        step, end = shape[1] + 1, None if wrap else shape[1] * shape[1]
    else:
        if len(set(shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step, end = 1 + int(np.cumprod(shape[:-1]).sum()), None
    positions = np.arange(int(np.prod(shape)))[:end:step]
    _assign(a, _flat_put(a, positions, val), "fill_diagonal")


FUNCTIONS = {np.copyto: _copyto, np.put: _put, np.place: _place, np.putmask: _putmask,
             np.fill_diagonal: _fill_diagonal}
