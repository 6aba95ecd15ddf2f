"""gradjit.numpy's scalar types called on traced values (np.int64(x), np.float64(x[0]) as HIPS
autograd and JAX code write them): the cast numpy makes, as a traced value, with the gradient
of a float cast; the types stay usable as numpy's everywhere (dtypes, isinstance, issubdtype,
dict keys, pickling), and numpy's own namespace is never changed."""
import pickle

import numpy
import pytest

import gradjit
import gradjit.numpy as np
from tests.numpy_api.check import check_grad, check_values

X = np.array([1.5, -2.5, 3.25])


@pytest.mark.parametrize("fn", [
    lambda x: np.int64(x[0]), lambda x: np.float32(x.sum()), lambda x: np.int32(x[1]),
    lambda x: np.float64(x[0]) * x, lambda x: np.complex128(x[2]), lambda x: np.int64(x),
    lambda x: np.double(x[0]) + 1, lambda x: np.float64([x[0], 2.0])], ids=str)
def test_values_and_types_as_numpy(fn):
    check_values(fn, X)
    assert type(gradjit.jit(fn)(X)) is type(fn(X))  # an array scalar for a 0-d value


@pytest.mark.parametrize("fn", [lambda x: np.uint8(np.abs(x)), lambda x: np.float16(x[1])])
def test_types_the_cpu_backend_does_not_compile_interpreted(fn):
    check_values(fn, X, backends=("interpreter",))


@pytest.mark.parametrize("fn", [lambda x: x * np.float64(x[0]),
                                lambda x: np.float64(x.sum()) ** 2 + x])
def test_float_casts_carry_the_gradient(fn):
    check_grad(fn, X)


def test_a_narrowing_float_cast_passes_the_gradient_back_in_the_input_type():
    g = gradjit.grad(lambda x: np.sum(np.float32(x) * 2))(X)
    assert g.dtype == np.float64
    np.testing.assert_array_equal(g, [2.0, 2.0, 2.0])


def test_integer_casts_have_no_gradient():
    g = gradjit.grad(lambda x: np.sum(x * np.int64(x[0])))(X)
    np.testing.assert_array_equal(g, np.full(3, 1.0))  # the integer factor is a constant


def test_hips_cast_to_int():
    """HIPS autograd's test_cast_to_int: indices cut from the differentiated array."""
    def fun(w):
        return w[:, :-1][np.int64(w[:, -1])].sum()
    w = np.random.default_rng(0).standard_normal((5, 10))
    w[:, -1] = [0, 3, 1, 1, 4]
    np.testing.assert_allclose(gradjit.grad(fun)(w),
                               gradjit.grad(fun, backend="interpreter")(w))
    g = gradjit.grad(fun)(w)
    np.testing.assert_array_equal(g[:, -1], 0)
    np.testing.assert_array_equal(g[:, 0], [1, 2, 0, 1, 1])


def test_the_types_stay_numpys_while_traced():
    def checks(x):
        assert np.dtype(np.float64) == np.dtype("f8") and np.zeros(2, np.int32).dtype == np.int32
        assert isinstance(np.float64(1.0), np.float64) and isinstance(numpy.float64(1), np.double)
        assert type(np.float64(1.0)) is numpy.float64
        assert issubclass(np.float32, np.floating) and np.issubdtype(np.int64, np.integer)
        assert np.issubdtype(np.dtype("f8"), np.float64) and np.float64 == np.double
        assert {np.dtype("f8").type: 1}[np.float64] == 1 and {np.float64: 1}[np.dtype("f8").type]
        assert np.dtype("f8").type == np.float64 and repr(np.float64) == "<class 'numpy.float64'>"
        assert pickle.loads(pickle.dumps(np.float32(2.5))) == 2.5
        np.testing.assert_array_equal(np.int64(np.array([1.7, 2.2])), [1, 2])
        assert numpy.float64 is numpy.dtype("f8").type  # numpy's own names are untouched
        return x * np.float64(2.0)
    numpy.testing.assert_array_equal(gradjit.jit(checks)(X), 2 * X)


def test_the_types_pickle_as_themselves():
    assert pickle.loads(pickle.dumps(np.float64)) is np.float64
    assert pickle.loads(pickle.dumps(numpy.float64)) is numpy.float64
