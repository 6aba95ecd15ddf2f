"""The modified Bessel functions of the first kind of orders 0 and 1, plain (i0 is numpy's in
ops.special) and scaled by exp(-|x|), as compositions of elementwise ops: their gradients and
traces come from the compositions."""
from __future__ import annotations

import math

from gradjit.ir import elementwise as E
from gradjit.ops.array import abs_, add, eq, exp, le, mul, neg, sqrt, true_divide, where
from gradjit.ops.promote import to_float
from gradjit.ops.special import _in_float64
from gradjit.ops.ufuncs import signbit

# Up to this |x| the power series (x/2)^nu sum (x^2/4)^k / (k! (k + nu)!), whose terms are
# all positive, sums to double precision in _TERMS terms; beyond, the asymptotic series
# e^x / sqrt(2 pi x) sum (-1)^k a_k(nu) / x^k does, its terms still falling at _ASYMPTOTIC.
_SERIES_UP_TO = 20.0
_TERMS = 45
_ASYMPTOTIC = 30


def _power_coefficients(nu):
    return [1.0 / (math.factorial(k) * math.factorial(k + nu)) for k in range(_TERMS)]


def _asymptotic_coefficients(nu):
    coeffs, c = [1.0], 1.0
    for k in range(1, _ASYMPTOTIC):
        c *= (4 * nu * nu - (2 * k - 1) ** 2) / (8 * k)
        coeffs.append(c)
    return coeffs


def _horner(z, coeffs):
    acc = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        acc = add(mul(acc, z), c)
    return acc


def _modified_bessel_i(nu, scaled):
    """I_nu(x), times exp(-|x|) when scaled. Each branch gets a harmless input where the other
    is taken, so neither leaks inf or NaN into the gradient."""
    power, asymptotic = _power_coefficients(nu), _asymptotic_coefficients(nu)

    @_in_float64
    def fn(x):
        x = to_float(x)
        a = abs_(x)
        near = le(a, _SERIES_UP_TO)
        small = where(near, x, 0.0)
        half = mul(small, 0.5)
        series = _horner(mul(half, half), power)
        series = mul(series, half) if nu else series
        if scaled:
            series = mul(series, exp(neg(abs_(small))))
        large = where(near, _SERIES_UP_TO + 1.0, a)
        tail = true_divide(_horner(true_divide(-1.0, large), asymptotic),
                           sqrt(mul(large, 2 * math.pi)))
        if not scaled:
            tail = mul(tail, E.exp(large))
        if nu:
            tail = where(signbit(x), neg(tail), tail)
        out = where(near, series, tail)
        # at +-inf PyTorch gives NaN, or the scaled functions' limits 0 (-0 for I_1 at -inf)
        edge = where(signbit(x), -0.0, 0.0) if scaled and nu else 0.0 if scaled else math.nan
        return where(eq(a, math.inf), edge, out)
    return fn


i0e = _modified_bessel_i(0, True)
i1 = _modified_bessel_i(1, False)
i1e = _modified_bessel_i(1, True)
