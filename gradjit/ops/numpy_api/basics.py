"""The numpy names gradjit first knew: arithmetic ufuncs, the common reductions and shape
functions, mapped onto gradjit.ops."""
from __future__ import annotations

import math
import operator
import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from gradjit import ops
from gradjit.ir.primitive import ir_type
from gradjit.ops.complex_order import compared, ordered, pick
from gradjit.ops.indexing import constant_value
from gradjit.ops.numpy_api import ufunc_call
from gradjit.ops.numpy_api.dtypes import nonzero
from gradjit.ops.numpy_api.writes import copy_of


def _square(x):
    return ops.mul(x, x)


def _reciprocal(x):
    """1/x in x's type: an integer's truncates toward zero, so it is 0 unless |x| is 1 (and
    numpy's 1/0, inf converted by the machine, is int32's minimum: int32 and int64 keep it,
    narrower and unsigned types keep its low bits, 0); a bool's is an int8."""
    dt = ops.result_type(x)
    if dt.is_complex:
        return _complex_reciprocal(x)
    if dt.is_float:
        return ops.true_divide(1.0, x)
    x = ops.astype(x, np.int8) if dt.is_bool else x
    kind = ops.result_type(x).numpy
    smallest = np.iinfo(kind).min if kind.kind == "i" and kind.itemsize >= 4 else 0
    at_zero = ops.where(ops.eq(x, 0), np.asarray(smallest, kind), np.zeros((), kind))
    return ops.where(ops.eq(ops.abs_(x), 1), x, at_zero)


def _complex_reciprocal(z):
    """numpy's 1/z: the smaller part over the larger first (Smith's division of 1), so 1/0j
    is nan+nanj and 1/(inf+0j) is 0-0j, where the division 1.0 / z gives inf+nanj and 0+0j."""
    re, im = ops.real(z), ops.imag(z)
    real_larger = ops.le(ops.abs_(im), ops.abs_(re))
    ratio = ops.where(real_larger, ops.true_divide(im, re), ops.true_divide(re, im))
    d = ops.where(real_larger, ops.add(re, ops.mul(im, ratio)), ops.add(ops.mul(re, ratio), im))
    one_over, ratio_over = ops.true_divide(1.0, d), ops.true_divide(ratio, d)
    return ops.complex_from(ops.where(real_larger, one_over, ratio_over),
                            ops.neg(ops.where(real_larger, ratio_over, one_over)))


def _absolute(x):
    return x if ops.result_type(x).is_bool else ops.abs_(x)  # numpy's bool loop


UFUNCS = {
    np.add: ops.add, np.subtract: ops.sub, np.multiply: ops.mul, np.true_divide: ops.true_divide,
    np.power: ops.power, np.maximum: ordered(ops.maximum, largest=True),
    np.minimum: ordered(ops.minimum, largest=False),
    np.greater: compared(ops.gt, True, False), np.greater_equal: compared(ops.ge, True, True),
    np.less: compared(ops.lt, False, False), np.less_equal: compared(ops.le, False, True),
    np.equal: ops.eq, np.not_equal: ops.ne, np.logical_and: ops.logical_and,
    np.logical_or: ops.logical_or, np.logical_xor: ops.logical_xor,
    np.logical_not: ops.logical_not,
    np.negative: ops.neg, np.positive: lambda x: x, np.absolute: _absolute, np.sign: ops.sign,
    np.exp: ops.exp, np.log: ops.log, np.log1p: ops.log1p, np.expm1: ops.expm1,
    np.sqrt: ops.sqrt, np.sin: ops.sin, np.cos: ops.cos, np.tan: ops.tan, np.tanh: ops.tanh,
    np.floor: ops.floor, np.ceil: ops.ceil, np.square: _square,
    np.reciprocal: _reciprocal, np.isfinite: ops.isfinite,
}


def _axes(axis):
    """An axis given as a traced integer becomes its concrete value (guarded); anything else
    that is not an integer (a str, a float) is numpy's TypeError."""
    if axis is None or isinstance(axis, int):
        return axis
    if isinstance(axis, (tuple, list)):
        return tuple(map(_axis, axis))
    return _axis(axis)


def _axis(a):
    return int(a) if hasattr(a, "ir_type") else operator.index(a)


