"""numpy's floating-point ufuncs (inverse trig, hyperbolic, exp2/log2, logaddexp, hypot, cbrt,
copysign, fmax, ...) as compositions of primitives, with numpy's dtypes, signed zeros and
infinities, and gradients that stay finite wherever the function is smooth.

Branches that a `where` does not take still run: their inputs are replaced by harmless values
first, so that no inf or NaN reaches a gradient through them."""
from __future__ import annotations

import math

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.ops import complex_math
from gradjit.ops.complex_order import ordered
from gradjit.ops.array import (abs_, add, ceil, cos, eq, exp, expm1, floor, ge, gt, isfinite, le,
                               log, log1p, logical_and, logical_not, logical_or, lt, maximum, mul,
                               ne, neg, power, round_, sin, sqrt, sub, true_divide, where)
from gradjit.ops.promote import (astype, broadcast, broadcast_shapes, default_float, flavor,
                                 operands, result_type, to_float)

INF = math.inf
_BFLOAT16_MAX = float.fromhex("0x1.fep127")  # bfloat16's storage is float32: not its largest
LN2 = math.log(2.0)
LOG2E, LOG10E = 1 / LN2, 1 / math.log(10.0)
# Above this |x|, exp(-|x|) is below half an ulp of exp(|x|) in float64 (and float32).
_HYPERBOLIC_TAIL = 20.0
# Above this x, sqrt(x^2 + 1) = x to working precision: asinh x = log(2x), acosh x = log(2x).
_LOG_TAIL = {"f32": 2.0 ** 12, "f64": 2.0 ** 28}


def floats(*xs):
    """The operands cast to their common float type (integers give the default float); Python
    numbers become 0-d arrays of it, so that later steps keep the type."""
    dt = result_type(*xs)
    dt = dt if dt.is_float else default_float(*xs)
    out = operands(*xs, dtype=dt)
    shape = broadcast_shapes(*(ir_type(x).shape for x in out if not is_python_scalar(x)))
    return [broadcast(np.asarray(x, dt.numpy), shape) if is_python_scalar(x) else x for x in out]


def _is_float(x) -> bool:
    return ir_type(x).dtype.is_float


def _safe(cond, x, value):
    """x where cond holds, else a harmless value: the input of a branch taken only there."""
    return where(cond, x, value)


# ---- classification and sign ----

def isnan(x):
    return ne(x, x)


def isinf(x):
    """|x| = inf; a complex number whose real or imaginary part is infinite (NaN or not) is."""
    if ir_type(x).dtype.is_complex:
        return logical_or(isinf(E.real(x)), isinf(E.imag(x)))
    return eq(abs_(x), INF) if _is_float(x) else ne(x, x)


def signbit(x):
    """True for negative numbers and for -0.0 (1 / -0.0 is -inf)."""
    if not _is_float(x):
        return lt(x, 0)
    zero = eq(x, 0)
    return logical_or(lt(x, 0), logical_and(zero, lt(true_divide(1.0, _safe(zero, x, 1.0)),
                                                          0)))


def copysign(a, b):
    a, b = floats(a, b)
    magnitude = abs_(a)
    return where(signbit(b), neg(magnitude), magnitude)


def fabs(x):
    return abs_(to_float(x))


def heaviside(x1, x2, numpy=False):
    """0 below 0, 1 above, x2 at 0; at NaN, NaN (numpy, also np.heaviside of a Tensor) or 0
    (PyTorch)."""
    torch = flavor(x1, x2) == "torch" and not numpy
    x1, x2 = floats(x1, x2)
    low = logical_or(lt(x1, 0), isnan(x1)) if torch else lt(x1, 0)
    step = where(low, 0.0, where(gt(x1, 0), 1.0, x2))
    return step if torch else where(isnan(x1), x1, step)


def _nan_ignoring(first_wins):
    def apply(a, b):
        """a where it wins or b is NaN, else b. Ties go to b, as numpy's array loops give
        fmax(-0.0, 0.0) = 0.0; so does the gradient (PyTorch gives it to a)."""
        a, b = operands(a, b)
        wins = first_wins(a, b)
        return where(logical_or(wins, isnan(b)) if _is_float(b) else wins, a, b)
    return apply


