"""scipy.special's (and torch.special's) functions on the erf and erfc primitives and
compositions: erf, erfc, expit, logit, xlogy, xlog1py, ndtr, log_ndtr, gammaln and digamma; their
gradients come from the compositions."""
from __future__ import annotations

import math

# numpy's own Cephes coefficients of i0, so that np.i0 on traced values is numpy's function
from numpy.lib._function_base_impl import _i0A, _i0B

from gradjit.ir import elementwise as E
from gradjit.ir.primitive import ir_type
from gradjit.ops.array import (abs_, add, eq, exp, floor, gt, le, log, log1p, logical_and,
                               logical_not, logical_or, lt, mul, neg, power, sin, sqrt, sub, tan,
                               true_divide, where)
from gradjit.ops.promote import astype, flavor, to_float
from gradjit.ops.ufuncs import arctanh, floats, isnan, signbit

SQRT_HALF = math.sqrt(0.5)
HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
# Below this, gammaln and digamma shift x up by _SHIFT with the recurrences, so that their
# asymptotic series (truncated after the terms below) are accurate to double precision.
_SHIFT = 10
# B_2k / (2k (2k - 1)), the coefficients of Stirling's series for log Gamma, and
# B_2k / (2k), those of the asymptotic series of digamma.
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
_DIGAMMA = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)
# lgamma(2 + z) = sum c_k z^k (k >= 1): c_1 = 1 - Euler's gamma, c_k = (-1)^k (zeta(k) - 1) / k;
# 30 terms leave 1e-17 at |z| = 1/2. gammaln uses it on [1/2, 5/2), where it is relatively
# accurate at its zeros 1 and 2 (the recurrences are only absolutely accurate there).
_LGAMMA_NEAR_2 = (
    0.42278433509846713, 0.3224670334241132, -0.0673523010531981, 0.020580808427784546,
    -0.007385551028673986, 0.0028905103307415234, -0.001192753911703261,
    0.0005096695247430425, -0.00022315475845357939, 9.945751278180853e-05,
    -4.492623673813314e-05, 2.050721277567069e-05, -9.439488275268397e-06,
    4.374866789907488e-06, -2.039215753801366e-06, 9.55141213040742e-07,
    -4.492469198764566e-07, 2.1207184805554665e-07, -1.0043224823968099e-07,
    4.7698101693639804e-08, -2.2711094608943164e-08, 1.0838659214896955e-08,
    -5.183475041970047e-09, 2.4836745438024785e-09, -1.1921401405860912e-09,
    5.731367241678862e-10, -2.7595228851242334e-10, 1.330476437424449e-10,
    -6.4229645638381e-11, 3.1044247747322276e-11)


def erf(x):
    return E.erf(to_float(x))


def _in_float64(fn):
    """fn computed in float64 for float32 input and rounded once: its cancellations (1 - erf,
    the recurrences of gammaln) then cost float64 ulps, far below a float32 ulp."""
    def apply(x):
        x = to_float(x)
        dt = ir_type(x).dtype
        return fn(x) if dt.name == "f64" else astype(fn(astype(x, "f64")), dt)
    apply.__name__, apply.__doc__ = fn.__name__, fn.__doc__
    return apply


def erfc(x):
    return E.erfc(to_float(x))


def ndtr(x):
    """erfc(-x / sqrt 2) / 2: relatively accurate in the lower tail too."""
    return mul(erfc(mul(to_float(x), -SQRT_HALF)), 0.5)


# log_ndtr below these uses the asymptotic series (erfc(-x / sqrt 2) turns subnormal lower)
_LOG_NDTR_TAIL = {"f32": -12.0, "f64": -30.0}