def accumulated(a, dtype):
    """The dtype numpy sums and multiplies in: `dtype`, or for unsigned integers uint64 (a
    Tensor's too, whose own sum takes int64), or None for gradjit's accumulator."""
    if dtype is None and ir_type(a).dtype.numpy.kind == "u":
        return np.uint64
    return dtype


def numpy_float(a):
    """Bools and integers in float64, where numpy computes their means, spreads, sinc and
    angle: a Tensor's too (whose own default float is float32; torch's mean refuses them)."""
    return a if ir_type(a).dtype.is_inexact else ops.astype(a, np.float64)


def checked_axis(a, axis, strict=False):
    """numpy's axis check on 0-d arrays, which the shared normalize_axes (PyTorch allows dim=0
    there) leaves out: a ufunc's reduction takes an int axis 0 or -1 but no tuple; mean, var,
    std, average, median and quantile (`strict`) take none."""
    if axis is not None and not ops.shape_of(a) and (strict or not isinstance(axis, int)):
        raise np.exceptions.AxisError(axis if isinstance(axis, int) else tuple(axis)[0], 0)
    return axis


def warn_if_empty(a, axis, message="Mean of empty slice", ddof=0, nan=False):
    """numpy's RuntimeWarning for a mean over no elements (a variance over ddof or fewer),
    known from the shapes; numpy then also warns of the 0/0 it computes (its nan-functions
    do not)."""
    shape = ops.shape_of(a)  # (a 0-d array holds one element, whatever axis numpy allows)
    axes = range(len(shape)) if axis is None or not shape else \
        normalize_axis_tuple(axis, len(shape))
    if math.prod(shape[i] for i in axes) - ddof <= 0:
        warnings.warn(message, RuntimeWarning, stacklevel=4)
        if not nan:
            warnings.warn("invalid value encountered in divide", RuntimeWarning, stacklevel=4)


def warn_if_nan_only(a, axis, message="All-NaN slice encountered", ddof=0):
    """numpy's RuntimeWarning for a slice whose NaNs leave ddof or fewer numbers, where the
    values are known (eager Tensors: a compiled program does not read its values to warn);
    slices that short by their shape alone get warn_if_empty's."""
    known = constant_value(a)
    if known is None or known.dtype.kind not in "fc":
        return
    axes = None if axis is None or not known.ndim else normalize_axis_tuple(axis, known.ndim)
    if (known.size if axes is None else math.prod(known.shape[i] for i in axes)) <= ddof:
        return
    if np.any(np.sum(~np.isnan(known), axis=axes) <= ddof):
        warnings.warn(message, RuntimeWarning, stacklevel=4)


def masked(a, where, fill):
    """a with the elements that numpy's `where=` leaves out replaced by the reduction's
    identity `fill` (in a's dtype), so a plain reduction gives numpy's masked one."""
    if where is np._NoValue or where is True:
        return a
    where = ops.broadcast_to(where, ops.shape_of(a))
    return ops.where(where, a, np.asarray(fill, ir_type(a).dtype.numpy))


def _size(a, axis=None):
    """numpy's size: the number of elements, or along an axis or a tuple of axes."""
    shape = ops.shape_of(a)
    if axis is None:
        return math.prod(shape)
    axes = np.lib.array_utils.normalize_axis_tuple(axis, len(shape))
    return math.prod(shape[ax] for ax in axes)


def _sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue,
         where=np._NoValue):
    total = ops.sum_(masked(a, where, 0), _axes(axis), bool(keepdims), accumulated(a, dtype))
    if initial is np._NoValue:
        return total
    return ops.astype(ops.add(total, initial), ir_type(total).dtype)


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=np._NoValue):
    given = ir_type(a).dtype if dtype is None else None  # float16 averages in float32
    a = ops.astype(a, ops.mean_type(a)) if dtype is None else numpy_float(ops.astype(a, dtype))
    keep = bool(keepdims)
    if where is True or where is np._NoValue:
        warn_if_empty(a, checked_axis(a, axis, strict=True))
        result = ops.mean(a, _axes(axis), keep)
    else:
        count = ops.astype(ops.broadcast_to(where, ops.shape_of(a)), ir_type(a).dtype)
        result = ops.true_divide(ops.sum_(masked(a, where, 0), _axes(axis), keep),
                                 ops.sum_(count, _axes(axis), keep))
    return ops.astype(result, given) if given is not None and given.is_float else result


