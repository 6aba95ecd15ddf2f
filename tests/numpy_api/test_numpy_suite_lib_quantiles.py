"""numpy's lib tests of percentile, quantile and median (test_function_base.py) and of the
nan-functions (test_nanfunctions.py): every method on every dtype, NaNs, all-NaN slices,
weights, axes and keepdims; eager, compiled and differentiated against numpy."""
import warnings

import numpy as np
import pytest

import gradjit
from tests.numpy_api.jax_suite import arg, case, suite_tests

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
           "normal_unbiased", "lower", "higher", "midpoint", "nearest")
FIVE = np.array([15.0, 20.0, 35.0, 40.0, 50.0])
Y = np.random.default_rng(4321).random((2, 10, 3))
W = np.abs(np.random.default_rng(1).random(10))
N = np.arange(24.).reshape(2, 3, 4)
N[1, 2, 3] = N[1, 1, 2] = np.nan
# numpy's nan-function matrix: rows with NaNs, one all-NaN row
M = np.array([[0.6244, np.nan, 0.2692, 0.0116, np.nan, 0.1170],
              [0.5351, -0.9403, np.nan, 0.2100, 0.4759, 0.2833],
              [np.nan, np.nan, np.nan, 0.1042, np.nan, -0.5954],
              [0.1610, np.nan, np.nan, 0.1859, 0.3146, np.nan]])
ALLNAN = np.full((3, 4), np.nan)
ALLNAN[1, :] = 1.0  # one row of numbers, the others NaN only


def _method_cases():
    out = []
    for method in METHODS:
        for dtype in ("f8", "f4", "i4", "u1", "f2"):
            out.append(case(f"quantile-{method}-{dtype}",
                            lambda a, m=method: np.quantile(a, 0.4, method=m),
                            FIVE.astype(dtype)))
        out += [
            case(f"percentile-{method}", lambda a, m=method: np.percentile(a, 40.0, method=m),
                 FIVE),
            case(f"quantile-{method}-q-list",
                 lambda a, m=method: np.quantile(a, [0, 0.2, 0.45, 0.5, 0.99, 1], method=m),
                 np.arange(10.)),
            case(f"quantile-{method}-axis",
                 lambda a, m=method: np.quantile(a, [0.3, 0.6], axis=(0, 2), method=m), Y),
            case(f"percentile-{method}-nan",
                 lambda a, m=method: np.percentile(a, [0.3, 60], 0, method=m), N),
            case(f"quantile-{method}-traced-q",
                 lambda a, q, m=method: np.quantile(a, q, axis=1, method=m), Y,
                 np.array([0.1, 0.7]), grad=(0,)),
        ]
    return out


