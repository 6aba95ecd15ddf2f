"""ufunc.reduce, ufunc.accumulate and ufunc.at for the binary ufuncs without a numpy function
equal to them: numpy's left-to-right fold along the axis (logaddexp, maximum and minimum as
gradjit's scans), and unbuffered in-place application at indices."""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from gradjit import ops
from gradjit.ir import structural as S
from gradjit.ops.numpy_api.writes import assign

# ufunc -> the kind of gradjit's scan that accumulates it
_SCANS = {np.maximum: "max", np.minimum: "min", np.logaddexp: "logaddexp"}


def _binary(ufunc, method):
    if ufunc.nin != 2 or ufunc.nout != 1:
        raise ValueError(f"{method} only supported for binary functions")


def _array(x):
    return ops.asarray(np.asarray(x) if not hasattr(x, "ir_type") else x)


def _slices(x, axis):
    moved = ops.moveaxis(x, axis, 0)
    return [ops.getitem(moved, i) for i in range(ops.shape_of(moved)[0])]


def reduce(ufunc, fn, array, axis=0, dtype=None, out=None, keepdims=False,
           initial=np._NoValue, where=True):
    """numpy's fold of `fn` over the axes (several only for a reorderable ufunc); the elements
    `where` leaves out are skipped, which needs a start: `initial` or the ufunc's identity."""
    _binary(ufunc, "reduce")
    x = ops.asarray(array if dtype is None else ops.astype(array, np.dtype(dtype)))
    shape = ops.shape_of(x)
    if not shape and axis in (0, -1):  # numpy reduces a 0-d array along "its" axis 0
        axis = None
    axes = tuple(range(len(shape))) if axis is None else normalize_axis_tuple(axis, len(shape))
    if len(axes) > 1 and ufunc.identity is None and ufunc not in _SCANS:
        raise ValueError(f"reduction operation '{ufunc.__name__}' is not reorderable, so at "
                         "most one axis may be specified")
    rest = tuple(a for a in range(len(shape)) if a not in axes)

    def along_first(v):  # the reduced axes merged into the first
        return ops.reshape(ops.transpose(v, axes + rest), (math.prod(shape[a] for a in axes),)
                           + tuple(shape[a] for a in rest))
    if initial is np._NoValue:
        initial = ufunc.identity
    if where is not True and initial is None:
        raise ValueError(f"reduction operation '{ufunc.__name__}' does not have an identity, "
                         "so to use a where mask one has to specify 'initial'")
    x = along_first(x)
    items = _slices(x, 0)
    kept = [None] * len(items) if where is True else \
        _slices(along_first(ops.broadcast_to(ops.astype(_array(where), np.bool_), shape)), 0)
    if initial is not None:
        items.insert(0, ops.broadcast_to(ops.astype(_array(initial), ops.result_type(x)),
                                         ops.shape_of(x)[1:]))
        kept.insert(0, None)
    if not items:
        raise ValueError(f"zero-size array to reduction operation {ufunc.__name__} which has "
                         "no identity")
    total = items[0]
    for item, keep in zip(items[1:], kept[1:]):
        step = fn(total, item)
        total = step if keep is None else ops.where(keep, step, total)
    if keepdims:
        total = ops.reshape(total, tuple(1 if a in axes else d for a, d in enumerate(shape)))
    return total


def check_accumulate(array, axis=0, *rest, **options):
    """numpy's checks of accumulate's operands (np.cumsum, which serves np.add.accumulate,
    takes a 0-d array and axis=None): one axis of an array that has axes."""
    if not ops.shape_of(_array(array)):
        raise TypeError("cannot accumulate on a scalar")
    if axis is None or isinstance(axis, tuple):
        raise ValueError("accumulate does not allow multiple axes")


def accumulate(ufunc, fn, array, axis=0, dtype=None, out=None):
    """The running fold along one axis: gradjit's scan where there is one, else step by
    step."""
    _binary(ufunc, "accumulate")
    x = ops.asarray(array if dtype is None else ops.astype(array, np.dtype(dtype)))
    axis = normalize_axis_index(axis, len(ops.shape_of(x)))
    if ufunc in _SCANS:
        return ops.scan(x, axis, _SCANS[ufunc])
    items = _slices(x, axis)
    for i in range(1, len(items)):
        items[i] = fn(items[i - 1], items[i])
    return ops.moveaxis(ops.stack(items), 0, axis) if items else x


