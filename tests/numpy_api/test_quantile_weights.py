"""quantile, percentile and their nan forms with weights= (numpy 2's method='inverted_cdf'):
the first sorted element whose cumulative weight share reaches q, on traced values and eager
Tensors; gradients reach the chosen elements; numpy's errors."""
import warnings

import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_eager, check_grad, check_values
from tests.torch_reference import message

rng = np.random.default_rng(9)
X = rng.standard_normal((4, 5))
W = rng.uniform(0, 2, (4, 5))
W[0, :2] = 0  # leading zero weights: q = 0 skips them
WI = rng.integers(0, 4, (4, 5))  # integer weights, whole shares where q lands on a boundary
XN = X.copy()
XN[1, 2] = np.nan
XN[3] = np.nan
INV = {"method": "inverted_cdf"}

CASES = {
    "all": lambda a, w: np.quantile(a, 0.3, weights=w, **INV),
    "rows": lambda a, w: np.quantile(a, [0.0, 0.25, 0.5, 1.0], axis=1, weights=w, **INV),
    "axis-weights": lambda a, w: np.percentile(a, [10, 90], axis=0, weights=w[:, 0],
                                               keepdims=True, **INV),
    "axes": lambda a, w: np.quantile(a, 0.5, axis=(0, 1), weights=w, **INV),
    "float32": lambda a, w: np.quantile(np.astype(a, np.float32), np.float32(0.4), axis=1,
                                        weights=w, **INV),
    "integers": lambda a, w: np.quantile(np.astype(a * 3, np.int64), 0.4, axis=1, weights=w,
                                         **INV),
    "nanquantile": lambda a, w: np.nanquantile(a, [0.2, 0.8], axis=1, weights=w, **INV),
    "nanpercentile": lambda a, w: np.nanpercentile(a, 50, weights=w, **INV),
}


@pytest.mark.parametrize("data", ["plain", "nan"])
@pytest.mark.parametrize("name", CASES)
def test_weighted_quantile_values(name, data):
    x = X if data == "plain" else XN
    if data == "nan" and name == "integers":
        pytest.skip("NaN has no integer value")
    for w in (W, WI):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            check_values(CASES[name], x, w, backends=("cpu",))
            check_eager(CASES[name], x, w)


@pytest.mark.parametrize("name", ["all", "rows", "axis-weights", "axes", "nanquantile"])
def test_weighted_quantile_gradients(name):
    check_grad(lambda a: CASES[name](a, W), X, backends=("cpu",))
    # piecewise constant in the weights: 0 (away from the zero weights' edge)
    check_grad(lambda w: CASES[name](X, w), W + 0.5, backends=("cpu",))


@pytest.mark.parametrize("call, error", [
    (lambda a, w: np.quantile(a, 0.3, weights=w), ValueError),
    (lambda a, w: np.quantile(a, 0.3, weights=w[0], **INV), TypeError),
    (lambda a, w: np.quantile(a, 0.3, axis=1, weights=w[:, 0], **INV), ValueError),
    (lambda a, w: np.quantile(a, 0.3, axis=1, weights=-w, **INV), ValueError),
    (lambda a, w: np.quantile(a, 0.3, axis=1, weights=w * 0, **INV), ValueError),
], ids=["method", "axis-none-shape", "shape", "negative", "all-zero"])
def test_weighted_quantile_errors_as_numpy(call, error):
    with pytest.raises(error) as want:
        call(X, W)
    with pytest.raises(error) as got:
        gradjit.jit(call)(X, W)
    assert message(got.value) == str(want.value)
