"""numpy's polynomial functions, np.convolve, np.correlate and np.interp on traced values:
numpy's values and dtypes on each backend, gradients against central differences, and numpy's
errors."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_eager, check_grad, check_values, raises_as_numpy

rng = np.random.default_rng(7)
X, P = rng.standard_normal(7), rng.standard_normal(4)
A, V = rng.standard_normal(6), rng.standard_normal(3)
XP = np.sort(rng.standard_normal(5))
FP = rng.standard_normal(5)
XQ = rng.uniform(-3, 3, 9)  # away from the knots, where the derivative is defined
Y2 = rng.standard_normal((7, 2))

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
    "polyfit-weighted": (lambda x, y, w: np.polyfit(x, y, 3, w=w),
                         (X, rng.standard_normal(7), rng.uniform(0.5, 2.0, 7))),
    "polyfit-full": (lambda x, y: _pieces(np.polyfit(x, y, 2, full=True)[:2]),
                     (X, rng.standard_normal(7))),
    "polyfit-cov": (lambda x, y: _pieces(np.polyfit(x, y, 2, cov=True)),
                    (X, rng.standard_normal(7))),
    "polyfit-cov-unscaled": (lambda x, w: _pieces(np.polyfit(x, Y2, 1, w=w, cov="unscaled")),
                             (X, rng.uniform(0.5, 2.0, 7))),
    "polyfit-2d-cov": (lambda x, y: _pieces(np.polyfit(x, y, 2, cov=True)),
                       (X, rng.standard_normal((7, 2)))),
    "interp-period": (lambda x, fp: np.interp(x, XP * 50, fp, period=90.0), (XQ * 100, FP)),
    "interp-period-negative": (lambda x, xp: np.interp(x, xp, FP, period=-2.5, left=3.0),
                               (XQ, np.array([0.1, 0.7, 1.3, 1.9, 2.2]))),
}


def _pieces(parts):
    return np.concatenate([np.ravel(p) * (i + 1) for i, p in enumerate(parts)])


@pytest.mark.parametrize("name", CASES)
def test_values_and_gradients(name):
    fn, args = CASES[name]
    check_values(fn, *args)
    check_eager(fn, *args)
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
    (lambda a: np.polyfit(a[:, None], a, 1), TypeError),
    (lambda a: np.polyfit(a, a[:3], 1), TypeError),
    (lambda a: np.polyfit(a[:0], a[:0], 1), TypeError),
    (lambda a: np.polyfit(a, a[:, None, None], 1), TypeError),
    (lambda a: np.polyfit(a, a, 1, w=a[:2]), TypeError),
    (lambda a: np.polyfit(a, a, 1, w=a[:, None]), TypeError),
    (lambda a: np.polyfit(a[:3], a[:3], 2, cov=True), ValueError),
    (lambda a: np.interp(a, XP, FP, period=0.0), ValueError),
    (lambda a: np.interp(a, XP, FP[:3], period=1.0), ValueError),
    (lambda a: np.interp(a, XP[None], FP, period=1.0), ValueError),
], ids=["empty", "mode", "lengths", "no-points", "empty-a", "too-deep", "polyder-order",
        "polyint-order", "polyfit-degree", "vander-rank", "polyfit-x-rank", "polyfit-lengths",
        "polyfit-empty", "polyfit-y-rank",
        "polyfit-w-length", "polyfit-w-rank", "polyfit-cov-points", "interp-period-zero",
        "interp-period-lengths", "interp-period-rank"])
def test_errors_as_numpy(call, error):
    raises_as_numpy(call, error, A)


def test_what_is_refused_names_itself():
    with pytest.raises(ValueError, match="p must be a 1-d array of coefficients"):
        gradjit.jit(lambda p: np.polyder(p))(np.ones((2, 2)))


def test_polyfit_full_diagnostics_and_a_rank_deficient_fit():
    fit = lambda x, y: np.polyfit(x, y, 2, full=True, rcond=1e-3)  # noqa: E731
    check_values(fit, X, rng.standard_normal(7))
    check_eager(fit, X, rng.standard_normal(7))
    repeated = np.repeat(X[:2], 4)  # two distinct points: rank 2 of 3
    with pytest.warns(np.exceptions.RankWarning):
        gradjit.jit(lambda y: np.polyfit(repeated, y, 2))(np.arange(8.0))
    check_values(lambda y: np.polyfit(repeated, y, 2, full=True), np.arange(8.0))
