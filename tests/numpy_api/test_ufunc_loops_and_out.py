"""ufuncs on traced values compute in the loop numpy picks (float16 for the math of bool, int8
and uint8, float32 for int16, int8 for bool division and shifts), and `out=` and `where=` are
numpy's: a functional write into a traced out array, numpy's shape and casting errors."""
import warnings

import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_eager, check_grad, check_values

BACKENDS = ("interpreter", "cpu")
SMALL = (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64)
MATH = (np.sin, np.cos, np.exp, np.sqrt, np.log1p, np.tanh, np.arcsinh, np.cbrt, np.exp2,
        np.rint, np.floor, np.square, np.reciprocal, np.negative, np.absolute)
BINARY = (np.true_divide, np.floor_divide, np.power, np.fmod, np.remainder, np.left_shift,
          np.right_shift, np.arctan2, np.hypot, np.logaddexp, np.maximum, np.add)


def _loop_result(ufunc, *args):
    """numpy's result, or the error type it raises (numpy refuses some bool loops)."""
    try:
        with np.errstate(all="ignore"):
            return ufunc(*args)
    except TypeError as error:
        return type(error)


@pytest.mark.parametrize("dtype", SMALL, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("ufunc", MATH, ids=lambda u: u.__name__)
def test_unary_math_has_numpys_result_dtype(ufunc, dtype):
    x = np.array([0, 1, 3, 1], dtype)
    want = _loop_result(ufunc, x)
    if isinstance(want, type):
        for backend in BACKENDS:
            with pytest.raises(want):
                gradjit.jit(ufunc, backend=backend)(x)
        return
    with np.errstate(all="ignore"):
        check_values(ufunc, x, backends=BACKENDS, rtol=1e-3)
        check_eager(ufunc, x, rtol=1e-3)


@pytest.mark.parametrize("dtype", SMALL, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("ufunc", BINARY, ids=lambda u: u.__name__)
def test_binary_ufuncs_on_small_types_give_numpys_dtype_or_error(ufunc, dtype):
    a, b = np.array([1, 0, 1, 1], dtype), np.array([1, 1, 0, 1], dtype)
    want = _loop_result(ufunc, a, b)
    if isinstance(want, type):
        for backend in BACKENDS:
            with pytest.raises(want):
                gradjit.jit(ufunc, backend=backend)(a, b)
        return
    with np.errstate(all="ignore"):
        check_values(ufunc, a, b, backends=BACKENDS, rtol=1e-3)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.bool_])
def test_means_and_variances_of_small_integers(dtype):
    x = np.array([[1, 0, 1], [1, 1, 0]], dtype)
    check_values(lambda x: (np.mean(x), np.mean(x, 0), np.average(x, 1), np.var(x),
                            np.std(x, 1), np.true_divide(x, 2), x / 3), x, backends=BACKENDS)


def test_python_numbers_promote_weakly_in_the_loop():
    x = np.array([1, 2, 3], np.int8)
    check_values(lambda x: (x + 300.0, np.add(x, 2), np.power(x, 2), np.multiply(x, 1.5),
                            np.ldexp(np.float32(1.5), x)), x, backends=BACKENDS, rtol=1e-3)


def _sin_into_intermediate(x):
    buffer = np.zeros_like(x)
    result = np.sin(x, out=buffer)
    return result, buffer


def _into_argument(x, y):
    np.multiply(x, 2.0, out=y)
    return y


def test_out_writes_into_a_traced_intermediate_or_argument():
    x, y = np.linspace(0.1, 1.3, 6).reshape(2, 3), np.zeros((4, 2, 3))
    check_values(_sin_into_intermediate, x, backends=BACKENDS)
    check_values(_into_argument, x, y.copy(), backends=BACKENDS)
    check_eager(_into_argument, x, y.copy())
    kept = y.copy()
    gradjit.jit(_into_argument)(x, kept)
    assert np.allclose(kept, _into_argument(x, y))  # written as numpy writes it
    check_grad(lambda x: _sin_into_intermediate(x)[1], x, backends=BACKENDS)
    check_grad(lambda x: np.cos(x, x) * x, x, backends=BACKENDS)


