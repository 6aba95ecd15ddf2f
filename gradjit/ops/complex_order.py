"""numpy's order of complex numbers, by real part and then imaginary part, for maximum,
minimum, fmax, fmin, max, min, argmax, argmin and the comparisons (greater, less, ...):
comparisons of the parts, since the primitives refuse to order complex values. A NaN in
either part counts as NaN does among reals: maximum, max and argmax pick it, fmax drops it."""
from __future__ import annotations

import math

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.ops.array import (add, eq, gt, logical_and, logical_not, logical_or, lt, mul, ne,
                               normalize_axes, reshape, sub, transpose, where)
from gradjit.ops.promote import broadcast, operands, result_type


def isnan(z):
    re, im = E.real(z), E.imag(z)
    return logical_or(ne(re, re), ne(im, im))


def _before(a, b, largest):
    """a comes first in the order (a > b for `largest`); false where either is NaN."""
    first = gt if largest else lt
    (ar, ai), (br, bi) = (E.real(a), E.imag(a)), (E.real(b), E.imag(b))
    return logical_or(first(ar, br), logical_and(eq(ar, br), first(ai, bi)))


def pick(a, b, largest=True, nan_wins=True):
    """maximum / minimum (a NaN wins) or fmax / fmin (a NaN loses) of complex operands. Equal
    operands share the gradient half and half, as the real maximum's does (and JAX's)."""
    dt = result_type(a, b)
    a, b = operands(*(np.asarray(x, dt.numpy) if is_python_scalar(x) else x for x in (a, b)))
    nan_a, nan_b = isnan(a), isnan(b)
    wins = _before(a, b, largest)
    if nan_wins:
        take_a = logical_or(nan_a, logical_and(logical_not(nan_b), wins))
    else:
        take_a = logical_or(nan_b, logical_and(logical_not(nan_a), wins))
    halfway = add(a, mul(sub(b, a), 0.5))  # exactly a where a == b
    return where(take_a, a, where(eq(a, b), halfway, b))


def ordered(real, largest, nan_wins=True):
    """real(a, b) on real operands and pick on complex ones."""
    def apply(a, b):
        if result_type(a, b).is_complex:
            return pick(a, b, largest, nan_wins)
        return real(a, b)
    apply.__name__ = real.__name__
    return apply


def compared(real, largest, or_equal):
    """real(a, b) (gt, ge, lt or le) on real operands; numpy's order on complex ones, where
    a NaN compares false."""
    def apply(a, b):
        dt = result_type(a, b)
        if not dt.is_complex:
            return real(a, b)
        a, b = operands(*(np.asarray(x, dt.numpy) if is_python_scalar(x) else x for x in (a, b)))
        before = _before(a, b, largest)
        return logical_or(before, eq(a, b)) if or_equal else before
    apply.__name__ = real.__name__
    return apply


def _last_axis(z, axes):
    """z with the reduced axes moved last and merged into one."""
    shape = ir_type(z).shape
    rest = [d for d in range(len(shape)) if d not in axes]
    moved = transpose(z, rest + list(axes))
    return reshape(moved, tuple(shape[d] for d in rest) + (math.prod(shape[d] for d in axes),))


def _kept(out, axes, rank, keepdims):
    if not keepdims:
        return out
    shape = list(ir_type(out).shape)
    for a in sorted(axes):
        shape.insert(a, 1)
    return reshape(out, tuple(shape))


def _hits(z, largest):
    """Along the last axis: where the extreme element is (every copy of it), or the NaNs
    where there are any."""
    shape = ir_type(z).shape
    reduce, fill = (S.reduce_max, -math.inf) if largest else (S.reduce_min, math.inf)
    nan = isnan(z)
    re, im = E.real(z), E.imag(z)

    def best(x):
        return broadcast(reduce(x, axes=(len(shape) - 1,), keepdims=True), shape)
    candidate = logical_and(logical_not(nan), eq(re, best(where(nan, fill, re))))
    hit = logical_and(candidate, eq(im, best(where(candidate, im, fill))))
    any_nan = broadcast(S.reduce_max(nan, axes=(len(shape) - 1,), keepdims=True), shape)
    return where(any_nan, nan, hit)


def arg_extremum(z, axis, keepdims, largest):
    """The first index of the extreme element (or of the first NaN) along one axis."""
    rank = ir_type(z).rank
    axis = normalize_axes(axis, rank)[0]
    moved = _last_axis(z, (axis,))
    n = ir_type(moved).shape[-1]
    ramp = S.iota(shape=ir_type(moved).shape, dtype="i64", axis=rank - 1)
    first = S.reduce_min(where(_hits(moved, largest), ramp, n), axes=(rank - 1,),
                         keepdims=False)
    return _kept(first, (axis,), rank, keepdims)


def extremum(z, axes, keepdims, largest):
    """max / min over `axes`: the extreme value (the first NaN where there is one), its
    gradient shared among the elements equal to it."""
    rank = ir_type(z).rank
    axes = normalize_axes(axes, rank)
    if any(ir_type(z).shape[a] == 0 for a in axes):
        which = "maximum" if largest else "minimum"
        raise ValueError(f"zero-size array to reduction operation {which} which has no "
                         "identity")
    moved = _last_axis(z, axes)
    last = ir_type(moved).rank - 1
    ramp = S.iota(shape=ir_type(moved).shape, dtype="i64", axis=last)
    hits = _hits(moved, largest)
    n = ir_type(moved).shape[-1]
    first = S.reduce_min(where(hits, ramp, n), axes=(last,), keepdims=True)
    chosen = logical_or(eq(ramp, broadcast(first, ir_type(moved).shape)),
                        logical_and(hits, logical_not(isnan(moved))))
    count = S.reduce_sum(E.cast(chosen, dtype=ir_type(E.real(z)).dtype.name), axes=(last,),
                         keepdims=False)
    at_first = eq(ramp, broadcast(first, ir_type(moved).shape))

    def value(part):  # the one element picked, a signed zero or NaN as it is
        return S.reduce_max(where(at_first, part, -math.inf), axes=(last,), keepdims=False)
    # +0 with the gradient of -x: value - zero keeps a -0.0 part as it is
    zero = S.reduce_sum(where(chosen, sub(E.stop_gradient(moved), moved), 0), axes=(last,),
                        keepdims=False)
    # divided part by part: a complex division would spread a NaN part to both
    value = E.complex_(value(E.real(moved)), value(E.imag(moved)))
    out = sub(E.stop_gradient(value), E.complex_(E.div(E.real(zero), count),
                                                 E.div(E.imag(zero), count)))
    return _kept(out, axes, rank, keepdims)
