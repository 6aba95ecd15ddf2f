"""scipy.special's ufuncs ndtri, i0, erfcx and entr on traced values: scipy's values and
dtypes (float32 in float32, integers in float64) with their special values, and gradients
against central differences; an unsupported scipy ufunc is named as scipy's."""
import numpy as np
import pytest

import gradjit
from gradjit.ops.numpy_api import NotSupported
from gradjit.test_util import check_grads

sc = pytest.importorskip("scipy.special")

SPECIAL_VALUES = {
    "ndtri": [0.0, 1e-300, 1e-10, 0.02, 0.5, 0.7, 1 - 1e-12, 1.0, 1.5, -0.1, np.nan],
    "i0": [-30.0, -8.0, -1.0, 0.0, 0.5, 7.9, 8.1, 50.0, np.inf, np.nan],
    "erfcx": [-27.0, -5.0, -0.5, 0.0, 0.5, 9.9, 10.1, 1e3, np.inf, np.nan],
    "entr": [-1.0, 0.0, 1e-300, 0.3, 1.0, 5.0, np.inf, np.nan],
}
SMOOTH = {"ndtri": [0.03, 0.3, 0.5, 0.8, 0.97], "i0": [-9.0, -1.0, 0.2, 3.0, 8.5],
          "erfcx": [-2.0, -0.3, 0.4, 3.0, 12.0], "entr": [0.05, 0.3, 1.0, 2.5, 7.0]}


@pytest.mark.parametrize("name", SPECIAL_VALUES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_values_and_dtypes_are_scipys(name, dtype):
    fn = getattr(sc, name)
    x = np.array(SPECIAL_VALUES[name])
    x = np.array([0, 1, 2, 9]) if dtype is np.int64 else x.astype(dtype)
    with np.errstate(all="ignore"):
        want = fn(x)
    got = gradjit.jit(fn)(x)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-6 if dtype is np.float32 else 1e-13, atol=0)


@pytest.mark.parametrize("name", SMOOTH)
def test_gradients_against_central_differences(name):
    fn = getattr(sc, name)
    check_grads(lambda x: np.sum(fn(x) ** 2), modes=["fwd", "rev"], order=2)(
        np.array(SMOOTH[name]))


def test_ndtri_derivatives_to_third_order():
    """x = ndtri(p) has first derivative sqrt(2 pi) e^(x^2/2), second 2 pi x e^(x^2) and
    third (2 pi)^(3/2) (1 + 2 x^2) e^(3 x^2 / 2)."""
    p = np.array([1e-6, 0.03, 0.3, 0.5, 0.8, 0.97])
    x = sc.ndtri(p)
    d1 = gradjit.vmap(gradjit.grad(sc.ndtri))
    d2 = gradjit.vmap(gradjit.grad(gradjit.grad(sc.ndtri)))
    d3 = gradjit.vmap(gradjit.grad(gradjit.grad(gradjit.grad(sc.ndtri))))
    tau = 2 * np.pi
    np.testing.assert_allclose(d1(p), np.sqrt(tau) * np.exp(x ** 2 / 2), rtol=1e-12)
    np.testing.assert_allclose(d2(p), tau * x * np.exp(x ** 2), rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(d3(p), tau ** 1.5 * (1 + 2 * x ** 2) * np.exp(1.5 * x ** 2),
                               rtol=1e-10)


def test_an_unsupported_scipy_ufunc_is_named_as_scipys():
    with pytest.raises(NotSupported, match=r"scipy\.special\.i1 is not supported on traced "
                                           r"values; did you mean scipy\.special\.i0"):
        gradjit.jit(sc.i1)(np.ones(2))
