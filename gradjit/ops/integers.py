"""Division with remainder, bitwise logic and shifts with numpy's (and PyTorch's) semantics.

Integers stay integers (exact for every int64). Floats follow numpy's npy_divmod, which is
built on the exact fmod: the quotient is (a - fmod(a, b)) / b, corrected to the floor and
snapped to the nearest integer; the remainder takes the divisor's sign (a zero remainder
too, in numpy; PyTorch keeps fmod's zero). So 5.0 % inf is 5.0, -5.0 % inf is inf, and
1e300 // 1e-300 is inf.
"""
from __future__ import annotations

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import integer as I
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.ir.types import complex128, float64
from gradjit.ops.array import power
from gradjit.ops.promote import astype, flavor, operands, result_type


def _common(name, a, b):
    """The operands in their common dtype; two bools would give numpy's int8, which gradjit
    does not have."""
    dt = result_type(a, b)
    if dt.is_bool:
        raise TypeError(f"{name} of two bool operands gives int8, which gradjit does not "
                        "support; convert one operand to an integer type first")
    return operands(a, b), dt


def _integral_only(name, dt):
    if dt.is_float:
        raise TypeError(f"{name} is only defined for integer and bool operands, not "
                        f"{dt.numpy}")


def _signed_zero(negative, like):
    """-0.0 where `negative`, else 0.0, in `like`'s shape and dtype."""
    t = ir_type(like)
    zero = E.full(value=0.0, shape=t.shape, dtype=t.dtype.name)
    return E.where(negative, E.neg(zero), zero)


def _sign_bit(x):
    """x < 0, with -0.0 counted negative (1 / -0.0 is -inf)."""
    return E.logical_or(E.lt(x, 0.0), E.logical_and(E.eq(x, 0.0), E.lt(E.div(1.0, x), 0.0)))


def _int_divmod(x, y):
    """Floor quotient and remainder from the truncating ones: where the remainder is nonzero
    and its sign differs from the divisor's, the quotient steps down and the remainder by y."""
    q, r = I.trunc_div(x, y), I.fmod(x, y)
    step = E.logical_and(E.ne(r, 0), E.ne(E.lt(r, 0), E.lt(y, 0)))
    return E.where(step, E.sub(q, 1), q), E.where(step, E.add(r, y), r)


def _float_divmod(x, y, numpy_zero=True):
    """numpy's npy_divmod: (floor quotient, remainder) for floats."""
    mod = I.fmod(x, y)
    step = E.logical_and(E.ne(mod, 0.0), E.ne(E.lt(y, 0.0), E.lt(mod, 0.0)))
    remainder = E.where(step, E.add(mod, y), mod)
    if numpy_zero:
        # A zero remainder takes the divisor's sign; (r - r) keeps d/dx = 1 through it.
        fixed = E.sub(_signed_zero(E.lt(y, 0.0), mod),
                      E.sub(E.stop_gradient(remainder), remainder))
        remainder = E.where(E.eq(mod, 0.0), fixed, remainder)
    div = E.div(E.sub(x, mod), y)
    div = E.where(step, E.sub(div, 1.0), div)
    floor = E.floor(div)
    floor = E.where(E.gt(E.sub(div, floor), 0.5), E.add(floor, 1.0), floor)
    # A zero quotient has the sign of x / y; a zero divisor gives x / y itself.
    negative = E.ne(_sign_bit(x), E.lt(y, 0.0))
    quotient = E.where(E.eq(div, 0.0), _signed_zero(negative, div), floor)
    quotient = E.stop_gradient(E.where(E.eq(y, 0.0), E.div(x, y), quotient))
    return quotient, remainder


def _arrays(x, y):
    """Operands as arrays (a Python number becomes a fill of the other's type)."""
    if is_python_scalar(x):
        x = E.full(value=x, shape=ir_type(y).shape, dtype=ir_type(y).dtype.name)
    if is_python_scalar(y):
        y = E.full(value=y, shape=ir_type(x).shape, dtype=ir_type(x).dtype.name)
    return x, y


