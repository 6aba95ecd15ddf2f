"""Every numpy ufunc gradjit computes, at every dtype (and pair of dtypes for the binary ones),
traced: numpy's result dtype, values and error types; complex values ordered as numpy orders
them by the comparison operators too."""
import itertools
import warnings

import numpy as np
import pytest

import gradjit
from gradjit.ops.numpy_api import UFUNCS

DTYPES = (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64, np.uint64,
          np.float16, np.float32, np.float64, np.complex64, np.complex128)
UNARY = sorted((u for u in UFUNCS if u.nin == 1), key=lambda u: u.__name__)
BINARY = sorted((u for u in UFUNCS if u.nin == 2 and u.signature is None),
                key=lambda u: u.__name__)


def _outcome(fn, *args):
    """(dtype, values) of fn's result, or the builtin class of the error it raises."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            result = fn(*args)
        except Exception as error:
            return next(c for c in type(error).__mro__ if c.__module__ == "builtins")
    results = result if isinstance(result, tuple) else (result,)
    return [(np.asarray(r).dtype, np.asarray(r)) for r in results]


def _agree(got, want):
    if isinstance(want, type) or isinstance(got, type):
        return got == want
    return all(g_dt == w_dt and np.allclose(g.astype(complex), w.astype(complex), rtol=2e-3,
                                            equal_nan=True)
               for (g_dt, g), (w_dt, w) in zip(got, want))


def _mismatches(ufunc, combos, make):
    wrong = []
    for dtypes in combos:
        args = make(dtypes)
        got = _outcome(gradjit.jit(ufunc, backend="interpreter"), *args)
        want = _outcome(ufunc, *args)
        if not _agree(got, want):
            wrong.append((tuple(np.dtype(d).name for d in dtypes), got, want))
    return wrong


@pytest.mark.parametrize("ufunc", UNARY, ids=lambda u: u.__name__)
def test_unary_ufuncs_at_every_dtype(ufunc):
    values = [1, 2, 0]
    assert not _mismatches(ufunc, [(d,) for d in DTYPES],
                           lambda dts: [np.array(values, dts[0])])


@pytest.mark.parametrize("ufunc", BINARY, ids=lambda u: u.__name__)
def test_binary_ufuncs_at_every_pair_of_dtypes(ufunc):
    assert not _mismatches(ufunc, itertools.product(DTYPES, DTYPES),
                           lambda dts: [np.array([1, 2, 0], dts[0]), np.array([1, 1, 3], dts[1])])


@pytest.mark.parametrize("ufunc", [np.log2, np.log10, np.arctanh, np.isfinite, np.spacing,
                                   np.gcd, np.greater, np.less_equal], ids=lambda u: u.__name__)
def test_fixed_corners_on_the_compiled_backend(ufunc):
    """log2/log10 of complex 0, arctanh of complex 1, isfinite of complex, float16 spacing,
    gcd of narrow integers, complex comparisons: compiled as numpy computes them."""
    args = {1: {np.gcd: [np.array([12, 0, 9], np.int8)], np.spacing: [np.ones(3, np.float16)],
                np.isfinite: [np.array([1 + 1j, np.inf + 0j, 2 + np.nan * 1j])]}.get(
        ufunc, [np.array([0j, 1 + 0j, -1 + 0j])]), 2: [np.array([1 + 2j, 1 + 1j, 2 - 1j]),
                                                       np.array([1 + 1j, 1 + 1j, 2 + 0j])]}
    inputs = args[ufunc.nin] if ufunc is not np.gcd else [np.array([12, 0, 9], np.int8),
                                                           np.array([8, 5, 6], np.int8)]
    for backend in ("interpreter", "cpu"):
        assert _agree(_outcome(gradjit.jit(ufunc, backend=backend), *inputs),
                      _outcome(ufunc, *inputs))


def test_comparison_operators_order_complex_values_as_numpy():
    a, b = np.array([1 + 2j, 1 + 1j, np.nan + 0j]), np.array([1 + 1j, 3 + 1j, 0j])

    def f(a, b):
        return a > b, a <= b, a < 1j, 2 >= a
    for got, want in zip(gradjit.jit(f)(a, b), f(a, b)):
        assert (got == want).all()