def log_ndtr(x):
    """log ndtr(x): log1p(-ndtr(-x)) above 0, log ndtr(x) below, and far below
    -x^2/2 - log(-x sqrt(2 pi)) + log(sum (-1)^n (2n - 1)!! / x^2n)."""
    x = to_float(x)
    limit = _LOG_NDTR_TAIL[ir_type(x).dtype.name]
    tail = lt(x, limit)
    xt = where(tail, x, limit)
    w = true_divide(1.0, mul(xt, xt))
    series, term = 1.0, 1.0
    for n in range(1, 8):
        term = -term * (2 * n - 1)
        series = add(series, mul(term, power(w, float(n))))
    asymptotic = sub(sub(mul(mul(xt, xt), -0.5), log(neg(xt))), HALF_LOG_2PI)
    asymptotic = add(asymptotic, log(series))
    xs = where(tail, 0.0, x)
    above = gt(xs, 0)
    # the upper branch only sees positive x: below it ndtr(-x) rounds to 1, and log1p's
    # infinite derivative there would turn where's zero gradient into NaN
    upper = log1p(neg(ndtr(neg(where(above, xs, 0.0)))))
    body = where(above, upper, log(ndtr(xs)))
    return where(tail, asymptotic, body)


def expit(x):
    return E.sigmoid(to_float(x))


def logit(p):
    """log p - log1p(-p), which never cancels away from 1/2 and has the infinite gradients at 0
    and 1; near 1/2 it is 2 atanh(2p - 1), where 2p - 1 is exact."""
    p = to_float(p)
    middle = logical_and(lt(0.3, p), lt(p, 0.7))
    return where(middle, mul(arctanh(sub(mul(p, 2.0), 1.0)), 2.0),
                 sub(log(p), log1p(neg(p))))


# erfinv's first guess (Winitzki's closed form, about 2e-3 relative) takes this constant
_WINITZKI = 0.147
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


def erfinv(y):
    """The r with erf(r) = y: a closed-form guess, then three Halley steps on erf (|y| < 1/2)
    or on erfc(r) = 1 - |y| (exact there), which stays relatively accurate up to |y| -> 1;
    +-inf at +-1, NaN beyond. Its gradient is that of the steps: sqrt(pi)/2 exp(r^2)."""
    y = to_float(y)
    negative = signbit(y)
    a = where(negative, neg(y), y)
    inside = lt(a, 1.0)
    t = where(inside, a, 0.5)
    log_term = log1p(neg(mul(t, t)))  # log(1 - t^2)
    b = add(2 / (math.pi * _WINITZKI), mul(log_term, 0.5))
    r = E.sqrt(sub(E.sqrt(sub(mul(b, b), true_divide(log_term, _WINITZKI))), b))
    # The steps alone carry the gradient: the guess's (1 at 0, NaN near it, where its square
    # roots cancel) would only be damped by them, not removed.
    r = E.stop_gradient(where(eq(t, 0), t, r))
    central = lt(t, 0.5)
    target = where(central, t, sub(1.0, t))
    for _ in range(3):
        # f / f' for f = erf(r) - t (central) or erfc(r) - (1 - t), f' = -+2/sqrt(pi) e^(-r^2)
        residual = where(central, sub(E.erf(r), target), sub(target, E.erfc(r)))
        delta = mul(mul(residual, _HALF_SQRT_PI), E.exp(mul(r, r)))
        r = sub(r, true_divide(delta, add(mul(r, delta), 1.0)))
    out = where(inside, r, where(eq(a, 1.0), math.inf, where(isnan(a), a, math.nan)))
    return where(negative, neg(out), out)


def _x_log(f, pole):
    def apply(x, y):
        """x f(y); +0 where x is 0 (unless y is NaN). There the gradient in x is f(y), or 0
        where f(y) is not finite, as in PyTorch."""
        x, y = floats(x, y)
        zero = eq(x, 0)
        y = where(logical_and(zero, logical_or(le(y, pole), eq(y, math.inf))), pole + 1.0, y)
        out = mul(x, f(y))
        return where(zero, sub(out, E.stop_gradient(out)), out)  # -0.0 - -0.0 is +0.0
    return apply


xlogy, xlog1py = _x_log(log, 0.0), _x_log(log1p, -1.0)


