"""The scatter family's values through indices (PyTorch's gather/scatter/index_* rules):
flat targets of an index along a dim, sums, rounds of distinct positions for known indices,
the last write for run-time ones, and torch's gradient for every written value."""
from __future__ import annotations

import math

import numpy as np

from gradjit import ops
from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.ops.sorting import last_writes
from gradjit.tracer import custom_vjp


def _shape(x) -> tuple:
    return tuple(ir_type(x).shape)


def _leading(x, shape):
    """x's leading block of `shape` (each axis cut to shape's length)."""
    if _shape(x) == tuple(shape):
        return x
    return ops.getitem(x, tuple(slice(0, n) for n in shape))


def _targets(index, shape, dim, error="RuntimeError", words=None):
    """The flat position in `shape` of each index element (its own coordinates but along dim,
    where its value is). An index outside [0, shape[dim]) raises PyTorch's error (by default
    gather's RuntimeError naming it, dim and the size) before any position is formed."""
    index_shape = _shape(index)
    strides = [math.prod(shape[a + 1:]) for a in range(len(shape))]
    words = words or f"index {{index}} is out of bounds for dimension {dim} with size {shape[dim]}"
    idx = S.check_index(E.cast(index, dtype="i64"), bound=shape[dim], low=0, error=error,
                        words=words)
    flat = ops.mul(idx, strides[dim])
    for a in range(len(shape)):
        if a != dim and index_shape[a] > 1:
            flat = ops.add(flat, ops.mul(S.iota(shape=index_shape, dtype="i64", axis=a),
                                         strides[a]))
    return ops.reshape(flat, (-1,))


def _values(src, index, like):
    """A scatter's values, one per index element, in like's dtype: src's leading block, or a
    number (or 0-dim tensor) repeated."""
    dtype = ir_type(like).dtype.name
    if is_python_scalar(src):
        return E.full(value=src, shape=(math.prod(_shape(index)),), dtype=dtype)
    if ir_type(src).rank == 0:
        return ops.broadcast_to(E.cast(src, dtype=dtype), (math.prod(_shape(index)),))
    return ops.reshape(E.cast(_leading(src, _shape(index)), dtype=dtype), (-1,))


def _scatter_sum(x, index, src, dim):
    shape = _shape(x)
    if not math.prod(_shape(index)):
        return ops.add(x, 0)
    summed = S.scatter_add(ops.reshape(x, (-1,)), _targets(index, shape, dim),
                           _values(src, index, x), axis=0)
    return ops.reshape(summed, shape)


def _count(x, index, dim):
    """How many index elements land on each position of x (x's shape, int64)."""
    zeros = E.full(value=0, shape=_shape(x), dtype="i64")
    return _scatter_sum(zeros, index, 1, dim)


def _rounds(known, shape, dim):
    """Known indices as rounds of (flat targets, flat index elements), each round writing a
    position at most once, in the order the elements come."""
    grids = np.indices(known.shape)
    strides = [math.prod(shape[a + 1:]) for a in range(len(shape))]
    targets = sum((known if a == dim else grids[a]) * strides[a]
                  for a in range(len(shape))).reshape(-1)
    order = np.argsort(targets, kind="stable")
    ordered = targets[order]
    starts = np.r_[0, np.flatnonzero(np.diff(ordered)) + 1] if len(ordered) else np.r_[0]
    ranks = np.empty(len(targets), np.int64)
    ranks[order] = np.arange(len(targets)) - np.repeat(starts, np.diff(np.r_[starts,
                                                                               len(ordered)]))
    return [(targets[ranks == r], np.flatnonzero(ranks == r))
            for r in range(int(ranks.max()) + 1 if len(ranks) else 0)]


