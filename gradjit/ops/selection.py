"""numpy's selecting functions (take, select, piecewise, choose, compress, extract, insert,
delete, resize) on array-likes. Where the selection is known when tracing, numpy's own
function is run on an index ramp to find the positions, which one gather then reads."""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import BoundsError, ir_type, is_python_scalar
from gradjit.ops.array import clip, eq, ge, logical_and, logical_not, logical_or, lt, reshape
from gradjit.ops.array import shape_of, sum_, where
from gradjit.ops.indexing import constant_value
from gradjit.ops.integers import remainder
from gradjit.ops.promote import astype, broadcast, broadcast_shapes, result_type
from gradjit.ops.shaping import asarray, ravel, static_index


def take(a, indices, axis=None, mode="raise"):
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis_index(axis, len(shape_of(x)))
    n = shape_of(x)[axis]
    if isinstance(indices, (list, tuple)) and not np.size(indices):
        indices = np.zeros(np.shape(indices), np.intp)  # numpy reads [] as no indices
    known = constant_value(indices)
    if known is None:
        if not ir_type(indices).dtype.is_int:
            raise TypeError(f"Cannot cast array data from {ir_type(indices).dtype.numpy!r} to "
                            "dtype('int64') according to the rule 'same_kind'")
        if mode == "clip":
            return S.gather(x, clip(indices, 0, n - 1), axis=axis)
        if mode == "wrap":
            if not n and ir_type(indices).size:
                raise IndexError("cannot do a non-empty take from an empty axes.")
            return S.gather(x, remainder(indices, max(n, 1)), axis=axis)
        if mode != "raise":
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
        return S.gather(x, S.check_index(indices, bound=n, low=-n, error="IndexError", words=(
            f"index {{index}} is out of bounds for axis {axis} with size {n}")), axis=axis)
    if mode == "raise" and known.size and known.dtype.kind in "iu":
        bad = known[(known < -n) | (known >= n)]
        if bad.size:
            raise BoundsError(f"index {bad.flat[0]} is out of bounds for axis {axis} with size "
                              f"{n}", bad.flat[0], axis, n)
    positions = np.take(np.arange(n), known, mode=mode)  # numpy's errors for bad indices
    return S.gather(x, np.asarray(positions, np.int64), axis=axis)


def _gather_flat(x, positions):
    return S.gather(ravel(x), np.asarray(positions, np.int64), axis=0)


def _ramp(x):
    shape = shape_of(x)
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


def compress(condition, a, axis=None):
    x = asarray(a)
    mask = static_index(condition, "np.compress: a condition")
    if axis is None:
        return _gather_flat(x, np.compress(mask, _ramp(ravel(x))))
    axis = normalize_axis_index(axis, len(shape_of(x)))
    positions = np.compress(mask, np.arange(shape_of(x)[axis]))
    return S.gather(x, np.asarray(positions, np.int64), axis=axis)


def extract(condition, arr):
    x = asarray(arr)
    mask = static_index(condition, "np.extract: a condition")
    return _gather_flat(x, np.extract(mask, _ramp(x)))


def _positions_argument(obj, what):
    """obj as numpy's insert/delete take it: slices and lists stay (an empty list means no
    positions, an empty float array is refused)."""
    if isinstance(obj, (slice, list, tuple, int, np.integer)):
        return obj
    return static_index(obj, what)


def delete(arr, obj, axis=None):
    x = asarray(arr)
    return _gather_flat(x, np.delete(_ramp(x), _positions_argument(obj, "np.delete: obj"),
                                     axis))


def resize(a, new_shape):
    x = asarray(a)
    if not ir_type(x).size:
        return E.full(value=0, shape=tuple(np.resize(_ramp(x), new_shape).shape),
                      dtype=ir_type(x).dtype.name)
    return _gather_flat(x, np.resize(_ramp(x), new_shape))


