"""sin, cos and tan as inline LLVM IR: polynomials of r where x = q pi/2 + r (mathlib_reduce)."""
from __future__ import annotations

from gradjit.codegen.mathlib_core import FloatOps
from gradjit.codegen.mathlib_reduce import reduce

# sin r = r + r^3 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2): Chebyshev fits on |r| <= 0.8 (f64) /
# 0.87 (f32), covering the reduced range; relative errors 2^-57 / 2^-27.9 (sin), 2^-59 / 2^-29.8.
SIN_POLY = {
    64: (-0.16666666666666663, 0.008333333333330467, -0.00019841269836043575,
         2.7557315738586845e-06, -2.5051057394492127e-08, 1.5912864224903485e-10),
    32: (-0.1666666716337204, 0.008333330973982811, -0.00019839491869788617,
         2.7180599317944143e-06),
}
COS_POLY = {
    64: (0.041666666666666664, -0.0013888888888887096, 2.4801587298318395e-05,
         -2.755731704403567e-07, 2.0876099692314926e-09, -1.1379338585298136e-11),
    32: (0.0416666679084301, -0.0013888886896893382, 2.480010334693361e-05,
         -2.724308671986364e-07),
}


def _sin_cos(o: FloatOps, r):
    """(sin r, cos r) as (hi, lo) pairs: hi is the leading term plus the polynomial's in one
    FMA, which sin and cos use alone (cos leaves out the rounding error of 1 - r^2/2, within
    half an ulp); lo, which only tan reads, holds the rest (hi minus the leading term is exact,
    the two lie within a factor 2)."""
    w = o.width
    z = o.mul(r, r)
    rz, sin_poly = o.mul(r, z), o.poly(z, SIN_POLY[w])
    s = o.fma(rz, sin_poly, r)
    s_lo = o.sub(o.mul(rz, sin_poly), o.sub(s, r))
    hz = o.mul(z, 0.5)
    one_hz = o.sub(1.0, hz)
    zz, cos_poly = o.mul(z, z), o.poly(z, COS_POLY[w])
    c = o.fma(zz, cos_poly, one_hz)
    err = o.sub(o.sub(1.0, one_hz), hz)
    c_lo = o.add(err, o.sub(o.mul(zz, cos_poly), o.sub(c, one_hz)))
    return (s, s_lo), (c, c_lo)


def _bit(o: FloatOps, q, mask):
    return o.b.icmp_unsigned("!=", o.b.and_(q, o.ic(q, mask)), o.ic(q, 0))


def _signed_zero(o: FloatOps, x, res):
    """An odd function of +-0 is x itself (the polynomials give +0 for -0)."""
    return o.select(o.cmp("==", x, 0.0), x, res)


def _sin_quadrant(o: FloatOps, x, shift):
    r, q = reduce(o, x)
    if shift:
        q = o.b.add(q, o.ic(q, shift))
    (s, _), (c, _) = _sin_cos(o, r)
    v = o.select(_bit(o, q, 1), c, s)
    return o.select(_bit(o, q, 2), o.neg(v), v)


def emit_sin(o: FloatOps, x):
    return _signed_zero(o, x, _sin_quadrant(o, x, 0))


def emit_cos(o: FloatOps, x):
    return _sin_quadrant(o, x, 1)


def emit_tan(o: FloatOps, x):
    r, q = reduce(o, x)
    (s, s_lo), (c, c_lo) = _sin_cos(o, r)
    odd = _bit(o, q, 1)
    num, num_lo = o.select(odd, c, s), o.select(odd, c_lo, s_lo)
    den, den_lo = o.select(odd, s, c), o.select(odd, s_lo, c_lo)
    # one division: q = num / den, then its error corrected with the double-word remainder
    inv = o.div(1.0, den)
    q = o.mul(num, inv)
    rem = o.sub(o.add(o.fma(o.neg(q), den, num), num_lo), o.mul(q, den_lo))
    res = o.fma(rem, inv, q)
    return _signed_zero(o, x, o.select(odd, o.neg(res), res))