def divmod_(a, b, name="divmod", numpy=False):
    """(a // b, a % b): floor quotient and the remainder with the divisor's sign (a zero
    remainder's too with numpy's semantics: numpy operands, or `numpy` for np.remainder of
    Tensors)."""
    (x, y), dt = _common(name, a, b)
    numpy = numpy or flavor(a, b) != "torch"
    if dt.is_complex and numpy:
        raise TypeError(f"ufunc '{name}' not supported for the input types, and the inputs "
                        "could not be safely coerced to any supported types according to "
                        "the casting rule ''safe''")
    x, y = _arrays(x, y)
    if dt.is_float:
        return _float_divmod(x, y, numpy_zero=numpy)
    return _int_divmod(x, y)


def floor_divide(a, b, numpy=False):
    return divmod_(a, b, "floor_divide", numpy)[0]


def remainder(a, b, numpy=False):
    """a % b; its gradient is 1 for a and -floor(a / b) for b (as JAX and PyTorch)."""
    return divmod_(a, b, "remainder", numpy)[1]


def trunc_divide(a, b):
    """a / b rounded toward zero (PyTorch's rounding_mode='trunc'): exact on integers."""
    (x, y), dt = _common("trunc_divide", a, b)
    x, y = _arrays(x, y)
    if not dt.is_float:
        return I.trunc_div(x, y)
    q = E.div(x, y)
    return E.where(E.lt(q, 0.0), E.ceil(q), E.floor(q))


def fmod(a, b):
    """C's remainder: the dividend's sign; exact; integer fmod by 0 is 0 (numpy's result)."""
    (x, y), _ = _common("fmod", a, b)
    return I.fmod(*_arrays(x, y))


def _bitwise(prim):
    def apply(a, b):
        _integral_only(prim.name, result_type(a, b))
        return prim(*_arrays(*operands(a, b)))
    apply.__name__ = prim.name
    return apply


bitwise_and, bitwise_or, bitwise_xor = map(_bitwise, (I.bitwise_and, I.bitwise_or,
                                                      I.bitwise_xor))


def invert(x):
    """~x: bitwise not of integers (xor with all ones: -1, or an unsigned type's largest
    value), logical not of bools."""
    dt = ir_type(x).dtype
    _integral_only("invert", dt)
    ones = int(np.iinfo(dt.numpy).max) if dt.numpy.kind == "u" else -1
    return E.logical_not(x) if dt.is_bool else I.bitwise_xor(*_arrays(x, ones))


def _shift(prim):
    def apply(a, b):
        (x, y), dt = _common(prim.name, a, b)
        _integral_only(prim.name, dt)
        return prim(*_arrays(x, y))
    apply.__name__ = prim.name
    return apply


left_shift, right_shift = _shift(I.left_shift), _shift(I.right_shift)


def float_power(a, b):
    """a ** b computed in float64 (complex128 where an operand is complex), whatever the
    operands' types."""
    wide, number = (complex128, complex) if any(result_type(v).is_complex for v in (a, b)) \
        else (float64, float)
    return power(*(number(v) if is_python_scalar(v) else astype(v, wide) for v in (a, b)))


def _euclid_steps(dt) -> int:
    """Euclid's steps for the worst case of a type: the index of the largest Fibonacci
    number it holds (consecutive ones need the most steps), plus one."""
    limit, index, (previous, current) = int(np.iinfo(dt.numpy).max), 1, (0, 1)
    while previous + current <= limit:
        previous, current, index = current, previous + current, index + 1
    return index + 1


def gcd(a, b):
    """Greatest common divisor of |a| and |b| by Euclid's algorithm, unrolled for the longest
    int64 case (consecutive Fibonacci numbers need 92 steps); gcd(0, 0) is 0."""
    (x, y), dt = _common("gcd", a, b)
    _integral_only("gcd", dt)
    x, y = _arrays(x, y)
    x, y = E.abs_(x), E.abs_(y)
    for _ in range(_euclid_steps(dt)):
        x, y = E.where(E.eq(y, 0), x, y), I.fmod(x, y)  # finished pairs stay (g, 0)
    return E.abs_(x)  # |INT_MIN| is INT_MIN: a remainder of it may be negative


def lcm(a, b):
    """|a| / gcd(a, b) * |b| (wrapping when it overflows, as numpy's); 0 when either is 0."""
    (x, y), dt = _common("lcm", a, b)
    _integral_only("lcm", dt)
    x, y = _arrays(x, y)
    g = gcd(x, y)
    return E.mul(I.trunc_div(E.abs_(x), g), E.abs_(y))

