"""ufunc methods on traced values: outer for every supported binary ufunc, reduce and
accumulate where numpy has a function that equals them; unsupported names raise an error that
names them in full, suggests near names and points at the user's line."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_grad, check_values

X = np.random.default_rng(2).uniform(0.5, 2.0, (2, 3))


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.true_divide,
                                   np.maximum, np.power, np.less])
def test_outer(ufunc):
    check_values(lambda x: ufunc.outer(x[0], x), X, backends=("cpu",))


def test_outer_gradient():
    check_grad(lambda x: np.multiply.outer(x[0], x[1]) + np.subtract.outer(x, x[1]), X,
               backends=("cpu",))


@pytest.mark.parametrize("ufunc,axis", [(np.add, 0), (np.add, None), (np.multiply, 1),
                                        (np.maximum, -1), (np.minimum, (0, 1))])
def test_reduce(ufunc, axis):
    check_values(lambda x: ufunc.reduce(x, axis=axis), X, backends=("cpu",))


@pytest.mark.parametrize("ufunc", [np.add, np.multiply])
def test_accumulate(ufunc):
    check_values(lambda x: (ufunc.accumulate(x), ufunc.accumulate(x, axis=1)), X,
                 backends=("cpu",))
    check_grad(lambda x: ufunc.accumulate(x, axis=1), X, backends=("cpu",))


def test_logical_reduce():
    check_values(lambda x: (np.logical_and.reduce(x > 1), np.logical_or.reduce(x > 1, axis=1)),
                 X, backends=("cpu",))


def test_unsupported_names_are_named_in_full_with_near_names_and_the_line():
    def f(x):
        return np.linalg.eig(x)  # the offending line
    with pytest.raises(TypeError, match=r"np\.linalg\.eig is not supported") as info:
        gradjit.jit(f)(np.eye(2))
    assert "the offending line" in str(info.value) and "test_ufunc_methods.py:" in str(info.value)
    with pytest.raises(TypeError, match=r"np\.subtract\.reduce .*did you mean np\.add\.reduce"):
        gradjit.jit(lambda x: np.subtract.reduce(x))(X)


LINSPACES = {
    "default": lambda a, b: np.linspace(a, b, 5), "open": lambda a, b: np.linspace(a, b, 4, False),
    "one": lambda a, b: np.linspace(a, b, 1), "none": lambda a, b: np.linspace(a, b, 0),
    "step": lambda a, b: np.linspace(a, b, 3, retstep=True),
    "arrays": lambda a, b: np.linspace(a * np.ones(2), b * np.arange(1.0, 3.0), 4, axis=1),
    "dtype": lambda a, b: np.linspace(a, b, 3, dtype=np.float32),
}


@pytest.mark.parametrize("name", LINSPACES)
def test_linspace_with_traced_ends(name):
    check_values(LINSPACES[name], np.float64(0.5), np.float64(2.0), backends=("cpu",),
                 rtol=0, atol=0)


def test_linspace_gradient():
    check_grad(lambda a: np.linspace(a, 3.0 * a, 6), np.array(0.7), backends=("cpu",))


def test_real_number_names():
    x = np.array([-1.0, 2.0, -0.0, 0.0])
    check_values(lambda v: (np.angle(v), np.angle(v, deg=True), np.real_if_close(v),
                            np.swapaxes(v[None], axis1=0, axis2=1)), x, backends=("cpu",))


def test_linspace_refuses_a_negative_count_as_numpy_does():
    with pytest.raises(ValueError, match="Number of samples, -1, must be non-negative"):
        gradjit.jit(lambda a: np.linspace(a, 1.0, -1))(np.float64(0.0))