fmax = ordered(_nan_ignoring(gt), largest=True, nan_wins=False)
fmin = ordered(_nan_ignoring(lt), largest=False, nan_wins=False)


def _odd(f, x):
    """f extended to negative x as an odd function: f(|x|) with the sign of x, -0.0 included.
    |x| is a `where`, so the derivative at 0 is f'(0) rather than the 0 that abs would give."""
    negative = signbit(x)
    y = f(where(negative, neg(x), x))
    return where(negative, neg(y), y)


def _exponent(x):
    """Where x is finite and nonzero, and there the e with |x| in [2^e, 2^(e+1)) (a float, 0
    elsewhere): read off log2 and corrected by one either way. A step function: no gradient."""
    a = abs_(x)
    usable = logical_and(gt(a, 0), lt(a, INF))
    a = E.stop_gradient(_safe(usable, a, 1.0))
    e = floor(log2(a))
    e = where(gt(exp2(e), a), sub(e, 1.0), e)
    return usable, where(le(exp2(add(e, 1.0)), a), add(e, 1.0), e)


def frexp(x):
    """numpy's frexp: x = m * 2^e with |m| in [0.5, 1), e an int32; (x, 0) for 0, inf and NaN.
    Dividing by a power of two is exact, so m's derivative is 2^-e."""
    x = to_float(x)
    usable, e = _exponent(x)
    e = where(usable, add(e, 1.0), 0.0)
    # 2^-e alone overflows for subnormal x: applied as two powers of two, each finite
    half = exp2(neg(floor(mul(e, 0.5))))
    m = mul(mul(x, half), exp2(neg(sub(e, floor(mul(e, 0.5))))))
    return where(usable, m, x), astype(e, "int32")


def modf(x):
    """numpy's modf: the fractional and integral parts, both with x's sign (-0.0 included);
    an infinity's fractional part is a signed zero."""
    x = to_float(x)
    whole = trunc(x)
    frac = where(isinf(x), 0.0, sub(x, whole))
    # frac is +0.0 at whole numbers; x's signed zero there, less frac's own zero so that the
    # gradient stays 1 (a copysign of zero would pass none)
    signed_zero = sub(copysign(0.0, x), sub(E.stop_gradient(frac), frac))
    return where(eq(frac, 0), signed_zero, frac), whole


def spacing(x):
    """The distance from x to the next float away from 0 (negative for negative x): 2^(e - m)
    for |x| in [2^e, 2^(e+1)) with m mantissa bits, the exponent e read off log2 and corrected
    by one either way; the smallest subnormal at +-0, inf at the largest float, NaN for inf and
    NaN."""
    x = to_float(x)
    info = np.finfo(ir_type(x).dtype.numpy)
    usable, e = _exponent(x)
    ulp = exp2(maximum(sub(e, float(info.nmant)), float(np.log2(info.smallest_subnormal))))
    ulp = where(eq(abs_(x), float(info.max)), INF, ulp)
    edge = astype(where(eq(x, 0), float(info.smallest_subnormal), math.nan), ir_type(x).dtype)
    ulp = where(usable, ulp, edge)
    return where(lt(x, 0), neg(ulp), ulp)


def ldexp(x, e):
    """numpy's ldexp: x * 2^e for an integer e, in x's float type (integers in float64). 2^e is
    applied as two powers of two, so results that are finite stay finite and exact."""
    e = np.asarray(e) if is_python_scalar(e) else e
    if not ir_type(e).dtype.is_int:
        raise TypeError("ufunc 'ldexp' not supported for the input types: the exponent must be "
                        f"an integer array, not {ir_type(e).dtype.name}")
    x = to_float(x)
    half = E.stop_gradient(floor(true_divide(astype(e, ir_type(x).dtype), 2.0)))
    rest = sub(astype(e, ir_type(x).dtype), half)
    return mul(mul(x, exp2(half)), exp2(rest))