def _where(condition, x=None, y=None):
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return ops.where(condition, x, y)


def _linspace(start, stop, num, endpoint, retstep, dtype, axis):
    """numpy's linspace with traced ends: start + i * step, the last sample exactly `stop`;
    an integer dtype takes the floor of the samples (numpy's rounding, down for negatives)."""
    num = operator.index(num)  # numpy's TypeError for a float count
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dt = ops.result_type(start, stop)
    dt = dt if dt.is_inexact else ops.default_float(start, stop)
    start, stop = (ops.astype(ops.asarray(end), dt) for end in (start, stop))
    div = num - 1 if endpoint else num
    delta = ops.sub(stop, start)
    # one sample (div 0): numpy's step is nan, its sample is start
    step = ops.true_divide(delta, div) if div > 0 else ops.mul(delta, np.nan)
    scale = step if div > 0 else delta
    shape = ops.broadcast_shapes(ops.shape_of(start), ops.shape_of(delta))
    # the sample numbers in the ends' precision, so float32 ends give float32 samples
    ramp = np.arange(num, dtype=np.empty(0, dt.numpy).real.dtype).reshape(
        (-1,) + (1,) * len(shape))
    samples = ops.add(ops.mul(ramp, ops.expand_dims(scale, 0)), ops.expand_dims(start, 0))
    if endpoint and num > 1:
        last = ops.broadcast_to(ops.expand_dims(stop, 0), (1,) + shape)
        samples = ops.concatenate([samples[:-1], ops.astype(last, ir_type(samples).dtype)], 0)
    samples = ops.moveaxis(samples, 0, axis) if shape else samples
    if dtype is not None:
        if np.issubdtype(dtype, np.integer):
            samples = ops.floor(samples)
        samples = ops.astype(samples, np.dtype(dtype))
    return (samples, step) if retstep else samples


def _logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """base ** linspace(start, stop); an array of bases gets a new axis where the samples are,
    a number stays a weak scalar (float32 ends give float32 powers)."""
    if not isinstance(base, (float, int)) and ops.shape_of(base):
        rank = max(len(ops.shape_of(v)) for v in (start, stop, base))
        start, stop, base = (
            ops.reshape(v, (1,) * (rank - len(ops.shape_of(v))) + ops.shape_of(v))
            for v in (start, stop, base))
        base = ops.expand_dims(base, axis)
    y = _linspace(start, stop, num, endpoint, False, None, axis)
    power = ops.power(base, y)
    return power if dtype is None else ops.astype(power, np.dtype(dtype))


def _geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """numpy's geomspace: a logspace of |start| .. stop / sign(start) with the ends exactly
    start and stop, the sign of start put back (zeros read from the values, guarded)."""
    if bool(ops.logical_or(ops.any_(ops.eq(start, 0)), ops.any_(ops.eq(stop, 0)))):
        raise ValueError("Geometric sequence cannot include zero")
    # numpy promotes the ends with the requested dtype (float64 when none) before the logs, so
    # dtype=complex takes real ends of either sign through the complex plane
    dt = np.result_type(ops.result_type(start, stop).numpy, np.dtype(dtype))
    dt = dt if dt.kind in "fc" else np.dtype(np.float64)
    start, stop = ops.astype(start, dt), ops.astype(stop, dt)
    sign = ops.sign(start)
    start, stop = ops.true_divide(start, sign), ops.true_divide(stop, sign)
    result = _logspace(ops.log10(start), ops.log10(stop), num, endpoint, 10.0, dt, 0)
    if num > 0:
        ends = [start] + ([stop] if num > 1 and endpoint else [])
        inner = ops.getitem(result, slice(1, num - len(ends) + 1))
        parts = [ops.expand_dims(ends[0], 0), inner] + [ops.expand_dims(e, 0) for e in ends[1:]]
        result = ops.concatenate([ops.astype(ops.broadcast_to(
            p, (ops.shape_of(p)[0],) + ops.shape_of(result)[1:]), dt) for p in parts], 0)
    result = ops.mul(sign, result)
    result = ops.moveaxis(result, 0, axis) if axis != 0 else result
    return result if dtype is None else ops.astype(result, np.dtype(dtype))


