"""numpy's shape and assembly functions (joining, splitting, tiling, flipping, padding,
diagonals, selections, sliding windows) with numpy's signatures, mapped onto gradjit.ops."""
from __future__ import annotations

import math

import numpy as np

from gradjit import ops
from gradjit.ops import diagonals as D
from gradjit.ops import padding
from gradjit.ops import selection as P
from gradjit.ops import shaping as S
from gradjit.ops.linalg import matrix_transpose


def _take(a, indices, axis=None, out=None, mode="raise"):
    return P.take(a, indices, axis, mode)


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return D.trace(a, offset, axis1, axis2, dtype)


def _choose(a, choices, out=None, mode="raise"):
    return P.choose(a, choices, mode)


def _compress(condition, a, axis=None, out=None):
    return P.compress(condition, a, axis)


def _atleast(rank):
    return lambda *arys: S.atleast_nd(rank, arys)


def _flip_axis(axis, least, name):
    def flip(m):
        if len(S.asarray(m).shape) < least:
            raise ValueError(f"Input must be >= {least}-d.")
        return S.flip(m, axis)
    flip.__name__ = name
    return flip


def _unstack(x, /, *, axis=0):
    if not S.asarray(x).shape:
        raise ValueError("Input array must be at least 1-d.")
    moved = S.moveaxis(x, axis, 0)
    return tuple(moved[i] for i in range(moved.shape[0]))


def _apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d on each 1-d slice along axis, the results stacked where the axis was (the loop
    runs while tracing: one traced call per slice)."""
    arr = ops.asarray(arr)
    shape = ops.shape_of(arr)
    axis = axis % len(shape) if shape else 0
    moved = ops.moveaxis(arr, axis, -1)
    outer = shape[:axis] + shape[axis + 1:]
    if not math.prod(outer):
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    results = [ops.asarray(func1d(ops.getitem(moved, index), *args, **kwargs))
               for index in np.ndindex(*outer)]
    inner = ops.shape_of(results[0])
    stacked = ops.reshape(ops.stack(results), outer + inner)
    # the result's own axes go where `axis` was
    return ops.moveaxis(stacked, list(range(len(outer), len(outer) + len(inner))),
                        list(range(axis, axis + len(inner))))


def _apply_over_axes(func, a, axes):
    """func(a, axis) for each axis in turn, a dropped axis put back as length 1."""
    value = ops.asarray(a)
    rank = len(ops.shape_of(value))
    for axis in np.atleast_1d(axes):
        axis = int(axis) % rank if axis < 0 else int(axis)
        result = ops.asarray(func(value, axis))
        if len(ops.shape_of(result)) != rank:
            result = ops.expand_dims(result, axis)
            if len(ops.shape_of(result)) != rank:
                raise ValueError("function is not returning an array of the correct shape")
        value = result
    return value


def _sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """Every window of window_shape along the axes (all of them by default), the window's
    axes last: gathered copies, as a traced value has no memory to view. numpy, given a
    stand-in of x's shape, checks the arguments and gives the result's shape."""
    x = S.asarray(x)
    stand_in = np.broadcast_to(np.zeros((), ops.result_type(x).numpy), ops.shape_of(x))
    shape = np.lib.stride_tricks.sliding_window_view(stand_in, window_shape, axis).shape
    windows = (window_shape,) if np.isscalar(window_shape) else tuple(window_shape)
    axes = tuple(range(len(ops.shape_of(x)))) if axis is None else \
        (axis,) if np.isscalar(axis) else tuple(axis)
    for ax, w in zip(axes, windows):
        ax = ax % len(ops.shape_of(x)) if axis is not None else ax
        starts = np.arange(ops.shape_of(x)[ax] - w + 1)
        x = S.moveaxis(P.take(x, starts[:, None] + np.arange(w), ax), ax + 1, -1)
    return ops.reshape(x, shape)


FUNCTIONS = {
    np.lib.stride_tricks.sliding_window_view: _sliding_window_view,
    np.apply_along_axis: _apply_along_axis, np.apply_over_axes: _apply_over_axes,
    np.concatenate: S.concatenate, np.stack: S.stack, np.hstack: S.hstack,
    np.vstack: S.vstack, np.row_stack: S.vstack, np.dstack: S.dstack,
    np.column_stack: S.column_stack, np.append: S.append, np.block: S.block,
    np.broadcast_arrays: S.broadcast_arrays, np.broadcast_to: S.broadcast_to,
    np.expand_dims: S.expand_dims, np.squeeze: S.squeeze, np.ravel: S.ravel,
    np.atleast_1d: _atleast(1), np.atleast_2d: _atleast(2), np.atleast_3d: _atleast(3),
    np.split: S.split, np.array_split: S.array_split, np.hsplit: S.hsplit,
    np.vsplit: S.vsplit, np.dsplit: S.dsplit,
    np.tile: S.tile, np.repeat: S.repeat, np.flip: S.flip, np.roll: S.roll, np.rot90: S.rot90,
    np.fliplr: _flip_axis(1, 2, "fliplr"), np.flipud: _flip_axis(0, 1, "flipud"),
    np.pad: padding.pad, np.moveaxis: S.moveaxis, np.rollaxis: S.rollaxis,
    np.tril: D.tril, np.triu: D.triu, np.diag: D.diag, np.diagonal: D.diagonal,
    np.trace: _trace, np.meshgrid: D.meshgrid,
    np.take: _take, np.select: P.select, np.piecewise: P.piecewise, np.choose: _choose,
    np.compress: _compress, np.extract: P.extract, np.insert: P.insert, np.delete: P.delete,
    np.resize: P.resize, np.unstack: _unstack,
    np.diagflat: lambda v, k=0: D.diag(S.ravel(v), k),
    np.matrix_transpose: lambda x, /: matrix_transpose(x),
}
