"""Rounding and division by rounding on tensors: their values, and the zero gradient PyTorch
gives the piecewise-constant ones."""
from __future__ import annotations

import numpy as np

from gradjit import ops
from gradjit.ir.primitive import ir_type


def trunc(x):
    """x rounded toward zero."""
    return ops.where(ops.lt(x, 0), ops.ceil(x), ops.floor(x))


def integer_division(fn):
    """PyTorch raises for an integer division by zero (eager values are known)."""
    def apply(a, b):
        divisor = getattr(b, "_value", b)
        if not ops.result_type(a, b).is_float and np.any(np.asarray(divisor) == 0):
            raise RuntimeError("ZeroDivisionError")
        return fn(a, b)
    return apply


floor_divide = integer_division(ops.floor_divide)
remainder = integer_division(ops.remainder)
fmod = integer_division(ops.fmod)
trunc_divide = integer_division(ops.trunc_divide)


def flat(fn):
    """A piecewise-constant function: PyTorch gives each operand a zero gradient (the result
    still requires grad), which `where` selecting the result over them expresses without
    arithmetic on them."""
    def apply(*args):
        out = fn(*args)
        if not out.dtype.is_floating_point:
            return out
        every = np.ones(tuple(out.shape), bool)
        for x in args:
            if hasattr(x, "_edge"):
                out = ops.where(every, out, x)
        return out
    return apply


# div's rounding modes; the rounded ones have a zero gradient, PyTorch's DivBackward2
QUOTIENTS = {None: ops.true_divide, "floor": flat(floor_divide), "trunc": flat(trunc_divide)}


def sign(x):
    """PyTorch's sign is 0 at nan (numpy's, the primitive's, is nan)."""
    y = ops.sign(x)
    return ops.where(ops.ne(x, x), 0, y) if ir_type(x).dtype.is_float else y
