"""Inverse trigonometric and hyperbolic functions of complex values on numpy's principal
branches, by Kahan's formulas ("Branch cuts for complex elementary functions"): real atan2
and asinh of the parts of complex square roots, so that the sign of a zero part picks the side
of a cut, and no cancellation loses the small parts. The real functions in ufuncs.py keep
their own formulas (accurate near the poles, odd at -0.0)."""
from __future__ import annotations

from gradjit.ir import elementwise as E
from gradjit.ops.array import add, log1p, mul, neg, sqrt, sub, true_divide


def _parts(z):
    return E.real(z), E.imag(z)


def _shifted(z, one, sign=1.0):
    """sign * z + one, part by part: a complex `one` would add +0 to the imaginary part and
    lose the sign of its zero, which chooses the side of the cut."""
    a, b = _parts(z)
    return E.complex_(add(one, mul(a, sign)), mul(b, sign)) if sign < 0 else \
        E.complex_(add(a, one), b)


def _asinh(t):
    from gradjit import ops  # (ops imports this module)
    return ops.arcsinh(t)


def _times_i(z):
    """i z (exact: a swap of parts and one sign)."""
    return E.complex_(neg(E.imag(z)), E.real(z))


def _over_i(w):
    """-i w."""
    return E.complex_(E.imag(w), neg(E.real(w)))


def _roots(z):
    """(sqrt(1 - z), sqrt(1 + z)) as their parts."""
    return _parts(sqrt(_shifted(z, 1.0, -1.0))) + _parts(sqrt(_shifted(z, 1.0)))


def arcsin(z):
    """atan2(Re z, Re(s1 s2)) + i asinh(Im(conj(s1) s2)), s1 = sqrt(1 - z), s2 = sqrt(1 + z)."""
    r1, i1, r2, i2 = _roots(z)
    real = E.atan2(E.real(z), sub(mul(r1, r2), mul(i1, i2)))
    return E.complex_(real, _asinh(sub(mul(r1, i2), mul(i1, r2))))


def arccos(z):
    """2 atan2(Re s1, Re s2) + i asinh(Im(conj(s2) s1)), s1 = sqrt(1 - z), s2 = sqrt(1 + z)."""
    r1, i1, r2, i2 = _roots(z)
    return E.complex_(mul(E.atan2(r1, r2), 2.0), _asinh(sub(mul(r2, i1), mul(i2, r1))))


def arccosh(z):
    """asinh(Re(conj(s1) s2)) + 2i atan2(Im s1, Re s2), s1 = sqrt(z - 1), s2 = sqrt(z + 1)."""
    r1, i1 = _parts(sqrt(_shifted(z, -1.0)))
    r2, i2 = _parts(sqrt(_shifted(z, 1.0)))
    return E.complex_(_asinh(add(mul(r1, r2), mul(i1, i2))), mul(E.atan2(i1, r2), 2.0))


def arcsinh(z):
    """-i arcsin(i z)."""
    return _over_i(arcsin(_times_i(z)))


def arctanh(z):
    """log1p(4a / ((1 - a)^2 + b^2)) / 4 + i atan2(2b, (1 - a)(1 + a) - b^2) / 2 for z = a + ib:
    inf at 1, and the imaginary part's zero sign kept on the cuts (|a| > 1)."""
    a, b = _parts(z)
    one_minus = sub(1.0, a)
    real = log1p(true_divide(mul(a, 4.0), add(mul(one_minus, one_minus), mul(b, b))))
    imag = E.atan2(mul(b, 2.0), sub(mul(one_minus, add(1.0, a)), mul(b, b)))
    return E.complex_(mul(real, 0.25), mul(imag, 0.5))


def arctan(z):
    """-i arctanh(i z)."""
    return _over_i(arctanh(_times_i(z)))
