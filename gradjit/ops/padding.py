"""numpy's pad on array-likes, axis by axis as numpy pads: constant values with the pad
primitive (or blocks of values computed at run time), the modes that repeat elements (edge,
reflect, symmetric, wrap) as one gather per axis, the modes that compute new values
(maximum, minimum, mean, median, linear_ramp) as blocks joined to the array, and a callable
mode run on each 1-d row as numpy runs it."""
from __future__ import annotations

import functools
import math

import numpy as np

from gradjit.ir import structural as S
from gradjit.ir.primitive import ir_type
from gradjit.ops.array import (add, concatenate, floor, matmul, mean, mul,
                               reshape, round_, shape_of, sub)
from gradjit.ops.indexing import constant_value, getitem
from gradjit.ops.promote import astype, broadcast, mean_type
from gradjit.ops.reduce import extremum
from gradjit.ops.shaping import along, asarray, broadcast_to, moveaxis, stack
from gradjit.ops.sorting import median

_KEYWORDS = {"constant": {"constant_values"}, "edge": set(), "wrap": set(), "empty": set(),
             "reflect": {"reflect_type"}, "symmetric": {"reflect_type"},
             "linear_ramp": {"end_values"}, "maximum": {"stat_length"},
             "minimum": {"stat_length"}, "mean": {"stat_length"}, "median": {"stat_length"}}
_STATISTICS = {"maximum": functools.partial(extremum, largest=True),  # complex: numpy's order
               "minimum": functools.partial(extremum, largest=False),
               "mean": lambda x, axis, keepdims: mean(astype(x, mean_type(x)), axis, keepdims),
               "median": lambda x, axis, keepdims: median(x, axis, keepdims)}


def pad_pairs(pad_width, rank, rounded=False):
    """(before, after) for each axis; `rounded`: floats round to the nearest integer (numpy
    does so for stat_length, while pad_width must be integral); a dict gives the widths of the
    axes it names ({axis: pad or (before, after)}), the others unpadded."""
    if isinstance(pad_width, dict):
        seq = [(0, 0)] * rank
        for axis, width in pad_width.items():
            seq[axis] = (width, width) if isinstance(width, int) else tuple(width)
        pad_width = seq
    width = np.asarray(pad_width)
    if rounded:
        width = np.round(width).astype(np.int64)
    if width.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    if width.size and width.min() < 0:
        raise ValueError("index can't contain negative values")
    return [tuple(p) for p in np.broadcast_to(width, (rank, 2)).tolist()]


def pad(array, pad_width, mode="constant", **kwargs):
    x = asarray(array)
    shape = shape_of(x)
    if callable(mode):
        return _pad_with(x, pad_pairs(pad_width, len(shape)), mode, kwargs)
    if mode not in _KEYWORDS:
        raise ValueError(f"mode '{mode}' is not supported")
    unsupported = set(kwargs) - _KEYWORDS[mode]
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    pairs = pad_pairs(pad_width, len(shape))
    if mode in ("constant", "empty"):
        return _pad_constant(x, pairs, kwargs.get("constant_values", 0))
    if mode in _STATISTICS:
        lengths = kwargs.get("stat_length")
        lengths = [(n, n) for n in shape] if lengths is None else pad_pairs(
            lengths, len(shape), rounded=True)
        # numpy looks at the statistic's window of every axis, padded or not
        if mode in ("maximum", "minimum") and math.prod(shape) and \
                any(0 in pair for pair in lengths):
            raise ValueError("stat_length of 0 yields no value for padding")
    for axis, (before, after) in enumerate(pairs):
        if not before and not after:
            continue
        n = shape_of(x)[axis]
        if n == 0:
            raise ValueError(f"can't extend empty axis {axis} using modes other than "
                             "'constant' or 'empty'")
        if mode in _STATISTICS:
            x = _pad_statistic(x, axis, (before, after), mode, lengths[axis])
        elif mode == "linear_ramp":
            ends = broadcast_to(astype(asarray(kwargs.get("end_values", 0)), np.float64),
                                (len(shape), 2))
            x = _pad_ramp(x, axis, (before, after), [getitem(ends, (axis, side))
                                                     for side in (0, 1)])
        elif kwargs.get("reflect_type") == "odd":
            x = _pad_odd(x, axis, (before, after), mode)
        else:
            x = along(x, np.pad(np.arange(n), (before, after), mode=mode), axis)
    return x


