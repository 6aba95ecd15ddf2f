"""numpy's polynomial functions, np.convolve, np.correlate and np.interp on traced values:
numpy's values and dtypes on each backend, gradients against central differences, and numpy's
errors."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_grad, check_values, raises_as_numpy

rng = np.random.default_rng(7)
X, P = rng.standard_normal(7), rng.standard_normal(4)
A, V = rng.standard_normal(6), rng.standard_normal(3)
XP = np.sort(rng.standard_normal(5))
FP = rng.standard_normal(5)
XQ = rng.uniform(-3, 3, 9)  # away from the knots, where the derivative is defined

CASES = {
    "polyval": (lambda p, x: np.polyval(p, x), (P, X)),
    "polyval-list": (lambda x: np.polyval([2.0, -1.0, 0.5], x), (X,)),
    "convolve": (lambda a, v: np.convolve(a, v), (A, V)),
    "convolve-same": (lambda a, v: np.convolve(a, v, "same"), (A, V)),
    "convolve-valid-swapped": (lambda a, v: np.convolve(v, a, "valid"), (A, V)),
    "correlate": (lambda a, v: np.correlate(a, v), (A, V)),
    "correlate-full": (lambda a, v: np.correlate(a, v, "full"), (A, V)),
    "interp": (lambda x, fp: np.interp(x, XP, fp), (XQ, FP)),
    "interp-bounds": (lambda x, fp: np.interp(x, XP, fp, left=-9.0, right=9.0), (XQ, FP)),
    "interp-points": (lambda x, xp: np.interp(x, xp, FP), (XQ, XP)),
    "polyder": (lambda p: np.polyder(p, 2), (P,)),
    "polyint": (lambda p: np.polyint(p, 2, k=[1.0, 2.0]), (P,)),
    "polyadd": (lambda p, v: np.polyadd(p, v), (P, V)),
    "polysub": (lambda p, v: np.polysub(v, p), (P, V)),
    "polymul": (lambda p, v: np.polymul(p, v), (P, V)),
    "vander": (lambda x: np.vander(x, 3, increasing=True), (X,)),
    "polyfit": (lambda x, y: np.polyfit(x, y, 2), (X, rng.standard_normal(7))),
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_gradients(name):
    fn, args = CASES[name]
    check_values(fn, *args)
    for argnum in range(len(args)):
        check_grad(fn, *args, argnums=argnum, backends=("cpu",))


def test_interp_at_the_knots_and_of_one_point():
    check_values(lambda x: np.interp(x, XP, FP), np.concatenate([XP, XQ]))
    check_values(lambda x: np.interp(x, [1.0], [3.0]), XQ)


@pytest.mark.parametrize("call, error", [
    (lambda a: np.convolve(a, np.array([])), ValueError),
    (lambda a: np.convolve(a, np.ones(2), "middle"), ValueError),
    (lambda a: np.interp(a, [1.0, 2.0], [1.0]), ValueError),
    (lambda a: np.interp(a, [], []), ValueError),
    (lambda a: np.convolve(np.array([]), a), ValueError),
    (lambda a: np.convolve(np.ones((2, 2)), a), ValueError),
    (lambda a: np.polyder(a, -1), ValueError),
    (lambda a: np.polyint(a, -1), ValueError),
    (lambda a: np.polyfit(a, a, -1), ValueError),
    (lambda a: np.vander(np.ones((2, 2)) * a[0]), ValueError),
], ids=["empty", "mode", "lengths", "no-points", "empty-a", "too-deep", "polyder-order",
        "polyint-order", "polyfit-degree", "vander-rank"])
def test_errors_as_numpy(call, error):
    raises_as_numpy(call, error, A)


def test_what_is_refused_names_itself():
    with pytest.raises(TypeError, match="period=.... is not supported"):
        gradjit.jit(lambda x: np.interp(x, XP, FP, period=2.0))(XQ)
    with pytest.raises(ValueError, match="p must be a 1-d array of coefficients"):
        gradjit.jit(lambda p: np.polyval(p, 2.0))(np.ones((2, 2)))
    with pytest.raises(TypeError, match="full=, w= or cov= is not supported"):
        gradjit.jit(lambda y: np.polyfit(X, y, 1, full=True))(X)
