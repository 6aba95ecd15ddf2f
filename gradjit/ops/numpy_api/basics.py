"""The numpy names gradjit first knew: arithmetic ufuncs, the common reductions and shape
functions, mapped onto gradjit.ops."""
from __future__ import annotations

import math

import numpy as np

from gradjit import ops


def _square(x):
    return ops.mul(x, x)


def _reciprocal(x):
    return ops.true_divide(1.0, x)


UFUNCS = {
    np.add: ops.add, np.subtract: ops.sub, np.multiply: ops.mul, np.true_divide: ops.true_divide,
    np.power: ops.power, np.float_power: ops.power, np.maximum: ops.maximum,
    np.minimum: ops.minimum, np.matmul: ops.matmul,
    np.greater: ops.gt, np.greater_equal: ops.ge, np.less: ops.lt, np.less_equal: ops.le,
    np.equal: ops.eq, np.not_equal: ops.ne, np.logical_and: ops.logical_and,
    np.logical_or: ops.logical_or, np.logical_not: ops.logical_not,
    np.negative: ops.neg, np.positive: lambda x: x, np.absolute: ops.abs_, np.sign: ops.sign,
    np.exp: ops.exp, np.log: ops.log, np.log1p: ops.log1p, np.expm1: ops.expm1,
    np.sqrt: ops.sqrt, np.sin: ops.sin, np.cos: ops.cos, np.tan: ops.tan, np.tanh: ops.tanh,
    np.floor: ops.floor, np.ceil: ops.ceil, np.rint: ops.round_, np.square: _square,
    np.reciprocal: _reciprocal, np.isfinite: ops.isfinite,
}


def _sum(a, axis=None, dtype=None, out=None, keepdims=False, **_):
    return _method(a).sum(axis, dtype, out, keepdims)


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, **_):
    return _method(a).mean(axis, dtype, out, keepdims)


def _max(a, axis=None, out=None, keepdims=False, **_):
    return _method(a).max(axis, out, keepdims)


def _min(a, axis=None, out=None, keepdims=False, **_):
    return _method(a).min(axis, out, keepdims)


def _var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **_):
    shape = ops.shape_of(a)
    count = math.prod(shape[i] for i in ops.normalize_axes(axis, len(shape)))
    centered = ops.sub(a, ops.mean(a, axis, keepdims=True))
    total = ops.sum_(ops.mul(centered, centered), axis, keepdims)
    return ops.true_divide(total, float(count - ddof))


def _std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **_):
    return ops.sqrt(_var(a, axis, dtype, out, ddof, keepdims))


def _where(condition, x=None, y=None):
    if x is None or y is None:
        raise TypeError("np.where(condition) gives a data-dependent shape; use "
                        "np.where(condition, x, y)")
    return ops.where(condition, x, y)


def _norm(x, ord=None, axis=None, keepdims=False):
    vector = isinstance(axis, int) or len(ops.shape_of(x)) == 1
    if not (ord in (None, "fro") or (ord == 2 and vector)):
        raise TypeError(f"np.linalg.norm(ord={ord!r}) is not supported when tracing; the "
                        "2-norm (ord=None) is")
    return ops.norm(x, axis, keepdims)


def _outer(a, b):
    return ops.mul(ops.reshape(a, (-1, 1)), ops.reshape(b, (1, -1)))


def _like(fill):
    def make(a, dtype=None, shape=None, **_):
        shape = ops.shape_of(a) if shape is None else shape
        return np.full(shape, fill, dtype or np.dtype(a.dtype))
    return make


def _method(a):
    """A numpy-like object with the reduction methods (traced values have them)."""
    if hasattr(a, "sum") and hasattr(a, "max"):
        return a
    raise TypeError(f"expected an array, got {type(a).__name__}")


FUNCTIONS = {
    np.sum: _sum, np.mean: _mean, np.max: _max, np.amax: _max, np.min: _min, np.amin: _min,
    np.var: _var, np.std: _std,
    np.all: lambda a, axis=None, keepdims=False, **_: a.all(axis, keepdims),
    np.any: lambda a, axis=None, keepdims=False, **_: a.any(axis, keepdims),
    np.dot: ops.dot, np.outer: _outer, np.where: _where,
    np.concatenate: lambda arrays, axis=0, **_: ops.concatenate(arrays, axis),
    np.stack: lambda arrays, axis=0, **_: ops.stack(arrays, axis),
    np.reshape: lambda a, shape=None, newshape=None, **_: ops.reshape(
        a, shape if shape is not None else newshape),
    np.transpose: lambda a, axes=None: ops.transpose(a, axes),
    np.swapaxes: ops.swapaxes, np.squeeze: lambda a, axis=None: ops.squeeze(a, axis),
    np.expand_dims: ops.expand_dims, np.broadcast_to: lambda a, shape, **_: ops.broadcast_to(
        a, shape),
    np.ravel: lambda a, order="C": ops.reshape(a, (-1,)),
    np.clip: lambda a, a_min=None, a_max=None, **_: ops.clip(a, a_min, a_max),
    np.linalg.norm: _norm, np.copy: lambda a, **_: a,
    np.shape: ops.shape_of, np.ndim: lambda a: len(ops.shape_of(a)),
    np.size: lambda a, axis=None: int(np.prod(ops.shape_of(a))) if axis is None else
    ops.shape_of(a)[axis],
    np.zeros_like: _like(0), np.ones_like: _like(1),
    np.full_like: lambda a, fill_value, dtype=None, **_: _like(fill_value)(a, dtype),
}