def _series(z, coeffs, power):
    """sum(c / z^(power + 2k)) by Horner's rule in 1/z^2."""
    w = true_divide(1.0, mul(z, z))
    acc = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        acc = add(mul(acc, w), c)
    return true_divide(acc, z) if power == 1 else mul(acc, w)


def _shifted(x, big):
    """(x where big, else x + _SHIFT; the terms x, x + 1, ..., x + _SHIFT - 1 of the
    recurrences, of 1 where big so that they stay finite)."""
    small = where(big, 1.0, x)
    return where(big, x, add(x, float(_SHIFT))), [add(small, float(k)) for k in range(_SHIFT)]


def _pole(x, left):
    """x is 0 or a negative integer."""
    return logical_and(left, eq(floor(x), x))


def _positive_gammaln(x):
    big = lt(float(_SHIFT), x)
    z, terms = _shifted(x, big)
    stirling = add(sub(mul(sub(z, 0.5), log(z)), z), add(HALF_LOG_2PI, _series(z, _STIRLING, 1)))
    product = terms[0]
    for t in terms[1:]:
        product = mul(product, t)
    return where(big, stirling, sub(stirling, log(product)))


# digamma's zero x0 as hi + lo, and digamma(x0 + d) = sum a_k d^k (k >= 1), a_k the k-th
# derivative at x0 over k!: 26 terms leave 4e-17 relative on [1.2, 1.8), where digamma uses it.
_DIGAMMA_ZERO = (1.4616321449683622, 9.549995429965697e-17)
_DIGAMMA_NEAR_ZERO = (
    0.9676722454476212, -0.4427631689835921, 0.258499760955651, -0.16394270544240652,
    0.10782405069126237, -0.07219956125645471, 0.04880428816414311, -0.03316112647484736,
    0.022597648232218104, -0.01542476590494896, 0.010538791616612175, -0.007204534386356869,
    0.004926781395729853, -0.003369801655439328, 0.002305126326734928, -0.0015769367714301972,
    0.0010788252019162967, -0.0007380709389960052, 0.000504953265834602,
    -0.0003454680251063077, 0.00023635601564027053, -0.00016170622091974803,
    0.0001106337276874741, -7.569179582195066e-05, 5.178575795222081e-05,
    -3.5430070947659604e-05)


def _power_series(z, coeffs):
    """sum coeffs[k] z^(k + 1), by Horner's rule."""
    acc = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        acc = add(mul(acc, z), c)
    return mul(acc, z)


def _gammaln_near_1_and_2(x):
    """The series about 2 for x in [1.5, 2.5); below, lgamma(x + 1) - log x."""
    below = lt(x, 1.5)
    z = where(below, sub(x, 1.0), sub(x, 2.0))
    series = _power_series(z, _LGAMMA_NEAR_2)
    return where(below, sub(series, log1p(z)), series)


@_in_float64
def gammaln(x):
    """log |Gamma(x)|: inf at 0 and the negative integers; reflection below 1/2. At -inf, scipy
    gives -inf and PyTorch inf."""
    x = to_float(x)
    left = lt(x, 0.5)
    pole = _pole(x, left)
    xr = where(pole, 0.5, x)
    reflected = sub(log(true_divide(math.pi, E.abs_(sin(mul(xr, math.pi))))),
                    _positive_gammaln(sub(1.0, where(left, xr, 0.5))))
    out = where(left, reflected, _positive_gammaln(where(left, 1.0, x)))
    near = logical_and(logical_not(left), lt(x, 2.5))
    out = where(near, _gammaln_near_1_and_2(where(near, x, 2.0)), out)
    out = where(pole, math.inf, where(eq(x, math.inf), math.inf, out))
    return where(eq(x, -math.inf), -math.inf if flavor(x) == "numpy" else math.inf, out)


def _positive_digamma(x):
    big = lt(float(_SHIFT), x)
    z, terms = _shifted(x, big)
    asymptotic = sub(sub(log(z), true_divide(0.5, z)), _series(z, _DIGAMMA, 2))
    harmonic = true_divide(1.0, terms[0])
    for t in terms[1:]:
        harmonic = add(harmonic, true_divide(1.0, t))
    return where(big, asymptotic, sub(asymptotic, harmonic))


