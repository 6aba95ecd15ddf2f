"""numpy written functions, traced: every supported ufunc and function gives numpy's value
(jit) and, where differentiable, the gradient matches central differences."""
import numpy as np
import pytest

import gradjit
from gradjit.ops.numpy_api import FUNCTIONS, UFUNCS, basics

rng = np.random.default_rng(3)
X = rng.uniform(0.2, 1.5, (3, 4))
Y = rng.uniform(-1.5, -0.2, (3, 4))

UNARY = [np.negative, np.positive, np.absolute, np.sign, np.exp, np.log, np.log1p, np.expm1,
         np.sqrt, np.sin, np.cos, np.tan, np.tanh, np.floor, np.ceil, np.rint, np.square,
         np.reciprocal, np.isfinite, np.logical_not]
BINARY = [np.add, np.subtract, np.multiply, np.true_divide, np.power,
          np.maximum, np.minimum, np.greater, np.greater_equal, np.less, np.less_equal,
          np.equal, np.not_equal, np.logical_and, np.logical_or, np.logical_xor]


def test_every_ufunc_in_the_table_is_tested():
    # the first area's names; each other area tests its own in tests/numpy_api/test_<area>.py
    # (rint and matmul moved to the areas that give numpy's dtypes and errors; tested here too)
    assert set(basics.UFUNCS) <= set(UNARY) | set(BINARY)
    assert set(UNARY) | set(BINARY) | {np.matmul} <= set(UFUNCS)


@pytest.mark.parametrize("ufunc", UNARY, ids=lambda u: u.__name__)
def test_unary_ufuncs(ufunc):
    arg = X > 0.7 if ufunc is np.logical_not else X
    np.testing.assert_allclose(gradjit.jit(ufunc)(arg), ufunc(arg), rtol=1e-12)


@pytest.mark.parametrize("ufunc", BINARY, ids=lambda u: u.__name__)
def test_binary_ufuncs_with_arrays_scalars_and_reflection(ufunc):
    a, b = (X > 0.7, X > 1.0) if ufunc in (np.logical_and, np.logical_or) else (X, X[0] + 0.1)
    np.testing.assert_allclose(gradjit.jit(ufunc)(a, b), ufunc(a, b), rtol=1e-12)
    np.testing.assert_allclose(gradjit.jit(lambda x: ufunc(b, x))(a), ufunc(b, a), rtol=1e-12)


def test_operators_and_methods():
    def f(x, y):
        return [x + y, x - 1, 2 - x, x * y, x / 2, 1 / x, x // 0.3, x % 0.3, x ** 2, 2 ** x,
                -x, +x, abs(y), x @ y.T, x < y, x >= 1, x == x, x != y, (x > 1) & (y < -1),
                (x > 1) | (y < -1), ~(x > 1), x.sum(), x.sum(axis=0), x.mean(axis=1),
                x.max(axis=1, keepdims=True), x.min(), x.T, x.reshape(4, 3), x.reshape((2, -1)),
                x.transpose(1, 0), x.flatten(), x.ravel(), x[None].squeeze(0), x.astype(np.float32),
                x.dot(y.T), x.clip(0.5, 1.0), x.copy(), x.swapaxes(0, 1), (x > 1).any(axis=0),
                (x > 0).all(), x.shape, x.ndim, x.size, len(x)]
    for got, want in zip(gradjit.jit(f)(X, Y), f(X, Y)):
        np.testing.assert_allclose(got, want, rtol=1e-6)


FUNCTION_CASES = {
    np.sum: lambda f: f(X, axis=1, keepdims=True), np.mean: lambda f: f(X, axis=(0, 1)),
    np.max: lambda f: f(X, axis=0), np.amax: lambda f: f(X), np.min: lambda f: f(X, axis=1),
    np.amin: lambda f: f(X), np.var: lambda f: f(X, axis=0, ddof=1), np.std: lambda f: f(X),
    np.all: lambda f: f(X > 0.5, axis=1), np.any: lambda f: f(X > 1.4),
    np.dot: lambda f: f(X, Y.T), np.outer: lambda f: f(X[0], Y[1]),
    np.where: lambda f: f(X > 1, X, Y), np.reshape: lambda f: f(X, (2, 6)),
    np.transpose: lambda f: f(X), np.swapaxes: lambda f: f(X, 0, 1),
    np.linspace: lambda f: f(X[0, 0], X[1, 1], 7),
    np.logspace: lambda f: f(X[0, 0], X[1, 1], 7, base=2.0),
    np.geomspace: lambda f: f(X[0, 0], X[1, 1], 5),
    np.clip: lambda f: f(X, 0.5, 1.0), np.linalg.norm: lambda f: f(X, axis=1),
    np.copy: lambda f: f(X), np.shape: lambda f: f(X), np.ndim: lambda f: f(X),
    np.size: lambda f: f(X), np.zeros_like: lambda f: f(X), np.ones_like: lambda f: f(X),
    np.full_like: lambda f: f(X, 2.5), np.empty_like: lambda f: f(X, shape=(2,)).size + X,
    np.round: lambda f: f(X * 3), np.around: lambda f: f(Y),
    # sorting (tests/numpy_api/test_sorting.py has the full cases)
    np.sort: lambda f: f(X, axis=0), np.argsort: lambda f: f(X), np.lexsort: lambda f: f((X, Y)),
    np.partition: lambda f: f(X[0], 2)[2], np.argpartition: lambda f: f(X[0], 0)[0],
    np.median: lambda f: f(X, axis=1), np.nanmedian: lambda f: f(X),
    np.quantile: lambda f: f(X, [0.2, 0.5]), np.percentile: lambda f: f(Y, 30, axis=0),
    np.nanquantile: lambda f: f(X, 0.7), np.nanpercentile: lambda f: f(Y, 5),
    np.searchsorted: lambda f: f(np.sort(X[0]), Y), np.digitize: lambda f: f(X, X[0, :2] * 0),
    np.bincount: lambda f: f(np.round(X[0]).astype(np.int64), minlength=3),
    np.unique: lambda f: f(np.round(X)), np.unique_values: lambda f: f(np.round(X)),
    np.unique_counts: lambda f: f(np.round(X)), np.unique_inverse: lambda f: f(np.round(X))[1],
    np.unique_all: lambda f: f(np.round(X))[3], np.histogram: lambda f: f(X, 3)[1],
}


def test_every_function_in_the_table_is_tested():
    """The first names are tested here; each later area's module tests its own table."""
    assert set(basics.FUNCTIONS) <= set(FUNCTION_CASES) <= set(FUNCTIONS)


@pytest.mark.parametrize("func", FUNCTION_CASES, ids=lambda f: f.__name__)
def test_array_functions(func):
    call = FUNCTION_CASES[func]
    # the numpy call, traced with X and Y replaced by traced values of the same data
    traced = gradjit.jit(lambda x, y: _substituted(call, func, x, y))(X, Y)
    np.testing.assert_allclose(traced, call(func), rtol=1e-12)


def _substituted(call, func, x, y):
    global X, Y
    saved = X, Y
    X, Y = x, y
    try:
        return call(func)
    finally:
        X, Y = saved


def test_unsupported_numpy_calls_name_the_function():
    with pytest.raises(TypeError, match="np.shares_memory is not supported"):
        gradjit.jit(lambda x: np.shares_memory(x, x))(X)
    with pytest.raises(TypeError, match="np.isnat is not supported"):
        gradjit.jit(np.isnat)(X)
    with pytest.raises(TypeError, match=r"np.array2string is not supported .*README.md lists"):
        gradjit.jit(lambda x: np.array2string(x))(X)