def reduceat(ufunc, reduce_along, array, indices, axis=0, dtype=None):
    """numpy's reductions over slices along the axis: from each index to the next when that
    is larger, else the one element at the index; the last to the end. `reduce_along(part,
    axis, dtype)` is the ufunc's reduce. The indices must be known when tracing; numpy run on
    zeros of the array's shape checks them (and the rest) with its own errors."""
    x = _array(array)
    if hasattr(indices, "ir_type"):
        indices = ops.constant_value(indices)
        if indices is None:
            raise TypeError(f"np.{ufunc.__name__}.reduceat needs indices known when tracing, "
                            "not computed at run time")
    shape = ops.shape_of(x)
    with np.errstate(all="ignore"):
        stand_in = ufunc.reduceat(np.zeros(shape, ops.result_type(x).numpy), indices, axis,
                                  dtype)
    axis = normalize_axis_index(axis, len(shape))
    starts = np.asarray(indices).astype(np.intp)
    stops = np.append(starts[1:], shape[axis])
    before = (slice(None),) * axis
    parts = [reduce_along(ops.getitem(x, before + (slice(start, max(stop, start + 1)),)),
                          axis, dtype) for start, stop in zip(starts, stops)]
    if not parts:  # no slices: numpy's empty result
        return ops.astype(ops.getitem(x, before + (slice(0, 0),)), stand_in.dtype)
    return ops.stack(parts, axis)


def at(ufunc, fn, a, indices, b=None):
    """fn applied in place at a[indices] (with b), each repeated index again on the value the
    previous application left: rounds of distinct positions for indices known now; add and
    subtract with indices computed at run time, as one scatter_add."""
    shape, size = ops.shape_of(a), int(np.prod(ops.shape_of(a)))
    known = _known_positions(shape, indices)
    if known is None:
        if ufunc not in (np.add, np.subtract):
            raise TypeError(f"np.{ufunc.__name__}.at with indices computed at run time is not "
                            "supported; np.add.at and np.subtract.at are")
        positions = _run_time_positions(shape, indices)
        values = ops.broadcast_to(ops.astype(_array(b), ops.result_type(a)),
                                  ops.shape_of(positions))
        values = values if ufunc is np.add else ops.neg(values)
        updated = S.scatter_add(ops.ravel(a), ops.ravel(positions), ops.ravel(values), axis=0)
        assign(a, ops.reshape(updated, shape), f"{ufunc.__name__}.at")
        return
    flat = ops.ravel(a)
    values = None if b is None else ops.ravel(_broadcast_values(_array(b), known.shape))
    order, positions = np.arange(known.size), known.ravel()
    seen = np.zeros(size, np.int64)
    rank = np.empty_like(positions)
    for i, p in enumerate(positions):  # the how-many-th write to its position each one is
        rank[i], seen[p] = seen[p], seen[p] + 1
    for r in range(int(rank.max()) + 1 if positions.size else 0):
        chosen = order[rank == r]
        current = ops.take(flat, positions[chosen])
        result = fn(current) if values is None else fn(current, ops.take(values, chosen))
        flat = ops.index_put(flat, positions[chosen], ops.astype(result, ops.result_type(a)))
    assign(a, ops.reshape(flat, shape), f"{ufunc.__name__}.at")


def _broadcast_values(values, shape):
    """ufunc.at's second operand over the indexed elements, with numpy's error where it does
    not broadcast to them."""
    try:
        ops.broadcast_shapes(ops.shape_of(values), shape)
    except ValueError:
        raise ValueError("array is not broadcastable to correct shape") from None
    return ops.broadcast_to(values, shape)


def _known_positions(shape, indices):
    """The flat positions numpy's indexing reaches, for an index known now (else None)."""
    parts = indices if isinstance(indices, tuple) else (indices,)
    if any(hasattr(p, "ir_type") and ops.constant_value(p) is None for p in parts):
        return None
    parts = tuple(ops.constant_value(p) if hasattr(p, "ir_type") else p for p in parts)
    return np.arange(int(np.prod(shape))).reshape(shape)[parts if isinstance(
        indices, tuple) else parts[0]]


def _run_time_positions(shape, indices):
    """Flat positions of integer index arrays computed at run time: one array (the first
    axis, the others whole) or one array per axis."""
    parts = indices if isinstance(indices, tuple) else (indices,)
    if len(parts) not in (1, len(shape)) or not all(hasattr(p, "ir_type") or isinstance(
            p, np.ndarray) for p in parts):
        raise TypeError("ufunc.at with indices computed at run time takes one integer index "
                        "array, or one per axis")
    strides = np.cumprod((1,) + shape[:0:-1])[::-1]
    flat = 0
    for part, n, stride in zip(parts, shape, strides):
        # read from the axis' positions, so each part is checked against its own axis (an
        # index past one axis must not land in the next) and a negative one counts from the end
        position = ops.take(np.arange(n), ops.astype(part, np.int64))
        flat = ops.add(flat, ops.mul(position, int(stride)))
    if len(parts) == 1 and len(shape) > 1:
        inner = np.arange(int(strides[0]))
        flat = ops.add(ops.expand_dims(ops.mul(flat, 1), -1), inner)
        flat = ops.reshape(flat, ops.shape_of(flat)[:-1] + shape[1:])
    return flat