@_in_float64
def digamma(x):
    """d/dx log Gamma(x); reflection below 1/2; -inf at 0 and inf at -0 (as scipy gives),
    NaN at negative integers."""
    x = to_float(x)
    left = lt(x, 0.5)
    pole = _pole(x, left)
    xr = where(pole, 0.5, x)
    reflected = sub(_positive_digamma(sub(1.0, where(left, xr, 0.5))),
                    true_divide(math.pi, tan(mul(xr, math.pi))))
    out = where(left, reflected, _positive_digamma(where(left, 1.0, x)))
    near = logical_and(le(1.2, x), lt(x, 1.8))
    d = sub(sub(where(near, x, 1.5), _DIGAMMA_ZERO[0]), _DIGAMMA_ZERO[1])  # the first is exact
    out = where(near, _power_series(d, _DIGAMMA_NEAR_ZERO), out)
    at_pole = where(eq(x, 0), where(signbit(x), math.inf, -math.inf), math.nan)
    at_pole = astype(at_pole, ir_type(x).dtype)
    return where(pole, at_pole, where(isnan(x), x, out))


# B_2k, k = 1..8: the coefficients of the polygamma functions' asymptotic series.
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
# The series is accurate to double precision from here; smaller x is shifted up to it.
POLYGAMMA_FROM = 20


def polygamma(n, x, shift=POLYGAMMA_FROM):
    """psi^(n)(x), n >= 1: the recurrence psi^(n)(x) = psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1)
    `shift` times, then the asymptotic series at z = x + shift (accurate once z >= 20, which
    the caller's shift provides for its smallest x). Poles at 0 and the negative integers."""
    def compute(x):
        sign = -1.0 if n % 2 == 0 else 1.0
        z = add(x, float(shift))
        total = add(true_divide(math.factorial(n - 1), power(z, float(n))),
                    true_divide(math.factorial(n) / 2, power(z, float(n + 1))))
        for k, b in enumerate(_BERNOULLI, 1):
            c = b * math.factorial(2 * k + n - 1) / math.factorial(2 * k)
            total = add(total, true_divide(c, power(z, float(2 * k + n))))
        for k in range(shift):
            total = add(total, true_divide(math.factorial(n), power(add(x, float(k)),
                                                                    float(n + 1))))
        return mul(total, sign)
    return _in_float64(compute)(x)


def _chebyshev(t, coeffs):
    """A Chebyshev series at t by Clenshaw's recurrence, in Cephes' chbevl convention (half
    the first coefficient's term), step for step as numpy's i0 sums it."""
    b0, b1, b2 = float(coeffs[0]), 0.0, 0.0
    for c in coeffs[1:]:
        b2, b1 = b1, b0
        b0 = add(sub(mul(t, b1), b2), float(c))
    return mul(sub(b0, b2), 0.5)


def i0(x):
    """numpy's i0, the modified Bessel function of the first kind of order 0: numpy's own
    Chebyshev coefficients (Cephes) on |x| <= 8 and beyond, so its values; the derivative, i1,
    is the derivative of those series. Each branch gets a harmless input where the other is
    taken, so no inf reaches the gradient."""
    if not ir_type(x).dtype.is_float:
        x = astype(x, "float64")  # numpy's x.astype(float), whatever the flavor
    x = abs_(x)
    near = le(x, 8.0)
    small = where(near, x, 0.0)
    large = where(near, 9.0, x)
    inner = mul(exp(small), _chebyshev(sub(true_divide(small, 2.0), 2.0), _i0A))
    outer = true_divide(mul(exp(large), _chebyshev(sub(true_divide(32.0, large), 2.0), _i0B)),
                        sqrt(large))
    return where(near, inner, outer)


