"""Scalar code of the integer primitives (gradjit.ir.integer), joined into body.LOWERINGS.

LLVM's sdiv/srem are undefined behaviour for a zero divisor and for INT_MIN / -1, so the
divisor is replaced by 1 there before dividing; the results numpy defines are then chosen.
Shifts by a count outside [0, bits) are poison in LLVM: the count is clamped first.
"""
from __future__ import annotations

from gradjit.codegen import body  # body.LOWERINGS joins this module's: read at call time


def _safe_divisor(L, a, b, out):
    """b, or 1 where b is 0 or where a / b is INT_MIN / -1 (both undefined for sdiv/srem)."""
    bl = L.b
    lowest = L.const(out, -(1 << (out.numpy.itemsize * 8 - 1)))
    overflow = bl.and_(bl.icmp_signed("==", a, lowest), bl.icmp_signed("==", b, L.const(out, -1)))
    unsafe = bl.or_(bl.icmp_signed("==", b, L.const(out, 0)), overflow)
    return bl.select(unsafe, L.const(out, 1), b)


def _fmod(L, args, kinds, out, params):
    a, b = args
    if not out.is_float:
        # x % 1 is 0: numpy's result for a zero divisor and for INT_MIN % -1.
        return L.b.srem(a, _safe_divisor(L, a, b, out))
    # A CPU's frem is C's fmod (exact); NVPTX lowers frem to a - trunc(a / b) * b, which is
    # wrong where a / b rounds to an integer or passes 2**53: scalar code (all GPU code)
    # divides exactly instead.
    return L.b.frem(a, b) if L.lanes > 1 else _long_division_fmod(L, a, b, out)


def _long_division_fmod(L, a, b, out):
    """fmod(a, b) by binary long division: t runs down from the largest |b| * 2**k <= |a| to
    |b|, and r -= t wherever t <= r. Every step is exact (t <= r < 2t, Sterbenz), and the
    loops run about twice the exponent difference of a and b."""
    bl = L.b
    r0, m = body.call_intrinsic(bl, "fabs", [a]), body.call_intrinsic(bl, "fabs", [b])
    infinite = bl.fcmp_ordered("==", r0, L.const(out, float("inf")))
    zero = bl.fcmp_ordered("==", m, L.const(out, 0.0))
    nan = bl.or_(bl.fcmp_unordered("uno", a, b), bl.or_(infinite, zero))
    work = bl.and_(bl.fcmp_ordered(">=", r0, m), bl.not_(nan))
    entry = bl.block
    up, up_next, down, down_next, done = (bl.append_basic_block(f"fmod.{n}") for n in
                                          ("up", "up_next", "down", "down_next", "done"))
    bl.branch(up)
    bl.position_at_end(up)
    t = bl.phi(m.type)
    doubled = bl.fmul(t, L.const(out, 2.0))
    bl.cbranch(bl.and_(work, bl.fcmp_ordered("<=", doubled, r0)), up_next, down)
    bl.position_at_end(up_next)
    bl.branch(up)
    t.add_incoming(m, entry)
    t.add_incoming(doubled, up_next)
    bl.position_at_end(down)
    step, r = bl.phi(m.type), bl.phi(m.type)
    bl.cbranch(bl.and_(work, bl.fcmp_ordered(">=", step, m)), down_next, done)
    bl.position_at_end(down_next)
    reduced = bl.select(bl.fcmp_ordered(">=", r, step), bl.fsub(r, step), r)
    halved = bl.fmul(step, L.const(out, 0.5))
    bl.branch(down)
    step.add_incoming(t, up)
    step.add_incoming(halved, down_next)
    r.add_incoming(r0, up)
    r.add_incoming(reduced, down_next)
    bl.position_at_end(done)
    signed = body.call_intrinsic(bl, "copysign", [r, a])
    return bl.select(nan, L.const(out, float("nan")), signed)


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