def _quantile_cases():
    return [
        case("percentile-0-100", lambda a: np.percentile(a, [0, 100, 50]), np.arange(8) * 0.5),
        case("quantile-max-ulp", lambda a: np.quantile(a, 0.45), np.array([0.0, 0.2, 0.4])),
        case("quantile-bool", lambda a: np.quantile(a, a), np.array([False, True, True])),
        case("quantile-bool-q", lambda a: np.quantile(a, np.array([False, True])), Y),
        case("quantile-int-q", lambda a: (np.quantile(a, 1), np.quantile(a, [0, 1], axis=1)),
             arg((3, 4), "i2")),
        case("nanquantile-int-q", lambda a: np.nanquantile(a, [0, 1], axis=1), M),
        case("quantile-int-q-nan", lambda a: np.quantile(a, 0, axis=1), M),
        case("percentile-int-q", lambda a: np.percentile(a, [0, 100], axis=0), arg((3, 4), "i2")),
        case("quantile-complex", lambda a: np.quantile(a, 0.5), np.array([1 + 2j, 3j])),
        case("percentile-2d", lambda a: np.percentile(a, 50, axis=0), Y[0]),
        case("percentile-keepdims", lambda a: np.percentile(a, [10, 70], (0, 2),
                                                            keepdims=True), Y),
        case("percentile-axis-none-keepdims",
             lambda a: np.percentile(a, 7, keepdims=True), Y),
        case("percentile-q-2d", lambda a: np.percentile(a, [[10, 20], [30, 90]], axis=-1), Y),
        case("percentile-extended-axis", lambda a: np.percentile(a, 25, axis=(-1, 0)), Y),
        case("percentile-nan-all", lambda a: np.percentile(a, 0.3), N),
        case("quantile-nan-nearest",
             lambda a: np.quantile(a, [0.003, 0.006], (0, 2), method="nearest"), N),
        case("percentile-out-of-range", lambda a: np.percentile(a, 101), Y),
        case("percentile-nan-q", lambda a: np.percentile(a, np.nan), Y),
        case("quantile-negative", lambda a: np.quantile(a, [-0.1, 0.5]), Y),
        case("quantile-bad-method", lambda a: np.quantile(a, 0.5, method="foo"), Y),
        case("quantile-repeated-axis", lambda a: np.quantile(a, 0.5, axis=(0, 0)), Y),
        case("quantile-axis-out", lambda a: np.quantile(a, 0.5, axis=3), Y),
        case("quantile-weights", lambda a, w: np.quantile(a, 0.5, axis=1, weights=w,
                                                           method="inverted_cdf"), Y, W),
        case("quantile-weights-q-list",
             lambda a, w: np.quantile(a, [0, 0.2, 0.4, 0.6, 0.8, 1], axis=1, weights=w,
                                      method="inverted_cdf"), Y, W),
        case("quantile-weights-full", lambda a, w: np.quantile(a, 0.5, axis=1, weights=w,
                                                                method="inverted_cdf"),
             Y, np.abs(Y[::-1]) + 0.1),
        case("quantile-weights-all-axes", lambda a: np.quantile(a, 0.3, axis=(0, 1, 2),
                                                                weights=Y + 1,
                                                                method="inverted_cdf"), Y),
        case("quantile-weights-int", lambda a: np.quantile(
            a, [0, 0.2, 0.5, 0.9, 1], weights=np.tile([0, 3, 1, 9, 2], 2),
            method="inverted_cdf"), Y[0, :, 0]),
        case("quantile-weights-min-max", lambda a: np.quantile(a, [0, 1], weights=[
            0, 0, 1, 2, 3, 0], method="inverted_cdf"), np.arange(6)),
        case("quantile-weights-negative", lambda a: np.quantile(
            a, 0.5, weights=[-0.5, 1], method="inverted_cdf"), np.array([1.0, 2.0])),
        case("quantile-weights-linear", lambda a: np.quantile(
            a, 0.5, weights=[0.5, 1], method="linear"), np.array([1.0, 2.0])),
        case("quantile-weights-inf", lambda a: np.quantile(
            a, 0.5, weights=[np.inf, 1], method="inverted_cdf"), np.array([1.0, 2.0])),
        case("quantile-weights-zero", lambda a: np.quantile(
            a, 0.5, weights=[0.0, 0.0], method="inverted_cdf"), np.array([1.0, 2.0])),
        case("percentile-weights", lambda a: np.percentile(
            a, [20, 80], weights=np.ones(5), method="inverted_cdf"), FIVE),
        case("median", np.median, Y), case("median-axis", lambda a: np.median(a, 1), Y),
        case("median-axes", lambda a: np.median(a, (0, 2)), Y),
        case("median-keepdims", lambda a: np.median(a, (0, 2), keepdims=True), Y),
        case("median-even", np.median, np.array([4.0, 1.0, 3.0, 2.0])),
        case("median-int", lambda a: np.median(a, 0), arg((4, 3), "i4")),
        case("median-f32", np.median, Y.astype(np.float32)),
        case("median-nan", lambda a: np.median(a, 2), N),
        case("median-nan-all", np.median, N),
        case("median-inf", np.median, np.array([np.inf, np.inf, -np.inf, 1.0]), grad=()),
        case("median-empty", np.median, np.zeros(0)),
        case("median-empty-axis", lambda a: np.median(a, 1), np.zeros((2, 0))),
        case("median-0d", lambda a: np.median(a[0, 0, 0]), Y),
        case("median-axis-out", lambda a: np.median(a, -4), Y),
        case("median-complex", np.median, np.array([1 + 1j, 2j, 3, -1])),
    ]


