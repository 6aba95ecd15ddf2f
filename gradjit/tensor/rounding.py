"""Rounding and division by rounding on tensors: their values, and the zero gradient PyTorch
gives the piecewise-constant ones."""
from __future__ import annotations

import numpy as np

from gradjit import ops
from gradjit.ir.primitive import ir_type
from gradjit.tensor import dtypes


def trunc(x):
    """x rounded toward zero."""
    return ops.where(ops.lt(x, 0), ops.ceil(x), ops.floor(x))


def integer_division(fn, kernel):
    """fn as PyTorch's CPU kernel `kernel`, which has no complex or bool form and raises for
    an integer division by zero (eager values are known)."""
    def apply(a, b):
        dt = ops.result_type(a, b)
        if dt.is_complex or dt.name == "bool":
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{dtypes.of_ir(dt).legacy}'")
        divisor = getattr(b, "_value", b)  # (cast to the result's dtype first, as PyTorch)
        if not dt.is_float and isinstance(divisor, (int, np.ndarray)) and \
                np.any(np.asarray(divisor).astype(dt.numpy) == 0):
            raise RuntimeError("ZeroDivisionError")
        return fn(a, b)
    return apply


floor_divide = integer_division(ops.floor_divide, "div_floor_cpu")
remainder = integer_division(ops.remainder, "remainder_cpu")
fmod = integer_division(ops.fmod, "fmod_cpu")
trunc_divide = integer_division(ops.trunc_divide, "div_trunc_cpu")


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
    if ir_type(x).dtype.name == "bool":  # a bool is its own sign
        return ops.astype(x, ir_type(x).dtype)
    y = ops.sign(x)
    return ops.where(ops.ne(x, x), 0, y) if ir_type(x).dtype.is_float else y
