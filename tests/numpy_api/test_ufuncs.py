"""numpy's floating-point ufuncs and functions on traced values: numpy's values (a few ulps),
dtypes, signed zeros, infinities and NaNs on CPU and the PTX emulator; gradients against
central differences and, at the edges, against the analytic answer."""
import math

import mpmath
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import BACKENDS, check_grad, check_values
from tests.reliability.test_special_values import assert_same_special_values

# numpy warns about the overflows, divisions by zero and NaNs these tests ask for on purpose
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
rng = np.random.default_rng(0)
INF, NAN = math.inf, math.nan
SPECIAL = [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-30, -1e-30, 1e30, -1e30]

# name -> (function, random inputs in its domain, ulps allowed)
UNARY = {
    "arcsin": (np.arcsin, (-1, 1), 4), "arccos": (np.arccos, (-1, 1), 4),
    "arctan": (np.arctan, (-30, 30), 4), "sinh": (np.sinh, (-30, 30), 4),
    "cosh": (np.cosh, (-30, 30), 4), "arcsinh": (np.arcsinh, (-1e5, 1e5), 4),
    "arccosh": (np.arccosh, (1, 50), 4), "arctanh": (np.arctanh, (-1, 1), 4),
    "exp2": (np.exp2, (-60, 60), 4), "log2": (np.log2, (0, 1e6), 4),
    "log10": (np.log10, (0, 1e6), 4), "cbrt": (np.cbrt, (-1e6, 1e6), 2),
    "fabs": (np.fabs, (-5, 5), 0), "deg2rad": (np.deg2rad, (-720, 720), 1),
    "rad2deg": (np.rad2deg, (-7, 7), 1), "radians": (np.radians, (-720, 720), 1),
    "degrees": (np.degrees, (-7, 7), 1), "trunc": (np.trunc, (-5, 5), 0),
    "fix": (np.fix, (-5, 5), 0), "sinc": (np.sinc, (-5, 5), 4),
    "conj": (np.conj, (-5, 5), 0), "real": (np.real, (-5, 5), 0),
}
BINARY = {
    "arctan2": (np.arctan2, 4), "logaddexp": (np.logaddexp, 4),
    "logaddexp2": (np.logaddexp2, 4), "hypot": (np.hypot, 2), "copysign": (np.copysign, 0),
    "fmax": (np.fmax, 0), "fmin": (np.fmin, 0), "heaviside": (np.heaviside, 0),
}
PREDICATES = [np.isnan, np.isinf, np.isfinite, np.signbit]


def _inputs(domain, dt, n=64):
    x = np.concatenate([rng.uniform(*domain, n), SPECIAL])
    with np.errstate(over="ignore"):
        return x.astype(dt)


def _on_backends(fn, *args):
    return [gradjit.jit(fn, backend=b)(*args) for b in BACKENDS]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_and_special_values(name, dt):
    fn, domain, ulps = UNARY[name]
    x = _inputs(domain, dt)
    with np.errstate(all="ignore"):
        want = fn(x)
        for got in _on_backends(fn, x):
            assert_same_special_values(np.asarray(got), want, ulps)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_values_and_special_values(name, dt):
    fn, ulps = BINARY[name]
    grid = np.array(SPECIAL + [3.0, -7.5, 1e300, 1e-300], dt)
    a, b = (v.ravel() for v in np.meshgrid(grid, grid))
    a = np.concatenate([a, rng.uniform(-20, 20, 64).astype(dt)])
    b = np.concatenate([b, rng.uniform(-20, 20, 64).astype(dt)])
    with np.errstate(all="ignore"):
        want = fn(a, b)
        for got in _on_backends(fn, a, b):
            assert_same_special_values(np.asarray(got), want, ulps)


def test_predicates():
    """(signbit of a NaN is False here; numpy reads the sign bit of NaNs too.)"""
    x = np.array(SPECIAL, np.float32)
    i = np.array([0, -3, 7], np.int32)
    check_values(lambda x, i: tuple(p(v) for p in PREDICATES for v in (x, i)), x, i)


@pytest.mark.parametrize("dt, bits", [(np.float32, np.int32), (np.float64, np.int64)])
def test_spacing_exactly_as_numpy(dt, bits):
    """Over random bit patterns (every exponent, subnormals, inf, NaN) and the edges."""
    info = np.finfo(dt)
    edges = np.array([0.0, -0.0, 1.0, -1.0, 2.0, info.max, -info.max, info.tiny,
                      info.smallest_subnormal], dt)
    x = np.concatenate([rng.integers(np.iinfo(bits).min, np.iinfo(bits).max, 2000,
                                     dtype=bits).view(dt), edges, np.nextafter(edges, 0)])
    check_values(np.spacing, x, rtol=0, atol=0)