# erfcx above this is its asymptotic series 1/(x sqrt(pi)) sum (-1)^k (2k-1)!! / (2x^2)^k,
# whose 14 terms leave 1e-17 there; below, exp(x^2) erfc(x) (inf below -26.6, as PyTorch's).
_ERFCX_TAIL = 10.0


@_in_float64
def erfcx(x):
    """exp(x^2) erfc(x), the scaled complementary error function."""
    x = to_float(x)
    tail = lt(_ERFCX_TAIL, x)
    xt = where(tail, x, _ERFCX_TAIL)
    w = true_divide(1.0, mul(mul(xt, xt), 2.0))
    series, term = 1.0, 1.0
    for k in range(1, 14):
        term = -term * (2 * k - 1)
        series = add(series, mul(term, power(w, float(k))))
    asymptotic = true_divide(series, mul(xt, math.sqrt(math.pi)))
    xs = where(tail, 0.0, x)
    return where(tail, asymptotic, mul(E.exp(mul(xs, xs)), erfc(xs)))


def entr(x):
    """-x log x: 0 at 0, -inf below."""
    x = to_float(x)
    positive = lt(0.0, x)
    xs = where(positive, x, 1.0)
    return where(positive, neg(mul(xs, log(xs))),
                 where(eq(x, 0), 0.0, where(isnan(x), x, -math.inf)))


# Abramowitz and Stegun 26.2.23: a first guess of the lower tail's quantile (4.5e-4 absolute)
_TAIL_NUMERATOR = (2.515517, 0.802853, 0.010328)
_TAIL_DENOMINATOR = (1.0, 1.432788, 0.189269, 0.001308)


def _polynomial(t, coeffs):
    acc = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        acc = add(mul(acc, t), c)
    return acc


def _newton_log_ndtr(x, target):
    """One Newton step on log ndtr(x) = target: log ndtr is relatively accurate in the lower
    tail and its slope there, ndtr'/ndtr, never underflows."""
    ln = log_ndtr(x)
    slope = true_divide(E.exp(sub(mul(mul(x, x), -0.5), ln)), math.sqrt(2 * math.pi))
    return sub(x, true_divide(sub(ln, target), slope))


# Newton's step has zero slope in x at the root, so a step from an x whose derivatives are
# right to order k - 1 gives x right to order k: the last steps, from a constant, carry them
_CARRYING_STEPS = 3


@_in_float64
def ndtri(p):
    """The standard normal quantile: -inf at 0, inf at 1, NaN outside [0, 1]. The lower tail
    solves log ndtr(x) = log p (the upper one = log(1 - p), exact for p >= 1/2) by Newton's
    method; the last _CARRYING_STEPS steps carry the derivatives (the first is
    sqrt(2 pi) exp(x^2 / 2)) up to that order."""
    p = to_float(p)
    inside = logical_and(lt(0.0, p), lt(p, 1.0))
    ps = where(inside, p, 0.5)
    upper = le(0.5, ps)
    target = where(upper, log1p(neg(ps)), log(ps))
    fixed = E.stop_gradient(target)
    t = E.sqrt(mul(fixed, -2.0))
    x = neg(sub(t, true_divide(_polynomial(t, _TAIL_NUMERATOR),
                                _polynomial(t, _TAIL_DENOMINATOR))))
    for _ in range(4):
        x = _newton_log_ndtr(x, fixed)
    x = E.stop_gradient(x)
    for _ in range(_CARRYING_STEPS):
        x = _newton_log_ndtr(x, target)
    x = where(upper, neg(x), x)
    # exactly 0 at 1/2, where the series sqrt(2 pi) q (1 + pi q^2 / 3) gives the derivatives
    # to the third order
    q = sub(ps, 0.5)
    x = where(eq(ps, 0.5), mul(mul(q, math.sqrt(2 * math.pi)),
                               add(mul(mul(q, q), math.pi / 3), 1.0)), x)
    edge = where(eq(p, 0.0), -math.inf, where(eq(p, 1.0), math.inf, math.nan))
    return where(inside, x, astype(edge, ir_type(p).dtype))
