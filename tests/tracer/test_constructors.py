"""numpy's constructors on traced values: np.array/np.asarray of nested lists that mix traced
values and constants, np.r_ and np.c_, with numpy's values, dtypes and gradients."""
import numpy as np
import pytest

import gradjit
from tests.e2e.checks import central_differences

from numpy import array as imported_array  # noqa: E402,I001  (bound after gradjit's import)

X = np.array([0.5, 1.5, -2.0])

CASES = {
    "array-of-rows": lambda x: np.array([x, x ** 2, np.ones(3)]) * np.array([[1.0], [2.0], [3]]),
    "array-of-scalars": lambda x: np.array([x[0] * x[1], 2.0, x[2]]),
    "nested": lambda x: np.array([[x[0], 1.0], [x[1], x[2] ** 3]]),
    "asarray": lambda x: np.asarray(x) * 2,
    "asarray-dtype": lambda x: np.asarray([x, x], dtype=np.float32),
    "ndmin": lambda x: np.array(x, ndmin=3),
    "tuple": lambda x: np.array((x, -x)),
    "ascontiguous": lambda x: np.ascontiguousarray([x[::-1], x]),
    "r_": lambda x: np.r_[x, 0.0, [1.0, 2.0], x[:2]],
    "r_-slice": lambda x: np.r_[x, 1:4],
    "c_": lambda x: np.c_[x, 2 * x, np.ones(3)],
    "c_-matrix": lambda x: np.c_[np.stack([x, x]), [7.0, 8.0]],
    # numpy functions given Python sequences holding traced numbers
    "sum-of-list": lambda x: np.sum([x[0], x[1] ** 2, 1.0]),
    "max-of-list": lambda x: np.max([0.0, x[0], x[1]]),
    "mean-over-axis": lambda x: np.mean([x, x ** 2], axis=0),
    "norm-of-list": lambda x: np.linalg.norm([x[0], x[2]]),
    "det-of-nested": lambda x: np.linalg.det([[x[0], 1.0], [x[1], x[2]]]),
    "interp-values": lambda x: np.interp([0.25, 0.75], [0.0, 1.0], [x[0], x[1]]),
    "polyval-coefficients": lambda x: np.polyval([x[0], x[1], x[2]], 1.5),
    "cross-of-list": lambda x: np.cross([x[0], x[1], 0.0], x),
    "clip-of-list": lambda x: np.clip([x[0], x[2]], -1.0, 1.0),
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_dtypes_equal_numpy(name):
    fn = CASES[name]
    want, got = fn(X), gradjit.jit(fn)(X)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("name", [n for n in CASES if n != "asarray-dtype"])
def test_gradients_match_central_differences(name):
    weights = np.random.default_rng(1).uniform(0.5, 1.5, CASES[name](X).shape)

    def scalar(x):
        return np.sum(CASES[name](x) * weights)
    np.testing.assert_allclose(gradjit.grad(scalar)(X), central_differences(scalar, (X,), 0),
                               rtol=1e-6, atol=1e-8)


def test_a_python_float_next_to_float32_gives_float64_as_in_numpy():
    x = X.astype(np.float32)
    got = gradjit.jit(lambda x: np.array([x[0], 1.0]))(x)
    assert got.dtype == np.array([x[0], 1.0]).dtype


def test_ragged_lists_are_refused_as_numpy_refuses_them():
    with pytest.raises(ValueError, match="inhomogeneous shape"):
        gradjit.jit(lambda x: np.array([x, x[:2]]))(X)


def test_directives_of_r_place_traced_values_as_numpy():
    def fn(x):
        return np.r_['0,2', x, x], np.r_['1,2,0', x, x], np.c_['0,2,-1', x, x]
    for got, want in zip(gradjit.jit(fn)(X), fn(X)):
        np.testing.assert_array_equal(got, want)


def test_matrix_directive_of_r_is_refused_on_traced_values():
    with pytest.raises(TypeError, match="np.matrix"):
        gradjit.jit(lambda x: np.r_['r', x, x])(X)


def test_outside_a_trace_the_constructors_are_numpy_own():
    assert np.array([1, 2]).dtype == np.int64
    assert np.array([1], ndmin=3).shape == (1, 1, 1)
    np.testing.assert_array_equal(np.r_[1:4, 7], [1, 2, 3, 7])
    np.testing.assert_array_equal(np.c_[[1, 2], [3, 4]], [[1, 3], [2, 4]])
    assert np.asarray([1.0], dtype=np.float32).dtype == np.float32
    assert len(np.r_) == 0
    assert np.sum([1, 2]) == 3 and np.sum([[1, 2]], axis=1).tolist() == [3]


def test_a_constructor_imported_by_name_works_too():
    """`from numpy import array` after importing gradjit (and modules that re-export numpy's
    names) get the same constructor as np.array."""
    fn = gradjit.grad(lambda x: np.sum(imported_array([x, x ** 2])))
    np.testing.assert_allclose(fn(X), 1 + 2 * X)


def test_full_with_a_traced_fill_value():
    """np.full(shape, traced) (HIPS's define_gradient example builds its rule with it)."""
    def f(x):
        return np.sum(np.full((2, 3), x) * np.full(3, x ** 2, dtype=np.float64))
    np.testing.assert_allclose(gradjit.grad(f)(2.0), 18 * 2.0 ** 2)
    np.testing.assert_allclose(gradjit.jit(f)(2.0), f(2.0))
    assert gradjit.jit(lambda x: np.full(2, x))(np.float32(1.5)).dtype == np.float32
    np.testing.assert_array_equal(np.full(2, 7), [7, 7])


def test_as_strided_of_a_traced_value_is_numpy_view_and_refuses_partial_elements():
    as_strided = np.lib.stride_tricks.as_strided
    np.testing.assert_array_equal(gradjit.jit(lambda x: as_strided(x, (2, 2), (8, 8)))(X),
                                  as_strided(X, (2, 2), (8, 8)))
    with pytest.raises(TypeError, match="multiples of the itemsize"):
        gradjit.jit(lambda x: as_strided(x, (2,), (4,)))(X)
