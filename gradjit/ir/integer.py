"""Integer primitives: truncating division and remainder (fmod, also on floats, where it is
exact and numpy's floor division and remainder are built on it), bitwise logic and shifts.

Integer division by zero and INT_MIN / -1 are defined here, as numpy defines them: the
quotient is 0 (INT_MIN for INT_MIN / -1, wrapping), the remainder 0. Shift counts outside
[0, bits) shift every bit out: 0, or -1 for a negative number shifted right.
"""
from __future__ import annotations

import functools

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir.primitive import Primitive, register, require


def _integer(*types):
    t = E._same_type(*types)
    require(t.dtype.is_int, f"needs integer operands, not {t.dtype}")
    return t


def _integral(*types):
    t = E._same_type(*types)
    require(not t.dtype.is_float, f"needs integer or bool operands, not {t.dtype}")
    return t


def _trunc(x):
    """Rounding toward zero, written with primitives (floor and ceil by the sign)."""
    return E.where(E.lt(x, 0.0), E.ceil(x), E.floor(x))


def _fmod_vjp(g, y, a, b):
    # d/da = 1 and d/db = -trunc(a/b) (PyTorch's rule); the kinks at multiples of b are
    # where the quotient steps, and the derivative there is the one-sided one of the step.
    return g, E.mul(E.neg(g), _trunc(E.div(a, b)))


@functools.cache
def sympy_fmod(sp):
    """fmod as a sympy function: numpy's name (so lambdify finds np.fmod) and its derivatives."""
    class fmod(sp.Function):  # noqa: N801 - the name lambdify looks up in numpy
        def fdiff(self, argindex=1):
            a, b = self.args
            return sp.S.One if argindex == 1 else -sp.sign(a / b) * sp.floor(sp.Abs(a / b))
    return fmod


def _fmod_eval(a, b):
    if a.dtype.kind == "f":
        return np.fmod(a, b)
    # numpy's integer fmod by 0 is 0 (with a warning); INT_MIN % -1 is 0 too.
    return np.where(b == 0, 0, np.fmod(a, np.where(b == 0, 1, b)))


def _trunc_div_eval(a, b):
    safe = np.where(b == 0, 1, b)
    # a - fmod(a, b) is an exact multiple of b that does not overflow, so // is exact.
    return np.where(b == 0, 0, (a - np.fmod(a, safe)) // safe)


def _shift_eval(left):
    def evaluate(a, count):
        bits = a.dtype.itemsize * 8
        inside = (count >= 0) & (count < bits)
        safe = np.where(inside, count, 0)
        shifted = np.left_shift(a, safe) if left else np.right_shift(a, safe)
        outside = 0 if left else np.where(a < 0, -1, 0)
        return np.where(inside, shifted, outside).astype(a.dtype)
    return evaluate


def _define(name, rule, evaluate, vjp=None, sympy=None):
    return register(Primitive(name, "elementwise", rule, evaluate, vjp or E._no_grad(2),
                              sympy=sympy, differentiable=vjp is not None, arity=2,
                              jvp=vjp and E.diagonal_jvp(vjp), batch=E.batch_elementwise(name)))


fmod = _define("fmod", E._numeric, _fmod_eval, _fmod_vjp,
               lambda sp, a, b: sympy_fmod(sp)(a, b))
trunc_div = _define("trunc_div", _integer, _trunc_div_eval)
bitwise_and = _define("bitwise_and", _integral, np.bitwise_and)
bitwise_or = _define("bitwise_or", _integral, np.bitwise_or)
bitwise_xor = _define("bitwise_xor", _integral, np.bitwise_xor)
left_shift = _define("left_shift", _integer, _shift_eval(True))
right_shift = _define("right_shift", _integer, _shift_eval(False))
