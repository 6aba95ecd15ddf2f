"""Reductions and scans with numpy's semantics (products, cumulative sums and products, NaN-
ignoring reductions, variance, arg-extrema, take_along_axis), written with primitives so they
run eagerly, traced and compiled, with gradients."""
from __future__ import annotations

import functools
import math

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import BroadcastError, ir_type
from gradjit.ir.types import int64, real_of
from gradjit.ops.array import (abs_, add, amax, amin, eq, exp, expand_dims, gt, isfinite, log1p,
                               logical_and, logical_not, logical_or, lt, maximum, minimum, mul, ne,
                               normalize_axes, reshape, sqrt, sub, sum_, transpose, true_divide,
                               where)
from gradjit.ops.array import shape_of as _shape
from gradjit.ops import complex_order
from gradjit.ops.promote import accumulator, astype, broadcast, broadcast_shapes, to_float


def nan_mask(x):
    """NaN in either part of a complex value, as numpy's isnan."""
    return complex_order.isnan(x) if ir_type(x).dtype.is_complex else ne(x, x)


def _without_nan(x, fill):
    return where(nan_mask(x), fill, x) if ir_type(x).dtype.is_inexact else x


# ---- products ----

def prod(x, axis=None, keepdims=False, dtype=None):
    x = accumulator(x, dtype)
    return S.reduce_prod(x, axes=normalize_axes(axis, ir_type(x).rank), keepdims=keepdims)


def nanprod(x, axis=None, keepdims=False, dtype=None):
    return prod(_without_nan(x, 1), axis, keepdims, dtype)


def nansum(x, axis=None, keepdims=False, dtype=None):
    return sum_(_without_nan(x, 0), axis, keepdims, dtype)


# ---- scans ----
# A scan is a composition: the axis is cut into blocks of BLOCK, each block is scanned by a
# chain of BLOCK combines (one fused loop), and the blocks' totals are scanned recursively and
# combined back in. The work is O(n) per level and the levels shrink by BLOCK, so a scan costs
# a few passes over memory instead of the n log n of a doubling (Hillis-Steele) scan. Its
# gradient comes from the composition: a reversed scan, and for products the products of the
# other terms (never a division, so zeros are exact). A small block keeps the gradient cheap:
# each slice of the chain costs one padded copy of the block array in the backward pass.
BLOCK = 4

_IDENTITY = {"sum": 0, "prod": 1, "max": -math.inf, "min": math.inf, "logaddexp": -math.inf}


def _logaddexp(a, b):
    """log(exp(a) + exp(b)), stable; -inf with -inf is -inf."""
    high = maximum(a, b)
    finite = isfinite(high)
    spread = abs_(sub(where(finite, a, 0.0), where(finite, b, 0.0)))
    return where(finite, add(where(finite, high, 0.0), log1p(exp(mul(spread, -1.0)))), high)


_COMBINE = {"sum": add, "prod": mul, "max": maximum, "min": minimum, "logaddexp": _logaddexp}


def _identity(kind, x):
    value = _IDENTITY[kind]
    t = ir_type(x)
    if t.dtype.is_float or not math.isinf(value):
        return value
    info = np.iinfo(t.dtype.numpy)
    return int(info.min if value < 0 else info.max)


def _slice_last(x, lo, hi):
    shape = ir_type(x).shape
    return S.slice_(x, start=(0,) * (len(shape) - 1) + (lo,), stop=shape[:-1] + (hi,),
                    step=(1,) * len(shape))


