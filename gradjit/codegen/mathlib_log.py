"""log, log1p and pow as inline LLVM IR: log(2^k (1+f)) = k ln2 + 2 atanh(f / (2+f))."""
from __future__ import annotations

from gradjit.codegen.mathlib_core import FloatOps
from gradjit.codegen.mathlib_exp import LN2, LN2_TAIL, exp_finite

INF = float("inf")
NAN = float("nan")
SQRT_HALF = {64: float.fromhex("0x1.6a09e667f3bcdp-1"), 32: float.fromhex("0x1.6a09e6p-1")}
# ln2 split so that k * LN2_HI is exact for every exponent k.
LN2_HI = {64: float.fromhex("0x1.62e42feep-1"), 32: float.fromhex("0x1.62e3p-1")}
LN2_LO = {64: float.fromhex("0x1.a39ef35793c76p-33"), 32: float.fromhex("0x1.2fefa2p-17")}
TWO_THIRDS = {64: (float.fromhex("0x1.5555555555555p-1"), float.fromhex("0x1.5555555555555p-55")),
              32: (float.fromhex("0x1.555556p-1"), float.fromhex("-0x1.555556p-26"))}
# With s = f / (2+f), z = s^2 <= 0.03: 2 atanh(s) = 2s + s z P(z) = 2s + (2/3) s^3 + s^5 Q(z).
# Chebyshev fits; relative error of 2 atanh(s): P 2^-60 / 2^-31, Q 2^-62 / 2^-33 (f64 / f32).
LOG_P = {
    64: (0.6666666666666666, 0.40000000000001007, 0.2857142857072325, 0.22222222409750114,
         0.18181793732111753, 0.15386342449645143, 0.13266048812203002, 0.131148348695975),
    32: (0.6666666865348816, 0.40000128746032715, 0.2854996919631958, 0.23353427648544312),
}
LOG_Q = {
    64: (0.4000000000000003, 0.2857142857132701, 0.22222222276263384, 0.18181807413502651,
         0.15385634956206645, 0.13283977670387126, 0.12937845177959748),
    32: (0.4000001549720764, 0.2856186032295227, 0.23065155744552612),
}


def split_exponent(o: FloatOps, x):
    """(k, f) with x = 2^k (1 + f) and 1 + f in [sqrt(1/2), sqrt(2)), for finite x > 0."""
    w = o.width
    shift = o.mant + 2
    tiny = o.cmp("<", x, 2.0 ** (1 - o.bias))
    ix = o.bits(o.select(tiny, o.mul(x, 2.0 ** shift), x))
    tmp = o.b.sub(ix, o.ic(ix, o.float_bits(SQRT_HALF[w])))
    if o.f64:  # AVX2 has no 64-bit arithmetic shift: take the exponent from the high word
        high = o.b.trunc(o.b.lshr(tmp, o.ic(tmp, 32)), o.i32)
        e = o.b.ashr(high, o.ic(high, 20))
    else:
        e = o.b.ashr(tmp, o.ic(tmp, 23))
    m = o.from_bits(o.b.sub(ix, o.b.and_(tmp, o.ic(tmp, -(1 << o.mant)))))
    k = o.sub(o.to_float(e), o.select(tiny, float(shift), 0.0))
    return k, o.sub(m, 1.0)


def _log_kernel(o: FloatOps, k, f, corr=None):
    """k ln2 + log1p(f) (+ corr) arranged so the large terms k*LN2_HI and f add last."""
    w = o.width
    s = o.div(f, o.add(f, 2.0))
    z = o.mul(s, s)
    hfsq = o.mul(o.mul(f, f), 0.5)
    r = o.mul(z, o.poly(z, LOG_P[w]))
    lo = o.mul(k, LN2_LO[w])
    if corr is not None:
        lo = o.add(lo, corr)
    inner = o.sub(hfsq, o.fma(s, o.add(hfsq, r), lo))
    return o.fma(k, LN2_HI[w], o.sub(f, inner))


