"""Arrays a traced function makes with numpy's allocating constructors and fills (with values
computed at run time, in place): numpy's values, and gradients against central differences;
arrays filled with constants alone still read as numpy arrays in the libraries they reach."""
import numpy as np
import pytest

import gradjit
from tests.e2e.checks import central_differences

X = np.array([0.3, 0.7, 1.1])


def squares_by_loop(x):
    out = np.zeros(3)
    for i in range(3):
        out[i] = x[i] ** 2
    return out


def diagonal_matrix_det(x):
    a = np.zeros((3, 3))
    a[0, 0], a[1, 1], a[2, 2] = x[0], x[1], 2.0
    a[0, 1] = 1.0
    return np.linalg.det(a)


def columns(x):
    out = np.empty((3, 2))
    out[:, 0] = x
    out[:, 1] = np.sin(x)
    return out


def accumulated(x):
    acc = np.zeros(3)
    acc += x
    acc *= 2
    np.add(acc, x, out=acc)
    return acc


def shifted(x):
    h = np.ones(4)
    h[1:] = x
    return h[:-1] * x


def eye_diagonal(x):
    m = np.eye(3)
    m[np.arange(3), np.arange(3)] = x
    return np.linalg.det(m + 1.0)


def masked_ones(x):
    out = np.zeros(3)
    out[x > 0.5] = 1.0
    return out * x


def full_then_row(x):
    grid = np.full((2, 3), 0.5)
    grid[1] = x ** 3
    return grid


CASES = [squares_by_loop, diagonal_matrix_det, columns, accumulated, shifted, eye_diagonal,
         masked_ones, full_then_row]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_values_equal_numpy(fn):
    want, got = fn(X), gradjit.jit(fn)(X)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_gradients_match_central_differences(fn):
    weights = np.random.default_rng(0).uniform(0.5, 1.5, np.shape(fn(X)))

    def scalar(x):
        return np.sum(fn(x) * weights)
    np.testing.assert_allclose(gradjit.grad(scalar)(X), central_differences(scalar, (X,), 0),
                               rtol=1e-6, atol=1e-8)


def test_an_array_of_constants_reads_as_numpy_in_a_library():
    special = pytest.importorskip("scipy.special")

    def fn(x):
        buf = np.zeros(3)
        buf[0] = 1.0
        rows = np.asarray(buf).reshape(3, 1)  # a library's np.asarray: numpy's values
        return (special.expit(buf) * x).sum() + rows.sum(), buf.flags.c_contiguous
    (value, contiguous), want = gradjit.jit(fn)(X), fn(X)
    np.testing.assert_allclose(value, want[0], rtol=1e-12)
    assert contiguous


def test_outside_a_trace_the_constructors_are_numpy_own():
    assert type(np.zeros(2)) is np.ndarray and np.zeros(2, int).dtype == np.int64
    gradjit.jit(lambda x: np.zeros(3) + x)(X)
    assert type(np.ones((2, 2))) is np.ndarray and type(np.eye(2)) is np.ndarray


def drawn_and_filled(x):
    out = np.zeros_like(
        x)  # a call over two lines is the traced function's own too
    out[0] = x[0] ** 2
    rng = np.random.default_rng(3)
    noise = (rng.normal(size=x.shape) + rng.uniform(0.0, 1.0, x.shape)
             + rng.integers(0, 5, x.shape) + rng.permutation(x.size).reshape(x.shape)
             + np.random.RandomState(4).randn(*x.shape))
    return (out + noise * x).sum()


def test_numpy_random_draws_inside_a_traced_function_are_numpy_arrays():
    """numpy's Generator allocates its results through np.empty from compiled code, with no
    frame of its own: those arrays stay numpy's, while the function's own np.zeros_like is
    filled with traced values."""
    np.testing.assert_allclose(gradjit.jit(drawn_and_filled)(X), drawn_and_filled(X),
                               rtol=1e-12)
    np.testing.assert_allclose(gradjit.grad(drawn_and_filled)(X),
                               central_differences(drawn_and_filled, (X,), 0), rtol=1e-6)