def _combine(x, index, src, dim, combine, include_self):
    """x with src combined in at index, one round of distinct positions at a time (known
    indices): `combine(current, incoming)`; without include_self, a position's first incoming
    value replaces x's."""
    known = ops.constant_value(index)
    if known is None:
        raise NotImplementedError("this scatter reduction needs indices known when it runs; "
                                  "inside grad/jit its indices are computed at run time. "
                                  "Use reduce='sum' or 'mean', or compute the indices outside")
    shape = _shape(x)
    out = ops.reshape(x, (-1,))
    values = _values(src, index, x)
    size = max(math.prod(shape), 1)
    for n, (targets, sources) in enumerate(_rounds(known.astype(np.int64), shape, dim)):
        mask = np.zeros(size, bool)
        mask[targets] = True
        incoming = S.scatter_add(E.zeros_like(out), targets, S.gather(values, sources, axis=0),
                                 axis=0)
        out = ops.where(mask, incoming if n == 0 and not include_self else
                        combine(out, incoming), out)
    return ops.reshape(out, shape)


def _replace(x, index, src, dim):
    known = ops.constant_value(index)
    if known is not None:
        out = _combine(x, index, src, dim, lambda old, new: new, include_self=False)
        return out if _one_value(src) or _distinct(known, _shape(x), dim) else \
            _every_write_differentiated(out, x, index, src, dim)
    touched = ops.gt(_count(x, index, dim), 0)
    if _one_value(src):  # index_fill's, scatter's value=: placed once however often an index
        # repeats, where a sum would add it up
        kind = ir_type(x).dtype
        return ops.where(touched, kind.numpy.type(src).item() if is_python_scalar(src) else
                         E.cast(src, dtype=kind.name), x)
    targets = _targets(index, _shape(x), dim)
    values = ops.where(last_writes(targets), _values(src, index, x), 0)
    placed = S.scatter_add(E.zeros_like(ops.reshape(x, (-1,))), targets, values, axis=0)
    out = ops.where(touched, ops.reshape(placed, _shape(x)), x)
    return _every_write_differentiated(out, x, index, src, dim)


def _one_value(src):
    return is_python_scalar(src) or not _shape(src)


def _distinct(known, shape, dim):
    """Whether known indices write each position of `shape` at most once."""
    return len(_rounds(known.astype(np.int64), shape, dim)) <= 1


def _every_write_differentiated(out, x, index, src, dim):
    """out (x with src written at index, the last write kept) with the gradient of every
    written value read at its target, a value a later write replaced included, as PyTorch's
    backward gathers it; out's values are unchanged."""
    if not ir_type(x).dtype.is_inexact:
        return out
    carrier = _zeros_gathering_gradient(_values(src, index, x), _targets(index, _shape(x), dim),
                                        E.zeros_like(ops.reshape(x, (-1,))))
    return ops.where(ops.gt(_count(x, index, dim), 0), ops.add(
        E.stop_gradient(out), ops.reshape(carrier, _shape(x))), out)


def _zeros(values, targets, zeros):
    return zeros


def _zeros_forward(values, targets, zeros):
    return zeros, targets


def _gather_at_targets(targets, g):
    return S.gather(g, targets, axis=0), None, None


# zeros whose gradient is each value's incoming gradient read at its target, whatever the
# values are: a difference of the values with themselves would be NaN at an infinite one
_zeros_gathering_gradient = custom_vjp(_zeros)
_zeros_gathering_gradient.defvjp(_zeros_forward, _gather_at_targets)


def _reduce(x, index, src, dim, reduce, include_self):
    if reduce in ("sum", "mean"):
        touched = ops.gt(_count(x, index, dim), 0)
        base = x if include_self else ops.where(touched, E.zeros_like(x), x)
        total = _scatter_sum(base, index, src, dim)
        if reduce == "sum":
            return total
        count = ops.add(_count(x, index, dim), int(include_self))
        count = ops.where(ops.gt(count, 0), count, 1)
        mean = ops.floor_divide(total, E.cast(count, dtype=ir_type(x).dtype.name)) if \
            ir_type(x).dtype.is_int else ops.true_divide(total, count)
        return ops.where(touched, E.cast(mean, dtype=ir_type(x).dtype.name), x)
    combine = {"prod": E.mul, "amax": E.maximum, "amin": E.minimum}[reduce]
    return _combine(x, index, src, dim, combine, include_self)
