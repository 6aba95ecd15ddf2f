"""numpy's sorting, order statistics, searches and unique values on traced values: compiled
results against numpy itself, gradients against central differences."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_grad, check_values

rng = np.random.default_rng(7)
X = rng.normal(size=(4, 6))  # distinct values: gradients away from ties
OUTSIDE = np.empty(())  # an array made outside the traced functions: numpy's own
X32 = X.astype(np.float32)
XI = rng.integers(-5, 5, (4, 6)).astype(np.int32)
XN = np.where(rng.uniform(size=(4, 6)) < 0.25, np.nan, X)  # NaNs in some rows
XN[1] = np.nan  # an all-NaN row
SCALAR = np.array(1.5)
EMPTY = np.zeros((0, 3))


QUIET = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # all-NaN and empty slices

SORTS = {
    "sort": lambda x: np.sort(x),
    "sort-axis0": lambda x: np.sort(x, axis=0, kind="quicksort"),
    "sort-heap": lambda x: np.sort(x, axis=1, kind="heap"),
    "sort-none": lambda x: np.sort(x, axis=None),
    "sort-neg": lambda x: np.sort(x, axis=-2, kind="mergesort"),
    "argsort-stable": lambda x: np.argsort(x, axis=0, kind="stable"),
    "argsort-none": lambda x: np.argsort(x, axis=None, stable=True),
    "method-argsort": lambda x: x.argsort(axis=-1, kind="stable"),
}


@pytest.mark.parametrize("name", list(SORTS))
@pytest.mark.parametrize("x", [X, X32, XI, XN], ids=["f64", "f32", "i32", "nan"])
def test_sorts_match_numpy(name, x):
    check_values(SORTS[name], x)


def test_sort_of_0d_and_empty():
    check_values(lambda x: np.sort(x, axis=None), SCALAR)
    check_values(lambda x: np.argsort(x), SCALAR)
    check_values(lambda x: np.sort(x, axis=0), EMPTY)
    check_values(lambda x: np.argsort(x, axis=1, kind="stable"), EMPTY)


def test_default_argsort_sorts_the_array():
    # numpy's default quicksort orders ties differently; the result must still sort.
    ties = np.array([[2, 1, 2, 0, 1, 2], [3, 3, 3, 1, 1, 0]], np.int64)
    order = gradjit.jit(lambda x: np.argsort(x))(ties)
    assert np.array_equal(np.take_along_axis(ties, order, -1), np.sort(ties))


def test_inplace_sort_gradient():
    def f(x):
        y = x * 1.0
        y.sort(axis=0)
        return y[:2]
    check_grad(f, X)


def test_inplace_sort_and_partition_rebind():
    def f(x):
        y, z = x * 2.0, x + 0.0
        y.sort(axis=0)
        z.partition(2)
        return y, z
    y, z = gradjit.jit(f)(X)
    assert np.allclose(y, np.sort(X * 2, axis=0))
    assert np.all(z[:, :2] <= z[:, 2:3]) and np.all(z[:, 3:] >= z[:, 2:3])


@pytest.mark.parametrize("kth", [0, 3, -1, [1, 4]])
def test_partition_property(kth):
    part = gradjit.jit(lambda x: np.partition(x, kth, axis=1))(X)
    order = gradjit.jit(lambda x: np.argpartition(x, kth))(X)
    for k in np.atleast_1d(kth):
        k %= X.shape[1]
        for p in (part, np.take_along_axis(X, order, 1)):
            assert np.array_equal(p[:, k], np.partition(X, k, axis=1)[:, k])
            assert np.all(p[:, :k] <= p[:, k:k + 1]) and np.all(p[:, k + 1:] >= p[:, k:k + 1])
    assert np.array_equal(np.sort(order, 1), np.tile(np.arange(6), (4, 1)))


@pytest.mark.parametrize("x", [X, XI], ids=["f64", "i32"])
def test_lexsort(x):
    keys = np.round(x)
    check_values(lambda a, b: np.lexsort((a, b)), keys[0], keys[1])
    check_values(lambda a: np.lexsort((a[0], a[1], a[2]), axis=0), np.round(x[:3] / 3))
    check_values(lambda a: np.lexsort(a), keys)


def test_sort_gradient_goes_through_the_selected_elements():
    check_grad(lambda x: np.sort(x, axis=0), X)
    check_grad(lambda x: np.sort(x, axis=None)[:3], X)
    check_grad(lambda x: np.partition(x, 2, axis=1)[:, 2], X)


# ---- median and quantiles ----

MEDIANS = {  # (median function, x) -> result
    "all": lambda f, x: f(x),
    "axis1": lambda f, x: f(x, axis=1),
    "axis-2-keep": lambda f, x: f(x, axis=-2, keepdims=True),
    "tuple": lambda f, x: f(x, axis=(0, 1)),
    "odd": lambda f, x: f(x[:, :5], axis=1),
}


@pytest.mark.parametrize("name", list(MEDIANS))
@pytest.mark.parametrize("x", [X, X32, XI, XN], ids=["f64", "f32", "i32", "nan"])
def test_median_matches_numpy(name, x):
    check_values(lambda a: MEDIANS[name](np.median, a), x)


@QUIET
@pytest.mark.parametrize("name", list(MEDIANS))
def test_nanmedian_matches_numpy(name):
    check_values(lambda a: MEDIANS[name](np.nanmedian, a), XN)
    check_values(lambda a: MEDIANS[name](np.nanmedian, a), XI)


@pytest.mark.parametrize("name", ["all", "axis1", "odd", "tuple"])
def test_median_gradient_half_to_each_middle(name):
    check_grad(lambda a: MEDIANS[name](np.median, a), X)
    check_grad(lambda x: np.nanmedian(np.where(np.isfinite(XN), x, np.nan), axis=0), X)


@QUIET
def test_median_of_0d_and_empty():
    check_values(np.median, SCALAR)
    check_values(lambda x: np.median(x, axis=0), EMPTY)
    check_values(lambda x: np.median(x, axis=1), EMPTY)


METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
           "hazen", "weibull", "median_unbiased", "normal_unbiased"]
QS = [0.0, 0.1, 0.25, 0.5, 0.6, 0.75, 1.0]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("x", [X, X32, XI], ids=["f64", "f32", "i32"])
def test_quantile_methods_match_numpy(method, x):
    check_values(lambda a: np.quantile(a, QS, axis=1, method=method), x)
    check_values(lambda a: np.percentile(a, 35, method=method), x)
    check_values(lambda a: np.quantile(a, np.float64(0.5), axis=(0, 1), keepdims=True,
                                       method=method), x)


@QUIET
@pytest.mark.parametrize("method", ["linear", "lower", "nearest", "midpoint", "hazen"])
def test_nanquantile_matches_numpy(method):
    check_values(lambda a: np.nanquantile(a, QS, axis=1, method=method), XN)
    check_values(lambda a: np.nanpercentile(a, [20, 90], axis=1, keepdims=True,
                                            method=method), XN)
    check_values(lambda a: np.nanquantile(a, 0.3, axis=0, method=method), XI)
    # numpy's positional order: a, q, axis, out, overwrite_input, method, keepdims
    check_values(lambda a: np.nanpercentile(a, 30, 1, None, False, method, True), XN)


@QUIET
@pytest.mark.parametrize("q", [0.37, 0.3, 0.81, np.float32(0.37)])
def test_quantile_rounds_as_numpy(q):
    # A Python q promotes weakly: numpy chooses the end by gamma in float64, then computes
    # in float32 with gamma and 1 - gamma rounded; the results agree to the bit.
    x = np.where(np.isnan(XN), np.nan, X32).reshape(6, 4)
    check_values(lambda a: np.quantile(a, q, axis=1), X32.reshape(6, 4), rtol=0, atol=0)
    check_values(lambda a: np.nanquantile(a, q, axis=0, method="hazen"), x, rtol=0, atol=0)


@QUIET
def test_quantile_nan_gives_nan_and_traced_q():
    check_values(lambda a: np.quantile(a, 0.5, axis=1), XN)
    check_values(lambda a, q: np.quantile(a, q, axis=0), X, np.array([0.2, 0.7]))
    check_values(lambda a, q: np.percentile(a, q), X32, np.array(40.0, np.float32))


@QUIET
def test_quantile_gradients():
    # Linear interpolation: weights 1 - g and g to the two neighbours; the q gradient is
    # their difference times (n - 1).
    check_grad(lambda a: np.quantile(a, [0.1, 0.45, 1.0], axis=1), X)
    check_grad(lambda a: np.percentile(a, 33, method="hazen"), X)
    check_grad(lambda a: np.quantile(a, 0.4, axis=0, method="nearest"), X)
    check_grad(lambda a, q: np.quantile(a, q, axis=1), X, np.array([0.13, 0.61]),
               argnums=(0, 1))
    check_grad(lambda a: np.nanquantile(np.where(np.isfinite(XN), a, np.nan), 0.7, axis=1)[
        [0, 2, 3]], X)


# ---- searching ----

SORTED = np.array([-1.0, -0.5, 0.0, 0.0, 0.25, 1.0, 1.0, 2.0])


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(side):
    values = np.array([[-2.0, 0.0, 1.0], [0.1, 2.0, 3.0]])
    check_values(lambda a, v: np.searchsorted(a, v, side=side), SORTED, values)
    check_values(lambda a: np.searchsorted(a, 0.0, side), SORTED)
    check_values(lambda v: np.searchsorted(SORTED, v, side=side), values)
    check_values(lambda v: v.searchsorted(np.float32(0.5), side=side),
                 SORTED.astype(np.float32))
    perm = rng.permutation(8)
    check_values(lambda a, s: np.searchsorted(a, values, side, sorter=s), SORTED[perm],
                 np.argsort(perm))
    check_values(lambda a: np.searchsorted(a, np.array([np.nan, 3, -1]), side),
                 np.array([0.0, 1.0, np.nan, np.nan]))
    check_values(lambda a: np.searchsorted(a, values, side), SORTED[:0])


@pytest.mark.parametrize("right", [False, True])
def test_digitize(right):
    x = np.array([-3.0, -1.0, 0.0, 0.3, 1.0, 2.5, np.nan])
    for bins in (np.array([-1.0, 0.0, 1.0, 2.0]), np.array([2.0, 1.0, 0.0, -1.0])):
        check_values(lambda a, b: np.digitize(a, b, right=right), x, bins)
        check_values(lambda a: np.digitize(a, bins, right), x)


def test_digitize_direction_is_guarded():
    f = gradjit.jit(lambda a, b: np.digitize(a, b))
    x = np.array([0.5, 1.5, -3.0])
    for bins in (np.array([0.0, 1.0, 2.0]), np.array([2.0, 1.0, 0.0]), np.array([0.0, 3.0, 4.0])):
        assert np.array_equal(f(x, bins), np.digitize(x, bins))
    with pytest.raises(ValueError, match="monotonically increasing or decreasing"):
        f(x, np.array([0.0, 2.0, 1.0]))


def test_bincount():
    check_values(lambda x: np.bincount(x, minlength=12), np.array([1, 3, 3, 0, 9]))
    check_values(lambda x, w: np.bincount(x, w), np.array([1, 3, 3, 0, 4]),
                 rng.normal(size=5))
    check_grad(lambda w: np.bincount(np.array([1, 3, 3, 0, 4]), w, minlength=6),
               rng.normal(size=5))
    f = gradjit.jit(lambda x: np.bincount(x, minlength=3))
    for x in (np.array([0, 1, 1]), np.array([4, 1, 1]), np.array([2, 6, 1]),
              np.array([0, 0, 0])):  # below minlength, then lengths 5 and 7: re-traced
        assert np.array_equal(f(x), np.bincount(x, minlength=3))
    with pytest.raises(ValueError, match="no negative elements"):
        f(np.array([1, -1, 0]))
    with pytest.raises(TypeError, match="Cannot cast array data"):
        gradjit.jit(np.bincount)(np.ones(3))


HISTOGRAMS = {
    "default": lambda a: np.histogram(a),
    "range": lambda a: np.histogram(a, 7, range=(-1, 1.5)),
    "int-range": lambda a: np.histogram(a, 3, range=(0, 2)),
    "edges": lambda a: np.histogram(a, np.array([-1.0, 0.0, 0.5, 2.0])),
    "edge-list": lambda a: np.histogram(a, [-2, 0, 2]),
    "weights": lambda a: np.histogram(a, 5, weights=np.linspace(0, 1, a.size).reshape(a.shape)),
    "density": lambda a: np.histogram(a, 4, density=True),
}


@QUIET
@pytest.mark.parametrize("name", list(HISTOGRAMS))
@pytest.mark.parametrize("x", [X, np.round(X * 2).astype(np.int64), np.zeros(0)],
                         ids=["f64", "int", "empty"])
def test_histogram(name, x):
    check_values(HISTOGRAMS[name], x)


HISTOGRAMS_DD = {
    "dd": lambda s: np.histogramdd(s),
    "dd-bins-range": lambda s: np.histogramdd(s, bins=(2, 3, 4),
                                              range=[(-1, 1), (-2, 2), (-3, 3)]),
    "dd-edges-weights": lambda s: np.histogramdd(s[:, :2], weights=s[:, 2], bins=[
        np.array([-1.0, 0, 1]), np.array([-2.0, 0, 0.5, 2])]),
    "dd-density": lambda s: np.histogramdd(s, bins=3, density=True),
    "dd-columns": lambda s: np.histogramdd((s[:, 0], s[:, 1]), bins=3),
    "2d": lambda s: np.histogram2d(s[:, 0], s[:, 1]),
    "2d-density-weights": lambda s: np.histogram2d(s[:, 0], s[:, 1], bins=[3, 5], density=True,
                                                   weights=np.abs(s[:, 2])),
    "2d-shared-edges": lambda s: np.histogram2d(s[:, 0], s[:, 1], bins=np.array([-1.0, 0, 1])),
    "2d-range": lambda s: np.histogram2d(s[:, 0], s[:, 1], bins=4, range=[[-1, 1], [-1, 1]]),
}


@pytest.mark.parametrize("name", list(HISTOGRAMS_DD))
def test_multidimensional_histograms(name):
    sample = rng.standard_normal((50, 3))
    check_values(HISTOGRAMS_DD[name], sample)
    if "range" in name or "edges" in name:
        sample[3] = np.nan  # numpy drops it with the outliers
        check_values(HISTOGRAMS_DD[name], sample)


def test_histogram_range_is_guarded_and_weights_differentiable():
    f = gradjit.jit(lambda a: np.histogram(a, 4))
    for x in (np.array([1.0, 2, 3]), np.array([2.0, 2, 2]), np.array([5.0, 1, 1, 0.5])):
        for got, want in zip(f(x), np.histogram(x, 4)):
            assert np.array_equal(got, want)
    check_grad(lambda w: np.histogram(X, 5, weights=w)[0], rng.normal(size=X.shape))
    sample = rng.standard_normal((30, 2))
    check_grad(lambda w: np.histogram2d(sample[:, 0], sample[:, 1], 3, weights=w)[0],
               rng.normal(size=30))


# ---- unique ----

def _unique_all(x):
    return np.unique(x, return_index=True, return_inverse=True, return_counts=True)


@QUIET
@pytest.mark.parametrize("x", [np.round(X * 2), XI, np.round(XN), np.array(2.0),
                               np.zeros(0), np.array([True, False, True])],
                         ids=["f64", "i32", "nan", "0d", "empty", "bool"])
def test_unique_matches_numpy(x):
    check_values(np.unique, x)
    check_values(_unique_all, x)
    check_values(lambda a: np.unique(a, return_counts=True), x)


def test_unique_count_is_guarded_and_retraces():
    f = gradjit.jit(_unique_all)
    for x in (np.array([3.0, 1, 2, 1, 3]), np.array([9.0, 8, 8, 7, 9]),  # same count
              np.array([5.0, 5, 2, 1, 3]), np.array([4.0, 4, 4, 4, 4]),
              np.array([1.0, np.nan, 1, np.nan, 0])):
        for got, want in zip(f(x), _unique_all(x)):
            assert np.array_equal(got, want, equal_nan=True)


def test_unique_numpy2_functions():
    x = np.round(X * 2)
    for fn in (np.unique_counts, np.unique_inverse, np.unique_all):
        got, want = gradjit.jit(fn)(x), fn(x)
        assert got._fields == want._fields
        values = np.unique(x)
        assert np.array_equal(got.values, values)
        for field in got._fields[1:]:
            assert np.array_equal(getattr(got, field), getattr(want, field))
    assert np.array_equal(gradjit.jit(np.unique_values)(x), np.unique(x))  # sorted


ONE = np.ones(3)
ERRORS = {  # name -> (function of X, error, message)
    "order": (lambda x: np.sort(x, order="f"), ValueError, "Cannot specify order"),
    "sort-kind": (lambda x: np.argsort(x, kind="bogo"), ValueError, "sort kind must be one of"),
    "select-kind": (lambda x: np.partition(x, 1, kind="quick"), ValueError,
                    "select kind must be 'introselect'"),
    "out": (lambda x: np.median(x, out=OUTSIDE), TypeError,
            "the destination is a numpy array"),
    "weights": (lambda x: np.quantile(x, 0.5, weights=x), ValueError,
                "Only method 'inverted_cdf' supports weights"),
    "range": (lambda x: np.quantile(x, 1.5), ValueError, r"Quantiles must be in the range"),
    "method": (lambda x: np.quantile(x, 0.5, method="cubic"), ValueError,
               "is not a valid method"),
    "bool-lerp": (lambda x: np.quantile(x > 0, 0.5), TypeError, "boolean subtract"),
    "empty-quantile": (lambda x: np.quantile(x[:0], 0.5), IndexError, "out of bounds"),
    "axis": (lambda x: np.sort(x, axis=2), np.exceptions.AxisError, "out of bounds"),
    "axis-0d": (lambda x: np.sort(x[0, 0]), np.exceptions.AxisError, "out of bounds"),
    "kth": (lambda x: np.partition(x, 6), ValueError, r"kth\(=6\) out of bounds \(6\)"),
    "kth-type": (lambda x: np.partition(x, 1.5), TypeError, "Partition index must be integer"),
    "lexsort-empty": (lambda x: np.lexsort(x[:0]), TypeError, "need sequence of keys"),
    "lexsort-shapes": (lambda x: np.lexsort((x[0], x[1, :3])), ValueError,
                       "all keys need to be the same shape"),
    "side": (lambda x: np.searchsorted(x[0], 0.0, side="middle"), ValueError,
             "side must be"),
    "sorted-2d": (lambda x: np.searchsorted(x, 0.0), ValueError, "object too deep"),
    "sorted-0d": (lambda x: np.searchsorted(x[0, 0], 0.0), ValueError, "too small depth"),
    "bins-2d": (lambda x: np.digitize(ONE, x), ValueError, "bins must be 1d"),
    "bins-0d": (lambda x: np.digitize(ONE, x[0, 0]), ValueError, "too small depth"),
    "bins-order": (lambda x: np.digitize(ONE, x[0]), ValueError, "monotonically"),
    "bincount-float": (lambda x: np.bincount(x[0]), TypeError, "Cannot cast array data"),
    "bincount-2d": (lambda x: np.bincount(np.abs(x).astype(np.int64)), ValueError,
                    "object too deep"),
    "bincount-0d": (lambda x: np.bincount(x[0, 0].astype(np.int64)), ValueError,
                    "too small depth"),
    "bincount-minlength": (lambda x: np.bincount(x[0].astype(np.int64), minlength=-1),
                           ValueError, "'minlength' must not be negative"),
    "bincount-negative": (lambda x: np.bincount(np.floor(x[0]).astype(np.int64) * 0 - 1),
                          ValueError, "no negative elements"),
    "hist-auto": (lambda x: np.histogram(x, "guess"), ValueError, "not a valid estimator"),
    "histdd-auto": (lambda x: np.histogramdd(x.reshape(-1, 1), ["auto"]), TypeError,
                    "give a number of bins"),
    "hist-count": (lambda x: np.histogram(x, 0), ValueError, "must be positive"),
    "hist-range": (lambda x: np.histogram(x, 3, range=(2, 1)), ValueError, "max must be"),
    "hist-nan": (lambda x: np.histogram(x / 0.0), ValueError, "autodetected range"),
    "hist-inf-range": (lambda x: np.histogram(x, 3, range=(0, np.inf)), ValueError,
                       "supplied range"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(name):
    fn, error, message = ERRORS[name]
    with pytest.raises(error, match=message):
        gradjit.jit(fn)(X)


@pytest.mark.parametrize("call, message", [
    (lambda s: np.histogramdd(s, bins=(2, 3)), "dimension of bins must be equal"),
    (lambda s: np.histogramdd(s, range=[(0, 1)]), "one entry per dimension"),
    (lambda s: np.histogram2d(s[:, 0], s[:3, 1]), ""),
])
def test_multidimensional_histogram_errors_as_numpy(call, message):
    sample = rng.standard_normal((10, 3))
    with pytest.raises(ValueError, match=message):
        call(sample)
    with pytest.raises(ValueError, match=message):
        gradjit.jit(call)(sample)
