"""Inverse trigonometric and hyperbolic functions of complex values, on numpy's principal
branches, over the complex-capable exp, log and sqrt primitives. The real functions in
ufuncs.py keep their own formulas (accurate near the poles, odd at -0.0)."""
from __future__ import annotations

import math

from gradjit.ir import elementwise as E
from gradjit.ops.array import (add, log, log1p, lt, mul, neg, sqrt, sub, true_divide,
                               where)


def _odd_in_real_part(f, z):
    """f on the half plane Re z >= 0, extended by f(-z) = -f(z): the textbook formulas lose
    every digit to cancellation where Re z is large and negative."""
    flip = lt(E.real(z), 0.0)
    w = f(where(flip, neg(z), z))
    return where(flip, neg(w), w)


def _log1p(z):
    """log(1 + z) from its parts: log|1 + z| = log1p(2a + a^2 + b^2) / 2 keeps the digits of a
    small z that forming 1 + z would drop (numpy's complex log1p forms it)."""
    a, b = E.real(z), E.imag(z)
    return E.complex_(mul(log1p(add(mul(a, 2.0), add(mul(a, a), mul(b, b)))), 0.5),
                      E.atan2(b, add(a, 1.0)))


def _times_i(z):
    """i z (exact: a swap of parts and one sign)."""
    return E.complex_(neg(E.imag(z)), E.real(z))


def arcsinh(z):
    """log(z + sqrt(z^2 + 1)), written as log1p(z + z^2 / (1 + sqrt(z^2 + 1))) to stay exact
    near 0."""
    def right_half(w):
        w2 = mul(w, w)
        return _log1p(add(w, true_divide(w2, add(sqrt(add(w2, 1.0)), 1.0))))
    return _odd_in_real_part(right_half, z)


def arccosh(z):
    """log(z + sqrt(z + 1) sqrt(z - 1)): the product of roots puts the cut on (-inf, 1]."""
    return log(add(z, mul(sqrt(add(z, 1.0)), sqrt(sub(z, 1.0)))))


def arctanh(z):
    """(log1p(z) - log1p(-z)) / 2, halved part by part (a complex product would turn
    arctanh(1) = inf + 0j into inf + nanj)."""
    w = sub(_log1p(z), _log1p(neg(z)))
    return E.complex_(mul(E.real(w), 0.5), mul(E.imag(w), 0.5))


def arcsin(z):
    """-i arcsinh(i z); on its cuts (real, |z| > 1), where i z loses the sign of the zero
    imaginary part, +-pi/2 + i acosh|z| with the sign of that zero, as numpy."""
    from gradjit import ops  # (ops imports this module)
    a, b = E.real(z), E.imag(z)
    on_cut = ops.logical_and(ops.eq(b, 0.0), ops.gt(ops.abs_(a), 1.0))
    cut = E.complex_(ops.copysign(math.pi / 2, a), ops.copysign(ops.arccosh(ops.abs_(a)), b))
    return where(on_cut, cut, neg(_times_i(arcsinh(_times_i(z)))))


def arccos(z):
    """pi/2 - arcsin(z)."""
    return sub(math.pi / 2, arcsin(z))


def arctan(z):
    """-i arctanh(i z)."""
    return neg(_times_i(arctanh(_times_i(z))))