def _nan_cases():
    rows = []
    for name in ("nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd",
                 "nanmedian", "nancumsum", "nancumprod", "nanargmin", "nanargmax"):
        f = getattr(np, name)
        rows += [case(f"{name}", f, M),
                 case(f"{name}-axis0", lambda a, f=f: f(a, axis=0), M),
                 case(f"{name}-axis1", lambda a, f=f: f(a, axis=1), M),
                 case(f"{name}-f32", lambda a, f=f: f(a, axis=1), M.astype(np.float32)),
                 case(f"{name}-int", lambda a, f=f: f(a, axis=0), arg((3, 4), "i8")),
                 case(f"{name}-all-nan", lambda a, f=f: f(a, axis=1), ALLNAN),
                 case(f"{name}-all-nan-0", lambda a, f=f: f(a, axis=0), ALLNAN),
                 case(f"{name}-scalar", lambda a, f=f: f(a[0, 0]), M),
                 case(f"{name}-empty", lambda a, f=f: f(a, axis=0), np.zeros((0, 3)))]
        if not name.startswith(("nancum", "nanarg")):
            rows.append(case(f"{name}-keepdims", lambda a, f=f: f(a, axis=1, keepdims=True), M))
        if name.startswith("nanarg"):
            rows.append(case(f"{name}-keepdims", lambda a, f=f: f(a, axis=0, keepdims=True),
                             M[[0, 1, 3]][:, [0, 3, 5]]))
    return rows + [
        case("nanvar-ddof", lambda a: np.nanvar(a, axis=1, ddof=2), M),
        case("nanvar-ddof-too-big", lambda a: np.nanvar(a, axis=1, ddof=3), M),
        case("nanstd-correction", lambda a: np.nanstd(a, axis=0, correction=1), M),
        case("nanvar-mean", lambda a: np.nanvar(a, axis=1, keepdims=True,
                                                 mean=np.nanmean(a, axis=1, keepdims=True)), M),
        case("nanstd-complex", lambda a: np.nanstd(a, axis=0), arg((3, 4), "c16")),
        case("nanmean-dtype", lambda a: np.nanmean(a, axis=1, dtype=np.float32), M),
        case("nanmean-int-dtype", lambda a: np.nanmean(a, dtype=np.int64), M),
        case("nansum-dtype", lambda a: np.nansum(a, axis=0, dtype="f4"), M),
        case("nanmean-where", lambda a: np.nanmean(a, axis=1, where=[True, False] * 3), M),
        case("nansum-where", lambda a: np.nansum(a, axis=0, where=M[0] > 0.2, initial=1.0), M),
        case("nanmin-initial", lambda a: np.nanmin(a, axis=1, initial=-1.0), M),
        case("nanmax-where", lambda a: np.nanmax(a, 1, initial=-5.0, where=M[1] > 0), M),
        case("nanpercentile", lambda a: np.nanpercentile(a, [28, 50], axis=1), M),
        case("nanpercentile-all-nan", lambda a: np.nanpercentile(a, 30, axis=1), ALLNAN),
        case("nanpercentile-keepdims",
             lambda a: np.nanpercentile(a, [3, 97], axis=(0, 2), keepdims=True), N),
        case("nanquantile", lambda a: np.nanquantile(a, 0.3, axis=0), M),
        case("nanquantile-methods", lambda a: [np.nanquantile(a, [0.1, 0.8], axis=1, method=m)
                                               for m in METHODS], M),
        case("nanquantile-weights", lambda a: np.nanquantile(
            a, [0.25, 0.75], axis=1, weights=np.arange(1.0, 25.0).reshape(4, 6),
            method="inverted_cdf"), M),
        case("nanpercentile-nan-weight", lambda a: np.nanpercentile(
            a, 50, weights=[1.0, np.nan, 1.0], method="inverted_cdf"), np.array([1., 2, 3])),
        case("nanquantile-complex", lambda a: np.nanquantile(a, 0.5), np.array([1j, 2 + 0j])),
        case("nanquantile-out-of-range", lambda a: np.nanquantile(a, 1.5), M),
        case("nanmedian-axes", lambda a: np.nanmedian(a, axis=(0, 2)), N),
        case("nanmedian-holes", lambda a: np.nanmedian(a, axis=1),
             np.where(Y.reshape(4, 15) > 0.7, np.nan, Y.reshape(4, 15))),
        case("nanmedian-inf", lambda a: np.nanmedian(a, axis=0), np.array(
            [[np.inf, np.nan], [np.nan, np.nan], [-np.inf, 1.0], [np.inf, -np.inf]]), grad=()),
        case("nanmedian-axis-out", lambda a: np.nanmedian(a, axis=2), M),
    ]


CASES = _method_cases() + _quantile_cases() + _nan_cases()


test_eager, test_jit, test_grad = suite_tests(CASES)


WARNING_CALLS = {
    "nanmin": lambda a: np.nanmin(a, axis=1), "nanmax": lambda a: np.nanmax(a, axis=1),
    "nanmin-all": np.nanmin, "nanmax-initial": lambda a: np.nanmax(a, 1, initial=3.0),
    "nanmean": lambda a: np.nanmean(a, axis=1), "nanmean-0": lambda a: np.nanmean(a, axis=0),
    "nanvar": lambda a: np.nanvar(a, axis=1), "nanstd-ddof": lambda a: np.nanstd(a, 0, ddof=2),
    "nanmedian": lambda a: np.nanmedian(a, axis=1), "nanmedian-all": np.nanmedian,
    "nanpercentile": lambda a: np.nanpercentile(a, 30, axis=1),
    "nanquantile": lambda a: np.nanquantile(a, [0.2, 0.9], axis=1, method="nearest"),
    "nansum": lambda a: np.nansum(a, axis=1), "nanargmin-ok": lambda a: np.nanargmin(a, 0),
    "nanmean-empty": lambda a: np.nanmean(a[:, :0], axis=1),
}


def _warned(call, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(*args)
    return {(w.category, str(w.message)) for w in caught}


@pytest.mark.parametrize("data", ["all-nan-rows", "numbers"])
@pytest.mark.parametrize("name", WARNING_CALLS)
def test_nan_function_warnings_on_eager_tensors(name, data):
    """numpy's RuntimeWarnings of slices with no numbers (or too few for ddof), read from an
    eager Tensor's values; none where every slice holds numbers."""
    a = ALLNAN if data == "all-nan-rows" else np.arange(12.0).reshape(3, 4)
    want = _warned(WARNING_CALLS[name], a)
    assert _warned(WARNING_CALLS[name], gradjit.tensor(a)) == want