def insert(arr, obj, values, axis=None):
    """numpy's insert run on position tags: entries of arr are tagged >= 0, entries of values
    -1, -2, ...; the tags numpy moves into place say where each result element comes from."""
    x, v = asarray(arr), asarray(values)
    dt = ir_type(x).dtype
    tags = np.insert(_ramp(x), _positions_argument(obj, "np.insert: obj"), -1 - _ramp(v),
                     axis)
    from_values = tags < 0
    out = None
    if (~from_values).any():
        out = _gather_flat(x, np.where(from_values, 0, tags))
    if from_values.any():
        inserted = _gather_flat(astype(v, dt), np.where(from_values, -1 - tags, 0))
        out = inserted if out is None else where(from_values, inserted, out)
    return out if out is not None else reshape(ravel(x), tags.shape)


def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if not condlist:
        raise ValueError("select with an empty condition list is not possible")
    choices = [asarray(c) for c in choicelist]
    probe = default if is_python_scalar(default) else ir_type(asarray(default)).dtype.numpy
    dt = np.result_type(*(ir_type(c).dtype.numpy for c in choices), probe)
    conds = [asarray(c) for c in condlist]
    for i, c in enumerate(conds):
        if not ir_type(c).dtype.is_bool:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    shape = broadcast_shapes(*(shape_of(x) for x in conds + choices),
                             shape_of(asarray(default)))
    out = broadcast(astype(asarray(default), dt), shape)
    for cond, choice in reversed(list(zip(conds, choices))):
        out = where(cond, astype(choice, dt), out)
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """numpy's piecewise; each function is applied to all of x (not only where its condition
    holds) and its value kept where the condition holds, so functions must be elementwise."""
    x = asarray(x)
    if isinstance(condlist, (list, tuple)):  # numpy's rule: a list of numbers is one condition
        first = condlist[0] if condlist else None
        single = len(shape_of(x)) and not isinstance(first, (list, np.ndarray)) and \
            not hasattr(first, "ir_type")
    else:  # an array is one condition, or a list of them along its first axis
        single = len(shape_of(asarray(condlist))) < 2 or not shape_of(x)
    conds = [astype(asarray(c), "bool") for c in ([condlist] if single else condlist)]
    if len(conds) + 1 == len(funclist):
        otherwise = conds[0]
        for c in conds[1:]:
            otherwise = logical_or(otherwise, c)
        conds.append(logical_not(otherwise))
    elif len(conds) != len(funclist):
        raise ValueError(f"with {len(conds)} condition(s), either {len(conds)} or "
                         f"{len(conds) + 1} functions are expected")
    dt = ir_type(x).dtype
    out = E.zeros_like(x)
    for cond, fn in zip(conds, funclist):
        value = fn(x, *args, **kw) if callable(fn) else fn
        out = where(cond, astype(asarray(value), dt), out)
    return out


def choose(a, choices, mode="raise"):
    index = asarray(a)
    options = [asarray(c) for c in choices]
    n = len(options)
    known = constant_value(a)
    if mode not in ("raise", "clip", "wrap"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    if known is not None:
        index = np.asarray(known)
        if mode == "raise" and index.size and (index.min() < 0 or index.max() >= n):
            raise ValueError("invalid entry in choice array")
        index = np.clip(index, 0, n - 1) if mode == "clip" else index % n
    elif mode == "clip":
        index = clip(index, 0, n - 1)
    elif mode == "wrap":
        index = remainder(index, n)
    elif not bool(sum_(logical_and(ge(index, 0), lt(index, n))) == ir_type(index).size):
        raise ValueError("invalid entry in choice array")  # the check is guarded
    dt = result_type(*(c if is_python_scalar(c) else o for c, o in zip(choices, options)))
    shape = broadcast_shapes(shape_of(index), *(shape_of(c) for c in options))
    out = broadcast(astype(options[0], dt), shape)
    for i, option in enumerate(options[1:], 1):
        out = where(eq(index, i), astype(option, dt), out)
    return out


__all__ = ["choose", "compress", "delete", "extract", "insert", "piecewise", "resize",
           "select", "take"]
