"""erf and erfc as inline LLVM IR: an odd polynomial below 1, exp(-x^2) G(x) with piecewise G
above (erf = 1 - that; erfc keeps it, to where it underflows)."""
from __future__ import annotations

from gradjit.codegen.mathlib_core import FloatOps
from gradjit.codegen.mathlib_exp import exp_finite

# erf x = x + x (2/sqrt(pi) - 1 + x^2 P(x^2)) for |x| < 1, x added last so that the rounding
# error stays small: Chebyshev fits of P, relative error 2^-55 / 2^-26.
TWO_OVER_SQRT_PI_M1 = {64: 0.1283791670955126, 32: 0.12837917}
ERF_SMALL = {
    64: (-0.37612638903183754, 0.11283791670955111, -0.026866170645123838, 0.005223977625303518,
         -0.0008548327010033328, 0.00012055332214716276, -1.4925622504489842e-05,
         1.6461446656928561e-06, -1.6355118610877705e-07, 1.4692484859133263e-08,
         -1.1500357159785296e-09, 6.174097221305255e-11),
    32: (-0.37612637877464294, 0.1128375381231308, -0.026861699298024178, 0.0052045788615942,
         -0.0008161986479535699, 8.3797553088516e-05),
}
# G(x) = erfc(x) exp(x^2) as polynomials in x - center on [1, 1.75), [1.75, 3), [3, 6] (f64) and
# [1, 2), [2, 4] (f32), fitted so erfc's error is below 2^-56.6 / 2^-29.2 of erf. erf rounds to 1
# from the last bound on.
ERF_PIECES = {
    64: ((1.75, 3.0), (1.375, 2.375, 4.5), (
        (0.3432958898621254, -0.18431546997466786, 0.0898621186469572, -0.04050337122337939,
         0.017084991607384397, -0.0068046031069620375, 0.0025762207796585063,
         -0.0009320855247556798, 0.0003236507608830272, -0.00010823781400128916,
         3.496529260563313e-05, -1.0929100850464208e-05, 3.318360476569604e-06,
         -1.0229725274927372e-06, 2.9351763866510716e-07),
        (0.22050569220490668, -0.08097712912220784, 0.028185010539668057, -0.009358486060146724,
         0.0029793030731492145, -0.0009130565096666135, 0.000270264626094313,
         -7.74793727872375e-05, 2.1562727798673356e-05, -5.8377000090791615e-06,
         1.5399121628207691e-06, -3.951289194736307e-07, 9.943062953990635e-08,
         -2.669476776570837e-08, 6.415442177131722e-09),
        (0.12248480427384142, -0.026015928631509557, 0.005413125434707973,
         -0.0011045761073522258, 0.00022126645294331227, -4.355087367683847e-05,
         8.429249578396902e-06, -1.6054022457490178e-06, 3.0111042189803245e-07,
         -5.575245247397408e-08, 1.015667601948701e-08, -1.7644383401741585e-09,
         3.134733985388138e-10, -7.29638833238079e-11, 1.2544448035973996e-11)), 6.0),
    32: ((2.0,), (1.5, 3.0), (
        (0.32158541679382324, -0.1636229008436203, 0.0761510357260704, -0.03293146565556526,
         0.013377516530454159, -0.005137920379638672, 0.001883612829260528,
         -0.0007043126388452947, 0.00023661853629164398),
        (0.17900115251541138, -0.054372210055589676, 0.015884360298514366,
         -0.0044800820760428905, 0.0012231910368427634, -0.0003218066121917218,
         8.301259367726743e-05, -2.400379344180692e-05, 5.851073638041271e-06)), 4.0),
}


