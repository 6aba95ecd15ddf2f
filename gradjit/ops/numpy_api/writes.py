"""numpy's functions that write into an array (copyto, put, place, putmask, fill_diagonal,
put_along_axis). A
traced array takes the written copy as its new value, as `x[i] = v` does; a Tensor is written
with copy_; a numpy array cannot hold a value computed at run time and is refused."""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from gradjit import ops
from gradjit.ir import structural as S
from gradjit.ir.primitive import is_python_scalar
from gradjit.ops.indexing import constant_value
from gradjit.ops.numpy_api.dtypes import stand_in
from gradjit.ops.promote import check_cast


def assign(dst, updated, name):
    if hasattr(dst, "_become"):  # a traced array
        dst._become(updated)
    elif hasattr(dst, "_edge"):  # a Tensor
        dst.copy_(updated)
    elif isinstance(dst, np.ndarray) and (known := constant_value(updated)) is not None:
        dst[...] = known  # computed from eager Tensors: known now, written as numpy writes
    else:
        from gradjit.scipy.stats import refuse_scipy_stats
        refuse_scipy_stats()  # scipy.stats writes its results into numpy arrays
        raise TypeError(f"np.{name}: the destination is a numpy array, which cannot hold a "
                        "value computed at run time; write into a traced array (for example "
                        "np.zeros_like(x)) or build the result with np.where")


def copy_of(a):
    """A new array: writing into it leaves `a` as it was (a Tensor is cloned)."""
    return a.clone() if hasattr(a, "_edge") else a.copy()


def fresh(result, inputs):
    """numpy's new array for a result gradjit computed as an input itself (a cast to the same
    dtype, an integer rounded), so that a write into the result leaves the input alone."""
    if isinstance(result, list) or type(result) is tuple:
        return type(result)(fresh(r, inputs) for r in result)
    held = [x for i in inputs for x in (i if isinstance(i, (list, tuple)) else (i,))]
    if any(_shared(result, x) for x in held) and (hasattr(result, "_edge") or
                                                  hasattr(result, "copy")):
        return copy_of(result)
    return result


def _shared(result, x) -> bool:
    """result is x, or an eager Tensor whose memory x's overlaps (an eager reshape's view)."""
    if result is x:
        return True
    a, b = getattr(result, "_value", None), getattr(x, "_value", None)
    return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and \
        np.may_share_memory(a, b)


def into_out(name, out, result, casting="unsafe"):
    """numpy's `out=` of a function: the result cast to out's dtype (a cast `casting` allows)
    and written into it (a functional write, as `assign`), out returned; out's shape must be
    the result's."""
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    shape, target = ops.shape_of(result), ops.shape_of(out)
    if shape != target:
        raise ValueError(f"np.{name}: out has shape {target}, the result {shape}")
    check_cast(_dtype(result), _dtype(out), casting)
    assign(out, ops.astype(result, _dtype(out)), name)
    return out


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
    check_cast(np.result_type(stand_in(src)), target, casting)
    shape, source = ops.shape_of(dst), ops.shape_of(_array(src))
    if len(source) > len(shape) or any(s not in (1, d) for s, d in zip(source[::-1],
                                                                       shape[::-1])):
        raise ValueError(f"could not broadcast input array from shape {source} into shape "
                         f"{shape}")
    value = ops.broadcast_to(ops.astype(_array(src), target), shape)
    if where is not True:
        value = ops.where(ops.broadcast_to(_array(where), shape), value, dst)
    assign(dst, value, "copyto")


def _flat_put(a, positions, values):
    values = _cycled(ops.astype(_array(values), _dtype(a)), len(positions))
    if values is None or not len(positions):
        return a
    return ops.reshape(ops.index_put(ops.ravel(a), positions, values), ops.shape_of(a))


def _put(a, ind, v, mode="raise"):
    """a.flat[ind] = v, v repeated to the indices' number, the last write to a position winning;
    `mode` wraps or clips indices out of range, or refuses them (IndexError)."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    known = constant_value(ind) if hasattr(ind, "ir_type") else np.asarray(ind)
    if known is None:
        assign(a, _put_at_run_time(a, ind, v, mode), "put")
        return
    size = int(np.prod(ops.shape_of(a)))
    ind = np.asarray(known, np.int64).ravel()
    if mode == "wrap":
        ind = ind % size
    elif mode == "clip":
        ind = np.clip(ind, 0, size - 1)
    else:
        bad = ind[(ind < -size) | (ind >= size)]
        if len(bad):
            raise IndexError(f"index {bad[0]} is out of bounds for axis 0 with size {size}")
        ind = ind % size
    assign(a, _flat_put(a, ind, v), "put")


def _put_at_run_time(a, ind, v, mode):
    """np.put with indices computed by the program: wrapped or clipped in the program, then
    put_along_axis's scatter (its bounds check is mode 'raise')."""
    shape = ops.shape_of(a)
    size = int(np.prod(shape))
    index = ops.ravel(ops.astype(ind, np.int64))
    count = ops.shape_of(index)[0]
    values = _cycled(ops.astype(_array(v), _dtype(a)), count)
    if values is None or not count:
        return a
    if mode == "wrap":
        index = ops.remainder(index, size)
    elif mode == "clip":
        index = ops.clip(index, 0, size - 1)
    return ops.reshape(_scatter_along(ops.ravel(a), index, values, 0), shape)


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
    assign(arr, ops.where(mask, ops.reshape(picked, ops.shape_of(arr)), arr), "place")


