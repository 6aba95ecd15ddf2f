"""numpy's array constructors on traced values: `np.array([x, x**2])`, `np.asarray(x)`,
`np.r_[x, 0.0]`, `np.c_[x, y]`.

numpy does not dispatch its constructors to array-likes (NEP 18 leaves them out), so a traced
value inside a list would be converted with `__array__`, which has no value to give. gradjit
therefore puts thin wrappers in their place: while a function is being traced, a (nested)
sequence holding traced values is stacked into a traced array; every other call, and every
call outside a trace, goes to numpy's own constructor unchanged.
"""
from __future__ import annotations

import functools

import numpy as np

from gradjit import ops
from gradjit.ops.numpy_api import NotSupported
from gradjit.tracer.leaves import is_traced, unwrap
from gradjit.tracer.trace import current_trace

_CONSTRUCTORS = ("array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray")


def holds_traced(obj) -> bool:
    if isinstance(obj, (list, tuple)):
        return any(map(holds_traced, obj))
    return is_traced(obj)


def assemble(obj, dtype=None, ndmin=0):
    """The traced array numpy would build from `obj`: nested sequences are stacked, other
    leaves are constants with numpy's own dtypes (a Python float is float64 here, as in
    `np.array([x, 1.0])`)."""
    out = _stacked(obj)
    if dtype is not None:
        out = ops.astype(out, np.dtype(dtype))
    rank = len(ops.shape_of(out))
    return ops.reshape(out, (1,) * (ndmin - rank) + ops.shape_of(out)) if ndmin > rank else out


def _stacked(obj):
    if isinstance(obj, (list, tuple)):
        if not obj:
            return np.array(obj)
        parts = [_stacked(o) for o in obj]
        shapes = {ops.shape_of(p) for p in parts}
        if len(shapes) > 1:
            raise ValueError("setting an array element with a sequence. The requested array "
                             f"has an inhomogeneous shape: its elements have shapes "
                             f"{sorted(shapes)}")
        return ops.stack(parts)
    return unwrap(obj) if is_traced(obj) else np.asarray(obj)


def _constructor(original):
    @functools.wraps(original)
    def construct(obj, dtype=None, *args, ndmin=0, **kwargs):
        if current_trace() is None or not holds_traced(obj):
            if ndmin:
                kwargs["ndmin"] = ndmin
            return original(obj, dtype, *args, **kwargs)
        out = assemble(obj, dtype, ndmin)
        # np.array copies by default: a later write into either must leave the other be
        copies = original.__name__ == "array" and kwargs.get("copy", True) in (
            True, np._CopyMode.ALWAYS)
        return out.copy() if copies and out is unwrap(obj) else out
    return construct


def _asarray_chkfinite(original, a, dtype=None, order=None):
    """The traced value, cast; its finiteness is read from the value (guarded)."""
    a = ops.astype(unwrap(a), np.dtype(dtype)) if dtype is not None else unwrap(a)
    if ops.result_type(a).is_float and not bool(ops.all_(ops.isfinite(a))):
        raise ValueError("array must not contain infs or NaNs")
    return a


def _require(original, a, dtype=None, requirements=None, *, like=None):
    """A traced value has no memory layout to fix, so every requirement holds once the dtype
    is numpy's: numpy itself checks the requirements and picks the dtype on a stand-in."""
    a = unwrap(a)
    stand_in = np.empty((0,) * len(ops.shape_of(a)), ops.result_type(a).numpy)
    return ops.astype(a, original(stand_in, dtype, requirements).dtype)


def _asmatrix(original, data, dtype=None):
    raise NotSupported("np.asmatrix builds an np.matrix, which gradjit does not trace; use 2-d "
                    "arrays and the @ operator")


# numpy functions that convert their argument with numpy's own asarray, out of reach of the
# wrappers of _CONSTRUCTORS: name -> its function on a traced first argument
_CONVERTERS = {"asarray_chkfinite": _asarray_chkfinite, "require": _require,
               "isfortran": lambda original, a: False,  # a traced value has no layout
               "asmatrix": _asmatrix}
NAMES = [f"np.{name}" for name in (*_CONSTRUCTORS, *_CONVERTERS) if name != "asmatrix"] + \
    ["np.r_", "np.c_", "np.full"]


def _full(original):
    """np.full with a traced fill value (numpy copies it in with its own asarray): the value
    broadcast to the shape, in the dtype asked for or its own."""
    @functools.wraps(original)
    def full(shape, fill_value, dtype=None, *args, **kwargs):
        if current_trace() is None or not is_traced(fill_value):
            return original(shape, fill_value, dtype, *args, **kwargs)
        value = unwrap(fill_value)
        if dtype is not None:
            value = ops.astype(value, np.dtype(dtype))
        return ops.broadcast_to(value, tuple(shape) if np.iterable(shape) else (shape,))
    return full


def _converting(original, traced):
    @functools.wraps(original)
    def convert(a, *args, **kwargs):
        if current_trace() is None or not is_traced(a):
            return original(a, *args, **kwargs)
        return traced(original, a, *args, **kwargs)
    return convert


class _Concatenator:
    """np.r_ (rows: along the first axis) and np.c_ (columns: along the last axis, 1-d
    operands as columns) on traced operands; numpy's own object otherwise."""

    def __init__(self, original, columns: bool):
        self.original, self.columns = original, columns

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        if current_trace() is None or not holds_traced(list(items)):
            return self.original[key]
        parts = []
        for item in items:
            if isinstance(item, str):
                raise TypeError(f"{'np.c_' if self.columns else 'np.r_'} with the directive "
                                f"{item!r} is not supported on traced values; concatenate "
                                "with np.concatenate instead")
            part = self.original[item] if isinstance(item, slice) else assemble(item)
            parts.append(self._shaped(part))
        return ops.concatenate(parts, -1 if self.columns else 0)

    def _shaped(self, part):
        shape = ops.shape_of(part)
        if not self.columns:
            return ops.reshape(part, (1,)) if not shape else part
        if len(shape) >= 2:
            return part
        return ops.reshape(part, (-1, 1) if shape else (1, 1))

    def __len__(self):
        return len(self.original)


def install():
    """Put the wrappers in numpy's namespace (once)."""
    if isinstance(np.r_, _Concatenator):
        return
    for name in _CONSTRUCTORS:
        setattr(np, name, _constructor(getattr(np, name)))
    for name, traced in _CONVERTERS.items():
        setattr(np, name, _converting(getattr(np, name), traced))
    np.full = _full(np.full)
    np.r_, np.c_ = _Concatenator(np.r_, False), _Concatenator(np.c_, True)