def _pad_with(x, pairs, function, kwargs):
    """numpy's callable mode: zeros around the array, then function(row, [before, after],
    axis, kwargs) on every 1-d row along each axis in turn, the row written in place (a
    traced row takes the written copy as its value, as `row[:2] = v` does)."""
    x = _pad_constant(x, pairs, 0)
    for axis, widths in enumerate(pairs):
        moved = moveaxis(x, axis, -1)
        outer = shape_of(moved)[:-1]
        rows = [getitem(moved, index) for index in np.ndindex(*outer)]
        for row in rows:
            function(row, list(widths), axis, kwargs)
        if rows:
            x = moveaxis(reshape(stack(rows), shape_of(moved)), -1, axis)
    return x


def _pad_constant(x, pairs, constant_values):
    """Axis by axis, as numpy does: a corner takes the value of the last axis padded there."""
    dt = ir_type(x).dtype
    rank = len(pairs)
    known = constant_value(constant_values)
    if known is None:  # values computed at run time: concatenate blocks filled with them
        values = broadcast(astype(constant_values, dt), (rank, 2))
        for axis, widths in enumerate(pairs):
            shape = shape_of(x)
            blocks = [broadcast(getitem(values, (axis, side)),
                                shape[:axis] + (widths[side],) + shape[axis + 1:])
                      for side in (0, 1)]
            x = concatenate([blocks[0], x, blocks[1]], axis)
        return x
    values = np.broadcast_to(known, (rank, 2)).astype(dt.numpy).tolist()
    for axis, ((before, after), (v0, v1)) in enumerate(zip(pairs, values)):
        for side, width, value in ((0, before, v0), (1, after, v1)):
            if width:
                amounts = [[0] * rank, [0] * rank]
                amounts[side][axis] = width
                x = S.pad(x, low=tuple(amounts[0]), high=tuple(amounts[1]),
                          interior=(0,) * rank, value=value)
    return x


def _part(x, axis, lo, hi):
    return getitem(x, (slice(None),) * axis + (slice(lo, hi),))


def _in_dtype(value, like, to_integer=round_):
    """A computed pad value stored in the array's dtype; for integers rounded first as numpy's
    pad does (statistics half to even, ramps down, as linspace with an integer dtype); a bool
    is whether it is nonzero, a complex value kept whole."""
    dt = ir_type(like).dtype
    return astype(value if dt.is_inexact or dt.is_bool else to_integer(value), dt)


def _join(x, axis, blocks, widths):
    shape = shape_of(x)
    sized = [broadcast(b, shape[:axis] + (w,) + shape[axis + 1:]) if shape_of(b)[axis] == 1
             and w != 1 else b for b, w in zip(blocks, widths)]
    return concatenate([sized[0], x, sized[1]], axis)


def _pad_statistic(x, axis, widths, mode, lengths):
    """Each side repeats a statistic of the `lengths` elements nearest to it. The gradient of
    maximum/minimum is shared among tied elements, as the reductions' is."""
    n = shape_of(x)[axis]
    first, last = min(lengths[0], n), min(lengths[1], n)
    statistic = _STATISTICS[mode]
    blocks = [_in_dtype(statistic(_part(x, axis, lo, hi), axis, keepdims=True), x)
              for lo, hi in ((0, first), (n - last, n))]
    return _join(x, axis, blocks, widths)


def _pad_ramp(x, axis, widths, ends):
    """Each side ramps linearly from its end value (a float64 scalar, known or computed at run
    time) towards the edge element, not reaching it: numpy's linspace(end, edge, width,
    endpoint=False)."""
    n, rank = shape_of(x)[axis], len(shape_of(x))
    blocks = []
    for side, (width, end) in enumerate(zip(widths, ends)):
        edge = _part(x, axis, 0, 1) if side == 0 else _part(x, axis, n - 1, n)
        steps = np.arange(width, dtype=np.float64) / max(width, 1)
        steps = (steps if side == 0 else steps[::-1]).reshape(
            (-1,) + (1,) * (rank - axis - 1))
        work = np.complex128 if ir_type(x).dtype.is_complex else np.float64
        ramp = add(end, mul(sub(astype(edge, work), end), steps))
        blocks.append(_in_dtype(ramp, x, floor))
    return _join(x, axis, blocks, widths)


def _pad_odd(x, axis, widths, mode):
    """Odd reflection (2 * edge - mirror image, repeated outwards) is linear in the axis: the
    matrix that numpy's own pad builds from the identity maps the axis to its padded form."""
    n, rank = shape_of(x)[axis], len(shape_of(x))
    weights = np.pad(np.eye(n), (widths, (0, 0)), mode, reflect_type="odd")
    last = moveaxis(astype(x, np.float64) if not ir_type(x).dtype.is_float else x, axis, -1)
    dt = ir_type(last).dtype.numpy
    padded = moveaxis(matmul(last, weights.T.astype(dt)), -1, axis)
    return _in_dtype(padded, x) if rank else padded


__all__ = ["pad", "pad_pairs"]