def test_hyperbolic_far_tails_stay_finite_as_numpy():
    """sinh and cosh are finite up to 710.47 although exp overflows at 709.78."""
    x = np.array([-710.4, -709.9, 709.9, 710.4, 711.0, 88.6, 89.4], np.float64)
    check_values(lambda x: (np.sinh(x), np.cosh(x)), x, rtol=1e-14)
    check_values(lambda x: (np.sinh(x), np.cosh(x)), x[-2:].astype(np.float32), rtol=1e-6)


def test_hypot_does_not_overflow_or_underflow():
    a = np.array([1e300, 3e-300, 3.0, 0.0, 1e308], np.float64)
    b = np.array([1e300, 4e-300, 4.0, 0.0, 1e308], np.float64)
    check_values(np.hypot, a, b, rtol=1e-15)


def test_logarithms_are_exact_at_powers_of_their_base():
    x = np.array([1.0, 2.0, 8.0, 1024.0, 2.0 ** -40, 10.0, 1000.0, 1e22])
    check_values(lambda x: (np.log2(x[:5]), np.log10(x[5:])), x, rtol=0, atol=0)


# dtypes: integers become float64, float32 stays float32 with Python numbers, mixed widths
# promote as numpy does; broadcasting, 0-d and empty operands.
@pytest.mark.parametrize("fn", [np.arctan2, np.hypot, np.logaddexp, np.copysign, np.fmax,
                                np.heaviside])
def test_binary_promotion_and_broadcasting(fn):
    f32 = rng.uniform(1, 3, (2, 3)).astype(np.float32)
    ints = np.array([[1], [-2]], np.int32)
    check_values(lambda a, b: (fn(a, 2.0), fn(a, b), fn(b, b), fn(a[0, 0], b),
                               fn(a[:0], 1.0)), f32, ints, rtol=1e-6)


@pytest.mark.parametrize("fn", [np.arcsin, np.sinh, np.cbrt, np.exp2, np.log10, np.fabs,
                                np.trunc, np.sinc, np.deg2rad, np.isnan, np.signbit, np.fix])
def test_unary_integer_zero_d_and_empty_inputs(fn):
    ints = np.array([0, 1, -1], np.int32)
    check_values(lambda i, e: (fn(i), fn(i[0]), fn(e)), ints, np.zeros((0, 2)))


# ---- functions with keywords ----

@pytest.mark.parametrize("decimals", [2, 1, -1, -2])
def test_round_to_decimals_as_numpy(decimals):
    x = np.array([2.675, -2.675, 1.005, 0.125, 0.135, 15.0, 25.0, -35.0, 1234.5678, 0.0, -0.0,
                  INF, NAN, 1e300])
    i = np.array([15, 25, -35, 149, -151], np.int64)
    check_values(lambda x, i: (np.round(x, decimals), np.around(x.astype(np.float32), decimals),
                               np.round(i, decimals), x.round(decimals)), x, i, rtol=0, atol=0)


def test_nan_to_num_keywords():
    x = np.array([NAN, INF, -INF, 1.5, -0.0])
    check_values(lambda x: (np.nan_to_num(x), np.nan_to_num(x, nan=-1.0, posinf=9.0),
                            np.nan_to_num(x.astype(np.float32), neginf=-7.0)), x, rtol=0,
                 atol=0)
    i = np.array([1, 2], np.int32)
    check_values(lambda i: np.nan_to_num(i), i)


def test_clip_with_array_bounds():
    x = rng.uniform(-3, 3, (4, 5))
    lo, hi = rng.uniform(-2, 0, (5,)), rng.uniform(0, 2, (4, 1))
    check_values(lambda x, lo, hi: (np.clip(x, lo, hi), np.clip(x, None, hi),
                                    np.clip(x, lo, 1.0)), x, lo, hi)
    check_grad(lambda x, lo, hi: np.clip(x, lo, hi), x, lo, hi, argnums=(0, 1, 2))


def test_real_imag_conj_of_real_input():
    x, i = rng.standard_normal((3,)), np.array([1, 2], np.int64)
    check_values(lambda x, i: (np.real(x), np.imag(x), np.conj(x), np.conjugate(i),
                               np.imag(i)), x, i)