def _putmask(a, mask, values):
    """values[i % len(values)] at each flat position i that mask marks."""
    mask = _mask(a, mask, "putmask")
    if not is_python_scalar(values) and not isinstance(values, (list, tuple, np.generic)):
        # an array of values is cast safely; numbers (and lists of them) are cast unsafely
        check_cast(_dtype(_array(values)), _dtype(a), "safe")
    size = int(np.prod(ops.shape_of(a)))
    spread = _cycled(ops.astype(_array(values), _dtype(a)), size)
    if spread is None:
        return
    assign(a, ops.where(mask, ops.reshape(spread, ops.shape_of(a)), a), "putmask")


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
    assign(a, _flat_put(a, positions, val), "fill_diagonal")


def _put_along_axis(arr, indices, values, axis):
    """arr[i0, .., indices, .., in] = values, numpy's fancy assignment (the last write to a
    position wins), with indices known or computed at run time."""
    indices = _array(indices)
    if _dtype(indices).kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    shape, rank = ops.shape_of(arr), len(ops.shape_of(indices))
    if axis is None:
        if rank != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        target, axis = ops.ravel(arr), 0
    else:
        axis = normalize_axis_index(axis, len(shape))
        if rank != len(shape):
            raise ValueError("`indices` and `arr` must have the same number of dimensions")
        target = arr
    assign(arr, ops.reshape(_scatter_along(target, indices, values, axis), shape),
            "put_along_axis")


def _scatter_along(x, indices, values, axis):
    """x with values written at `indices` along axis: one scatter onto the flattened array of
    the values no later write to the same element overwrites, and a count of writes per
    position choosing between them and x."""
    shape = ops.shape_of(x)
    n = shape[axis]
    grid = np.broadcast_shapes(ops.shape_of(indices), shape[:axis] + (1,) + shape[axis + 1:])
    idx = ops.broadcast_to(ops.astype(indices, np.int64), grid)
    outside = ops.logical_or(ops.lt(idx, -n), ops.ge(idx, n))
    if bool(ops.any_(outside)):  # read from the value, guarded: numpy names the first one
        bad = ops.getitem(ops.ravel(idx), ops.arg_extremum(ops.astype(outside, np.int64)))
        raise IndexError(f"index {int(bad)} is out of bounds for axis {axis} with size {n}")
    idx = ops.where(ops.lt(idx, 0), ops.add(idx, n), idx)
    strides = np.cumprod((1,) + shape[:0:-1])[::-1]
    flat = ops.mul(idx, int(strides[axis]))
    for d in range(len(grid)):
        if d != axis:  # an axis x has once takes index 0 however often the indices repeat it
            flat = ops.add(flat, (np.arange(shape[d]) * strides[d]).reshape(
                (-1,) + (1,) * (len(grid) - d - 1)))
    # Writes meet along the axis and along the axes x has once but the indices more often:
    # those go last, in numpy's (C) order, and a write is kept if no later one meets it.
    group = [d for d in range(len(grid)) if d == axis or shape[d] < grid[d]]
    order = [d for d in range(len(grid)) if d not in group] + group
    k = int(np.prod([grid[d] for d in group]))

    def grouped(v):
        v = ops.transpose(ops.broadcast_to(v, grid), order)
        return ops.reshape(v, tuple(grid[d] for d in order[:len(order) - len(group)]) + (k,))
    flat = grouped(flat)
    later = np.triu(np.ones((k, k), bool), 1)  # pairs (i, j) of writes with j after i
    clash = ops.logical_and(ops.eq(ops.expand_dims(flat, -1), ops.expand_dims(flat, -2)), later)
    keep = ops.logical_not(ops.any_(clash, -1))
    dt = _dtype(x)
    written = ops.where(keep, grouped(ops.astype(_array(values), dt)), np.zeros((), dt))
    size = int(np.prod(shape))
    positions = ops.ravel(flat)
    placed = S.scatter_add(np.zeros(size, dt), positions, ops.ravel(written), axis=0)
    hits = S.scatter_add(np.zeros(size, np.int64), positions,
                         ops.ravel(ops.astype(keep, np.int64)), axis=0)
    return ops.where(ops.gt(hits, 0), placed, ops.ravel(x))


FUNCTIONS = {np.copyto: _copyto, np.put: _put, np.place: _place, np.putmask: _putmask,
             np.fill_diagonal: _fill_diagonal, np.put_along_axis: _put_along_axis}
