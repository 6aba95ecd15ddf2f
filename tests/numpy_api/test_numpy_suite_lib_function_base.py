"""numpy's lib/tests/test_function_base.py scenarios (differences, gradients, interpolation,
selection, insertion and deletion, windows, covariance, counting): eager, compiled and
differentiated against numpy."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_eager, check_grad, check_jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

A, B, C = arg((4, 5)), arg((4, 5)), arg((2, 3, 4))
V, I, U = arg((6,)), arg((3, 4), "i8"), np.array([5, 4, 3, 2, 1], np.uint8)
F = np.tile([0, 2., 3., 4., 5., 5.], (6, 1)) + np.arange(6.).reshape(-1, 1)
X_UNEVEN, X_EVEN = np.array([0., 0.5, 1., 3., 5., 7.]), np.arange(6.)
PHASE = np.linspace(0, 720, 19) - 180  # degrees, jumps past the period
Z = arg((3, 4), "c16")
K = np.array([0, 1, 1, 3, 2, 1, 7])


def _grad_cases():
    return [
        case("gradient", np.gradient, A), case("gradient-int", np.gradient, I),
        case("gradient-1d-spacing", lambda v: np.gradient(v, 3.0), V),
        case("gradient-0d-spacing", lambda v: np.gradient(v, np.array(3.0)), V),
        case("gradient-coords", lambda f: np.gradient(f, X_UNEVEN, X_UNEVEN), F),
        case("gradient-coords-traced", lambda f, x: np.gradient(f, x, x), F, X_UNEVEN),
        case("gradient-mixed", lambda f: np.gradient(f, X_EVEN, 2), F),
        case("gradient-axis", lambda f: np.gradient(f, X_UNEVEN, axis=1), F),
        case("gradient-axes", lambda f: np.gradient(f, 2, 3, axis=(1, 0)), F),
        case("gradient-axis-none", lambda f: np.gradient(f, axis=None), F),
        case("gradient-axis-neg", lambda a: np.gradient(a, axis=-1), C),
        case("gradient-edge2", lambda f: np.gradient(f, 1.0, axis=(0, 1), edge_order=2), F),
        case("gradient-edge2-uneven",
             lambda f: np.gradient(f, X_UNEVEN, X_UNEVEN, edge_order=2), F),
        case("gradient-edge2-mixed",
             lambda f: np.gradient(f, X_EVEN, X_UNEVEN, axis=(0, 1), edge_order=2), F),
        case("gradient-unsigned", np.gradient, U),
        case("gradient-unsigned-x", lambda f: np.gradient(f, np.array([3, 2, 1], np.uint8)),
             np.array([0, 2, 4])),
        case("gradient-f32", np.gradient, V.astype(np.float32)),
        case("gradient-2-points", np.gradient, V[:2]),
        case("gradient-edge2-3-points", lambda v: np.gradient(v, edge_order=2), V[:3]),
        case("gradient-too-short", np.gradient, V[:1]),
        case("gradient-edge2-too-short", lambda v: np.gradient(v, edge_order=2), V[:2]),
        case("gradient-bad-spacing", lambda f: np.gradient(f, X_EVEN, np.ones(2)), F),
        case("gradient-2d-spacing", lambda f: np.gradient(f, np.stack([X_EVEN] * 2, -1), 1), F),
        case("gradient-too-many", lambda f: np.gradient(f, 1, 1, 1), F),
        case("gradient-axis-count", lambda f: np.gradient(f, 1, 2, axis=1), F),
        case("gradient-axis-out", lambda f: np.gradient(f, axis=3), F),
    ]


def _diff_cases():
    return [
        case("diff", np.diff, V), case("diff-n", lambda v: np.diff(v, n=3), V),
        case("diff-n-past", lambda v: np.diff(v, n=8), V),
        case("diff-axis", lambda a: np.diff(a, axis=0), A),
        case("diff-nd", lambda c: np.diff(c, 2, axis=-2), C),
        case("diff-bool", np.diff, V > 0), case("diff-unsigned", np.diff, U),
        case("diff-prepend", lambda v: np.diff(v, prepend=0), V),
        case("diff-prepend-array", lambda a, b: np.diff(a, axis=1, prepend=b[:, :1]), A, B),
        case("diff-append", lambda a: np.diff(a, axis=0, append=np.zeros((2, 5))), A),
        case("diff-prepend-append", lambda v: np.diff(v, 2, prepend=1.5, append=[2., 3.]), V),
        case("diff-n0", lambda v: np.diff(v, 0), V),
        case("diff-negative-n", lambda v: np.diff(v, -1), V),
        case("diff-0d", lambda v: np.diff(v[0]), V),
        case("diff-int-prepend-float", lambda i: np.diff(i, prepend=0.5), I),
        case("ediff1d", np.ediff1d, A),
        case("ediff1d-ends", lambda v: np.ediff1d(v, to_end=[1, 2], to_begin=-1.0), V),
        case("ediff1d-int", lambda i: np.ediff1d(i, to_begin=5), I),
        case("ediff1d-empty", lambda v: np.ediff1d(v[:0], to_end=2.0), V),
        case("ediff1d-cast", lambda i: np.ediff1d(i, to_end=0.5), I),
    ]


def _selection_cases():
    conditions = [np.array([False, False, False]), np.array([False, True, False]),
                  np.array([False, False, True])]
    return [
        case("select", lambda a, b, c: np.select(conditions, [a, b, c], default=15),
             *(arg((3,), "i8") for _ in range(3))),
        case("select-broadcast", lambda a: np.select([np.array(True), a[0] > 0], [1, a]), A),
        case("select-complex-default", lambda v: np.select([v > 0], [v], 1j), V),
        case("select-int8", lambda a: np.select(conditions, [a, a, a]),
             np.array([1, 2, 3], np.int8)),
        case("select-nan", lambda v: np.select([np.isnan(v)], [v]), np.array([1, 2, np.nan, 5])),
        case("select-int-condition", lambda v: np.select([np.ones(6, int)], [v]), V),
        case("select-many", lambda v: np.select([v > 0] * 40, [v * k for k in range(40)]), V),
        case("piecewise", lambda v: np.piecewise(v, [v < 0, v >= 0], [-1, 1]), V),
        case("piecewise-default", lambda v: np.piecewise(v, [v < 0], [lambda t: t ** 2, 3.]), V),
        case("piecewise-three", lambda v: np.piecewise(v, [v < -1, v > 1, v == 0], [1, 2, 3]), V),
        case("piecewise-0d", lambda v: np.piecewise(v[0], [True], [lambda t: t * 2]), V),
        case("piecewise-0d-false", lambda v: np.piecewise(v[0], [v[0] > 10], [1., 2.]), V),
        case("piecewise-int", lambda i: np.piecewise(i, [i > 0], [lambda t: t * 2.5]), I),
        case("piecewise-extra",
             lambda a: np.piecewise(a, [a < 0, a >= 2], [-1, 1, 3]), A),
        case("piecewise-kw",
             lambda v: np.piecewise(v, [v > 0], [lambda t, k: t * k], 3.0), V),
        case("extract", lambda a: np.extract(A > 0, a), A),
        case("extract-int-mask", lambda a: np.extract(np.arange(20).reshape(4, 5) % 3, a), A),
        case("place", lambda a: _placed(a, a > 0, [1.0, 2.0, 3.0]), A),
        case("place-one", lambda a: _placed(a, a < 0, [7.0]), A),
        case("place-empty-vals", lambda a: _placed(a, a < -100, []), A),
        case("place-no-vals", lambda a: _placed(a, a > 0, []), A),
        case("extract-place", lambda a, b: _placed(a, B > 0, np.extract(B > 0, b) * 2), A, B),
    ]


def _placed(a, mask, values):
    a = np.copy(a)
    np.place(a, mask, values)
    return a


def _insert_delete_cases():
    L = np.array([1, 2, 3])
    G = np.arange(24.).reshape((2, 3, 4)) + C
    P = np.array([[1., 1], [2, 2], [3, 3]])
    return [
        case("insert-start", lambda a: np.insert(a, 0, 1), L),
        case("insert-end", lambda a: np.insert(a, 3, 1), L),
        case("insert-repeated", lambda a: np.insert(a, [1, 1, 1], [1, 2, 3]), L),
        case("insert-seq", lambda a: np.insert(a, 1, [1, 2, 3]), L),
        case("insert-neg", lambda a: np.insert(a, [1, -1, 3], 9), L),
        case("insert-slice", lambda a: np.insert(a, slice(-1, None, -1), 9), L),
        case("insert-unordered", lambda a: np.insert(a, [-1, 1, 3], [7, 8, 9]), L),
        case("insert-traced-value", lambda b: np.insert(b, 0, b[0]), V),
        case("insert-empty", lambda b: np.insert(b, [], []), V),
        case("insert-mask", lambda a: np.insert(a, np.array([True] * 4), 9), L),
        case("insert-mask-2", lambda a: np.insert(a, np.array([True, False, True, False]), 9), L),
        case("insert-axis0", lambda a: np.insert(a, 0, [2., 2., 2.], axis=0), P.T),
        case("insert-column", lambda a: np.insert(a, [1], [[1], [2], [3]], axis=1), P),
        case("insert-list-row", lambda a: np.insert(a, [1], [1, 2, 3], axis=1), P),
        case("insert-scalar-row", lambda a: np.insert(a, 1, [1, 2, 3], axis=1), P),
        case("insert-scalar-column", lambda a: np.insert(a, 1, [[1], [2], [3]], axis=1), P),
        case("insert-traced-values", lambda g: np.insert(g, 1, g[:, :, 3], axis=-1), G),
        case("insert-traced-values-mid", lambda g: np.insert(g, 1, g[:, 2, :], axis=-2), G),
        case("insert-axis-out", lambda g: np.insert(g, 1, g[:, 2, :], axis=3), G),
        case("insert-0d", lambda v: np.insert(v[0], [], 2, axis=0), V),
        case("insert-float-index", lambda a: np.insert(a, np.array([1.0, 2.0]), [10, 20]), L),
        case("insert-out-of-bounds", lambda a: np.insert(a, [4], [3, 4]), L),
        case("insert-out-of-bounds-neg", lambda a: np.insert(a, [-6, 0], [9, 8]), L),
        case("delete-int", lambda v: np.delete(v, -4), V),
        case("delete-slice-neg", lambda v: np.delete(v, slice(-2, -6, -3)), V),
        case("delete-slice-steps", lambda v: np.delete(v, slice(5, 0, -1)), V),
        case("delete-slice-past", lambda a: np.delete(a, slice(60, None), axis=1), A),
        case("delete-fancy-2d", lambda v: np.delete(v, np.array([[0, 1], [2, 1]])), V),
        case("delete-repeated", lambda v: np.delete(v, [0, -1, 2, 2]), V),
        case("delete-mask", lambda v: np.delete(v, [True, False, False, True, False, True]), V),
        case("delete-axis", lambda c: np.delete(c, [0, 2], axis=-1), C),
        case("delete-one-item-array", lambda c: np.delete(c, np.array([1]), axis=1), C),
        case("delete-false-mask", lambda a: np.delete(a, np.array([False]), axis=-1), A[:, :1]),
        case("delete-true-mask", lambda a: np.delete(a, np.array([True]), axis=-1), A[:, :1]),
        case("delete-out-of-bounds", lambda v: np.delete(v, [100]), V),
        case("delete-out-of-bounds-neg", lambda v: np.delete(v, [-100]), V),
        case("delete-bool-scalar", lambda v: np.delete(v, True), V),
        case("delete-short-mask", lambda v: np.delete(v, [False] * 4), V),
        case("delete-0d", lambda v: np.delete(v[0], [], axis=0), V),
        case("delete-float-index", lambda v: np.delete(v, np.array([1.0, 2.0])), V),
        case("append", lambda a, b: np.append(a, b), A, B),
        case("append-axis", lambda a, b: np.append(a, b[:2], axis=0), A, B),
        case("append-scalar", lambda v: np.append(v, 3), V),
        case("append-ndim", lambda a, b: np.append(a, b[0], axis=0), A, B),
    ]


def _math_cases():
    T = np.linspace(-2, 2, 9)
    return [
        case("angle", np.angle, Z), case("angle-deg", lambda z: np.angle(z, deg=True), Z),
        case("angle-real", np.angle, V), case("angle-int", np.angle, I),
        case("unwrap", np.unwrap, np.deg2rad(PHASE)),
        case("unwrap-period", lambda p: np.unwrap(p, period=360), PHASE),
        case("unwrap-discont", lambda p: np.unwrap(p, discont=4.0), np.deg2rad(PHASE)),
        case("unwrap-axis", lambda a: np.unwrap(a * 4, axis=0), A),
        case("unwrap-int-period", lambda i: np.unwrap(i * 3, period=4), np.arange(12)),
        case("unwrap-int-float-period", lambda i: np.unwrap(i * 3, period=4.5), np.arange(12)),
        case("unwrap-f32", np.unwrap, np.deg2rad(PHASE).astype(np.float32)),
        case("unwrap-empty", np.unwrap, V[:0]), case("unwrap-single", np.unwrap, V[:1]),
        case("unwrap-complex", np.unwrap, Z[0]),
        case("unwrap-period-zero-float", lambda v: np.unwrap(v, period=0.0), V),
        case("unwrap-negative-period", lambda p: np.unwrap(p, period=-360), PHASE),
        case("trapezoid", np.trapezoid, V),
        case("trapezoid-x", lambda y: np.trapezoid(y, X_UNEVEN), V),
        case("trapezoid-x-traced", np.trapezoid, V, X_UNEVEN),
        case("trapezoid-dx", lambda a: np.trapezoid(a, dx=0.5, axis=0), A),
        case("trapezoid-x-nd", lambda c: np.trapezoid(c, np.arange(4.) ** 2, axis=-1), C),
        case("trapezoid-x-2d", lambda a, b: np.trapezoid(a, np.cumsum(b ** 2, 1), axis=1), A, B),
        case("trapezoid-int", np.trapezoid, I),
        case("sinc", np.sinc, T), case("sinc-bool", np.sinc, V > 0),
        case("sinc-int", np.sinc, I), case("sinc-f32", np.sinc, T.astype(np.float32)),
        case("sinc-list", lambda: np.sinc([0.0, 1.0, 2.5])),
        case("i0", np.i0, A * 3), case("i0-large", np.i0, np.array([20.0, -22.0, 25.0])),
        case("i0-huge", np.i0, np.array([120.0, -300.0]), grad=()),
        case("i0-int", np.i0, I), case("i0-inf", np.i0, np.array([np.inf, -np.inf])),
        case("i0-complex", np.i0, Z),
        case("kaiser", lambda v: np.kaiser(7, 2.5) * v[0], V),
        case("kaiser-int-beta", lambda: np.kaiser(3, 4)),
        case("windows-1", lambda: (np.hanning(1), np.hamming(1), np.bartlett(1),
                                   np.blackman(1), np.kaiser(1, 2.0))),
        case("windows-0", lambda: (np.hanning(0), np.hamming(0), np.blackman(0))),
        case("windows-odd", lambda v: (np.hanning(7) + np.bartlett(7)) * v[0], V),
        case("rot90", lambda a: np.rot90(a, 2), A), case("rot90-k5", lambda a: np.rot90(a, 5), A),
        case("rot90-axes", lambda c: np.rot90(c, 1, axes=(0, 2)), C),
        case("rot90-reverse-axes", lambda c: np.rot90(c, -3, axes=(2, 1)), C),
        case("rot90-same-axes", lambda c: np.rot90(c, axes=(1, 1)), C),
        case("rot90-one-axis", lambda c: np.rot90(c, axes=(1,)), C),
        case("rot90-axis-out", lambda c: np.rot90(c, axes=(0, 3)), C),
        case("rot90-1d", np.rot90, V),
        case("flip-axis", lambda c: np.flip(c, 1), C),
        case("flip-neg", lambda c: np.flip(c, -1), C),
        case("flip-tuple", lambda c: np.flip(c, (0, 2)), C),
        case("flip-axis-out", lambda c: np.flip(c, 3), C),
        case("fliplr-1d", np.fliplr, V),
    ]


def _statistics_cases():
    X = np.array([[0.15391142, 0.18045767, 0.14197213],
                  [0.70461506, 0.96474128, 0.27906989],
                  [0.9297531, 0.32296769, 0.19267156]])
    Y = np.array([[0.13026866, 0.52941638, 0.41553042]])
    fw = np.array([1, 4, 4])
    aw = np.array([1.0, 4.0, 1.0])
    return [
        case("average", lambda a: np.average(a, 0), A),
        case("average-int", lambda i: np.average(i), I),
        case("average-weights", lambda a, w: np.average(a, axis=1, weights=w), A, V[:5] ** 2),
        case("average-weights-nd", lambda a, w: np.average(a, weights=w), A, B ** 2),
        case("average-weights-axes",
             lambda c, w: np.average(c, axis=(0, 2), weights=w), C, C[:, 0, :] ** 2),
        case("average-weights-swapped",
             lambda c, w: np.average(c, axis=(2, 0), weights=w), C, C[:, 0, :].T ** 2),
        case("average-returned", lambda a, w: np.average(a, 0, w, returned=True), A, V[:4] ** 2),
        case("average-returned-none", lambda a: np.average(a, 1, returned=True), A),
        case("average-keepdims", lambda a: np.average(a, 0, keepdims=True), A),
        case("average-keepdims-weights",
             lambda i: np.average(i, 0, [1, 3, 2], returned=True, keepdims=True), I),
        case("average-upcast", lambda a, w: np.average(a, weights=w), V.astype(np.float32),
             V ** 2),
        case("average-int-weights", lambda i: np.average(i, 1, weights=[0, 0, 1, 2]), I),
        case("average-shape-mismatch", lambda a, w: np.average(a, weights=w), A, V[:5]),
        case("average-axis-mismatch", lambda c, w: np.average(c, axis=(0, 1), weights=w),
             C, C[0]),
        case("average-zero-weights", lambda a: np.average(a, 0, np.zeros(4)), A),
        case("cov", np.cov, X), case("cov-rowvar", lambda x: np.cov(x, rowvar=False), X),
        case("cov-xy", np.cov, X, Y), case("cov-complex", np.cov, Z),
        case("cov-1d", np.cov, V), case("cov-1d-rowvar", lambda v: np.cov(v, rowvar=False), V),
        case("cov-bias", lambda x: np.cov(x, bias=True), X),
        case("cov-ddof", lambda x: np.cov(x, ddof=2), A),
        case("cov-fweights", lambda x: np.cov(x, fweights=fw), X),
        case("cov-aweights", lambda x, w: np.cov(x, aweights=w), X, aw),
        case("cov-both", lambda x, w: np.cov(x, fweights=fw, aweights=w), X, aw),
        case("cov-weights-ddof", lambda x: np.cov(x, ddof=1, fweights=fw, aweights=aw), X),
        case("cov-f32", lambda x: np.cov(x, dtype=np.float32), X),
        case("cov-int", np.cov, I),
        case("cov-empty-rows", lambda v: np.cov(v.reshape(0, 2)), V[:0]),
        case("cov-negative-fweights", lambda x: np.cov(x, fweights=-fw), X),
        case("cov-float-fweights", lambda x: np.cov(x, fweights=aw), X),
        case("cov-2d-fweights", lambda x: np.cov(x, fweights=np.ones((3, 3), int)), X),
        case("cov-negative-aweights", lambda x: np.cov(x, aweights=-aw), X),
        case("corrcoef", np.corrcoef, X), case("corrcoef-xy", np.corrcoef, X, Y),
        case("corrcoef-complex", np.corrcoef, Z),
        case("corrcoef-rowvar", lambda a: np.corrcoef(a, rowvar=False), A),
        case("corrcoef-constant", np.corrcoef, np.array([[1e-100, 1e100], [1e100, 1e-100]])),
        case("corrcoef-f32", lambda a: np.corrcoef(a, dtype=np.float32), A),
    ]


ESTIMATORS = ("auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt")


def _histogram_cases():
    data = np.random.default_rng(3).standard_normal(60)
    out = []
    for rule in ESTIMATORS:  # the number of bins read from the values, the edges computed
        out += [case(f"histogram-{rule}", lambda a, r=rule: np.histogram(a, r), data),
                case(f"histogram-{rule}-range", lambda a, r=rule: np.histogram(
                    a, r, range=(-1, 2), density=True), data),
                case(f"histogram_bin_edges-{rule}-int",
                     lambda a, r=rule: np.histogram_bin_edges(a, r), K)]
    return out + [
        case("histogram-auto-constant", lambda a: np.histogram(a, "auto"), np.ones(5)),
        case("histogram-auto-empty", lambda a: np.histogram(a, "fd"), np.zeros(0)),
        case("histogram-auto-2d", lambda a: np.histogram(a, "sturges"), A),
        case("histogram-bad-estimator", lambda a: np.histogram(a, "guess"), data),
        case("histogram-auto-weights", lambda a: np.histogram(a, "auto", weights=a), data),
        case("histogram-auto-bad-range", lambda a: np.histogram(a, "auto", range=(1, 0)), data),
        case("histogram-auto-nan", lambda a: np.histogram(a / 0.0, "auto"), data),
    ]


def _counting_cases():
    S = np.array([0.0, 1.0, 2.5, 4.0, 10.0])
    return [
        case("bincount", np.bincount, K),
        case("bincount-weights", np.bincount, K, arg((7,))),
        case("bincount-int-weights", np.bincount, K, K * 2),
        case("bincount-minlength", lambda k: np.bincount(k, minlength=5), K),
        case("bincount-minlength-small", lambda k: np.bincount(k, minlength=2), K),
        case("bincount-minlength-weights", lambda k, w: np.bincount(k, w, minlength=10),
             K, arg((7,))),
        case("bincount-empty", np.bincount, np.array([], int)),
        case("bincount-empty-minlength", lambda k: np.bincount(k, minlength=5), np.array([], int)),
        case("bincount-negative", np.bincount, np.array([1, -1])),
        case("bincount-negative-minlength", lambda k: np.bincount(k, minlength=-1), K),
        case("bincount-2d", np.bincount, I),
        case("bincount-float", np.bincount, V),
        case("bincount-bool", np.bincount, V > 0),
        case("digitize", np.digitize, V, S),
        case("digitize-reverse", lambda v: np.digitize(v, S[::-1]), V),
        case("digitize-right", lambda v: np.digitize(v, S, right=True), S),
        case("digitize-right-reverse", lambda v: np.digitize(v, S[::-1], right=True), S),
        case("digitize-int", np.digitize, K, np.array([1, 3, 5])),
        case("digitize-unsorted", lambda v: np.digitize(v, [1.0, 3.0, 2.0]), V),
        case("digitize-2d-bins", lambda v: np.digitize(v, np.ones((2, 2))), V),
        case("interp", np.interp, V, S, S ** 2),
        case("interp-left-right", lambda x, f: np.interp(x * 10, S, f, left=-1, right=99), V, S),
        case("interp-point", lambda f: np.interp(2.0, S, f), S),
        case("interp-0d", lambda x, f: np.interp(x[0], S, f), V, S),
        case("interp-complex", lambda x: np.interp(x, S, S + 1j * S ** 2), V),
        case("interp-complex-left", lambda x: np.interp(x - 1, S, S * 1j, left=2j, right=3), V),
        case("interp-period", lambda x: np.interp(x * 400, [-180., -170, -185, 185, -10, -5, 0,
                                                            365], np.arange(8.), period=360), V),
        case("interp-period-complex",
             lambda x: np.interp(x * 400, [-180., 0, 90], [1 + 1j, 2j, 3], period=360), V),
        case("interp-nan-x", lambda f: np.interp(np.array([np.nan, 1.0]), S, f), S),
        case("interp-inf-fp", lambda x: np.interp(x, S, [0., 1, np.inf, 2, 3]), S, grad=()),
        case("interp-short", lambda x: np.interp(x, [0.0], [5.0]), V),
        case("interp-empty-xp", lambda x: np.interp(x, [], []), V),
        case("interp-mismatch", lambda x: np.interp(x, S, S[:3]), V),
        case("interp-zero-period", lambda x: np.interp(x, S, S, period=0), V),
        case("interp-2d-xp", lambda x: np.interp(x, np.ones((2, 2)), np.ones((2, 2))), V),
        case("interp-empty-x", lambda f: np.interp(np.array([]), S, f), S),
        case("meshgrid", lambda a, b: np.meshgrid(a, b), V[:3], V[3:5]),
        case("meshgrid-one", lambda a: np.meshgrid(a), V),
        case("meshgrid-none", lambda: np.meshgrid()),
        case("meshgrid-ij-3", lambda a, b, c: np.meshgrid(a, b, c, indexing="ij"), V[:2], V[:3],
             V[:4]),
        case("meshgrid-sparse-ij", lambda a, b: np.meshgrid(a, b, indexing="ij", sparse=True),
             V[:3], V[2:]),
        case("meshgrid-copy-false", lambda a, b: np.meshgrid(a, b, copy=False), V[:3], V[2:]),
        case("meshgrid-2d", lambda a, b: np.meshgrid(a, b), A, V),
        case("meshgrid-bad-indexing", lambda a: np.meshgrid(a, indexing="xy2"), V),
        case("meshgrid-bad-kwarg", lambda a: np.meshgrid(a, indices="ij"), V),
        case("sort_complex", np.sort_complex, I[0]), case("sort_complex-c", np.sort_complex, Z[0]),
        case("trim_zeros", lambda: np.trim_zeros(np.array([0, 0, 1, 0, 2, 0]))),
    ]


# Shapes read from the values: eager Tensors only (compiled, these take constants above).
EAGER_ONLY = [
    case("trim_zeros-b", lambda v: np.trim_zeros(np.concatenate([[0., 0], v, [0]]), "b"), V),
    case("trim_zeros-axis", lambda a: np.trim_zeros(a, axis=1), np.array([[0, 1, 0], [0, 2, 0]])),
    case("extract-values", lambda a: np.extract(a > 0, a), A),
    case("place-values", lambda a, b: _placed(a, b > 0, np.extract(b > 0, b) * 2), A, B),
    case("delete-mask-values", lambda v: np.delete(v, v > 0), V),
    case("insert-at-values", lambda v: np.insert(v, np.argmax(v), 0.5), V),
]


CASES = (_grad_cases() + _diff_cases() + _selection_cases() + _insert_delete_cases()
         + _math_cases() + _statistics_cases() + _histogram_cases() + _counting_cases())


@pytest.mark.parametrize("c", CASES + EAGER_ONLY, ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad], ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
