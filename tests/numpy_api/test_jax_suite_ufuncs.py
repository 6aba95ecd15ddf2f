"""numpy's elementwise functions and operators over the dtypes and shapes JAX's operator tests
sweep (bool, int32, float32/64, complex64; 0-d, empty, broadcast): eager, compiled and
differentiated against numpy."""
import operator

import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_eager, check_grad, check_jit

DTYPES = ("bool", "i4", "f4", "f8", "c8")

# name -> (function, domain (low, high) for float arguments or None for all reals)
UNARY = {
    "abs": (np.abs, None), "ceil": (np.ceil, None), "floor": (np.floor, None),
    "trunc": (np.trunc, None), "rint": (np.rint, None), "sign": (np.sign, None),
    "negative": (np.negative, None), "positive": (np.positive, None),
    "square": (np.square, None), "sqrt": (np.sqrt, (0.5, 3)), "cbrt": (np.cbrt, None),
    "exp": (np.exp, None), "exp2": (np.exp2, None), "expm1": (np.expm1, None),
    "log": (np.log, (0.5, 3)), "log10": (np.log10, (0.5, 3)), "log2": (np.log2, (0.5, 3)),
    "log1p": (np.log1p, (-0.5, 3)), "sin": (np.sin, None), "cos": (np.cos, None),
    "tan": (np.tan, (-1, 1)), "sinh": (np.sinh, None), "cosh": (np.cosh, None),
    "tanh": (np.tanh, None), "arcsin": (np.arcsin, (-0.9, 0.9)),
    "arccos": (np.arccos, (-0.9, 0.9)), "arctan": (np.arctan, None),
    "arcsinh": (np.arcsinh, None), "arccosh": (np.arccosh, (1.1, 3)),
    "arctanh": (np.arctanh, (-0.9, 0.9)), "deg2rad": (np.deg2rad, None),
    "rad2deg": (np.rad2deg, None), "reciprocal": (np.reciprocal, (0.5, 3)),
    "fabs": (np.fabs, None), "signbit": (np.signbit, None), "isfinite": (np.isfinite, None),
    "isinf": (np.isinf, None), "isnan": (np.isnan, None), "isneginf": (np.isneginf, None),
    "isposinf": (np.isposinf, None), "spacing": (np.spacing, None), "i0": (np.i0, None),
    "sinc": (np.sinc, None), "real": (np.real, None), "imag": (np.imag, None),
    "conj": (np.conj, None), "angle": (np.angle, (0.5, 3)), "iscomplex": (np.iscomplex, None),
    "isreal": (np.isreal, None), "logical_not": (np.logical_not, None),
    "modf": (np.modf, None), "frexp": (np.frexp, None), "invert": (np.invert, None),
    "around": (lambda x: np.round(x, 1), None), "fix": (np.fix, None),
    "nan_to_num": (np.nan_to_num, None), "real_if_close": (np.real_if_close, None),
}

BINARY = {
    "add": (np.add, None), "subtract": (np.subtract, None), "multiply": (np.multiply, None),
    "divide": (np.divide, (0.5, 3)), "true_divide": (np.true_divide, (0.5, 3)),
    "floor_divide": (np.floor_divide, (0.5, 3)), "remainder": (np.remainder, (0.5, 3)),
    "fmod": (np.fmod, (0.5, 3)), "power": (np.power, (0.5, 2)),
    "float_power": (np.float_power, (0.5, 2)), "maximum": (np.maximum, None),
    "minimum": (np.minimum, None), "fmax": (np.fmax, None), "fmin": (np.fmin, None),
    "arctan2": (np.arctan2, None), "hypot": (np.hypot, None), "copysign": (np.copysign, None),
    "nextafter": (np.nextafter, None), "logaddexp": (np.logaddexp, None),
    "logaddexp2": (np.logaddexp2, None), "heaviside": (np.heaviside, None),
    "equal": (np.equal, None), "not_equal": (np.not_equal, None), "less": (np.less, None),
    "less_equal": (np.less_equal, None), "greater": (np.greater, None),
    "greater_equal": (np.greater_equal, None), "logical_and": (np.logical_and, None),
    "logical_or": (np.logical_or, None), "logical_xor": (np.logical_xor, None),
    "bitwise_and": (np.bitwise_and, None), "bitwise_or": (np.bitwise_or, None),
    "bitwise_xor": (np.bitwise_xor, None), "left_shift": (np.left_shift, (0, 4)),
    "right_shift": (np.right_shift, (0, 4)), "gcd": (np.gcd, None), "lcm": (np.lcm, None),
    "divmod": (np.divmod, (0.5, 3)), "ldexp": (lambda x, y: np.ldexp(x, 3), None),
    "isclose": (np.isclose, None),
}
# numpy's meaning of the Python operators on traced arrays (on Tensors they are PyTorch's);
# reflected ones through a scalar on the left
OPERATORS = {
    "__mod__": (operator.mod, (0.5, 3)), "__pow__": (operator.pow, (0.5, 2)),
    "__floordiv__": (operator.floordiv, (0.5, 3)), "__and__": (operator.and_, None),
    "__xor__": (operator.xor, None), "__rsub__": (lambda x, y: 2 - y, None),
    "__rtruediv__": (lambda x, y: 2 / y, (0.5, 3)), "__rpow__": (lambda x, y: 2 ** y, None),
    "__rmod__": (lambda x, y: 3 % y, (0.5, 3)), "__matmul__": (lambda x, y: x @ y.T, None),
}
# numpy's int8 results of bool operands, which gradjit refuses with a TypeError
INT8_FROM_BOOL = {"__mod__-bool", "__pow__-bool", "__floordiv__-bool"}
# a step function: gradjit's gradient is 0 where JAX has no rule
NO_GRAD = {"nextafter"}


def _unary_cases():
    for name, (fn, domain) in UNARY.items():
        low, high = domain or (None, None)
        for dtype in DTYPES:
            yield case(f"{name}-{dtype}", fn, arg((2, 3), dtype, low, high))
        yield case(f"{name}-0d", fn, arg((), "f8", low, high))
        yield case(f"{name}-empty", fn, arg((0, 2), "f8"))


def _binary_cases(table):
    for name, (fn, domain) in table.items():
        low, high = domain or (None, None)
        for dtype in DTYPES:
            yield case(f"{name}-{dtype}", fn, arg((2, 3), dtype, low, high),
                       arg((2, 3), dtype, low, high))
        # broadcasting, mixed dtypes (float32 with int32: numpy's float64), 0-d and empty
        yield case(f"{name}-broadcast", fn, arg((3, 1), "f8", low, high),
                   arg((1, 3), "f8", low, high))
        yield case(f"{name}-f4-i4", fn, arg((3,), "f4", low, high), arg((3,), "i4", 1, 3))
        yield case(f"{name}-0d", fn, arg((), "f8", low, high), arg((3,), "f8", low, high))
        yield case(f"{name}-empty", fn, arg((0, 3), "f8", low, high), arg((3,), "f8", 1, 2))


FUNCTION_CASES = list(_unary_cases()) + list(_binary_cases(BINARY))
OPERATOR_CASES = [c for c in _binary_cases(OPERATORS) if c.name not in INT8_FROM_BOOL]
GRAD_CASES = [c for c in FUNCTION_CASES + OPERATOR_CASES
              if c.grad and c.name.split("-")[0] not in NO_GRAD]


@pytest.mark.parametrize("c", FUNCTION_CASES, ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", FUNCTION_CASES + OPERATOR_CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", GRAD_CASES, ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
