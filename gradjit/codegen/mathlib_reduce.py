"""x = q pi/2 + r for sin, cos and tan as LLVM IR: Cody-Waite below a bound, and beyond it
Payne-Hanek (x's integer mantissa times the bits of 2/pi that matter at its exponent), in a
branch taken only where some lane needs it."""
from __future__ import annotations

import functools
import weakref

from llvmlite import ir

from gradjit.codegen.mathlib_core import FloatOps

TWO_OVER_PI = {64: float.fromhex("0x1.45f306dc9c883p-1"), 32: float.fromhex("0x1.45f306p-1")}
# pi/2 as a sum of 3 (f64) / 4 (f32) floats, 164 / 103 bits in all.
PIO2 = {
    64: tuple(map(float.fromhex, ("0x1.921fb54442d18p+0", "0x1.1a62633145c07p-54",
                                  "-0x1.f1976b7ed8fbcp-110"))),
    32: tuple(map(float.fromhex, ("0x1.921fb6p+0", "-0x1.777a5cp-25", "-0x1.ee59dap-50",
                                  "0x1.98a2e0p-77"))),
}
# Cody-Waite's k * PIO2 is exact below these magnitudes; Payne-Hanek takes over above.
TRIG_BOUND = {64: 2.0 ** 45, 32: 2.0 ** 20}

LIMB = 32
# 32-bit limbs of 2/pi multiplied by the mantissa (2^24 / 2^53 at most): the bits left out
# weigh under 2^(mantissa bits + 2 - 32 limbs) quadrants, 2^-137 / 2^-70, against the
# smallest x mod pi/2 of any float above the bound, 2^-61.5 / 2^-29.9 quadrants (at
# 6381956970095103 * 2^797 / 16367173 * 2^72, the nearest convergents of pi/2^(e+1)).
WINDOW_LIMBS = {64: 6, 32: 3}
# Bits of the fraction each piece converts to float exactly (16 fit in a float's 24).
PIECE_BITS = {64: 32, 32: 16}