def nextafter(x, y):
    """The float after x towards y (both in their common float type): x plus its spacing away
    from 0; towards 0 half of it where |x| is a power of 2 above the smallest normal
    (subnormals are evenly spaced). A step function: no gradient."""
    x, y = (E.stop_gradient(v) for v in floats(x, y))
    info = np.finfo(ir_type(x).dtype.numpy)
    a = abs_(x)
    finite = logical_and(gt(a, 0), isfinite(a))
    up = abs_(spacing(where(finite, x, 1.0)))
    top = 2.0 ** (info.maxexp - 1 - info.nmant)  # the spacing below the largest float
    down = where(isinf(up), top, up)
    power = logical_and(eq(true_divide(a, down), 2.0 ** info.nmant), gt(a, float(info.tiny)))
    down = where(power, mul(down, 0.5), down)
    direction = where(gt(x, 0), 1.0, -1.0)
    away = eq(gt(y, x), gt(x, 0))
    out = where(away, add(x, mul(direction, up)), sub(x, mul(direction, down)))
    tiny = float(info.smallest_subnormal)
    out = where(eq(x, 0), where(gt(y, 0), tiny, -tiny), out)
    out = where(isinf(x), mul(direction, float(info.max)), out)
    out = where(eq(x, y), y, out)
    out = where(logical_or(ne(x, x), ne(y, y)), math.nan, out)
    return astype(out, ir_type(x).dtype)


# ---- rounding ----

def trunc(x):
    if ir_type(x).dtype.is_complex:
        floor(x)  # numpy's TypeError: complex numbers have no integral part
    return where(lt(x, 0), ceil(x), floor(x)) if _is_float(x) else x


def round_decimals(x, decimals=0):
    """numpy's round: x * 10**d rounded half to even, then divided back (d < 0: divided
    first). Integers with d < 0 round in float64, exact below 2**53."""
    if decimals == 0:
        return round_(x)
    if ir_type(x).dtype.is_complex:
        return E.complex_(round_decimals(E.real(x), decimals),
                          round_decimals(E.imag(x), decimals))
    if not _is_float(x):
        if decimals > 0:
            return x
        return astype(round_decimals(astype(x, "f64"), decimals), ir_type(x).dtype)
    scale = 10.0 ** abs(decimals)
    if decimals > 0:
        return true_divide(round_(mul(x, scale)), scale)
    return mul(round_(true_divide(x, scale)), scale)


# ---- exponentials and logarithms ----

def exp2(x):
    return power(2.0, to_float(x))


def _exact_at_powers(r, x, base):
    """log_base x computed as r, made exact where x is a power of base (log2(8) is 3, as
    numpy gives it); r - stop_gradient(r) keeps the derivative there. A complex r has its real
    part made so where x is real, its imaginary part (a zero's sign too) kept."""
    if ir_type(r).dtype.is_complex:
        real = _exact_at_powers(E.real(r), E.real(x), base)
        return E.complex_(where(eq(E.imag(x), 0.0), real, E.real(r)), E.imag(r))
    k = round_(E.stop_gradient(r))
    exact = logical_and(eq(power(base, k), x), lt(abs_(k), INF))
    return where(exact, add(k, sub(r, E.stop_gradient(r))), r)


def _scaled_log(x, factor):
    """log(x) * factor, a complex log's parts scaled apart (as a complex product, log(0) =
    -inf + 0j would become -inf + nanj)."""
    r = log(x)
    if ir_type(r).dtype.is_complex:
        return E.complex_(mul(E.real(r), factor), mul(E.imag(r), factor))
    return mul(r, factor)


def log2(x):
    x = to_float(x)
    return _exact_at_powers(_scaled_log(x, LOG2E), x, 2.0)


def log10(x):
    x = to_float(x)
    return _exact_at_powers(_scaled_log(x, LOG10E), x, 10.0)


def _log_add(a, b, power_of_base, log_base):
    """log_base(base^a + base^b) = m + log1p(u) / log(base), with m = max(a, b) held constant
    (the result does not depend on it) and u = base^(a-m) + base^(b-m) - 1 formed without
    cancellation: so every derivative is the smooth one, also at a == b. Infinite operands
    take max + log(1 + base^-|a - b|), whose gradient at (-inf, -inf) is 1/2 each."""
    a, b = floats(a, b)
    finite = logical_and(isfinite(a), isfinite(b))
    a_, b_ = _safe(finite, a, 0.0), _safe(finite, b, 0.0)
    m = E.stop_gradient(maximum(a_, b_))
    x, y = sub(a_, m), sub(b_, m)  # the larger is exactly 0
    u = where(ge(a_, b_), add(expm1(mul(x, log_base)), power_of_base(y)),
              add(power_of_base(x), expm1(mul(y, log_base))))
    smooth = add(m, true_divide(log1p(u), log_base))
    tie = eq(a, b)
    gap = neg(abs_(_safe(logical_not(tie), sub(a, b), 0.0)))  # inf - inf is NaN
    edge = add(maximum(a, b), where(tie, LN2 / log_base,
                                    true_divide(log1p(exp(mul(gap, log_base))), log_base)))
    return where(finite, smooth, edge)


