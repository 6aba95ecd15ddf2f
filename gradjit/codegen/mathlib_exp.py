"""exp, expm1, tanh and sigmoid as inline LLVM IR: exp(x) = 2^k * exp(r) with |r| <= ln2/2."""
from __future__ import annotations

from gradjit.codegen.mathlib_core import FloatOps

LOG2E = {64: float.fromhex("0x1.71547652b82fep+0"), 32: float.fromhex("0x1.715476p+0")}
# ln2 = LN2 + LN2_TAIL to 106 (f64) / 48 (f32) bits.
LN2 = {64: float.fromhex("0x1.62e42fefa39efp-1"), 32: float.fromhex("0x1.62e430p-1")}
LN2_TAIL = {64: float.fromhex("0x1.abc9e3b39803fp-56"), 32: float.fromhex("-0x1.05c610p-29")}

# (exp(r) - 1 - r) / r^2 on |r| <= ln2/2: Chebyshev fits, max relative error of the resulting
# expm1(r) 2^-60 (f64); f32: a minimax fit of degree 4, error 2^-28 relative to exp(r) (one
# product fewer than degree 5 at 2^-29: exp's kernels are bound by the FMA units).
EXPM1_POLY = {
    64: (0.5, 0.1666666666666667, 0.04166666666666667, 0.008333333333326136,
         0.0013888888888883748, 0.00019841269874820627, 2.4801587325547743e-05,
         2.7557255400206422e-06, 2.75572736431103e-07, 2.5105217004720745e-08,
         2.0914686968086876e-09),
    32: (0.4999999403953552, 0.1666652113199234, 0.04166838899254799, 0.00836874544620514,
         0.0013814539415761828),
}
# Inputs beyond these give 0 / inf (exp) or -1 (expm1) already; clamping keeps 2^k in range.
EXP_LIMITS = {64: (-746.0, 710.0), 32: (-104.0, 89.0)}
EXPM1_FLOOR = {64: -40.0, 32: -18.0}
# expm1(x) rounds to x below this magnitude.
EXPM1_TINY = {64: 2.0 ** -54, 32: 2.0 ** -25}
TANH_ONE = {64: 22.0, 32: 10.0}  # tanh rounds to 1 from here on


def exp_reduced(o: FloatOps, x, floor=None, lo=None):
    """(em1, k) with exp(x + lo) = 2^k * (1 + em1) for x clamped to [floor, overflow]."""
    w = o.width
    lim_lo, lim_hi = EXP_LIMITS[w]
    xc = o.clamp(x, lim_lo if floor is None else floor, lim_hi)
    k, ki = o.round_int(xc, LOG2E[w])
    r = o.fma(o.neg(k), LN2[w], xc)  # exact: r is a multiple of ulp(LN2) below 1
    r = o.fma(o.neg(k), LN2_TAIL[w], r)
    if lo is not None:
        # lo of a clamped (infinite or huge) x may be inf or NaN; it no longer matters then.
        r = o.add(r, o.select(o.cmp("==", xc, x), lo, 0.0))
    em1 = o.fma(o.mul(r, r), o.poly(r, EXPM1_POLY[w]), r)
    return em1, ki


def exp_finite(o: FloatOps, x, lo=None):
    """exp(x + lo) for non-NaN x (NaN gives a finite value)."""
    em1, k = exp_reduced(o, x, lo=lo)
    return o.ldexp(o.add(em1, 1.0), k)


def expm1_finite(o: FloatOps, x):
    """expm1(x) for non-NaN x as 2 * (t * em1 + (t - 1/2)) with t = 2^(k-1): t - 1/2 is exact."""
    w = o.width
    em1, k = exp_reduced(o, x, floor=EXPM1_FLOOR[w])
    t = o.pow2(o.b.sub(k, o.ic(k, 1)))
    res = o.mul(o.fma(t, em1, o.sub(t, 0.5)), 2.0)
    return o.select(o.cmp("<", o.abs(x), EXPM1_TINY[w]), x, res)


def emit_exp(o: FloatOps, x):
    return o.keep_nan(x, exp_finite(o, x))


def emit_expm1(o: FloatOps, x):
    return o.keep_nan(x, expm1_finite(o, x))


def emit_tanh(o: FloatOps, x):
    """tanh|x| = u / (u + 1) with u = expm1(2|x|) / 2 = t (1 + em1) - 1/2 from exp's reduction
    2|x| = k ln2 + r and t = 2^(k-1): t - 1/2 is exact, so u keeps the relative accuracy of em1
    near 0 with no second polynomial (a polynomial below 0.55 and 1 - 2 / (exp(2|x|) + 1) above,
    both computed and one selected, took twice the products); the sign copied from x last."""
    one = TANH_ONE[o.width]
    a = o.abs(x)
    a = o.select(o.cmp("<", a, one), a, one)
    em1, k = exp_reduced(o, o.add(a, a))
    t = o.pow2(o.b.sub(k, o.ic(k, 1)))
    u = o.fma(t, em1, o.sub(t, 0.5))
    return o.keep_nan(x, o.copysign(o.div(u, o.add(u, 1.0)), x))


def emit_sigmoid(o: FloatOps, x):
    """1 / (1 + e) for x >= 0 and e / (1 + e) below, with e = exp(-|x|) <= 1: never inf / inf."""
    e = exp_finite(o, o.neg(o.abs(x)))
    num = o.select(o.cmp("<", x, 0.0), e, 1.0)
    return o.keep_nan(x, o.div(num, o.add(e, 1.0)))