def pi_scaled(bits: int) -> int:
    """pi * 2^bits, within 1 of it from below, by Machin's pi = 16 atan(1/5) - 4 atan(1/239)
    in integers with 32 guard bits (each truncated term of the series is off by under 1)."""
    one = 1 << (bits + 32)

    def atan_inv(n):
        total, power, k, sign = 0, one // n, 1, 1
        while power:
            total += sign * (power // k)
            power //= n * n
            k, sign = k + 2, -sign
        return total

    return (16 * atan_inv(5) - 4 * atan_inv(239)) >> 32


@functools.cache
def two_over_pi_words(count: int) -> tuple[int, ...]:
    """The fraction bits of 2/pi in `count` 32-bit words, most significant first, after one
    zero word so that a window may start up to 32 bits before the binary point. Computed
    with 64 more bits of pi than the words hold, so the truncation error cannot reach them."""
    bits = LIMB * (count - 1)
    value = (1 << (2 * bits + 129)) // pi_scaled(bits + 64) >> 64  # 2/pi 2^bits
    return (0,) + tuple((value >> (LIMB * (count - 2 - i))) & 0xFFFFFFFF
                        for i in range(count - 1))


def _last_first_bit(bias: int, mant: int) -> int:
    """The first bit of the largest finite x's window (0-based, in two_over_pi_words)."""
    return bias - mant + 30


def _table(o: FloatOps) -> ir.GlobalVariable:
    """The words of 2/pi as a constant array of the module, enough for float64's windows."""
    module = o.b.module
    # named after the module: ptxas, given several PTX files at once, aborts on file-local
    # globals of the same name
    name = f"{module.name}.two_over_pi"
    table = module.globals.get(name)
    if table is None:
        count = _last_first_bit(1023, 52) // LIMB + WINDOW_LIMBS[64] + 1
        words = two_over_pi_words(count)
        i32 = ir.IntType(32)
        kind = ir.ArrayType(i32, count)
        table = ir.GlobalVariable(module, kind, name)
        table.global_constant = True
        table.linkage = "internal"
        table.initializer = ir.Constant(kind, [i32(w - (w >> 31 << 32)) for w in words])
    return table


def _lanes(o: FloatOps):
    return o.ty.count if isinstance(o.ty, ir.VectorType) else 0


def _load_words(o: FloatOps, index, count):
    """table[index + j] for j < count, one load a lane (the index differs between lanes)."""
    table, b = _table(o), o.b
    i32 = ir.IntType(32)

    def load(i, j):
        at = b.gep(table, [i32(0), b.add(i, i32(j))], inbounds=True,
                   source_etype=table.value_type)
        return b.load(at, typ=i32)

    if not _lanes(o):
        return [load(index, j) for j in range(count)]
    words = [ir.Constant(o.i32, ir.Undefined)] * count
    for lane in range(_lanes(o)):
        i = b.extract_element(index, i32(lane))
        words = [b.insert_element(w, load(i, j), i32(lane)) for j, w in enumerate(words)]
    return words


def _window(o: FloatOps, bits):
    """The WINDOW_LIMBS limbs of 2/pi (most significant first) whose product with the
    mantissa m of x = m 2^e gives x 2/pi mod 4: those from bit e - 1 after the binary point
    on (earlier bits give multiples of 4)."""
    b, n = o.b, WINDOW_LIMBS[o.width]
    exponent = b.lshr(bits, o.ic(bits, o.mant))
    if o.f64:
        exponent = b.trunc(exponent, o.i32)
    # 0-based bit of the table (which starts with a zero word), clamped for the lanes that
    # take the other path (small, inf or NaN) so that every load stays in the table
    first = b.add(exponent, o.ic(exponent, 30 - o.bias - o.mant))
    first = b.select(b.icmp_signed("<", first, o.ic(first, 0)), o.ic(first, 0), first)
    top = o.ic(first, _last_first_bit(o.bias, o.mant))
    first = b.select(b.icmp_signed(">", first, top), top, first)
    words = [b.zext(w, o.i64) for w in _load_words(o, b.lshr(first, o.ic(first, 5)), n + 1)]
    shift = b.sub(o.ic(words[0], LIMB), b.zext(b.and_(first, o.ic(first, 31)), o.i64))
    return [b.trunc(b.lshr(b.or_(b.shl(hi, o.ic(hi, LIMB)), lo), shift), o.i32)
            for hi, lo in zip(words, words[1:])]


def _mantissa_limbs(o: FloatOps, bits):
    """x's integer mantissa (implicit bit set: x is normal here) as 32-bit limbs, least
    significant first."""
    b = o.b
    m = b.or_(b.and_(bits, o.ic(bits, (1 << o.mant) - 1)), o.ic(bits, 1 << o.mant))
    if not o.f64:
        return [m]
    return [b.trunc(m, o.i32), b.trunc(b.lshr(m, o.ic(m, LIMB)), o.i32)]


def _product(o: FloatOps, window, mantissa):
    """window * mantissa mod 2^(32 len(window)) as 32-bit limbs, least significant first:
    each 64-bit partial product's halves go to their columns, which then carry upwards."""
    b, n = o.b, len(window)
    low_mask = ir.Constant(o.i64, 0xFFFFFFFF)
    columns = [[] for _ in range(n)]
    for i, a in enumerate(reversed(window)):
        for j, m in enumerate(mantissa[: n - i]):
            p = b.mul(b.zext(a, o.i64), b.zext(m, o.i64))
            columns[i + j].append(b.and_(p, low_mask))
            if i + j + 1 < n:
                columns[i + j + 1].append(b.lshr(p, o.ic(p, LIMB)))
    limbs, carry = [], None
    for column in columns:
        total = carry
        for term in column:
            total = term if total is None else b.add(total, term)
        limbs.append(b.trunc(total, o.i32))
        carry = b.lshr(total, o.ic(total, LIMB))
    return limbs


def _pieces(o: FloatOps, limbs):
    """The fraction of quadrants left in the limbs (most significant first, the first signed)
    as floats that add up to it, each exact."""
    b, width = o.b, PIECE_BITS[o.width]
    pieces = []
    for k, limb in enumerate(limbs):
        for j in range(LIMB // width):
            shift = LIMB - width * (j + 1)
            if k == j == 0:
                piece = o.b.sitofp(b.ashr(limb, o.ic(limb, shift)), o.ty)
            else:
                part = b.and_(b.lshr(limb, o.ic(limb, shift)), o.ic(limb, (1 << width) - 1))
                piece = b.uitofp(part, o.ty)
            pieces.append(o.mul(piece, 2.0 ** (shift - 30 - LIMB * k)))
    return pieces


def reduce_huge(o: FloatOps, x):
    """(r, q) with x = q pi/2 + r, |r| <= pi/4 and q in 32-bit lanes, for finite |x| above
    TRIG_BOUND; other lanes get values to be discarded."""
    b = o.b
    bits = o.bits(o.abs(x))
    y = _product(o, _window(o, bits), _mantissa_limbs(o, bits))
    # y / 2^(32 n - 2) is x 2/pi mod 4: adding half a quadrant rounds q to the nearest, and
    # leaves the fraction in [-1/2, 1/2) as the low 30 bits minus 2^29 and the lower limbs
    top = b.add(y[-1], o.ic(y[-1], 1 << 29))
    q = b.lshr(top, o.ic(top, 30))
    fraction = b.sub(b.and_(top, o.ic(top, (1 << 30) - 1)), o.ic(top, 1 << 29))
    pieces = _pieces(o, [fraction] + y[-2::-1])
    hi, lo = pieces[0], None
    for piece in pieces[1:]:  # double-word sum: 2^-100 (f64) / 2^-44 (f32) relative error
        s, e = o.two_sum(hi, piece)
        hi, lo = o.fast_two_sum(s, e if lo is None else o.add(lo, e))
    r, r_lo = o.dd_mul(hi, lo, *PIO2[o.width][:2])
    r = o.add(r, r_lo)
    negative = o.cmp("<", x, 0.0)
    return o.select(negative, o.neg(r), r), b.select(negative, b.neg(q), q)


def _all(o: FloatOps, mask):
    lanes = _lanes(o)
    if not lanes:
        return mask
    packed = o.b.bitcast(mask, ir.IntType(lanes))
    return o.b.icmp_unsigned("==", packed, ir.Constant(packed.type, -1))


# block -> {x: (r, q)} of the reductions whose results that block defines: sin(x) and cos(x)
# share one (LLVM's GVN merged two branch-free ones, but not two branches and their phis).
# A later use in the same block is dominated by them; one in another block computes anew.
_REDUCED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def reduce(o: FloatOps, x):
    """(r, q) with x = q pi/2 + r, |r| <= pi/4 + a little and q in 32-bit lanes; NaN for inf
    and NaN (x - x), which the polynomials and the quadrant's selects carry to the result."""
    found = _REDUCED.get(o.b.block, {}).get(x)
    if found is None:
        found = _reduce(o, x)
        _REDUCED.setdefault(o.b.block, {})[x] = found
    return found


def _reduce(o: FloatOps, x):
    w, b = o.width, o.b
    magnitude = o.abs(x)
    small = o.cmp("<=", magnitude, TRIG_BOUND[w])
    xs = o.select(small, x, o.sub(x, x))
    k, q = o.round_int(xs, TWO_OVER_PI[w])
    r = xs
    for part in PIO2[w]:  # the first step is exact; the later ones see ever smaller terms
        r = o.fma(o.neg(k), part, r)
    fast = b.block
    wide = b.append_basic_block("trig.huge")
    done = b.append_basic_block("trig.reduced")
    # Rare in practice (inf and NaN take it too): the common loop pays a test and a branch.
    b.cbranch(_all(o, small), done, wide).set_weights([1 << 20, 1])
    b.position_at_end(wide)
    huge = b.and_(o.cmp(">", magnitude, TRIG_BOUND[w]), o.isfinite(x))
    # out of line where it may be: a module compiles one copy however many uses it has
    r_huge, q_huge = o.outlined("trig_reduce_huge", reduce_huge, [x], [o.ty, o.i32])
    r_wide, q_wide = o.select(huge, r_huge, r), b.select(huge, q_huge, q)
    wide_end = b.block
    b.branch(done)
    b.position_at_end(done)
    r_phi, q_phi = b.phi(o.ty), b.phi(o.i32)
    r_phi.add_incoming(r, fast)
    r_phi.add_incoming(r_wide, wide_end)
    q_phi.add_incoming(q, fast)
    q_phi.add_incoming(q_wide, wide_end)
    return r_phi, q_phi