# erfc x = exp(-x^2) G(x) for x >= 1, to where erfc underflows (`top`), with G fitted for
# relative accuracy (ERF_PIECES only need it relative to erf): in piece i, from bounds[i] on,
# G = P_i(s) with s = (x - c) / h, or G = P_i(s) / x with s = (1/x^2 - c) / h ("v" pieces, where
# G is close to 1 / (x sqrt(pi))). Relative errors of G: 2^-54.1, 2^-53.6, 2^-56.2, 2^-55.4
# (f64); the f32 pieces are those of erf and a tail of 2^-26.2.
ERFC_PIECES = {
    64: ((((1.0, "x", 1.375, 0.375), (
        0.3432958898621254, -0.06911830124050045, 0.012636860434728328, -0.002135919966857917,
        0.00033786238286135246, -5.046138168294307e-05, 7.16424922033122e-06,
        -9.720187395864647e-07, 1.2656884079403074e-07, -1.587305049056891e-08,
        1.922857494102554e-09, -2.2538746306354401e-10, 2.5671344518236522e-11,
        -2.966458203069193e-12, 3.1667250755231195e-13)),
         ((1.75, "x", 2.375, 0.625), (
        0.22050569220490665, -0.05061070570137871, 0.011009769742058386, -0.0022847866358224013,
        0.00045460557145558523, -8.707585378982502e-05, 1.610902708674232e-05,
        -2.8863338441680883e-06, 5.02046227612166e-07, -8.494412365080426e-08,
        1.4005642005416461e-08, -2.2533715846019458e-09, 3.5308669874124705e-10,
        -5.438996883731396e-11, 8.949474599257291e-12, -1.3029079383067555e-12)),
         ((3.0, "v", 0.06944444444444445, 0.041666666666666664), (
        0.5463523909757899, -0.009792373470947463, 0.0004756183098825665,
        -3.520998658550683e-05, 3.369188221607581e-06, -3.856126142186583e-07,
        5.0494592640310214e-08, -7.352815958756829e-09, 1.1675480573779152e-09,
        -1.9932304487248355e-10, 3.622020504228678e-11, -6.941463195014248e-12,
        1.3664243301322025e-12, -2.843714050577153e-13, 7.857903348163048e-14,
        -1.8110196705548463e-14)),
         ((6.0, "v", 0.0, 1.0), (
        0.5641895835477562, -0.2820947917736802, 0.42314218751861843, -1.0578554154608075,
        3.702482068866689, -16.659492137291227, 91.47199053878983, -585.0303166501164,
        4002.5077756066758, -24200.272953018077, 86683.68250085002))), 27.5),
    32: ((((1.0, "x", 1.5, 1.0), ERF_PIECES[32][2][0]),
         ((2.0, "x", 3.0, 1.0), ERF_PIECES[32][2][1]),
         ((4.0, "v", 0.0, 1.0), (
        0.5641895532608032, -0.2820890545845032, 0.42259493470191956, -1.0316054821014404,
        3.010138750076294, -6.29083251953125))), 10.1),
}


def _piecewise(o: FloatOps, a, bounds, values):
    """values[i] where a lies in the i-th piece cut by `bounds` (ascending), per lane."""
    out = o.v(values[0])
    for bound, value in zip(bounds, values[1:]):
        out = o.select(o.cmp(">=", a, bound), value, out)
    return out


def _erf_small(o: FloatOps, x):
    """erf x for |x| < 1."""
    w = o.width
    z = o.mul(x, x)
    return o.fma(x, o.fma(z, o.poly(z, ERF_SMALL[w]), TWO_OVER_SQRT_PI_M1[w]), x)


def emit_erf(o: FloatOps, x):
    w = o.width
    bounds, centers, coeffs, one = ERF_PIECES[w]
    a = o.abs(x)
    a = o.select(o.cmp("<", a, one), a, one)
    t = o.sub(a, _piecewise(o, a, bounds, centers))
    g = o.poly(t, [_piecewise(o, a, bounds, cs) for cs in zip(*coeffs)])
    a2, a2_lo = o.two_prod(a, a)
    erfc = o.mul(exp_finite(o, o.neg(a2), o.neg(a2_lo)), g)
    large = o.copysign(o.sub(1.0, erfc), x)
    return o.keep_nan(x, o.select(o.cmp("<", a, 1.0), _erf_small(o, x), large))


def _erfc_large(o: FloatOps, a):
    """erfc a = exp(-a^2) G(a) for 1 <= a <= top (a is clamped into that range)."""
    pieces, top = ERFC_PIECES[o.width]
    a = o.clamp(a, 1.0, top)
    bounds = [p[0][0] for p in pieces[1:]]
    degree = max(len(p[1]) for p in pieces)
    coeffs = [tuple(p[1]) + (0.0,) * (degree - len(p[1])) for p in pieces]
    per_piece = [_piecewise(o, a, bounds, column) for column in zip(*coeffs)]
    steep = o.cmp("<", a, next(p[0][0] for p in pieces if p[0][1] == "v"))
    u = o.select(steep, a, o.div(1.0, o.mul(a, a)))
    c = _piecewise(o, a, bounds, [p[0][2] for p in pieces])
    inv_h = _piecewise(o, a, bounds, [1.0 / p[0][3] for p in pieces])
    p = o.poly(o.mul(o.sub(u, c), inv_h), per_piece)
    g = o.select(steep, p, o.div(p, a))
    a2, a2_lo = o.two_prod(a, a)
    return o.mul(exp_finite(o, o.neg(a2), o.neg(a2_lo)), g), top


def emit_erfc(o: FloatOps, x):
    """1 - erf below 1 in magnitude (it cancels by less than 4x there), exp(-x^2) G(|x|) above
    (2 minus that for negative x), 0 where that underflows."""
    a = o.abs(x)
    large, top = _erfc_large(o, a)
    tail = o.select(o.cmp("<", a, top), large, 0.0)
    large = o.select(o.cmp("<", x, 0.0), o.sub(2.0, tail), tail)
    return o.keep_nan(x, o.select(o.cmp("<", a, 1.0), o.sub(1.0, _erf_small(o, x)), large))
