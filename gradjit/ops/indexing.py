"""numpy/PyTorch indexing on array-likes: basic indexing becomes slice + reshape; integer and
boolean arrays known when indexing (constants) become one gather over the flattened array;
index arrays computed at run time become one gather on the axes they index."""
from __future__ import annotations

import itertools
import re

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import BoundsError, ir_type, is_python_scalar
from gradjit.ops.array import isfinite, reshape
from gradjit.ops.promote import astype, broadcast, flavor


def constant_value(x):
    """The numpy value of an index known when indexing, or None for a run-time value."""
    if isinstance(x, (list, tuple, range)):
        known = np.asarray(x)  # an empty sequence indexes as integers, as numpy's does
        return known.astype(np.int64) if known.size == 0 else known
    if isinstance(x, np.ndarray) or is_python_scalar(x) or isinstance(x, np.generic):
        return np.asarray(x)
    known = getattr(x, "__gradjit_constant__", None)
    return known() if known is not None else None


def value_deciding_shape(x, what):
    """The numpy value of x where it decides a result's shape (a mask's positions, a repeat
    count): a constant's, or a traced integer or boolean value's own, the trace then holding
    for that value alone (a guard re-traces for another, as an `if` on it would). None where
    no value is known (a float, whose NaN never equals itself; IR without values)."""
    known = constant_value(x)
    guarded = getattr(x, "__gradjit_guarded__", None)
    return known if known is not None or guarded is None else guarded(what)


def _parts(index):
    return index if isinstance(index, tuple) else (index,)


def _is_basic(part) -> bool:
    return part is None or part is Ellipsis or isinstance(part, (slice, int, np.integer)) and \
        not isinstance(part, bool)


def getitem(x, index, torch_words=False):
    """x[index] as numpy reads it; a run-time index out of range raises numpy's IndexError,
    or PyTorch's with `torch_words`."""
    parts = _masks_now(_parts(index))
    if all(_is_basic(p) for p in parts):
        return _basic(x, parts)
    known = _known_parts(parts)
    if known is not None:
        return _by_positions(x, known)
    return _runtime_gather(x, parts, torch_words)


def _masks_now(parts):
    """The parts, each boolean mask computed at run time as its value now, where the trace
    knows it: its positions decide the result's shape (value_deciding_shape)."""
    return tuple(_mask_now(p) for p in parts)


def _mask_now(part):
    if not hasattr(part, "ir_type") or not ir_type(part).dtype.is_bool:
        return part
    known = value_deciding_shape(part, "a boolean mask")
    return part if known is None else known


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
                raise BoundsError(f"index {p} is out of bounds for axis {axis} with size {n}",
                                  p, axis, n)
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


class IndexShapesError(IndexError):
    """Index arrays whose shapes do not broadcast together (numpy's message; `shapes` lets
    Tensors word it as PyTorch does)."""

    def __init__(self, shapes):
        super().__init__("shape mismatch: indexing arrays could not be broadcast together "
                         "with shapes " + " ".join(str(s).replace(" ", "") for s in shapes))
        self.shapes = shapes

    def in_torch_words(self) -> Exception:
        return IndexError("shape mismatch: indexing tensors could not be broadcast together "
                          "with shapes " + ", ".join(str(list(s)) for s in self.shapes))


def _array_shapes(index):
    """The shapes of an index's arrays (a bool among them is an array of 1 or 0 positions,
    for numpy as for PyTorch)."""
    arrays = [np.asarray(p) for p in index if p is not None and not _is_basic(p)]
    return [(int(a),) if a.dtype == bool and not a.ndim else a.shape for a in arrays]


def _by_positions(x, index):
    try:
        positions = _positions(ir_type(x).shape, index)
    except IndexError as error:
        bounds = re.fullmatch(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)",
                              str(error))  # numpy's words, for an integer index out of bounds
        if str(error).startswith("shape mismatch: indexing arrays"):
            raise IndexShapesError(_array_shapes(index)) from None
        if bounds is None:
            raise IndexError(str(error)) from None
        raise BoundsError(str(error), *map(int, bounds.groups()), by_array=True) from None
    flat = reshape(x, (-1,))
    return S.gather(flat, np.asarray(positions, np.int64), axis=0)