def logaddexp(a, b):
    """log(exp(a) + exp(b)): one primitive, whose derivative is one sigmoid."""
    return E.logaddexp(*floats(a, b))


def logaddexp2(a, b):
    """log2(2^a + 2^b)."""
    return _log_add(a, b, exp2, LN2)


def hypot(a, b):
    """sqrt(a^2 + b^2) scaled by max(|a|, |b|), so that squares cannot overflow; inf if either
    is infinite (even with a NaN). Its gradient at (0, 0) is 0, as that of ops.norm."""
    a, b = floats(a, b)
    scale = maximum(abs_(a), abs_(b))
    usable = logical_and(gt(scale, 0), lt(scale, INF))
    s = _safe(usable, scale, 1.0)
    an, bn = true_divide(a, s), true_divide(b, s)
    r = mul(sqrt(_safe(usable, add(mul(an, an), mul(bn, bn)), 1.0)), s)
    r = where(usable, r, scale)
    return where(logical_or(isinf(a), isinf(b)), INF, r)


def cbrt(x):
    """|x|^(1/3) with one Newton step (1/3 is not exact: pow alone is tens of ulps off for
    large x), odd; the derivative at 0 is inf."""
    def root(t):
        y = power(t, 1.0 / 3.0)
        good = logical_and(gt(y, 0), lt(y, INF))
        ys = _safe(good, y, 1.0)
        newton = sub(ys, true_divide(sub(mul(mul(ys, ys), ys), _safe(good, t, 1.0)),
                                     mul(3.0, mul(ys, ys))))
        return where(good, newton, y)
    return _odd(root, to_float(x))


# ---- hyperbolic ----

def _hyperbolic(x, small, odd):
    """small(x) below the tail; beyond it exp(|x|)/2 (with the sign of x if odd), computed as
    h * (h / 2) with h = exp(|x|/2) so that it stays finite as far as the result does."""
    x = to_float(x)
    tail = gt(abs_(x), _HYPERBOLIC_TAIL)
    h = exp(mul(abs_(_safe(tail, x, 1.0)), 0.5))
    big = mul(h, mul(h, 0.5))
    if odd:
        big = where(lt(x, 0), neg(big), big)
    return where(tail, big, small(_safe(logical_not(tail), x, 0.0)))


def sinh(x):
    if ir_type(x).dtype.is_complex:  # from the real parts, so that it overflows as numpy's does
        a, b = E.real(x), E.imag(x)
        return E.complex_(mul(sinh(a), cos(b)), mul(cosh(a), sin(b)))
    # expm1(x) and expm1(-x) have opposite signs: their difference never cancels
    return _hyperbolic(x, lambda t: mul(sub(expm1(t), expm1(neg(t))), 0.5), odd=True)


def cosh(x):
    return _hyperbolic(x, lambda t: mul(add(exp(t), exp(neg(t))), 0.5), odd=False)


def arcsinh(x):
    if ir_type(x).dtype.is_complex:
        return complex_math.arcsinh(x)
    x = to_float(x)
    limit = _LOG_TAIL[ir_type(x).dtype.name]

    def positive(t):
        tail = gt(t, limit)
        ts = _safe(logical_not(tail), t, 0.0)
        small = log1p(add(ts, true_divide(mul(ts, ts), add(sqrt(add(mul(ts, ts), 1.0)), 1.0))))
        return where(tail, add(log(_safe(tail, t, 1.0)), LN2), small)
    return _odd(positive, x)


