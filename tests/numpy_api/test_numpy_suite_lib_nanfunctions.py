"""numpy's lib/tests/test_nanfunctions.py scenarios for the nan-reductions and scans (nanmin,
nanmax, nanargmin, nanargmax, nansum, nanprod, nancumsum, nancumprod, nanmean, nanvar,
nanstd): all-NaN and empty slices, every float and integer dtype, dtype=, keepdims, out=,
initial=, where=, ddof/correction and mean=, numpy's errors; eager, compiled and
differentiated against numpy (nanmedian and the nan-quantiles: test_numpy_suite_lib_quantiles)."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import case, suite_tests

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning",
                                        "ignore::numpy.exceptions.ComplexWarning")

NDAT = np.array([[0.6244, np.nan, 0.2692, 0.0116, np.nan, 0.1170],
                 [0.5351, -0.9403, np.nan, 0.2100, 0.4759, 0.2833],
                 [np.nan, np.nan, np.nan, 0.1042, np.nan, -0.5954],
                 [0.1610, np.nan, np.nan, 0.1859, 0.3146, np.nan]])
MINMAX = (np.nanmin, np.nanmax)
ARGS = (np.nanargmin, np.nanargmax)
SUMPROD = (np.nansum, np.nanprod)
CUMS = (np.nancumsum, np.nancumprod)
MOMENTS = (np.nanmean, np.nanvar, np.nanstd)
ALL = MINMAX + ARGS + SUMPROD + CUMS + MOMENTS
FLOATS = ("e", "f", "d", "F", "D")
NUMBERS = ("b", "B", "h", "H", "i", "I", "l", "L", "q", "Q") + FLOATS
# the functions numpy also defines on complex input (nanmin/max and the arg forms order it)
COMPLEX_OK = SUMPROD + CUMS + MOMENTS + MINMAX + ARGS


def _ninf(dtype):
    a = np.arange(9).astype(dtype)
    a[:5] = np.nan
    return a


def _where_array(dtype):
    a = np.arange(9).reshape(3, 3).astype(dtype)
    a[0, :] = np.nan
    return a


WHERE = np.ones((3, 3), bool)
WHERE[:, 0] = False


def _per_function_cases():
    out = []
    for f in ALL:
        n = f.__name__
        out += [
            case(f"{n}-values", lambda a, f=f: f(a, axis=1), NDAT),
            case(f"{n}-axis0", lambda a, f=f: f(a, axis=0), NDAT),
            case(f"{n}-flat", f, NDAT),
            case(f"{n}-eye-keepdims", lambda a, f=f: [f(a, axis=x, keepdims=True)
                                                      for x in (None, 0, 1)], np.eye(3)),
            case(f"{n}-scalar", f, np.array(0.0)),
            case(f"{n}-allnan-0d", f, np.array(np.nan)),
            case(f"{n}-empty-axis0", lambda a, f=f: f(a, axis=0), np.zeros((0, 3))),
            case(f"{n}-empty-axis1", lambda a, f=f: f(a, axis=1), np.zeros((0, 3))),
            case(f"{n}-empty-flat", f, np.zeros((0, 3))),
            case(f"{n}-bad-axis", lambda a, f=f: f(a, axis=2), NDAT),
            case(f"{n}-no-mutation", lambda a, f=f: (f(a), a), NDAT, grad=()),
        ]
        if f not in CUMS:
            out.append(case(f"{n}-out", lambda a, o, f=f: (f(a, axis=1, out=o), o), np.eye(3),
                            np.zeros(3, np.intp if f in ARGS else np.float64)))
        for axis in (None, 0, 1):
            out.append(case(f"{n}-allnan-2d-{axis}", lambda a, f=f, x=axis: f(a, axis=x),
                            np.full((3, 3), np.nan)))
        for dtype in NUMBERS:
            if dtype in "FD" and f not in COMPLEX_OK:
                continue
            out += [
                case(f"{n}-{dtype}-1d", f, np.array([127, 39, 93, 87, 46]).astype(dtype)),
                case(f"{n}-{dtype}-0d", f, np.array(5).astype(dtype)),
                case(f"{n}-{dtype}-eye", lambda a, f=f: (f(a, axis=1), f(a)),
                     np.eye(3, dtype=dtype)),
            ]
        for dtype in FLOATS:
            out.append(case(f"{n}-{dtype}-allnan", lambda a, f=f: [f(a, axis=x)
                                                                   for x in (None, 0, 1)],
                            np.full((3, 3), np.nan).astype(dtype)))
    return out


def _keyword_cases():
    out = []
    for dtype in FLOATS:
        for f in MINMAX:
            initial = 100 if f is np.nanmax else 0
            out += [
                case(f"{f.__name__}-initial-{dtype}", lambda a, f=f, i=initial: f(a, initial=i),
                     _ninf(dtype)),
                case(f"{f.__name__}-where-{dtype}", lambda a, f=f: f(a, where=WHERE, initial=5),
                     _where_array(dtype)),
            ] if dtype not in "FD" else []
        for f in ARGS:
            out += [
                case(f"{f.__name__}-keepdims-{dtype}", lambda a, f=f: f(a, keepdims=True),
                     _ninf(dtype)),
                case(f"{f.__name__}-out-{dtype}", lambda a, o, f=f: (f(a, out=o), o),
                     _ninf(dtype), np.zeros((), np.intp)),
            ]
        for f in SUMPROD:
            out += [
                case(f"{f.__name__}-initial-{dtype}", lambda a, f=f: f(a, initial=2),
                     _ninf(dtype)),
                case(f"{f.__name__}-where-{dtype}", lambda a, f=f: f(a, where=WHERE, initial=2),
                     _where_array(dtype)),
            ]
        for f in MOMENTS:
            out.append(case(f"{f.__name__}-where-{dtype}", lambda a, f=f: f(a, where=WHERE),
                            _where_array(dtype)))
        for f in SUMPROD + MOMENTS:
            out += [
                case(f"{f.__name__}-dtype-{dtype}", lambda a, f=f, d=dtype:
                     (f(a, dtype=np.dtype(d), axis=1), f(a, dtype=d)), np.eye(3)),
            ]
    for f in CUMS:
        n = f.__name__
        out += [
            case(f"{n}-axes", lambda a, f=f: [f(a, axis=x) for x in (-2, -1, 0, 1, None)], NDAT),
            case(f"{n}-out-axes", lambda a, o, f=f: [(f(a, axis=x, out=o), o)
                                                     for x in (-2, -1, 0, 1)],
                 np.eye(3), np.eye(3)),
            case(f"{n}-4d", lambda a, f=f: [f(a, axis=x) for x in (None, 0, 1, 2, 3)],
                 np.where(np.random.default_rng(0).random((3, 5, 7, 2)) < 0.5, np.nan, 1.0)),
        ]
    for f in (np.nanvar, np.nanstd):
        n = f.__name__
        out += [
            case(f"{n}-ddof", lambda a, f=f: [f(a, axis=1, ddof=d) for d in range(5)], NDAT),
            case(f"{n}-ddof-half", lambda a, f=f: f(a, ddof=0.5),
                 np.array([127, 39, 93, 87, 46.0])),
            case(f"{n}-correction", lambda a, f=f: f(a, correction=0.5),
                 np.array([127, 39, 93, 87, 46.0])),
            case(f"{n}-ddof-and-correction", lambda a, f=f: f(a, ddof=0.5, correction=0.5),
                 np.array([127, 39, 93, 87, 46.0])),
            case(f"{n}-ddof-and-correction-0", lambda a, f=f: f(a, ddof=1, correction=0),
                 np.array([127, 39, 93, 87, 46.0])),
            case(f"{n}-complex", lambda a, f=f: f(a, axis=0), NDAT + 1j * NDAT[::-1]),
        ]
    for f in MOMENTS:
        for dtype in (np.bool, np.int_):
            out += [
                case(f"{f.__name__}-bad-dtype-{np.dtype(dtype)}",
                     lambda a, f=f, d=dtype: f(a, axis=1, dtype=d), NDAT),
                case(f"{f.__name__}-bad-out-{np.dtype(dtype)}",
                     lambda a, o, f=f: f(a, axis=1, out=o), NDAT, np.zeros(4, dtype)),
            ]
    a = np.random.default_rng(1234).standard_normal((4, 6, 3)) + 0.5
    a[:, 2, :] = np.nan
    return out + [
        case("nanstd-mean", lambda a: np.nanstd(a, axis=1, keepdims=True,
                                                mean=np.nanmean(a, axis=1, keepdims=True)), a),
        case("nanvar-mean-out", lambda a, o: (np.nanvar(a, axis=1, keepdims=True, out=o, mean=(
            np.nanmean(a, axis=1, keepdims=True))), o), a, np.zeros((4, 1, 3))),
        case("var-std-dtype-complex", lambda a: (np.var(a, dtype="F"), np.std(a, axis=1, dtype="D"),
                                                 np.var(a + 1j, dtype="D")), NDAT[1:2].copy()),
        case("nanmean-traced-where", lambda a, w: np.nanmean(a, axis=0, where=w), NDAT,
             NDAT > 0.1),
        case("nansum-traced-where", lambda a, w: np.nansum(a, axis=1, where=w), NDAT, NDAT > 0.1),
        case("nanmax-traced-where", lambda a, w: np.nanmax(a, where=w, initial=-1), NDAT,
             NDAT > 0.1),
        case("nanargmin-allnan-row", lambda a: np.nanargmin(a, axis=1), NDAT[2:3].copy()),
        case("nanargmax-ties", lambda a: np.nanargmax(a, axis=0),
             np.array([[1.0, np.nan], [1.0, 2.0], [np.nan, 2.0]])),
        case("nanmin-inf", np.nanmin, np.array([np.nan, np.inf, -np.inf])),
        case("nanmax-signed-zero", lambda a: np.nanmax(a), np.array([-0.0, np.nan, 0.0])),
        case("nanprod-large", np.nanprod, np.array([1e200, np.nan, 1e200])),
    ]


# A NaN stays NaN across a finite difference: the cases with NaNs differentiate with respect to
# the others; the all-NaN ones and the argument functions are not differentiable.
# (ties of the identity matrix and infinite or overflowing values leave central differences
# no derivative to compare with)
NO_GRAD = {"nanmin-eye-keepdims", "nanmax-eye-keepdims", "nanmin-d-eye", "nanmax-d-eye",
           "nanmin-inf", "nanprod-large"}
CASES = [c._replace(grad=()) if c.name in NO_GRAD else c
         for c in _per_function_cases() + _keyword_cases()]


test_eager, test_jit, test_grad = suite_tests(CASES)
