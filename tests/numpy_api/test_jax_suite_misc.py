"""JAX's lax_numpy tests the other test_jax_suite_* tables miss: derivatives at special values,
sinc's at 0, ldexp/frexp gradients, index tricks, pad's lengths and ramp ends, fill_diagonal's
wrap, item (ndarray.view as another dtype and r_'s string directives are refused when traced)."""
import numpy as np
import pytest

import gradjit
from gradjit.test_util import check_grads
from tests.numpy_api.jax_suite import arg, case, check_grad, check_jit

A, V = arg((3, 4)), arg((5,))


@pytest.mark.parametrize("fn, values, order", [
    (np.arcsinh, [0.0, 1000.0, -2.5], 2), (np.arccosh, [1000.0, 1.5], 2),
    (np.arctanh, [0.0, -0.9, 0.5], 2), (np.sinc, [0.0, 0.5, -1.5], 1),
    (np.arcsinh, [0.5 + 0.2j, 1.0 - 1.0j], 2), (np.arctanh, [0.3 - 0.4j], 2),
])
def test_derivatives_at_special_values(fn, values, order):
    check_grads(fn, modes=["fwd", "rev"], order=order)(np.array(values))


@pytest.mark.parametrize("fn", [np.logaddexp, np.logaddexp2, np.hypot, np.arctan2])
def test_second_derivatives_of_two_operands(fn):
    check_grads(fn, argnum=(0, 1), order=2)(arg((3,), low=-0.9, high=0.9),
                                            arg((3,), low=-0.9, high=0.9))


def test_sinc_derivatives_at_zero():
    first = gradjit.grad(lambda x: np.sinc(x))
    second = gradjit.grad(first)
    assert first(0.0) == 0.0
    np.testing.assert_allclose(second(0.0), -np.pi ** 2 / 3, rtol=1e-6)
    np.testing.assert_allclose(gradjit.grad(lambda x: np.sinc(x).sum())(np.zeros(3)),
                               np.zeros(3))


def test_ldexp_and_frexp_gradients():
    x, e = arg((4,)), np.array([-2, 0, 3, 1])
    np.testing.assert_allclose(gradjit.grad(lambda x: np.ldexp(x, e).sum())(x), 2.0 ** e)
    mantissa_grad = gradjit.grad(lambda x: np.frexp(x)[0].sum())(x)
    np.testing.assert_allclose(mantissa_grad, 2.0 ** -np.frexp(x)[1])


CASES = [
    case("r_", lambda a, v: np.r_[a[0], 0.5, v], A, V),
    case("r_-slice", lambda a: np.r_[a[0], 1:4], A), case("c_", lambda a: np.c_[a, a[:, :1]], A),
    case("mgrid", lambda a: np.mgrid[0:3, 0:4] * a, A),
    case("ogrid", lambda a: np.ogrid[0:3, 0:4][1] * a, A),
    case("mgrid-complex-step", lambda a: np.mgrid[0:1:4j] * a, A),
    case("index_exp", lambda a: a[np.index_exp[1:, ::2]], A),
    case("s_", lambda a: a[np.s_[::-1, 1]], A),
    case("broadcast_shapes", lambda a: np.ones(np.broadcast_shapes((3, 1), (1, 4))) * a, A),
    case("tril_indices", lambda a: a[np.tril_indices(3, 0, 4)], A),
    case("triu_indices_from", lambda a: a[np.triu_indices_from(a, 1)], A),
    case("pad-stat_length", lambda a: np.pad(a, ((1, 2), (2, 1)), mode="mean",
                                             stat_length=((1, 2), (3, 1))), A),
    case("pad-stat_length-long", lambda a: np.pad(a, 2, mode="maximum", stat_length=10), A),
    case("pad-stat_length-int", lambda a: np.pad(a, 2, mode="mean", stat_length=2),
         np.arange(12, dtype=np.int32).reshape(3, 4)),
    case("pad-end_values", lambda a: np.pad(a, ((2, 1), (1, 3)), mode="linear_ramp",
                                            end_values=((-1, 2), (0.5, 4))), A),
    case("pad-end_values-int", lambda a: np.pad(a, 3, mode="linear_ramp", end_values=7),
         np.arange(12, dtype=np.int32).reshape(3, 4)),
    case("pad-symmetric-odd", lambda a: np.pad(a, 5, mode="symmetric", reflect_type="odd"), A),
    case("pad-reflect-long", lambda a: np.pad(a, 7, mode="reflect"), A),
    case("pad-wrap-long", lambda a: np.pad(a, (9, 2), mode="wrap"), A),
    case("pad-dict", lambda a: np.pad(a, {1: (1, 2)}), A),
    case("fill_diagonal-wrap", lambda a: _fill(a, True), arg((7, 3))),
    case("fill_diagonal-tall", lambda a: _fill(a, False), arg((7, 3))),
    case("fill_diagonal-values", lambda a: _fill(a, True, [1.0, 2.0]), arg((7, 3))),
    case("trim_zeros-const", lambda a: np.trim_zeros(np.array([0.0, 1.0, 0.0, 2.0, 0.0]), "b")
         * a[0, 0], A),
    case("isclose-corners", lambda a: np.isclose(np.array([np.inf, -np.inf, np.nan, 0.0]) * a[0],
                                                 np.array([np.inf, np.inf, np.nan, -0.0]),
                                                 equal_nan=True), A),
    case("ndim-shape-size", lambda a: a * np.ndim(a) * np.size(a, 1) * np.shape(a)[0], A),
    # item() reads a number into Python (a guard): a constant to the gradient
    case("item", lambda a: a[0, 0] * a.item(1) + a.item(2, 1) + a.item((1, 3)), A, grad=()),
]


def _fill(a, wrap, value=9.0):
    a = np.copy(a)
    np.fill_diagonal(a, value, wrap=wrap)
    return a


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad], ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