def test_out_with_several_outputs_and_where():
    x = np.array([-1.5, 0.25, 2.75, 4.5])

    def f(x, y):
        fraction, whole = np.modf(x, out=(None, y))
        masked = np.add(x, 1.0, out=np.ones_like(x), where=x > 0)
        return fraction, whole, y, masked, np.subtract(x, y, out=y, where=[1, 0, 1, 0])
    check_values(f, x, np.zeros(4), backends=BACKENDS)
    check_grad(lambda x: f(x, np.zeros_like(x))[3] * f(x, x * 3)[4], x, backends=BACKENDS)


def test_out_casts_to_the_out_dtype_by_numpys_rule():
    x = np.array([1.5, -2.5, 3.0])
    check_values(lambda x, y: np.multiply(x, 2, out=y), x, np.zeros(3, np.float32),
                 backends=BACKENDS)
    check_values(lambda x, k: np.add(k, k, out=np.zeros_like(x)), x, np.arange(3),
                 backends=BACKENDS)
    check_values(lambda x, y: np.sin(x.astype(np.int8), out=y), x, np.zeros(3),
                 backends=BACKENDS, rtol=1e-3)
    check_values(lambda x, k: np.add(k, x, out=np.zeros_like(k), casting="unsafe"), x,
                 np.arange(3), backends=BACKENDS)
    check_values(lambda x, k: np.add(k, 1, out=np.zeros_like(x), dtype=np.float32), x,
                 np.arange(3), backends=BACKENDS)


@pytest.mark.parametrize("call, args", [
    (lambda x, k: np.add(x, 1.0, out=k), (np.ones(3), np.arange(3))),
    (lambda x, y: np.cos(x, y), (np.zeros((3, 3)), np.zeros((2, 2)))),
    (lambda x, y: np.add(x, x, out=y), (np.zeros((2, 3)), np.zeros(3))),
    (lambda x, y: np.modf(x, out=(y,)), (np.zeros(3), np.zeros(3))),
    (lambda x, y: np.sign(x > 0, out=y), (np.zeros(3), np.zeros(3))),
], ids=["casting", "shape", "no-broadcast-into-out", "out-count", "no-loop"])
def test_out_errors_are_numpys(call, args):
    with pytest.raises(Exception) as want:
        call(*(a.copy() for a in args))
    for backend in BACKENDS:
        with pytest.raises(type(want.value)):
            gradjit.jit(call, backend=backend)(*args)


def test_where_without_out_warns_as_numpy_and_keeps_the_computed_elements():
    x = np.array([-1.0, 2.0, 3.0])
    with pytest.warns(UserWarning, match="'where' used without 'out'"):
        got = gradjit.jit(lambda x: np.sqrt(x, where=x > 0))(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.sqrt(x, where=x > 0)
    assert np.allclose(got[1:], want[1:])


def test_a_numpy_array_out_is_refused_with_the_way_out():
    out = np.empty(3)  # made outside the function: numpy's own array
    with pytest.raises(TypeError, match="the destination is a numpy array"):
        gradjit.jit(lambda x: np.add(x, x, out=out))(np.ones(3))


def test_a_write_into_an_argument_reaches_the_caller():
    """numpy changes the caller's array; the compiled call copies the written values back."""
    def into_argument(x, out):
        np.sin(x, out=out)

    def assignment(x):
        x[0] = 1.0
    for call, args in ((into_argument, (np.arange(3.0), np.zeros(3))),
                       (assignment, (np.zeros(3),))):
        want = [a.copy() for a in args]
        assert call(*want) is None and gradjit.jit(call)(*args) is None
        assert all(np.allclose(a, w) for a, w in zip(args, want))
    assert gradjit.jit(lambda x: None)(np.ones(3)) is None