def arccosh(x):
    """log1p(u + sqrt(2u + u^2)) with u = x - 1 (exact near 1); NaN below 1."""
    if ir_type(x).dtype.is_complex:
        return complex_math.arccosh(x)
    x = to_float(x)
    limit = _LOG_TAIL[ir_type(x).dtype.name]
    tail = gt(x, limit)
    inside = logical_and(ge(x, 1.0), logical_not(tail))
    u = sub(_safe(inside, x, 2.0), 1.0)
    small = log1p(add(u, sqrt(mul(u, add(u, 2.0)))))
    out = where(tail, add(log(_safe(tail, x, 2.0)), LN2), small)
    return where(logical_or(inside, tail), out, where(isnan(x), x, math.nan))


def arctanh(x):
    """log1p(2t / (1 - t)) / 2, odd: inf at 1, NaN beyond."""
    if ir_type(x).dtype.is_complex:
        return complex_math.arctanh(x)
    return _odd(lambda t: mul(log1p(true_divide(mul(t, 2.0), sub(1.0, t))), 0.5), to_float(x))


# ---- trigonometric ----

def arctan2(y, x):
    return E.atan2(*floats(y, x))


def arctan(x):
    if ir_type(x).dtype.is_complex:
        return complex_math.arctan(x)
    x = to_float(x)
    return E.atan2(x, add(E.zeros_like(x), 1.0))


def arcsin(x):
    """atan2(x, sqrt(1 - x) sqrt(1 + x)): accurate near +-1, where the gradient is inf (a
    product of square roots, so that no factor 0 meets the inf of the other)."""
    if ir_type(x).dtype.is_complex:
        return complex_math.arcsin(x)
    x = to_float(x)
    return E.atan2(x, mul(sqrt(sub(1.0, x)), sqrt(add(1.0, x))))


def arccos(x):
    """2 atan2(sqrt(1 - x), sqrt(1 + x)): accurate near +-1, where the gradient is -inf."""
    if ir_type(x).dtype.is_complex:
        return complex_math.arccos(x)
    x = to_float(x)
    return mul(E.atan2(sqrt(sub(1.0, x)), sqrt(add(1.0, x))), 2.0)


def _times_ratio(x, num, den):
    """x * (num / den) with the ratio computed in x's type, as numpy's loops do."""
    x = to_float(x)
    scalar = ir_type(x).dtype.numpy.type
    return mul(x, float(scalar(num) / scalar(den)))


def deg2rad(x):
    return _times_ratio(x, math.pi, 180.0)


def rad2deg(x):
    return _times_ratio(x, 180.0, math.pi)


# sinc's Maclaurin coefficients in powers of (pi x)^2: 1 - t/3! + t^2/5! - ...
_SINC_SERIES = tuple((-1) ** k / math.factorial(2 * k + 1) for k in range(6))


def sinc(x):
    """sin(pi x) / (pi x), 1 at 0. At 0 the value is its Maclaurin series, whose derivatives
    there (0, -pi^2/3, 0, pi^4/5, ...) are sinc's to the tenth order, where the quotient's
    would be 0/0."""
    x = to_float(x)
    zero = eq(x, 0)
    y = mul(where(zero, 1.0, x), math.pi)
    t = mul(mul(x, x), math.pi ** 2)
    series = 0.0
    for c in reversed(_SINC_SERIES):
        series = add(mul(series, t), c)
    return where(zero, series, true_divide(E.sin(y), y))


# ---- values ----

def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """NaN -> nan, +-inf -> posinf/neginf (default: the largest finite values of the dtype);
    a complex value's real and imaginary parts each so."""
    if ir_type(x).dtype.is_complex:
        return E.complex_(*(nan_to_num(part(x), nan, posinf, neginf)
                            for part in (E.real, E.imag)))
    if not _is_float(x):
        return x
    dt = ir_type(x).dtype
    largest = _BFLOAT16_MAX if dt.name == "bf16" else float(np.finfo(dt.numpy).max)

    def written(value):  # numpy writes the replacements into x: in x's dtype
        return value if is_python_scalar(value) else astype(value, dt)
    # each replacement where x itself is NaN or infinite (a NaN replaced by a number too large
    # for the dtype stays the inf it becomes)
    nans, high, low = isnan(x), eq(x, INF), eq(x, -INF)
    x = where(nans, written(nan), x)
    x = where(high, largest if posinf is None else written(posinf), x)
    return where(low, -largest if neginf is None else written(neginf), x)
