"""numpy's functions on the special values and mixed dtypes JAX's lax_numpy tests feed them
(NaN, +-inf, -0.0, ties; bool with int, int with float32, float32 with complex128): eager,
compiled and differentiated against numpy."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_eager, check_grad, check_jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

SPECIAL = np.array([np.nan, -np.inf, -2.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, np.inf, 1.0])
S32 = SPECIAL.astype(np.float32)
SC = (SPECIAL + 1j * SPECIAL[::-1]).astype(np.complex64)  # NaNs in either part
TIES = np.array([2.0, 1.0, 2.0, 0.5, 1.0, 2.0])  # kinks and jumps: values only
INTS = np.array([-7, -3, -1, 0, 1, 3, 7, 2, -2, 5, 4, -4], np.int32)

UNARY = {
    "sort": np.sort, "argsort": lambda a: np.argsort(a, kind="stable"),
    "unique": np.unique, "unique-inverse": lambda a: np.unique(a, return_inverse=True),
    "max": np.max, "min": np.min, "argmax": np.argmax, "argmin": np.argmin,
    "nanmax": np.nanmax, "nanargmin": np.nanargmin, "nanmedian": np.nanmedian,
    "median": np.median, "quantile": lambda a: np.quantile(a, [0.0, 0.3, 1.0]),
    "nanpercentile": lambda a: np.nanpercentile(a, 40), "cumsum": np.cumsum,
    "nancumprod": np.nancumprod, "nansum": np.nansum, "nanmean": np.nanmean,
    "clip": lambda a: np.clip(a, -1, 1), "sign": np.sign, "round": lambda a: np.round(a, 0),
    "round-neg": lambda a: np.round(a * 37, -1), "rint": np.rint, "floor": np.floor,
    "fix": np.fix, "isclose": lambda a: np.isclose(a, 1.0), "nan_to_num": np.nan_to_num,
    "frexp": np.frexp, "modf": np.modf, "spacing": np.spacing, "signbit": np.signbit,
    "searchsorted": lambda a: np.searchsorted(np.sort(a), a),
    "searchsorted-right": lambda a: np.searchsorted(np.sort(a), a, side="right"),
    "partition": lambda a: np.partition(a, 4)[4], "isin": lambda a: np.isin(a, [np.nan, 0.0]),
    "maximum": lambda a: np.maximum(a, np.flip(a)), "fmin": lambda a: np.fmin(a, np.flip(a)),
    "floor_divide": lambda a: np.floor_divide(a, np.flip(a)),
    "remainder": lambda a: np.remainder(a, np.flip(a)), "fmod": lambda a: np.fmod(a, np.flip(a)),
    "power": lambda a: np.power(a, np.flip(a)), "arctan2": lambda a: np.arctan2(a, np.flip(a)),
    "hypot": lambda a: np.hypot(a, np.flip(a)), "copysign": lambda a: np.copysign(a, np.flip(a)),
    "logaddexp": lambda a: np.logaddexp(a, np.flip(a)), "nextafter": lambda a: np.nextafter(a, 0),
    "heaviside": lambda a: np.heaviside(a, 0.5), "divmod": lambda a: np.divmod(a, 2),
    "sinc": np.sinc, "exp2": np.exp2, "log1p": np.log1p, "sqrt": np.sqrt, "cbrt": np.cbrt,
    "square": np.square, "abs": np.abs, "reciprocal": np.reciprocal,
    "sort_complex": np.sort_complex, "histogram": lambda a: np.histogram(a, 3, range=(-1, 1)),
    "digitize": lambda a: np.digitize(a, [-1.0, 0.0, 1.0]),
    "interp": lambda a: np.interp(a, [-1.0, 0.0, 2.0], [1.0, -1.0, 3.0]),
}

MIXED = {  # two operands of different dtypes, promoted as numpy promotes
    "add-bool-int": (np.add, arg((3, 4), "bool"), arg((3, 4), "i4")),
    "multiply-i4-f4": (np.multiply, arg((3, 4), "i4"), arg((3, 4), "f4")),
    "add-f4-c16": (np.add, arg((3, 4), "f4"), arg((3, 4), "c16")),
    "where-i4-f4": (lambda a, b: np.where(a > 0, a, b), arg((3, 4), "i4"), arg((3, 4), "f4")),
    "concatenate-bool-f4": (lambda a, b: np.concatenate([a, b]), arg((2, 4), "bool"),
                            arg((3, 4), "f4")),
    "stack-i4-c8": (lambda a, b: np.stack([a, b]), arg((3, 4), "i4"), arg((3, 4), "c8")),
    "select-i4-f8": (lambda a, b: np.select([a > 0], [a], b), arg((3, 4), "i4"), arg((3, 4))),
    "clip-f4-f8": (lambda a, b: np.clip(a, b, 2.0), arg((3, 4), "f4"), arg((3, 4))),
    "dot-i4-f4": (np.dot, arg((3, 4), "i4"), arg((4, 2), "f4")),
    "matmul-bool-i4": (np.matmul, arg((3, 4), "bool"), arg((4, 2), "i4")),
    "einsum-f4-c8": (lambda a, b: np.einsum("ij,jk", a, b), arg((3, 4), "f4"), arg((4, 2), "c8")),
    "searchsorted-i4-f8": (lambda a, b: np.searchsorted(np.sort(a), b), arg((5,), "i4"),
                           arg((4,))),
    "isin-i4-f8": (lambda a, b: np.isin(a, np.round(b)), arg((3, 4), "i4"), arg((5,))),
    "interp-f4": (lambda a, b: np.interp(a, [0.0, 1.0], b[:2]), arg((4,), "f4"), arg((3,), "f4")),
    "polyval-i4-f4": (np.polyval, arg((3,), "i4"), arg((4,), "f4")),
    "convolve-i4-f4": (np.convolve, arg((4,), "i4"), arg((3,), "f4")),
    "minimum-u1-i1": (np.minimum, arg((4,), "u1"), arg((4,), "i1")),
    "left_shift-i1-u1": (np.left_shift, arg((4,), "i1"), arg((4,), "u1")),
    "floor_divide-i4-i4": (np.floor_divide, INTS, INTS[::-1]),
    "remainder-i4-i4": (np.remainder, INTS, INTS[::-1]),
    "fmod-i4-i4": (np.fmod, INTS, INTS[::-1]), "power-i4": (np.power, INTS, np.abs(INTS[::-1])),
    "divmod-i4": (np.divmod, INTS, INTS[::-1]), "gcd-i4": (np.gcd, INTS, INTS[::-1]),
    "right_shift-i4": (np.right_shift, INTS, np.abs(INTS) % 5),
}

CASES = ([case(f"{name}-f8", fn, SPECIAL, grad=()) for name, fn in UNARY.items()]
         + [case(f"{name}-f4", fn, S32) for name, fn in UNARY.items()]
         + [case(f"{name}-c8", fn, SC) for name, fn in UNARY.items()]
         + [case(f"{name}-ties", fn, TIES, grad=()) for name, fn in UNARY.items()]
         + [case(name, fn, a, b) for name, (fn, a, b) in MIXED.items()])
# numpy orders complex values lexicographically against a histogram's real range; gradjit
# refuses to order complex values there
DIFFERENT = {"histogram-c8"}
# on Tensors, an integer operand does not widen float32 (nor float32 complex64): PyTorch's rule
TORCH_PROMOTION = {"where-i4-f4", "stack-i4-c8", "dot-i4-f4", "polyval-i4-f4", "convolve-i4-f4"}


@pytest.mark.parametrize("c", [c for c in CASES if c.name not in DIFFERENT | TORCH_PROMOTION],
                         ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.name not in DIFFERENT], ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad], ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
