"""atan2 as inline LLVM IR: atan of t = min/max(|x|, |y|) in [0, 1], reduced to |u| <= tan(pi/8)
by atan t = pi/4 + atan((t - 1) / (t + 1)), then an odd polynomial; quadrants, signed zeros and
infinities are set after, as C99 Annex F (and numpy) define them."""
from __future__ import annotations

import math

from gradjit.codegen.mathlib_core import FloatOps

TAN_PI_8 = math.sqrt(2.0) - 1.0
# atan u = u + u^3 P(u^2) on |u| <= tan(pi/8): least-squares fits of relative error 2^-58.7 (f64)
# / 2^-28.8 (f32).
ATAN_POLY = {
    64: (-0.33333333333333326, 0.19999999999997575, -0.14285714285378395, 0.1111111108766921,
         -0.09090908128628628, 0.07692282442823326, -0.066662226198888, 0.058769855975500676,
         -0.05218195053785969, 0.045027816530914574, -0.03345828485587056,
         0.015180259821583797),
    32: (-0.3333333134651184, 0.19999901950359344, -0.1428195685148239, 0.11044137179851532,
         -0.08473484218120575, 0.04738776758313179),
}
# pi/4, pi/2 and pi as hi + lo pairs of each width.
PI_PARTS = {
    64: {k: (math.pi * k, 1.2246467991473532e-16 * k) for k in (0.25, 0.5, 1.0)},
    32: {k: (3.1415927410125732 * k, -8.742278e-08 * k) for k in (0.25, 0.5, 1.0)},
}


def _atan01(o: FloatOps, t):
    """atan t for t in [0, 1]."""
    w = o.width
    big = o.cmp(">", t, TAN_PI_8)
    u = o.select(big, o.div(o.sub(t, 1.0), o.add(t, 1.0)), t)
    z = o.mul(u, u)
    tail = o.mul(o.mul(u, z), o.poly(z, ATAN_POLY[w]))
    hi, lo = PI_PARTS[w][0.25]
    return o.add(o.select(big, hi, 0.0), o.add(u, o.add(tail, o.select(big, lo, 0.0))))


def emit_atan2(o: FloatOps, y, x):
    ax, ay = o.abs(x), o.abs(y)
    steep = o.cmp(">", ay, ax)
    num, den = o.select(steep, ax, ay), o.select(steep, ay, ax)
    t = o.div(num, den)
    t = o.select(o.cmp("==", num, float("inf")), 1.0, t)  # both infinite: the diagonal
    t = o.select(o.cmp("==", den, 0.0), 0.0, t)  # both zero: the angle of +-0 or -0
    a = _atan01(o, t)
    left = o.b.icmp_signed("<", o.bits(x), o.ic(o.bits(x), 0))  # x < 0 or x is -0.0
    # the angle is base +- a: pi/2 - a, pi/2 + a (steep), pi - a (left) or a, one rounding
    parts = PI_PARTS[o.width]
    hi = o.select(steep, parts[0.5][0], o.select(left, parts[1.0][0], 0.0))
    lo = o.select(steep, parts[0.5][1], o.select(left, parts[1.0][1], 0.0))
    signed = o.select(o.b.xor(steep, left), o.neg(a), a)
    r = o.copysign(o.add(hi, o.add(signed, lo)), y)
    return o.select(o.b.or_(o.isnan(x), o.isnan(y)), o.add(x, y), r)
