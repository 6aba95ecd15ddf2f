"""np.packbits and np.unpackbits, np.roots (numpy's stripping of zero coefficients decided on
constants, refused on traced ones), and `out=` of numpy's functions (a functional write) on
traced values and Tensors, against numpy."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_eager, check_grad, check_values

BACKENDS = ("interpreter", "cpu")
RNG = np.random.default_rng(0)
BITS = RNG.integers(0, 2, (3, 13)).astype(bool)
BYTES = RNG.integers(0, 256, (2, 3)).astype(np.uint8)


@pytest.mark.parametrize("call, x", [
    (lambda a: np.packbits(a), BITS),
    (lambda a: np.packbits(a, axis=1, bitorder="little"), BITS),
    (lambda a: np.packbits(a, axis=0), BITS),
    (lambda a: np.packbits(a * -3, axis=-1), BITS.astype(np.int64)),
    (lambda a: np.packbits(a[0, 0]), BITS),
    (lambda b: np.unpackbits(b), BYTES),
    (lambda b: np.unpackbits(b, axis=1, count=-3), BYTES),
    (lambda b: np.unpackbits(b, axis=0, count=20, bitorder="little"), BYTES),
    (lambda b: np.unpackbits(b[0, 0]), BYTES),
    (lambda b: np.unpackbits(b, count=0), BYTES),
    (lambda b: np.unpackbits(np.packbits(b, axis=1), axis=1, count=3), BYTES),
])
def test_packbits_and_unpackbits_as_numpy(call, x):
    check_values(call, x, backends=BACKENDS)
    check_eager(call, x)


@pytest.mark.parametrize("call, x", [
    (lambda a: np.packbits(a), BITS.astype(np.float64)),
    (lambda a: np.packbits(a, bitorder="middle"), BITS),
    (lambda b: np.unpackbits(b), BYTES.astype(np.int64)),
    (lambda b: np.unpackbits(b, count=-50), BYTES),
    (lambda b: np.unpackbits(b, axis=2), BYTES),
    (lambda b: np.unpackbits(b, bitorder="x"), BYTES),
])
def test_packbits_and_unpackbits_errors_are_numpys(call, x):
    with pytest.raises(Exception) as want:
        call(x)
    for backend in BACKENDS:
        with pytest.raises(type(want.value), match=str(want.value)):
            gradjit.jit(call, backend=backend)(x)


@pytest.mark.parametrize("coefficients", [[3.2, 2.0, 1.0], [1.0, -6.0, 11.0, -6.0], [2.0, 5.0],
                                          [1.0, 0.0, -4.0], [4.0]])
def test_roots_of_traced_coefficients(coefficients):
    p = np.array(coefficients)
    want = np.roots(p)
    for backend in BACKENDS:
        got = gradjit.jit(np.roots, backend=backend)(p)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.allclose(np.sort_complex(got), np.sort_complex(want))
    if want.dtype == np.float64 and want.size:
        check_grad(lambda p: np.sort(np.roots(p)), p, backends=BACKENDS)


def test_roots_of_constant_coefficients_strip_zeros_as_numpy():
    for p in ([0.0, 1.0, 2.0, 0.0], [0.0, 0.0], [0.0, 3.0, 0.0, 0.0], np.arange(3)):
        check_values(lambda x, p=p: (np.roots(np.asarray(p)), x), np.ones(1), backends=BACKENDS)


def test_roots_errors():
    with pytest.raises(Exception) as want:
        np.roots(np.ones((2, 2)))
    with pytest.raises(type(want.value), match=str(want.value)):
        gradjit.jit(lambda p: np.roots(p))(np.ones((2, 2)))
    f = gradjit.jit(lambda p: np.roots(p))
    assert np.allclose(f(np.array([1.0, -3.0, 2.0])), np.roots([1.0, -3.0, 2.0]))
    # zero coefficients at either end: numpy strips them (the trailing ones as roots at 0), a
    # retrace at the failed guard
    for zeros in ([0.0, 1.0, -3.0, 2.0], [1.0, -3.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0]):
        got, want = f(np.array(zeros)), np.roots(zeros)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.sort(got), np.sort(want), atol=1e-12)


def _median_into(x, m):
    result = np.median(x, axis=0, out=m)
    return result, m


@pytest.mark.parametrize("call, shape", [
    (lambda x, o: np.all(x > 0.5, out=o), ()),
    (lambda x, o: np.clip(x, 0.25, 0.5, o), (3, 2)),
    (lambda x, o: np.isposinf(1 / (x - x), o), (3, 2)),
    (lambda x, o: np.round(x, 1, o), (3, 2)),
    (lambda x, o: (np.cumsum(x, 1, out=o), o), (3, 2)),
    (lambda x, o: np.percentile(x, 50, axis=0, out=o), (2,)),
    (_median_into, (2,)),
])
def test_functions_write_out_as_numpy(call, shape):
    x = np.linspace(0.1, 0.9, 6).reshape(3, 2)
    with np.errstate(all="ignore"):
        want = call(x, np.zeros(shape))
        check_values(call, x, np.zeros(shape), backends=BACKENDS)
        check_eager(call, x, np.zeros(shape))
    first = want[0] if isinstance(want, tuple) else want
    if first.dtype == np.float64:
        check_grad(lambda x: np.stack(call(x, np.zeros_like(x, shape=shape)))
                   if isinstance(want, tuple) else call(x, np.zeros_like(x, shape=shape)), x,
                   backends=BACKENDS)


def test_function_out_errors():
    with pytest.raises(ValueError):
        np.median(np.ones((3, 2)), axis=0, out=np.zeros(3))
    with pytest.raises(ValueError, match="out has shape"):
        gradjit.jit(lambda x, m: np.median(x, axis=0, out=m))(np.ones((3, 2)), np.zeros(3))


@pytest.mark.parametrize("call", [
    lambda x, o: np.concatenate([x, x], out=o),
    lambda x, o: np.concatenate([x, x], out=o, casting="unsafe"),
    lambda x, o: np.stack([x[0], x[1], x[2]], out=o[:3, :2]),
    lambda x, o: np.round(x[:3, :2], 1, o[:3, :2]),
    lambda x, o: np.fix(x[:3, :2], o[:3, :2]),
    lambda x, o: np.cumsum(x, 1, out=o[:3, :2]),
])
@pytest.mark.parametrize("dtype", [np.int64, np.bool_, np.float32])
def test_out_casts_as_numpy(call, dtype):
    """numpy's ufunc loops and the functions with casting= write a float result into an
    integer or bool out= only when the rule allows it (same_kind by default); cumsum's out
    casts unsafely."""
    x = np.linspace(-2.1, 2.9, 6).reshape(3, 2)
    try:
        want = call(x, np.zeros((6, 2), dtype))
    except TypeError:
        with pytest.raises(TypeError, match="Cannot cast"):
            gradjit.jit(call)(x, np.zeros((6, 2), dtype))
        return
    got = gradjit.jit(call)(x, np.zeros((6, 2), dtype))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
