"""After numpy's test_umath special-value tests: every float ufunc on zeros of both signs, ones,
halves, infinities, NaN, a subnormal and huge values, in float16, float32 and float64, compiled
(numpy's evaluation of the IR and the CPU code) and on eager Tensors, against numpy: values,
dtypes, NaN positions and the signs of zeros."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import case, check_eager, check_jit

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.5, np.inf, -np.inf, np.nan, 1e-310,
                    1e300, -1e300, 3e5, -7e4])
with np.errstate(over="ignore"):  # the huge values are infinities in float16 and float32
    IN = {dtype: SPECIAL.astype(dtype) for dtype in ("f2", "f4", "f8")}
FLOATS = tuple(IN)

UNARY = (np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh, np.tanh,
         np.arcsinh, np.arccosh, np.arctanh, np.exp, np.exp2, np.expm1, np.log, np.log2,
         np.log10, np.log1p, np.sqrt, np.cbrt, np.square, np.reciprocal, np.absolute, np.fabs,
         np.negative, np.positive, np.sign, np.floor, np.ceil, np.trunc, np.rint, np.deg2rad,
         np.rad2deg, np.isnan, np.isinf, np.isfinite, np.signbit, np.spacing, np.modf,
         np.frexp)
BINARY = (np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide, np.remainder,
          np.fmod, np.divmod, np.power, np.float_power, np.maximum, np.minimum, np.fmax, np.fmin,
          np.arctan2, np.hypot, np.copysign, np.nextafter, np.logaddexp, np.logaddexp2,
          np.heaviside, np.equal, np.less, np.greater_equal, np.not_equal, np.logical_and,
          np.logical_xor)
# numpy leaves these zero signs to its loops: maximum(0.0, -0.0) is either zero (its float32
# and float64 loops differ), float16's nextafter(x, x) is x where C's is y
TIES_OF_ZEROS = {np.maximum, np.minimum, np.fmax, np.fmin}


def _unary_case(ufunc, dtype):
    x = IN[dtype]
    if ufunc is np.spacing and dtype == "f2":  # numpy's float16 spacing of x < 0 is > 0 (a bug)
        x = np.abs(x)
    return case(f"{ufunc.__name__}-{dtype}", ufunc, x)


def _binary_case(ufunc, dtype):
    a, b = np.repeat(IN[dtype], SPECIAL.size), np.tile(IN[dtype], SPECIAL.size)
    return case(f"{ufunc.__name__}-{dtype}", ufunc, a, b)


UNARY_CASES = [_unary_case(u, d) for u in UNARY for d in FLOATS]
BINARY_CASES = [_binary_case(u, d) for u in BINARY for d in FLOATS]


def _signed(c):
    name, dtype = c.name.rsplit("-", 1)
    ufunc = getattr(np, name)
    return ufunc not in TIES_OF_ZEROS and not (ufunc is np.nextafter and dtype == "f2")


@pytest.mark.parametrize("c", UNARY_CASES + BINARY_CASES, ids=lambda c: c.id)
def test_special_values_compiled(c):
    check_jit(c, signed_zeros=_signed(c))


@pytest.mark.parametrize("c", UNARY_CASES + BINARY_CASES, ids=lambda c: c.id)
def test_special_values_on_tensors(c):
    check_eager(c, signed_zeros=_signed(c))


def _all_unary(x):
    return tuple(u(x) for u in UNARY if not (u is np.spacing and x.dtype == np.float16))


@pytest.mark.parametrize("dtype", FLOATS)
def test_special_values_in_cpu_code(dtype):
    """The CPU backend's own math library (sin, exp, log, ... emitted as LLVM IR) on the same
    values: one compiled function for all unary ufuncs of a dtype."""
    check_jit(case(f"all-{dtype}", _all_unary, IN[dtype]), backend="cpu",
              signed_zeros=True)


@pytest.mark.parametrize("ufunc", [u for u in BINARY if u not in TIES_OF_ZEROS])
def test_binary_special_values_in_cpu_code(ufunc):
    check_jit(_binary_case(ufunc, "f8"), backend="cpu", signed_zeros=True)