def _reshape(a, /, shape, order="C", *, copy=None):
    """order "F" reads and writes the elements with the first index fastest: the reversed
    shape of the transposed array, transposed back ("A" is "C": a traced value has no
    layout)."""
    if order not in ("C", "F", "A"):
        np.reshape(np.zeros(0), 0, order=order)  # numpy's own ValueError
    if order != "F":
        return ops.reshape(a, shape)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return ops.transpose(ops.reshape(ops.transpose(a), shape[::-1]))


def _clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=np._NoValue,
          max=np._NoValue, **kwargs):
    """numpy's clip: bounds as a_min/a_max or as the keywords min/max, not both; a missing
    bound (or a Python int past an integer array's range) leaves that side alone, and the
    result has the dtype numpy's clip loop picks for the operands (int32 with 0.5: float64)."""
    if a_min is np._NoValue and a_max is np._NoValue:
        a_min, a_max = (None if v is np._NoValue else v for v in (min, max))
    elif a_min is np._NoValue or a_max is np._NoValue or min is not np._NoValue \
            or max is not np._NoValue:
        # bounds half given or given twice: numpy's own TypeError or ValueError
        np.clip(np.zeros(()), a_min, a_max, min=min, max=max)
    a = ops.asarray(a)
    if ir_type(a).dtype.numpy.kind in "iu":  # no value-based promotion for these (NEP 50)
        limits = np.iinfo(ir_type(a).dtype.numpy)
        a_min = None if type(a_min) is int and a_min <= limits.min else a_min
        a_max = None if type(a_max) is int and a_max >= limits.max else a_max
    kwargs = kwargs | {"out": out}  # written as a ufunc writes it, under casting=
    if a_min is None and a_max is None:
        return ufunc_call.call(np.positive, _copy, (a,), kwargs)
    if a_min is None or a_max is None:
        ufunc = np.minimum if a_min is None else np.maximum
        return ufunc_call.call(ufunc, _clip_loop, (a, a_max if a_min is None else a_min),
                               kwargs | {"largest": a_min is not None})
    return ufunc_call.call(np._core.umath.clip, _clip_loop, (a, a_min, a_max), kwargs)


def _clip_loop(a, *bounds, largest=None):
    """clip in the loop's dtype: the bounds (a_min, a_max), or the one bound on the `largest`
    side; complex numbers in numpy's order, so minimum(maximum(a, a_min), a_max)."""
    lo, hi = bounds if largest is None else (bounds[0], None) if largest else (None, bounds[0])
    if not ir_type(a).dtype.is_complex:
        return ops.clip(a, lo, hi)
    a = a if lo is None else pick(a, lo, largest=True)
    return a if hi is None else pick(a, hi, largest=False)


def _copy(a, order="K", subok=False):
    return copy_of(a)


def _like(fill):
    def make(a, dtype=None, order="K", subok=True, shape=None, **_):
        shape = ops.shape_of(a) if shape is None else shape
        value = np.full(shape, fill, dtype or ir_type(a).dtype.numpy)
        if not hasattr(a, "_become"):
            return value
        # like a traced array, a traced constant: out= and x[i] = v can write into it
        like = a.copy()
        like._become(value)
        return like
    return make


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    if not hasattr(fill_value, "ir_type"):
        return _like(fill_value)(a, dtype, shape=shape)
    shape = ops.shape_of(a) if shape is None else shape  # a traced fill is broadcast
    return ops.broadcast_to(ops.astype(fill_value, np.dtype(dtype or ir_type(a).dtype.numpy)),
                            shape)


FUNCTIONS = {
    np.sum: _sum, np.mean: _mean,
    np.where: _where,
    np.reshape: _reshape,
    np.transpose: lambda a, axes=None: ops.transpose(a, axes),
    np.swapaxes: lambda a, axis1, axis2: ops.swapaxes(a, axis1, axis2),
    np.linspace: lambda start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0,
    **_: _linspace(start, stop, num, endpoint, retstep, dtype, axis),
    np.logspace: _logspace, np.geomspace: _geomspace,
    np.clip: _clip,
    np.copy: _copy,
    np.shape: ops.shape_of, np.ndim: lambda a: len(ops.shape_of(a)),
    np.size: _size,
    np.zeros_like: _like(0), np.ones_like: _like(1),
    np.empty_like: _like(0),  # numpy leaves the values unspecified
    np.full_like: _full_like,
}

