"""The numpy names gradjit first knew: arithmetic ufuncs, the common reductions and shape
functions, mapped onto gradjit.ops."""
from __future__ import annotations

import numpy as np

from gradjit import ops
from gradjit.ir.primitive import ir_type


def _square(x):
    return ops.mul(x, x)


def _reciprocal(x):
    return ops.true_divide(1.0, x)


UFUNCS = {
    np.add: ops.add, np.subtract: ops.sub, np.multiply: ops.mul, np.true_divide: ops.true_divide,
    np.power: ops.power, np.maximum: ops.maximum,
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


def _axes(axis):
    """An axis given as a traced integer becomes its concrete value (guarded)."""
    if axis is None or isinstance(axis, int):
        return axis
    if isinstance(axis, (tuple, list)):
        return tuple(int(a) for a in axis)
    return int(axis)


def no_out(out):
    if out is not None:
        raise TypeError("out= is not supported on traced values (they cannot be written in "
                        "place); use the returned value")


def _sum(a, axis=None, dtype=None, out=None, keepdims=False, **_):
    no_out(out)
    return ops.sum_(a, _axes(axis), keepdims, dtype)


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, **_):
    no_out(out)
    return ops.mean(a if dtype is None else ops.astype(a, dtype), _axes(axis), keepdims)


def _where(condition, x=None, y=None):
    if x is None or y is None:
        raise TypeError("np.where(condition) gives a data-dependent shape; use "
                        "np.where(condition, x, y)")
    return ops.where(condition, x, y)


def _linspace(start, stop, num, endpoint, retstep, dtype, axis):
    """numpy's linspace with traced ends: start + i * step, the last sample exactly `stop`."""
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    start, stop = ops.to_float(start), ops.to_float(stop)
    div = num - 1 if endpoint else num
    delta = ops.sub(stop, start)
    # one sample (div 0): numpy's step is nan, its sample is start
    step = ops.true_divide(delta, div) if div > 0 else ops.mul(delta, np.nan)
    scale = step if div > 0 else delta
    shape = ops.broadcast_shapes(ops.shape_of(start), ops.shape_of(delta))
    ramp = np.arange(num, dtype=np.float64).reshape((-1,) + (1,) * len(shape))
    samples = ops.add(ops.mul(ramp, ops.expand_dims(scale, 0)), ops.expand_dims(start, 0))
    if endpoint and num > 1:
        last = ops.broadcast_to(ops.expand_dims(stop, 0), (1,) + shape)
        samples = ops.concatenate([samples[:-1], ops.astype(last, ir_type(samples).dtype)], 0)
    samples = ops.moveaxis(samples, 0, axis) if shape else samples
    if dtype is not None:
        samples = ops.astype(samples, np.dtype(dtype))
    return (samples, step) if retstep else samples


def _like(fill):
    def make(a, dtype=None, shape=None, **_):
        shape = ops.shape_of(a) if shape is None else shape
        return np.full(shape, fill, dtype or ir_type(a).dtype.numpy)
    return make


FUNCTIONS = {
    np.sum: _sum, np.mean: _mean,
    np.where: _where,
    np.reshape: lambda a, shape=None, newshape=None, **_: ops.reshape(
        a, shape if shape is not None else newshape),
    np.transpose: lambda a, axes=None: ops.transpose(a, axes),
    np.swapaxes: lambda a, axis1, axis2: ops.swapaxes(a, axis1, axis2),
    np.linspace: lambda start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0,
    **_: _linspace(start, stop, num, endpoint, retstep, dtype, axis),
    np.clip: lambda a, a_min=None, a_max=None, **_: ops.clip(a, a_min, a_max),
    np.copy: lambda a, **_: a,
    np.shape: ops.shape_of, np.ndim: lambda a: len(ops.shape_of(a)),
    np.size: lambda a, axis=None: int(np.prod(ops.shape_of(a))) if axis is None else
    ops.shape_of(a)[axis],
    np.zeros_like: _like(0), np.ones_like: _like(1),
    np.empty_like: _like(0),  # numpy leaves the values unspecified
    np.full_like: lambda a, fill_value, dtype=None, **_: _like(fill_value)(a, dtype),
}

