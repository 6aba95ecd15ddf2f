"""numpy/PyTorch indexing on array-likes: basic indexing becomes slice + reshape; integer and
boolean arrays known when indexing (constants) become one gather over the flattened array;
an index array computed at run time becomes a gather along its axis."""
from __future__ import annotations

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.ops.array import reshape
from gradjit.ops.promote import astype, broadcast


def constant_value(x):
    """The numpy value of an index known when indexing, or None for a run-time value."""
    if isinstance(x, (list, tuple, range)):
        return np.asarray(x)
    if isinstance(x, np.ndarray) or is_python_scalar(x) or isinstance(x, np.generic):
        return np.asarray(x)
    known = getattr(x, "__gradjit_constant__", None)
    return known() if known is not None else None


def _parts(index):
    return index if isinstance(index, tuple) else (index,)


def _is_basic(part) -> bool:
    return part is None or part is Ellipsis or isinstance(part, (slice, int, np.integer)) and \
        not isinstance(part, bool)


def getitem(x, index):
    parts = _parts(index)
    if all(_is_basic(p) for p in parts):
        return _basic(x, parts)
    known = _known_parts(parts)
    if known is not None:
        return _by_positions(x, known)
    return _runtime_gather(x, parts)


def _known_parts(parts):
    """The index with array parts as numpy values, or None if one is known only at run time."""
    known = []
    for p in parts:
        value = p if _is_basic(p) else constant_value(p)
        if value is None and p is not None:
            return None
        known.append(value)
    return tuple(known)


def _expand_ellipsis(parts, rank):
    consumed = sum(p is not None and p is not Ellipsis for p in parts)
    if sum(p is Ellipsis for p in parts) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > rank:
        raise IndexError(f"too many indices for an array of rank {rank}: {consumed} were given")
    out = []
    for p in parts:
        out.extend([slice(None)] * (rank - consumed) if p is Ellipsis else [p])
    if Ellipsis not in parts:
        out.extend([slice(None)] * (rank - consumed))
    return out


def _basic(x, parts):
    shape = ir_type(x).shape
    parts = _expand_ellipsis(parts, len(shape))
    start, stop, step, out_shape, axis = [], [], [], [], 0
    reversed_axes = []
    for p in parts:
        if p is None:
            out_shape.append(1)
            continue
        n = shape[axis]
        if isinstance(p, slice):
            lo, hi, st = p.indices(n)
            if st < 0:  # walk the reversed range forwards, then flip the axis
                count = len(range(lo, hi, st))
                lo, hi, st = (lo + (count - 1) * st, lo + 1, -st) if count else (0, 0, 1)
                reversed_axes.append(len(out_shape))
            count = len(range(lo, hi, st))
            start.append(lo), stop.append(max(lo, hi) if count else lo), step.append(st)
            out_shape.append(count)
        else:
            if not -n <= p < n:
                raise IndexError(f"index {p} is out of bounds for axis {axis} with size {n}")
            p %= n
            start.append(p), stop.append(p + 1), step.append(1)
        axis += 1
    y = x
    if (tuple(start), tuple(stop), tuple(step)) != ((0,) * len(shape), shape, (1,) * len(shape)):
        y = S.slice_(x, start=tuple(start), stop=tuple(stop), step=tuple(step))
    y = reshape(y, tuple(out_shape))
    for a in reversed_axes:
        y = flip(y, a)
    return y


def flip(x, axis):
    n = ir_type(x).shape[axis]
    return S.gather(x, np.arange(n - 1, -1, -1, dtype=np.int64), axis=axis)


def _positions(shape, index):
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)[index]


def _by_positions(x, index):
    try:
        positions = _positions(ir_type(x).shape, index)
    except IndexError as error:
        raise IndexError(str(error)) from None
    flat = reshape(x, (-1,))
    return S.gather(flat, np.asarray(positions, np.int64), axis=0)


def _runtime_gather(x, parts):
    arrays = [i for i, p in enumerate(parts) if not _is_basic(p)]
    rest = [p for i, p in enumerate(parts) if i not in arrays]
    if len(arrays) != 1 or any(p != slice(None) for p in rest):
        raise IndexError("indexing with an array computed at run time supports one index "
                         "array with ':' in the other positions, e.g. x[idx] or x[:, idx]")
    idx = parts[arrays[0]]
    if ir_type(idx).dtype.is_bool:
        raise IndexError("a boolean mask computed at run time gives a data-dependent shape; "
                         "use where(mask, x, 0) instead")
    if not ir_type(idx).dtype.is_int:
        raise IndexError(f"tensors used as indices must be integer or bool, not "
                         f"{ir_type(idx).dtype}")
    return S.gather(x, idx, axis=arrays[0])


def index_put(x, index, value):
    """x with x[index] = value: a new array (numpy's rule: the last write to a position wins)."""
    t = ir_type(x)
    parts = _parts(index)
    known = _known_parts(parts)
    if known is None:
        raise IndexError("assignment through an index array computed at run time is not "
                         "supported; use where() or scatter_add")
    positions = np.asarray(_positions(t.shape, known), np.int64)
    value = broadcast(astype(value, t.dtype), positions.shape)  # ShapeError if it cannot
    flat_positions = positions.reshape(-1)
    last = len(flat_positions) - 1 - np.unique(flat_positions[::-1], return_index=True)[1]
    keep = np.sort(last)
    mask = np.zeros(t.size, bool)
    mask[flat_positions] = True
    flat_value = reshape(value, (-1,)) if not is_python_scalar(value) else value
    if not is_python_scalar(flat_value) and len(keep) != len(flat_positions):
        flat_value = S.gather(flat_value, keep.astype(np.int64), axis=0)
    placed = S.scatter_add(E.zeros_like(reshape(x, (-1,))), flat_positions[keep],
                           flat_value if not is_python_scalar(flat_value) else
                           E.full(value=flat_value, shape=(len(keep),), dtype=t.dtype.name),
                           axis=0)
    return reshape(E.where(mask, placed, reshape(x, (-1,))), t.shape)
