"""Scalar code of the integer primitives (gradjit.ir.integer), joined into body.LOWERINGS.

LLVM's sdiv/srem are undefined behaviour for a zero divisor and for INT_MIN / -1, so the
divisor is replaced by 1 there before dividing; the results numpy defines are then chosen.
Shifts by a count outside [0, bits) are poison in LLVM: the count is clamped first.
"""
from __future__ import annotations


def _safe_divisor(L, a, b, out):
    """b, or 1 where b is 0 or where a / b is INT_MIN / -1 (both undefined for sdiv/srem)."""
    bl = L.b
    lowest = L.const(out, -(1 << (out.numpy.itemsize * 8 - 1)))
    overflow = bl.and_(bl.icmp_signed("==", a, lowest), bl.icmp_signed("==", b, L.const(out, -1)))
    unsafe = bl.or_(bl.icmp_signed("==", b, L.const(out, 0)), overflow)
    return bl.select(unsafe, L.const(out, 1), b)


def _fmod(L, args, kinds, out, params):
    a, b = args
    if out.is_float:
        return L.b.frem(a, b)
    # x % 1 is 0: numpy's result for a zero divisor and for INT_MIN % -1.
    return L.b.srem(a, _safe_divisor(L, a, b, out))


def _trunc_div(L, args, kinds, out, params):
    a, b = args
    quotient = L.b.sdiv(a, _safe_divisor(L, a, b, out))  # INT_MIN / -1 wraps to INT_MIN
    return L.b.select(L.b.icmp_signed("==", b, L.const(out, 0)), L.const(out, 0), quotient)


def _inside(L, count, out):
    """count in [0, bits): a negative count is a huge unsigned one."""
    return L.b.icmp_unsigned("<", count, L.const(out, out.numpy.itemsize * 8))


def _left_shift(L, args, kinds, out, params):
    a, count = args
    inside = _inside(L, count, out)
    shifted = L.b.shl(a, L.b.select(inside, count, L.const(out, 0)))
    return L.b.select(inside, shifted, L.const(out, 0))


def _right_shift(L, args, kinds, out, params):
    a, count = args
    # Shifting by bits - 1 leaves the sign in every bit: -1 or 0, numpy's result outside.
    top = L.const(out, out.numpy.itemsize * 8 - 1)
    return L.b.ashr(a, L.b.select(_inside(L, count, out), count, top))


def _bitwise(method):
    return lambda L, args, kinds, out, params: getattr(L.b, method)(*args)


LOWERINGS = {
    "fmod": _fmod, "trunc_div": _trunc_div,
    "bitwise_and": _bitwise("and_"), "bitwise_or": _bitwise("or_"),
    "bitwise_xor": _bitwise("xor"),
    "left_shift": _left_shift, "right_shift": _right_shift,
}