class _Taken:
    """An index array's place among the parts of an index."""

    def __init__(self, array):
        self.array = array


def _runtime_gather(x, parts, torch_words):
    """numpy's advanced indexing with index arrays known only at run time: slices and new
    axes first (views), then one gather on the indexed axes, the index arrays (integers
    among them count as arrays) broadcast together. Adjacent index arrays put their shape
    where they stand; separated ones put it first, as numpy does."""
    marked = []
    for p in parts:
        if p is None or p is Ellipsis or isinstance(p, slice):
            marked.append(p)
        elif isinstance(p, (int, np.integer)) and not isinstance(p, bool):
            marked.append(_Taken(np.asarray(p, np.int64)))
        else:
            marked.extend(_Taken(a) for a in _index_arrays(p))
    spelled = _expand_ellipsis(marked, ir_type(x).rank)
    taken = [(axis, p.array) for axis, p in enumerate(spelled) if isinstance(p, _Taken)]
    # each array checked against the axis of x it indexes (new axes are none of x's); numpy
    # names that axis, PyTorch's index kernel the array's place among the index arrays
    x_axes = list(itertools.accumulate(p is not None for p in spelled))
    shape = ir_type(x).shape
    taken = [(axis, S.check_index(a, bound=n, low=-n, error="IndexError", words=(
        f"index {{index}} is out of bounds for "
        f"{f'dimension {k}' if torch_words else f'axis {x_axis}'} with size {n}")))
        for k, (axis, a) in enumerate(taken) for x_axis in [x_axes[axis] - 1]
        for n in [shape[x_axis]]]
    # each part is one axis of y: a new axis, a sliced axis or a whole indexed axis
    y = _basic(x, [slice(None) if isinstance(p, _Taken) else p for p in spelled])
    return _gather_arrays(y, [a for _, a in taken], [axis for axis, _ in taken])


def _index_arrays(idx):
    """An index part as integer index arrays: a boolean mask known now is its nonzero()."""
    known = constant_value(idx)
    if known is not None and known.dtype == bool:
        return [np.asarray(a, np.int64) for a in np.nonzero(known)]
    if known is not None:
        if known.size and not np.issubdtype(known.dtype, np.integer):
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        return [known.astype(np.int64)]
    if ir_type(idx).dtype.is_bool:
        raise IndexError("a boolean mask computed at run time gives a data-dependent shape; "
                         "use where(mask, x, 0) instead")
    if not ir_type(idx).dtype.is_int:
        raise IndexError(f"tensors used as indices must be integer or bool, not "
                         f"{ir_type(idx).dtype}")
    return [idx]


def _gather_arrays(y, arrays, positions):
    """y indexed by `arrays` on the axes at `positions` (of y, all other axes whole)."""
    shapes = [ir_type(a).shape for a in arrays]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexShapesError(shapes) from None
    arrays = [a if ir_type(a).shape == shape else broadcast(a, shape) for a in arrays]
    if positions != list(range(positions[0], positions[0] + len(positions))):
        rest = [a for a in range(ir_type(y).rank) if a not in positions]
        y = S.transpose(y, perm=tuple(positions + rest))
        positions = list(range(len(positions)))
    return S.gather(y, *arrays, axis=positions[0])


def _is_mask_of(parts, t):
    """One boolean array computed at run time over x's leading axes."""
    if len(parts) != 1 or not hasattr(parts[0], "ir_type"):
        return False
    m = ir_type(parts[0])
    return m.dtype.is_bool and m.shape == t.shape[:m.rank]


def _size(value):
    return 1 if is_python_scalar(value) else int(np.prod(np.shape(value) if not hasattr(
        value, "ir_type") else ir_type(value).shape))


