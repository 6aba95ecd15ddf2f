"""jax.lax's elementwise operations as numpy and scipy.special functions (which gradjit traces,
so they differentiate and batch), generated from a table of names; the few whose meaning
differs from numpy's (integer div and rem, round, clamp) written out."""
from __future__ import annotations

import functools
import importlib

import numpy as np

from gradjit.ir.elementwise import stop_gradient as _stop
from gradjit.tracer.custom import custom_jvp


class _Special:
    """scipy.special's function `name` (or gradjit.scipy.special's, for those numpy does not
    trace), imported on the first call: importing scipy.special costs more than importing
    gradjit without it."""

    def __init__(self, name, module="scipy.special"):
        self.__name__, self.name, self.module = name, name, module

    def __call__(self, *args, **kwargs):
        return getattr(importlib.import_module(self.module), self.name)(*args, **kwargs)


_TABLE = {
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "add": np.add, "asin": np.arcsin,
    "asinh": np.arcsinh, "atan": np.arctan, "atan2": np.arctan2, "atanh": np.arctanh,
    "bitwise_and": np.bitwise_and, "bitwise_not": np.invert, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor, "cbrt": np.cbrt, "ceil": np.ceil, "cos": np.cos,
    "cosh": np.cosh, "digamma": _Special("digamma"), "eq": np.equal, "erf": _Special("erf"),
    "erf_inv": _Special("erfinv"), "erfc": _Special("erfc"), "exp": np.exp, "exp2": np.exp2,
    "expm1": np.expm1, "floor": np.floor, "ge": np.greater_equal, "gt": np.greater,
    "igamma": _Special("gammainc", "gradjit.scipy.special"),
    "igammac": _Special("gammaincc", "gradjit.scipy.special"),
    "is_finite": np.isfinite, "le": np.less_equal, "lgamma": _Special("gammaln"), "log": np.log,
    "log1p": np.log1p, "logistic": _Special("expit"), "lt": np.less, "max": np.maximum,
    "min": np.minimum, "mul": np.multiply, "ne": np.not_equal, "neg": np.negative,
    "nextafter": np.nextafter, "pow": np.power, "shift_left": np.left_shift,
    "shift_right_arithmetic": np.right_shift, "sign": np.sign, "sin": np.sin, "sinh": np.sinh,
    "sqrt": np.sqrt, "square": np.square, "sub": np.subtract, "tan": np.tan, "tanh": np.tanh,
}
globals().update(_TABLE)


def div(x, y):
    """x / y, integers rounding toward zero (C's division, not numpy's floor division)."""
    if np.result_type(x, y).kind in "iu":
        quotient = np.abs(x) // np.abs(y)
        return np.where((x < 0) != (y < 0), -quotient, quotient)
    return np.true_divide(x, y)


def rem(x, y):
    """The remainder of div: its sign is x's (C's fmod)."""
    return np.fmod(x, y)


def round(x, rounding_method=0):  # noqa: A001
    """Halves away from zero (rounding_method 0, JAX's default) or to even (1)."""
    if int(rounding_method) == 1:
        return np.round(x)
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def rsqrt(x):
    return 1 / np.sqrt(x)


def reciprocal(x):
    return 1 / x


def integer_pow(x, y: int):
    return x ** int(y)


def clamp(min, x, max):  # noqa: A002
    """x clamped into [min, max] (JAX's argument order: the bounds around x)."""
    return np.minimum(np.maximum(x, min), max)


@functools.partial(custom_jvp, nondiff_argnums=(1, 2))
def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """operand rounded to the floats of these bit counts (ties to even), past their largest
    to infinity, below their smallest normal number to zero (XLA flushes subnormals)."""
    info = np.finfo(np.result_type(operand))
    x, magnitude = operand, np.abs(operand)
    if mantissa_bits < info.nmant:
        scale = np.floor(np.log2(np.where(magnitude > 0, magnitude, 1.0)))
        # log2 may round across a power of two: the exponent is the one 2**e <= |x| < 2**(e+1)
        scale = scale - (np.exp2(scale) > magnitude) + (np.exp2(scale + 1) <= magnitude)
        ulp = np.exp2(scale - mantissa_bits)
        x = np.where(np.isfinite(operand), np.round(operand / ulp) * ulp, operand)
    if exponent_bits < info.nexp:
        bias = 2 ** (exponent_bits - 1) - 1
        largest = (2 - 2.0 ** -mantissa_bits) * 2.0 ** bias
        x = np.where(np.abs(x) > largest, np.copysign(np.inf, operand), x)
        x = np.where(np.abs(x) < 2.0 ** (1 - bias), np.copysign(0.0, operand), x)
    return x


@reduce_precision.defjvp
def _reduce_precision_jvp(exponent_bits, mantissa_bits, primals, tangents):
    """Linear, as JAX defines it: the tangent is rounded alike. Written as the tangent times
    the (constant) ratio rounding gives it, so that reverse mode, transposing this at zero
    tangents, passes cotangents through unrounded (JAX rounds them too)."""
    (x,), (t,) = primals, tangents
    ratio = np.where(t != 0, reduce_precision(t, exponent_bits, mantissa_bits)
                     / np.where(t != 0, t, 1.0), 1.0)
    return reduce_precision(x, exponent_bits, mantissa_bits), t * _stop(ratio)


def convert_element_type(operand, new_dtype):
    return np.asarray(operand).astype(np.dtype(new_dtype))


__all__ = [*_TABLE, "clamp", "convert_element_type", "div", "integer_pow", "reciprocal",
           "reduce_precision", "rem", "round", "rsqrt"]