def _scan_last(x, kind):
    """The inclusive scan of x along its last axis."""
    shape = ir_type(x).shape
    n = shape[-1]
    combine = _COMBINE[kind]
    if n <= BLOCK:
        parts = [_slice_last(x, 0, 1)] if n else []
        for j in range(1, n):
            parts.append(combine(parts[-1], _slice_last(x, j, j + 1)))
        return S.concatenate(*parts, axis=len(shape) - 1) if n > 1 else x
    blocks = -(-n // BLOCK)
    identity = _identity(kind, x)
    padded = S.pad(x, low=(0,) * len(shape), high=(0,) * (len(shape) - 1) + (
        blocks * BLOCK - n,), interior=(0,) * len(shape), value=identity)
    inner = _scan_last(reshape(padded, shape[:-1] + (blocks, BLOCK)), kind)
    totals = reshape(_slice_last(inner, BLOCK - 1, BLOCK), shape[:-1] + (blocks,))
    before = S.pad(_slice_last(_scan_last(totals, kind), 0, blocks - 1),
                   low=(0,) * (len(shape) - 1) + (1,), high=(0,) * len(shape),
                   interior=(0,) * len(shape), value=identity)
    joined = combine(broadcast(expand_dims(before, -1), shape[:-1] + (blocks, BLOCK)), inner)
    return _slice_last(reshape(joined, shape[:-1] + (blocks * BLOCK,)), 0, n)


def scan(x, axis, kind):
    """The inclusive scan of `kind` ('sum', 'prod', 'max', 'min', 'logaddexp') along one axis
    (None: of the flattened array)."""
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    rank = ir_type(x).rank
    if rank == 0:
        return x
    axis = normalize_axes(axis, rank)[0]
    perm = tuple(a for a in range(rank) if a != axis) + (axis,)
    moved = _scan_last(transpose(x, perm), kind)
    back = [0] * rank
    for i, p in enumerate(perm):
        back[p] = i
    return transpose(moved, back)


def cumsum(x, axis=None, dtype=None):
    return scan(accumulator(x, dtype), axis, "sum")


def cumprod(x, axis=None, dtype=None):
    return scan(accumulator(x, dtype), axis, "prod")


def nancumsum(x, axis=None, dtype=None):
    return cumsum(_without_nan(x, 0), axis, dtype)


def nancumprod(x, axis=None, dtype=None):
    return cumprod(_without_nan(x, 1), axis, dtype)


def logcumsumexp(x, axis):
    return scan(to_float(x), axis, "logaddexp")


# ---- differences ----

def _along(x, axis, lo, hi):
    shape = ir_type(x).shape
    return S.slice_(x, start=tuple(lo if a == axis else 0 for a in range(len(shape))),
                    stop=tuple(hi if a == axis else d for a, d in enumerate(shape)),
                    step=(1,) * len(shape))


def diff(x, n=1, axis=-1):
    """n-th forward differences along `axis` (bools: != between neighbours, as numpy)."""
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    axis = normalize_axes(axis, ir_type(x).rank)[0]
    for _ in range(n):
        length = _shape(x)[axis]
        if length == 0:
            break
        ahead, behind = _along(x, axis, 1, length), _along(x, axis, 0, length - 1)
        x = ne(ahead, behind) if ir_type(x).dtype.is_bool else sub(ahead, behind)
    return x


# ---- variance ----

def count_of(x, axis):
    shape = _shape(x)
    return math.prod(shape[a] for a in normalize_axes(axis, len(shape)))


def var(x, axis=None, ddof=0, keepdims=False, dtype=None):
    """numpy's var: integers in float64, complex values give a real variance; n - ddof <= 0
    divides by 0 (inf, or nan for 0/0)."""
    x = astype(x, dtype) if dtype is not None else to_float(x)
    centered = sub(x, true_divide(sum_(x, axis, keepdims=True), float(count_of(x, axis))))
    return true_divide(sum_of_squares(centered, axis, keepdims),
                       float(max(count_of(x, axis) - ddof, 0)))


def sum_of_squares(d, axis, keepdims):
    """The sum of |d|^2: real for complex values, as the spread of complex values is."""
    if ir_type(d).dtype.is_complex:
        re, im = E.real(d), E.imag(d)
        return sum_(add(mul(re, re), mul(im, im)), axis, keepdims)
    return sum_(mul(d, d), axis, keepdims)


def safe_sqrt(v):
    """sqrt with a zero gradient at 0 (PyTorch's std: a spread of zero is a kink, and 0 is
    the subgradient both it and gradjit's norm take) instead of an inf times 0 = nan."""
    zero = eq(v, 0)
    return where(zero, 0, sqrt(where(zero, 1, v)))


def std(x, axis=None, ddof=0, keepdims=False, dtype=None):
    return safe_sqrt(var(x, axis, ddof, keepdims, dtype))


def nanmean(x, axis=None, keepdims=False, dtype=None):
    x = astype(x, dtype) if dtype is not None else to_float(x)
    kept = logical_not(nan_mask(x))
    count = sum_(astype(kept, ir_type(x).dtype), axis, keepdims)
    return true_divide(sum_(where(kept, x, 0), axis, keepdims), count)


def nanvar(x, axis=None, ddof=0, keepdims=False, dtype=None):
    """Over the non-NaN terms; nan where fewer than ddof + 1 remain (numpy's nanvar)."""
    x = astype(x, dtype) if dtype is not None else to_float(x)
    kept = logical_not(nan_mask(x))
    count = sum_(astype(kept, real_of(ir_type(x).dtype)), axis, keepdims=True)
    centered = where(kept, sub(x, true_divide(sum_(where(kept, x, 0), axis, keepdims=True),
                                              count)), 0)
    total = sum_of_squares(centered, axis, keepdims)
    dof = sub(count if keepdims else _drop(count, axis), float(ddof))
    good = gt(dof, 0)
    return where(good, true_divide(total, where(good, dof, 1.0)), math.nan)


def _drop(x, axis):
    axes = normalize_axes(axis, ir_type(x).rank)
    return reshape(x, tuple(d for a, d in enumerate(_shape(x)) if a not in axes))


def nanstd(x, axis=None, ddof=0, keepdims=False, dtype=None):
    return safe_sqrt(nanvar(x, axis, ddof, keepdims, dtype))


# ---- extrema ----

def extremum(x, axis=None, keepdims=False, initial=None, largest=True):
    """max/min with numpy's `initial` (which also makes an empty reduction defined)."""
    reduce, pick = (amax, maximum) if largest else (amin, minimum)
    axes = normalize_axes(axis, ir_type(x).rank)
    if ir_type(x).dtype.is_complex:
        reduce = functools.partial(complex_order.extremum, largest=largest)
        pick = complex_order.ordered(pick, largest)
    if initial is None:
        return reduce(x, axes, keepdims)
    initial = np.asarray(initial).astype(ir_type(x).dtype.numpy)  # numpy casts it to x's type
    if any(_shape(x)[a] == 0 for a in axes):
        kept = tuple(1 if a in axes else d for a, d in enumerate(_shape(x)) if keepdims or
                     a not in axes)
        return broadcast(initial, kept)
    if ir_type(x).dtype.is_bool:  # the max of bools is `or`, their min `and`
        pick = logical_or if largest else logical_and
    return pick(reduce(x, axes, keepdims), initial)


def nan_extremum(x, axis=None, keepdims=False, largest=True):
    """max/min ignoring NaN; a slice of NaN only gives NaN (numpy warns and does so)."""
    if not ir_type(x).dtype.is_inexact:
        return extremum(x, axis, keepdims, largest=largest)
    missing = nan_mask(x)
    worst = -math.inf if largest else math.inf
    filled = where(missing, complex(worst, worst) if ir_type(x).dtype.is_complex else worst, x)
    out = extremum(filled, axis, keepdims, largest=largest)
    return where(all_(missing, axis, keepdims), math.nan, out)


def arg_extremum(x, axis=None, keepdims=False, largest=True):
    """The first index of the max/min along `axis` (None: of the flattened array); a NaN is
    larger and smaller than everything, so the first NaN wins (numpy's argmax/argmin)."""
    rank = ir_type(x).rank
    if axis is None or rank == 0:
        flat = arg_extremum(reshape(x, (-1,)), 0, False, largest)
        return reshape(flat, (1,) * rank) if keepdims else flat
    axis = normalize_axes(axis, rank)[0]
    shape = _shape(x)
    if shape[axis] == 0:
        name = "argmax" if largest else "argmin"
        raise ValueError(f"attempt to get {name} of an empty sequence")
    if ir_type(x).dtype.is_complex:
        return complex_order.arg_extremum(x, axis, keepdims, largest)
    best = (amax if largest else amin)(x, (axis,), True)
    hit = eq(x, broadcast(best, shape))
    if ir_type(x).dtype.is_float:
        hit = logical_or(hit, nan_mask(x))
    ramp = S.iota(shape=shape, dtype="i64", axis=axis)
    return S.reduce_min(where(hit, ramp, shape[axis]), axes=(axis,), keepdims=keepdims)


def all_(x, axis=None, keepdims=False):
    """A product of bools: `and`, with the identity True for empty axes (max/min have none)."""
    return S.reduce_prod(astype(x, "bool"), axes=normalize_axes(axis, ir_type(x).rank),
                         keepdims=keepdims)


def any_(x, axis=None, keepdims=False):
    return logical_not(all_(logical_not(astype(x, "bool")), axis, keepdims))


def count_nonzero(x, axis=None, keepdims=False):
    return sum_(astype(ne(x, 0) if not ir_type(x).dtype.is_bool else x, int64), axis, keepdims)


# ---- indices along an axis ----

def take_along_axis(x, indices, axis):
    """numpy's take_along_axis: the other axes broadcast; a negative index counts from the
    end; one out of range raises IndexError. One gather from the flattened array, so the
    gradient is one scatter_add."""
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    t, it = ir_type(x), ir_type(indices)
    if not it.dtype.is_int:
        raise IndexError(f"take_along_axis: indices must be integers, not {it.dtype.numpy}")
    if it.rank != t.rank:
        raise ValueError(f"take_along_axis: indices and arr must have the same number of "
                         f"dimensions, got {it.rank} and {t.rank}")
    axis = normalize_axes(axis, t.rank)[0]
    try:
        others = list(broadcast_shapes(t.shape[:axis] + t.shape[axis + 1:],
                                       it.shape[:axis] + it.shape[axis + 1:]))
    except BroadcastError:  # numpy's IndexError of its index arrays
        raise IndexError(f"shape mismatch: indices of shape {it.shape} do not broadcast with "
                         f"arr of shape {t.shape} outside axis {axis}") from None
    shape = tuple(others[:axis] + [it.shape[axis]] + others[axis:])
    source = broadcast(x, shape[:axis] + (t.shape[axis],) + shape[axis + 1:])
    n = t.shape[axis]
    idx = broadcast(astype(indices, int64), shape)
    idx = S.check_index(idx, bound=n, low=-n, error="IndexError",
                        words=f"index {{index}} is out of bounds for axis {axis} with size {n}")
    idx = where(lt(idx, 0), add(idx, n), idx)
    strides = [math.prod(_shape(source)[a + 1:]) for a in range(t.rank)]
    flat = mul(idx, strides[axis])
    for a in range(t.rank):
        if a != axis:
            flat = add(flat, mul(S.iota(shape=shape, dtype="i64", axis=a), strides[a]))
    return S.gather(reshape(source, (-1,)), flat, axis=0)


__all__ = ["accumulator", "all_", "any_", "arg_extremum", "count_nonzero", "count_of",
           "cumprod", "cumsum", "diff", "extremum", "logcumsumexp", "nan_extremum",
           "nancumprod", "nancumsum", "nanmean", "nanprod", "nanstd", "nansum", "nanvar",
           "nan_mask", "prod", "safe_sqrt", "scan", "std", "sum_of_squares", "take_along_axis",
           "var"]
