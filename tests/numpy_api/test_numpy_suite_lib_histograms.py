"""numpy's lib/tests/test_histograms.py scenarios: histogram with counts, densities, weights
(integer, float, complex), outliers, explicit and estimated bins (every estimator, empty and
constant data, integer data), NaNs and bad ranges; histogram_bin_edges, histogram2d and
histogramdd; eager and compiled against numpy, edges and densities differentiated."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_eager, check_grad, check_jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

ESTIMATORS = ("fd", "scott", "rice", "sturges", "doane", "sqrt", "auto", "stone")
MIXTURE = np.concatenate((np.linspace(-10, -1, 20), np.linspace(1, 10, 30)))
OUTLIERS = np.hstack((np.linspace(-110, -100, 5), np.linspace(-10, 10, 50)))
LIMITED_VARIANCE = np.concatenate((np.zeros(3), np.ones(93), np.full(4, 100.0)))


def _histogram_cases():
    a = np.arange(10) + 0.5
    return [
        case("simple", np.histogram, arg(100, low=0, high=1)),
        case("linear", np.histogram, np.linspace(0, 10, 100)),
        case("one-bin", lambda a: np.histogram(a, [1, 2]), np.array([1, 2, 3, 4])),
        case("one-bin-count", lambda a: np.histogram(a, bins=1), np.array([1, 2])),
        case("zero-bins", lambda a: np.histogram(a, bins=0), np.array([1, 2])),
        case("density", lambda a: np.histogram(a, density=True), arg(100, low=0, high=1)),
        case("density-widths", lambda a: np.histogram(a, [0, 1, 3, 6, 10], density=True),
             np.arange(10)),
        case("density-inf-edge", lambda a: np.histogram(a, [0, 1, 3, 6, np.inf], density=True),
             np.arange(10)),
        case("density-inf-edge-float", lambda a: np.histogram(a, [0.5, 1.5, np.inf],
                                                              density=True),
             np.array([1.0, 2.0, 3.0, 4.0])),
        case("outliers-low", lambda a: np.histogram(a, range=[0, 9]), a),
        case("outliers-high", lambda a: np.histogram(a, range=[1, 10]), a),
        case("outliers-density", lambda a: np.histogram(a, range=[1, 9], density=True), a),
        case("outliers-weights-density", lambda a, w: np.histogram(a, range=[1, 9], weights=w,
                                                                   density=True), a, a + 0.25),
        case("outliers-weights", lambda a, w: np.histogram(a, bins=8, range=[1, 9], weights=w),
             a, a + 0.25),
        case("weights-shape-mismatch", lambda a, w: np.histogram(a, range=[1, 9], weights=w),
             a, np.arange(11) + 0.5),
        case("int-weights", lambda a, w: np.histogram(a, weights=w), a, np.ones(10, int)),
        case("int-weights-bins", lambda a, w: np.histogram(a, bins=4, weights=w),
             np.array([1, 2, 2, 4]), np.array([4, 3, 2, 1])),
        case("int-weights-density", lambda a, w: np.histogram(a, bins=4, weights=w, density=True),
             np.array([1, 2, 2, 4]), np.array([4, 3, 2, 1])),
        case("weights-widths-density", lambda a, w: np.histogram(a, [0, 1, 3, 6, 10], weights=w,
                                                                 density=True),
             np.arange(9), np.array([2.0, 1, 1, 1, 1, 1, 1, 1, 1])),
        case("weights-linspace", lambda a, w: np.histogram(a, bins=np.arange(11), weights=w),
             np.linspace(0, 10, 10), np.concatenate((np.zeros(5), np.ones(5)))),
        case("complex-weights-edges", lambda a, w: np.histogram(a, [0, 2, 3], weights=w),
             np.array([1.3, 2.5, 2.3]), np.array([1, -1, 2]) + 1j * np.array([2, 1, 2])),
        case("complex-weights-range", lambda a, w: np.histogram(a, 2, range=[1, 3], weights=w),
             np.array([1.3, 2.5, 2.3]), np.array([1, -1, 2]) + 1j * np.array([2, 1, 2])),
        case("empty", lambda a: np.histogram(a, bins=[0, 1]), np.zeros(0)),
        case("float-bins", lambda a: np.histogram(a, 2.4), np.linspace(0, 1, 100)),
        case("nan-range", lambda a: np.histogram(a, range=[np.nan, 0.75]), np.linspace(0, 1, 9)),
        case("inf-range", lambda a: np.histogram(a, range=[0.25, np.inf]), np.linspace(0, 1, 9)),
        case("inverted-range", lambda a: np.histogram(a, range=[0.1, 0.01]),
             np.linspace(0, 1, 9)),
        case("edge-cases", lambda a: np.histogram(a, bins=8296, range=(2, 2280)),
             np.array([337, 404, 739, 806, 1007, 1811, 2012])),
        case("last-bin-inclusive", lambda a: np.histogram(a, bins=30, range=(-0.5, 5)),
             np.array([0.0, 0, 0, 1, 2, 3, 3, 4, 5])),
        case("bins-2d", lambda a: np.histogram(a, bins=np.array([[0, 0.5], [0.6, 1.0]])),
             np.linspace(0, 1, 9)),
        case("bins-not-monotonic", lambda a: np.histogram(a, bins=np.array([1, 3, 1], "u8")),
             np.array([2])),
        case("inf-data", np.histogram, np.array([0.4] * 10 + [np.inf])),
        case("near-equal", np.histogram, np.array([0.5] * 10 + [0.500000000000002])),
        case("nan-auto", lambda a: np.histogram(a, bins="auto"), np.array([0, 1, np.nan])),
        case("nan-auto-range", lambda a: np.histogram(a, bins="auto", range=(0, 1)),
             np.array([0, 1, np.nan])),
        case("all-nan-range", lambda a: np.histogram(a, bins="auto", range=(0, 1)),
             np.array([np.nan, np.nan])),
        case("nan-edges", lambda a: np.histogram(a, bins=[0, 1]), np.array([0, 1, np.nan])),
        case("float32", np.histogram, arg(20, "f4")),
        case("float16", np.histogram, arg(20, "f2")),
        case("int8-range", lambda a: np.histogram(a, bins=3), np.array([-128, 0, 127], np.int8)),
        case("uint8", np.histogram, np.array([1, 1, 0, 7, 200], np.uint8)),
        case("bool", np.histogram, np.array([True, True, False])),
        case("tiny-range", lambda a: np.histogram(a, bins=2, range=(-1e-308, -2e-313)),
             np.array([-0.9e-308])),
        case("too-many-bins", lambda a: np.histogram(a, bins=10),
             np.array([1, 1 + 2e-16] * 10)),
        case("2d-input", np.histogram, arg((4, 5))),
        case("traced-bins", lambda a, b: np.histogram(a, np.sort(b)), arg(30), arg(5)),
    ]


def _estimator_cases():
    out = []
    for name in ESTIMATORS:
        out += [
            case(f"{name}-empty", lambda a, e=name: np.histogram(a, bins=e), np.zeros(0)),
            case(f"{name}-mixture", lambda a, e=name: np.histogram(a, e), MIXTURE),
            case(f"{name}-small", lambda a, e=name: [np.histogram(a[:n], e) for n in (1, 2, 3)],
                 np.arange(3.0)),
            case(f"{name}-no-variance", lambda a, e=name: np.histogram(a, e), np.ones(100)),
            case(f"{name}-limited-variance", lambda a, e=name: np.histogram_bin_edges(a, e),
                 LIMITED_VARIANCE),
            case(f"{name}-outlier", lambda a, e=name: np.histogram(a, e), OUTLIERS),
            case(f"{name}-range", lambda a, e=name: np.histogram(a, e, range=(-20, 20)),
                 np.hstack((MIXTURE, np.linspace(-100, -50, 50)))),
            case(f"{name}-int8", lambda a, e=name: np.histogram(a, e),
                 np.array([-2, 0, 127], np.int8)),
            case(f"{name}-integer-width", lambda a, e=name: np.histogram_bin_edges(a, e),
                 np.tile(np.arange(9), 100)),
            case(f"{name}-weighted", lambda a, e=name: np.histogram(a, e, weights=a),
                 np.array([1.0, 2, 3])),
        ]
    return out + [
        case("unknown-estimator", lambda a: np.histogram(a, "mad"), np.array([1.0, 2, 3])),
        case("integer-non-auto", lambda a: np.histogram_bin_edges(a, 16),
             np.tile(np.arange(9), 100)),
        case("bin-edges-explicit", lambda a: np.histogram_bin_edges(a, [0.1, 0.2]),
             np.tile(np.arange(9), 10)),
        case("bin-edges-auto-range", lambda a: np.histogram_bin_edges(a, "auto", range=(0, 1)),
             np.array([0.0, 0, 0, 1, 2, 3, 3, 4, 5])),
    ]


SAMPLE = np.array([[-.5, .5, 1.5], [-.5, 1.5, 2.5], [-.5, 2.5, .5],
                   [.5, .5, 1.5], [.5, 1.5, 2.5], [.5, 2.5, 2.5]])


def _histogramdd_cases():
    return [
        case("dd-simple", lambda x: np.histogramdd(x, (2, 3, 3),
                                                   range=[[-1, 1], [0, 3], [0, 3]]), SAMPLE),
        case("dd-edges-density", lambda x: np.histogramdd(
            x, bins=[[-2, 0, 2], [0, 1, 2, 3], [0, 1, 2, 3]], density=True), SAMPLE),
        case("dd-range-density", lambda x: np.histogramdd(
            x, (2, 3, 4), range=[[-1, 1], [0, 3], [0, 4]], density=True), SAMPLE),
        case("dd-sequence", lambda x: np.histogramdd(
            [x[:, 0], x[:, 1], x[:, 2]], bins=(4, 3, 2), range=[[-2, 2], [0, 3], [0, 2]]),
             SAMPLE),
        case("dd-diagonal", lambda a: np.histogramdd([a, a, a], 5), np.arange(5)),
        case("dd-shapes", lambda r: [np.histogramdd(r, b)[0].shape
                                     for b in ((5, 4, 6), (6, 4, 5), (4, 6, 5))],
             arg((10, 3), low=0, high=1)),
        case("dd-weights", lambda x, w: np.histogramdd(x, (2, 2), weights=w),
             arg((20, 2)), arg(20)),
        case("dd-identical", lambda x: np.histogramdd(x, 2), np.ones((10, 2))),
        case("dd-empty", lambda x: np.histogramdd(x, bins=[[0, 1], [0, 1]]), np.zeros((0, 2))),
        case("dd-bins-mismatch", lambda x: np.histogramdd(x, bins=[1, 1, 1, 1]),
             np.zeros((10, 3))),
        case("dd-bins-zero", lambda x: np.histogramdd(x, bins=[1, 1, 0]), np.zeros((10, 3))),
        case("dd-bins-negative", lambda x: np.histogramdd(x, bins=[1, 1, -1]), np.zeros((10, 3))),
        case("dd-inf-edges", lambda x: np.histogramdd(x, bins=[[-np.inf, 0, np.inf]]),
             np.arange(6).reshape(-1, 1) - 2.5),
        case("dd-rightmost", lambda x: np.histogramdd(x, [[0.0, 1.0, 2.0]]),
             np.array([0.0, 1.0, 2.0, 3.0]).reshape(-1, 1)),
        case("dd-finite-range", lambda x: np.histogramdd(x, range=[[0, 1], [0, 1], [0, np.inf]]),
             arg((10, 3), low=0, high=1)),
        case("dd-equal-edges", lambda x: np.histogramdd(x, bins=[np.array([1, 2, 2]),
                                                                 np.array([0, 2])]),
             np.array([[1.0, 1], [2, 1]])),
        case("dd-edge-dtype", lambda x: np.histogramdd(
            x, bins=[np.array([0, 10], np.int32), np.array([0.0, 1])])[1],
             np.array([[1.0, 0.5], [2, 0.5]])),
        case("dd-large-int", lambda x: np.histogramdd(x, bins=[np.array([2**52, 2**52 + 2]),
                                                               np.array([0, 1])]),
             np.array([[2**52 + 1, 0]], np.int64)),
        case("dd-density-nonuniform", lambda x: np.histogramdd(x, bins=[[0, 1, 3], [0, 1, 3]],
                                                               density=True),
             np.array([[0.5, 0.5], [1.5, 0.5], [2.5, 2.5]])),
        case("2d-f32", lambda x, y: np.histogram2d(x, y, bins=10),
             np.array([276.318359, -69.593948, 21.329449], np.float32),
             np.array([5005.689453, 4481.327637, 6010.369629], np.float32)),
        case("2d-simple", lambda x, y: np.histogram2d(x, y, bins=(3, 4)), arg(20), arg(20)),
        case("2d-density-weights", lambda x, y, w: np.histogram2d(x, y, 3, density=True,
                                                                  weights=w),
             arg(20), arg(20), arg(20, low=0.5, high=1.5)),
        case("2d-edges", lambda x, y: np.histogram2d(x, y, [[-1, 0, 1], [-2, 0, 2]]),
             arg(20), arg(20)),
        case("2d-mixed-bins", lambda x, y: np.histogram2d(x, y, [3, [-2, 0, 2]]),
             arg(20), arg(20)),
    ]


# Counts are steps in the data: only edges (from the data's extremes) and weights reach a
# gradient, and only where no value sits near an edge.
CASES = [c._replace(grad=()) for c in
         _histogram_cases() + _estimator_cases() + _histogramdd_cases()]
GRAD_CASES = [
    case("grad-edges", lambda a: np.histogram(a, 4)[1], arg(20)),
    case("grad-weights", lambda a, w: np.histogram(a, [-3, -1, 0, 1, 3], weights=w)[0],
         arg(20, low=-2.5, high=2.5), arg(20), grad=(1,)),
    case("grad-density-weights", lambda a, w: np.histogram(a, [-3, -1, 0, 1, 3], weights=w,
                                                           density=True)[0],
         arg(20, low=-2.5, high=2.5), arg(20, low=0.5, high=1.5), grad=(1,)),
    case("grad-2d-weights", lambda x, y, w: np.histogram2d(x, y, [[-3, 0, 3], [-3, 0, 3]],
                                                           weights=w)[0],
         arg(10, low=-2, high=2), arg(10, low=-2, high=2), arg(10), grad=(2,)),
    case("grad-dd-edges", lambda x: np.histogramdd(x, 3)[1], arg((10, 2))),
]


@pytest.mark.parametrize("c", CASES + GRAD_CASES, ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", CASES + GRAD_CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", GRAD_CASES, ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