def _fitted(value, shape, index, kind):
    """The value for positions of `shape`: its leading unit axes past that rank dropped (as
    numpy and PyTorch do); a numpy value that cannot broadcast is numpy's ValueError."""
    if is_python_scalar(value):
        return value
    have = ir_type(value).shape
    extra = len(have) - len(shape)
    if extra > 0 and all(n == 1 for n in have[:extra]):
        value, have = reshape(value, have[extra:]), have[extra:]
    if kind != "numpy" or _broadcasts(have, shape):
        return value
    whole_mask = len(index) == 1 and isinstance(index[0], np.ndarray) and \
        index[0].dtype == bool and len(shape) == 1
    if whole_mask and len(have) == 1:
        raise ValueError(f"NumPy boolean array indexing assignment cannot assign {have[0]} "
                         f"input values to the {shape[0]} output values where the mask is true")
    if all(_is_basic(p) for p in index):
        raise ValueError(f"could not broadcast input array from shape {_spaceless(have)} into "
                         f"shape {_spaceless(shape)}")
    raise ValueError(f"shape mismatch: value array of shape {_spaceless(have)} could not be "
                     f"broadcast to indexing result of shape {_spaceless(shape)}")


def _broadcasts(have, shape) -> bool:
    try:
        return np.broadcast_shapes(have, shape) == tuple(shape)
    except ValueError:
        return False


def _spaceless(shape) -> str:
    return str(tuple(shape)).replace(" ", "")


def index_put(x, index, value):
    """x with x[index] = value: a new array (numpy's rule: the last write to a position wins)."""
    t = ir_type(x)
    parts = _parts(index)
    known = _known_parts(parts)
    if known is None and _is_mask_of(parts, t) and _size(value) == 1:
        # x[mask] = v with one value: the elements the mask marks, whatever their number
        mask = broadcast(reshape(parts[0], ir_type(parts[0]).shape + (1,) * (
            t.rank - ir_type(parts[0]).rank)), t.shape)
        return E.where(mask, broadcast(astype(reshape(value, ()), t.dtype), t.shape), x)
    if known is None:
        parts = _masks_now(parts)
        known = _known_parts(parts)
    if known is None:
        return _put_at_run_time(x, parts, value)
    positions = np.asarray(_positions(t.shape, known), np.int64)
    value = broadcast(_fitted(astype(value, t.dtype), positions.shape, known, flavor(x)),
                      positions.shape)  # ShapeError if it cannot
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


def _put_at_run_time(x, parts, value):
    """x[parts] = value with index arrays known only at run time: each element's flat position
    read through the same index from an array of positions (so slices, new axes and
    broadcasting are getitem's), the last write to a position kept (numpy's rule), and every
    written value given the gradient at its position, a replaced one included, as PyTorch's
    and JAX's backward of a scatter gather it."""
    from gradjit.ops.sorting import last_writes  # (sorting indexes through this module)
    t = ir_type(x)
    positions = getitem(reshape(S.iota(shape=(t.size,), dtype="i64", axis=0), t.shape), parts)
    shape = ir_type(positions).shape
    value = _fitted(astype(value, t.dtype), shape, parts, flavor(x))
    values = E.full(value=value, shape=shape, dtype=t.dtype.name) if \
        is_python_scalar(value) else broadcast(value, shape)
    targets, values = reshape(positions, (-1,)), reshape(values, (-1,))
    flat = reshape(x, (-1,))
    count = S.scatter_add(E.full(value=0, shape=(t.size,), dtype="i64"), targets,
                          E.full(value=1, shape=ir_type(targets).shape, dtype="i64"), axis=0)
    written = E.gt(count, E.full(value=0, shape=(t.size,), dtype="i64"))
    kept = E.where(last_writes(targets), values, E.zeros_like(values))
    out = E.where(written, S.scatter_add(E.zeros_like(flat), targets, kept, axis=0), flat)
    if t.dtype.is_inexact:
        summed = S.scatter_add(E.zeros_like(flat), targets, values, axis=0)
        finite = E.where(isfinite(E.stop_gradient(summed)), summed, E.zeros_like(summed))
        carrier = E.sub(finite, E.stop_gradient(finite))  # zero, with the gathered gradient
        out = E.where(written, E.add(E.stop_gradient(out), carrier), out)
    return reshape(out, t.shape)
