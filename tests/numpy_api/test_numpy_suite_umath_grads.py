"""Gradients of numpy's differentiable float ufuncs and ufunc methods (grad of numpy-written
code against central differences), at ordinary points and at the points where a convention
decides: |x| and sign at 0, ties of maximum/minimum, hypot at the origin, logaddexp at -inf,
remainder between its jumps, where= masks and reductions with ties."""
import numpy as np
import pytest

from tests.numpy_api.check import check_grad
from tests.numpy_api.jax_suite import case
from tests.numpy_api.jax_suite import check_grad as check_grad_interpreted

X = np.array([0.3, 1.7, -0.4, 2.2])
Y = np.array([0.8, -0.2, 1.1, 2.6])
UNIT = np.array([0.3, 0.7, -0.4, 0.5])
POSITIVE = np.abs(X) + 0.1

UNARY = {
    **{u: X for u in (np.sin, np.cos, np.tan, np.arctan, np.sinh, np.cosh, np.tanh, np.arcsinh,
                      np.exp, np.exp2, np.expm1, np.cbrt, np.square, np.absolute, np.fabs,
                      np.negative, np.positive, np.deg2rad, np.rad2deg, np.sign, np.floor,
                      np.ceil, np.trunc, np.rint, np.reciprocal, np.sinc, np.i0)},
    **{u: UNIT for u in (np.arcsin, np.arccos, np.arctanh)},
    **{u: POSITIVE for u in (np.log, np.log2, np.log10, np.log1p, np.sqrt)},
    np.arccosh: POSITIVE + 1.0,
}
BINARY = {u: (X, Y) for u in (np.add, np.subtract, np.multiply, np.true_divide, np.maximum,
                              np.minimum, np.fmax, np.fmin, np.arctan2, np.hypot, np.logaddexp,
                              np.logaddexp2, np.copysign, np.heaviside, np.fmod, np.remainder,
                              np.floor_divide)}
BINARY.update({np.power: (POSITIVE, Y), np.float_power: (POSITIVE, Y)})

CASES = [
    *(case(u.__name__, u, x, grad=(0,)) for u, x in UNARY.items()),
    *(case(u.__name__, u, *xy, grad=(0, 1)) for u, xy in BINARY.items()),
    case("modf-parts", lambda x: np.modf(x)[0] + 2 * np.modf(x)[1], X, grad=(0,)),
    case("frexp-mantissa", lambda x: np.frexp(x)[0], X, grad=(0,)),
    case("ldexp", lambda x: np.ldexp(x, np.array([1, -2, 3, 0])), X, grad=(0,)),
    case("divmod-both", lambda x, y: np.divmod(x, y)[1] + np.divmod(x, y)[0], X, Y, grad=(0, 1)),
    # |x| at 0: 0 (the mean of both sides); a tie of maximum/minimum: half to each operand
    case("absolute-at-zero", np.absolute, np.array([0.0, -0.0, 1.0]), grad=(0,)),
    case("maximum-ties", np.maximum, np.array([0.0, 0.0, 1.0, -1.0]),
         np.array([0.0, 1.0, 1.0, -1.0]), grad=(0, 1)),
    case("minimum-ties", np.minimum, np.array([0.0, 0.0, 1.0, -1.0]),
         np.array([0.0, 1.0, 1.0, -1.0]), grad=(0, 1)),
    case("hypot-on-an-axis", np.hypot, np.array([0.0, 3.0, -2.0]), np.array([0.0, 0.0, 0.0]),
         grad=(0, 1)),
    case("logaddexp-at-minus-inf", np.logaddexp, np.array([-np.inf, 1.0]),
         np.array([1.0, -np.inf]), grad=(0, 1)),
    case("logaddexp-tie", np.logaddexp, np.array([1.0, 2.0]), np.array([1.0, 2.0]),
         grad=(0, 1)),
    case("remainder-between-jumps", lambda x: np.remainder(x, 1.0), np.array([0.5, 1.5, -0.5]),
         grad=(0,)),
    case("power-at-zero-base", lambda x: np.power(x, 2.0), np.array([0.0, 1.0]), grad=(0,)),
    case("integer-power", lambda x: x ** 3, np.array([0.0, -1.0, 2.0]), grad=(0,)),
    case("where-mask", lambda x: np.add(x, 1.0, out=np.zeros_like(x), where=x > 0),
         np.array([-1.0, 1.0, 2.0]), grad=(0,)),
    case("outer", lambda x: np.multiply.outer(x, x) + np.subtract.outer(x, x[::-1]),
         np.array([-1.0, 1.0, 2.0]), grad=(0,)),
    case("reduce-ties", lambda x: (np.maximum.reduce(x, axis=1), np.max(x, axis=0)),
         np.array([[1.0, 1.0, 0.0], [2.0, 3.0, 3.0]]), grad=(0,)),
    case("accumulate-ties", lambda x: np.maximum.accumulate(x), np.array([1.0, 1.0, 0.5, 2.0]),
         grad=(0,)),
    case("hypot-reduce", lambda x: np.hypot.reduce(x, axis=1), np.array([[1.0, 2.0, 3.0],
                                                                          [0.5, 3.0, 3.0]]),
         grad=(0,)),
    case("reduce-where-initial", lambda x: np.maximum.reduce(
        x, axis=0, where=np.array([True, False, True]), initial=-1.0), np.arange(9.).reshape(3, 3),
         grad=(0,)),
    case("reduceat", lambda x: np.multiply.reduceat(x, [0, 2, 1]), np.array([1.5, 2.0, 0.5, 3.0]),
         grad=(0,)),
    case("logaddexp-accumulate", lambda x: np.logaddexp.accumulate(x), X, grad=(0,)),
]


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_gradient_against_central_differences(c):
    check_grad_interpreted(c)


@pytest.mark.parametrize("ufunc", [np.sin, np.tan, np.arcsinh, np.expm1, np.cbrt, np.log1p,
                                   np.arctan2, np.hypot, np.logaddexp, np.power, np.remainder],
                         ids=lambda u: u.__name__)
def test_gradient_in_cpu_code(ufunc):
    args = (UNARY.get(ufunc),) if ufunc.nin == 1 else BINARY[ufunc]
    check_grad(ufunc, *args, argnums=tuple(range(ufunc.nin)), backends=("cpu",))