def test_numpy2_aliases_are_supported():
    x = np.array([0.25, -0.5, 0.75])
    check_values(lambda x: (np.asin(x), np.acos(x), np.atan(x), np.atan2(x, 0.5),
                            np.asinh(x), np.atanh(x), np.acosh(x + 2)), x)


# ---- gradients ----

SMOOTH = {  # name -> (function, interior domain)
    "arcsin": (np.arcsin, (-0.9, 0.9)), "arccos": (np.arccos, (-0.9, 0.9)),
    "arctan": (np.arctan, (-5, 5)), "sinh": (np.sinh, (-5, 5)), "cosh": (np.cosh, (-5, 5)),
    "arcsinh": (np.arcsinh, (-5, 5)), "arccosh": (np.arccosh, (1.1, 5)),
    "arctanh": (np.arctanh, (-0.9, 0.9)), "exp2": (np.exp2, (-3, 3)),
    "log2": (np.log2, (0.1, 5)), "log10": (np.log10, (0.1, 5)), "cbrt": (np.cbrt, (-5, 5)),
    "fabs": (np.fabs, (0.1, 5)), "deg2rad": (np.deg2rad, (-5, 5)),
    "rad2deg": (np.rad2deg, (-5, 5)), "sinc": (np.sinc, (-3, 3)),
    "nan_to_num": (np.nan_to_num, (-3, 3)), "round2": (lambda x: np.round(x, 2) * x, (-3, 3)),
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_unary_gradients(name):
    fn, domain = SMOOTH[name]
    check_grad(fn, rng.uniform(*domain, (7,)))


@pytest.mark.parametrize("fn", [np.arctan2, np.logaddexp, np.logaddexp2, np.hypot, np.copysign,
                                np.fmax, np.fmin, np.heaviside])
def test_binary_gradients(fn):
    a, b = rng.uniform(-3, 3, (2, 4)), rng.uniform(-3, 3, (4,))
    check_grad(fn, a, b, argnums=(0, 1))


def _grad(fn, *args, argnums=0):
    return [gradjit.grad(lambda *a: np.sum(fn(*a)), argnums=argnums, backend=b)(*args)
            for b in BACKENDS]


def test_gradients_at_the_edges():
    for g in _grad(np.hypot, np.zeros(2), np.zeros(2), argnums=(0, 1)):
        # hypot at the origin: 0 (a subgradient, as ops.norm), where PyTorch gives NaN
        np.testing.assert_array_equal(g, np.zeros((2, 2)))
    a = np.array([-INF, 0.0, 3.0])
    for ga, gb in _grad(np.logaddexp, a, a, argnums=(0, 1)):
        # both operands equal (both -inf included): 1/2 each, the limit along the diagonal
        np.testing.assert_array_equal(ga, [0.5, 0.5, 0.5])
        np.testing.assert_array_equal(gb, [0.5, 0.5, 0.5])
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    inside = 1 / np.sqrt(1 - x[1:4] ** 2)
    for g in _grad(np.arcsin, x):
        np.testing.assert_allclose(g, [INF, *inside, INF], rtol=1e-14)
    for g in _grad(np.arccos, x):
        np.testing.assert_allclose(g, [-INF, *-inside, -INF], rtol=1e-14)
    zeros = np.array([0.0, -0.0])
    for fn, want in [(np.sinc, 0.0), (np.sinh, 1.0), (np.arcsinh, 1.0), (np.arctanh, 1.0),
                     (np.arcsin, 1.0), (np.arctan, 1.0), (np.cbrt, INF), (np.cosh, 0.0),
                     (lambda x: x ** 0.0, 0.0), (lambda x: np.arctan2(x, 1.0), 1.0)]:
        for g in _grad(fn, zeros):
            np.testing.assert_array_equal(g, [want, want])


def test_gradients_in_the_far_tails_stay_finite():
    x = np.array([-700.0, -30.0, 30.0, 700.0])
    want_sinh, want_asinh = np.cosh(x), 1 / np.sqrt(1 + x ** 2)
    for g in _grad(np.sinh, x):
        np.testing.assert_allclose(g, want_sinh, rtol=1e-13)
    for g in _grad(np.arcsinh, x * 1e300 / 700):
        np.testing.assert_allclose(g, 1 / np.abs(x * 1e300 / 700), rtol=1e-13)
    for g in _grad(np.arcsinh, x):
        np.testing.assert_allclose(g, want_asinh, rtol=1e-13)
    big = np.array([1e200, -1e200])
    for ga, gb in _grad(np.arctan2, big, big[::-1].copy(), argnums=(0, 1)):
        np.testing.assert_allclose(ga, 0.5 / big[::-1], rtol=1e-13)
        np.testing.assert_allclose(gb, -0.5 / big, rtol=1e-13)


# ---- scipy.special ----

def test_scipy_special_values_and_gradients():
    sc = pytest.importorskip("scipy.special")
    x = np.concatenate([rng.uniform(-6, 6, 40), [0.0, -0.0, INF, -INF, NAN, 1.0, 2.0]])
    p = np.concatenate([rng.uniform(0, 1, 20), [0.0, 1.0, 0.5, 0.5 + 1e-12, NAN, 2.0]])
    pos = np.concatenate([rng.uniform(1e-3, 30, 30), [0.0, -0.0, -1.0, -2.5, -0.3, INF, 1e-300]])
    check_values(lambda x: (sc.erf(x), sc.erfc(x), sc.expit(x), sc.ndtr(x)), x, atol=1e-15)
    # relative accuracy in the tails: erfc down to its subnormals, log_ndtr to -1e10
    tails = np.array([-1e10, -300.0, -37.0, -29.0, -20.0, -8.0, -1.0, 0.0, 3.0, 8.0, 26.0])
    check_values(lambda x: (sc.erfc(x[4:]), sc.ndtr(x[:-1]), sc.log_ndtr(x)), tails, rtol=1e-13,
                 atol=0)
    check_values(lambda p: (sc.logit(p), sc.erfinv(p * 2 - 1)), p, rtol=1e-13)
    near_one = 1 - np.logspace(-16, -1, 9)
    check_values(lambda y: sc.erfinv(y), np.concatenate([near_one, -near_one]), rtol=1e-14)
    check_values(lambda x: (sc.gammaln(x), sc.digamma(x)), pos, rtol=1e-12, atol=1e-13)
    # relatively accurate at the zeros of gammaln (1, 2) and digamma (1.46...), against mpmath:
    # scipy's own gammaln(1 - 1e-9) is 3e-7 off
    near = np.array([1.0, 2.0, 1 + 1e-9, 1 - 1e-9, 2 + 1e-9, 2 - 1e-9, 0.75, 1.5, 2.25])
    root = 1.4616321449683622 + np.array([0.0, 1e-12, -1e-9, 0.2, -0.25])
    with mpmath.workdps(40):
        want = ([float(mpmath.loggamma(v)) for v in near],
                [float(mpmath.digamma(v)) for v in root])
    for backend in BACKENDS:
        got = gradjit.jit(lambda a, b: (sc.gammaln(a), sc.digamma(b)), backend=backend)(near, root)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-14, atol=0)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-13, atol=0)
    y = np.array([0.0, -1.0, NAN, 3.0, 0.5, -1.5])
    z = np.array([0.0, 0.0, 0.0, 2.0, -1.0, 0.0])
    check_values(lambda z, y: (sc.xlogy(z, y), sc.xlog1py(z, y)), z, y)
    check_values(lambda x: (sc.erf(x), sc.erfc(x), sc.log_ndtr(x)), x.astype(np.float32),
                 rtol=1e-6, atol=1e-7)
    smooth = rng.uniform(0.2, 4, (6,))
    for fn in (sc.erf, sc.erfc, sc.expit, sc.ndtr, sc.log_ndtr, sc.gammaln, sc.digamma):
        check_grad(fn, np.concatenate([smooth, -smooth + 0.05]), rtol=1e-5)
    check_grad(sc.logit, rng.uniform(0.05, 0.95, (6,)))
    check_grad(sc.erfinv, rng.uniform(-0.95, 0.95, (6,)))
    check_grad(lambda a, b: sc.xlogy(a, b) + sc.xlog1py(a, b), smooth, smooth[::-1].copy(),
               argnums=(0, 1))


@pytest.mark.parametrize("fn,scale", [(np.logaddexp, 1.0), (np.logaddexp2, np.log(2))])
def test_log_add_has_the_smooth_second_derivative_at_ties(fn, scale):
    def partial(x):
        return gradjit.grad(lambda y: fn(y[0], y[1]))(x)[0]
    for point in ([0.3, 0.3], [2.0, -1.0]):
        x = np.array(point)
        p = 2.0 ** ((x[1] - x[0]) * scale / np.log(2))  # base^(b - a)
        d2 = scale * p / (1 + p) ** 2
        np.testing.assert_allclose(gradjit.grad(partial)(x), [d2, -d2], rtol=1e-12)
