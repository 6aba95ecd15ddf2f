"""jax.lax's elementwise operations as numpy and scipy.special functions (which gradjit traces,
so they differentiate and batch), generated from a table of names; the few whose meaning
differs from numpy's (integer div and rem, round, clamp) written out."""
from __future__ import annotations

import numpy as np


class _Special:
    """scipy.special's function `name`, imported on the first call: importing scipy.special
    costs more than importing gradjit without it."""

    def __init__(self, name):
        self.__name__ = self.name = name

    def __call__(self, *args, **kwargs):
        from scipy import special
        return getattr(special, self.name)(*args, **kwargs)


_TABLE = {
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "add": np.add, "asin": np.arcsin,
    "asinh": np.arcsinh, "atan": np.arctan, "atan2": np.arctan2, "atanh": np.arctanh,
    "bitwise_and": np.bitwise_and, "bitwise_not": np.invert, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor, "cbrt": np.cbrt, "ceil": np.ceil, "cos": np.cos,
    "cosh": np.cosh, "digamma": _Special("digamma"), "eq": np.equal, "erf": _Special("erf"),
    "erf_inv": _Special("erfinv"), "erfc": _Special("erfc"), "exp": np.exp, "exp2": np.exp2,
    "expm1": np.expm1, "floor": np.floor, "ge": np.greater_equal, "gt": np.greater,
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


def convert_element_type(operand, new_dtype):
    return np.asarray(operand).astype(np.dtype(new_dtype))


__all__ = [*_TABLE, "clamp", "convert_element_type", "div", "integer_pow", "reciprocal", "rem",
           "round", "rsqrt"]