def _domain(o: FloatOps, x, lowest, res):
    """res where lowest < x < inf; -inf at x == lowest, NaN below, x itself at inf or NaN."""
    ok = o.b.and_(o.cmp(">", x, lowest), o.cmp("<", x, INF))
    special = o.select(o.cmp("==", x, lowest), -INF, o.select(o.cmp("<", x, lowest), NAN, x))
    return o.select(ok, res, special)


def emit_log(o: FloatOps, x):
    k, f = split_exponent(o, x)
    return _domain(o, x, 0.0, _log_kernel(o, k, f))


def emit_log1p(o: FloatOps, x):
    """log(u) + c/u for u + c = 1 + x exactly; f = x itself when u has exponent 0."""
    u, c = o.two_sum(1.0, x)
    k, f = split_exponent(o, u)
    first = o.cmp("==", k, 0.0)
    f = o.select(first, x, f)
    corr = o.select(first, 0.0, o.div(c, u))
    res = _log_kernel(o, k, f, corr)
    return o.select(o.cmp("==", x, 0.0), x, _domain(o, x, -1.0, res))


def log_dd(o: FloatOps, x):
    """log(x) as hi + lo to about 2^-64 (f64) / 2^-33 (f32) relative, for finite x > 0."""
    w = o.width
    k, f = split_exponent(o, x)
    den = o.add(f, 2.0)
    den_lo = o.sub(f, o.sub(den, 2.0))
    s = o.div(f, den)
    s_lo = o.div(o.sub(o.fma(o.neg(s), den, f), o.mul(s, den_lo)), den)
    z, z_lo = o.two_prod(s, s)
    z_lo = o.fma(o.mul(s, 2.0), s_lo, z_lo)
    s3, s3_lo = o.dd_mul(z, z_lo, s, s_lo)
    t3, t3_lo = o.dd_mul(s3, s3_lo, *TWO_THIRDS[w])
    tail = o.mul(o.mul(s3, z), o.poly(z, LOG_Q[w]))
    kl, kl_lo = o.two_prod(k, LN2[w])
    hi, lo = o.two_sum(kl, o.mul(s, 2.0))
    hi, lo2 = o.fast_two_sum(hi, t3)
    lo = o.add(o.add(lo, lo2), o.fma(s_lo, 2.0, t3_lo))
    lo = o.add(lo, o.fma(k, LN2_TAIL[w], o.add(kl_lo, tail)))
    return o.fast_two_sum(hi, lo)


def _is_int(o: FloatOps, y):
    return o.cmp("==", o.trunc(y), y)


def emit_pow(o: FloatOps, x, y):
    """exp(y log|x|) with log in double-word precision, then C99's special cases by selects."""
    ax = o.abs(x)
    hi, lo = log_dd(o, ax)
    p = o.mul(y, hi)
    p_lo = o.fma(y, lo, o.fma(y, hi, o.neg(p)))
    mag = exp_finite(o, p, p_lo)
    # |x| in {0, inf} or |y| = inf: 0 or inf by the sign of y * log|x|.
    extreme = o.b.or_(o.b.or_(o.cmp("==", ax, 0.0), o.cmp("==", ax, INF)),
                      o.cmp("==", o.abs(y), INF))
    big = o.b.xor(o.cmp(">", ax, 1.0), o.cmp("<", y, 0.0))
    mag = o.select(extreme, o.select(big, INF, 0.0), mag)
    half = o.mul(y, 0.5)
    odd = o.b.and_(_is_int(o, y), o.cmp("!=", o.trunc(half), half))
    xbits = o.bits(x)
    negative = o.b.and_(odd, o.b.icmp_signed("<", xbits, o.ic(xbits, 0)))
    res = o.select(negative, o.neg(mag), mag)
    bad = o.b.and_(o.b.and_(o.cmp("<", x, 0.0), o.cmp(">", x, -INF)),
                   o.b.and_(o.isfinite(y), o.b.not_(_is_int(o, y))))
    res = o.select(o.b.or_(bad, o.b.fcmp_unordered("uno", x, y)), NAN, res)
    one = o.b.or_(o.b.or_(o.cmp("==", y, 0.0), o.cmp("==", x, 1.0)),
                  o.b.and_(o.cmp("==", ax, 1.0), o.cmp("==", o.abs(y), INF)))
    return o.select(one, 1.0, res)
