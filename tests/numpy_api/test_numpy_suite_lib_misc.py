"""numpy's lib/tests/test_function_base.py scenarios around the edges of the others:
vectorize with signatures and excluded arguments, finiteness checks, the basic reductions and
scans on every kind of dtype, copies, and the odd corners of the index and grid builders;
eager, compiled and differentiated against numpy."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, suite_tests

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

A, I, Z = arg((3, 4)), arg((3, 4), "i8"), arg((3, 4), "c16")
HOLES = np.where(A > 1, np.nan, A)


def _vectorize_cases():
    return [
        case("vectorize", lambda a: np.vectorize(lambda x, y: x * y + 1)(a, 2.0), A),
        case("vectorize-keywords", lambda a: np.vectorize(lambda x, y=3.0: x - y)(a, y=0.5), A),
        case("vectorize-signature", lambda a: np.vectorize(
            lambda v: v - v.mean(), signature="(n)->(n)")(a), A),
        case("vectorize-two-outputs", lambda a: np.vectorize(
            lambda v: (v.min(), v.max()), signature="(n)->(),()")(a), A),
        case("vectorize-outer", lambda a, b: np.vectorize(
            np.outer, signature="(a),(b)->(a,b)")(a, b), A, A[:, :2]),
        case("vectorize-computed-size", lambda a: np.vectorize(
            lambda v: v[:-1] + v[1:], signature="(n)->(m)")(a), A),
        case("vectorize-excluded", lambda a: np.vectorize(
            lambda x, p: x ** p, excluded={1})(a, 2), A),
        case("vectorize-otypes", lambda a: np.vectorize(lambda x: x > 0, otypes=[bool])(a), A),
        case("vectorize-signature-otypes", lambda a: np.vectorize(
            lambda v: v.sum(), signature="(n)->()", otypes=[np.float64])(a), A),
    ]


def _reduction_cases():
    return [
        case("asarray_chkfinite", lambda a: np.asarray_chkfinite(a) * 2, A),
        case("asarray_chkfinite-inf", lambda a: np.asarray_chkfinite(a / 0.0), A),
        case("asarray_chkfinite-dtype", lambda a: np.asarray_chkfinite(a, np.float32), A),
        case("amax", lambda a: (np.amax(a), np.amax(a, 0), np.amax(a, 1)), A),
        case("amin-int", lambda i: (np.amin(i), np.amin(i, 0), np.amin(i, 1)), I),
        case("amax-nan", lambda a: np.amax(a, 0), HOLES),
        case("ptp", lambda a: (np.ptp(a, axis=1), np.ptp(a, 0), np.ptp(a)), A),
        case("ptp-int", lambda i: np.ptp(i, 0, keepdims=True), I),
        case("cumsum", lambda a: (np.cumsum(a), np.cumsum(a, 0), np.cumsum(a, 1)), A),
        case("cumsum-types", lambda i: [np.cumsum(np.astype(i, t), 1) for t in
                                        ("i1", "i2", "f2", "f4", "c8", "?")], I),
        case("cumsum-unsigned", lambda i: np.cumsum(np.astype(np.abs(i), "u1"), 1), I),
        case("prod", lambda a: (np.prod(a, 0), np.prod(a, 1, dtype="f4")), A),
        case("prod-int", lambda i: np.prod(i, 1), I),
        case("cumprod", lambda a: (np.cumprod(a), np.cumprod(a, 0), np.cumprod(a, 1)), A),
        case("cumprod-int", lambda i: np.cumprod(np.astype(i, "i2"), 1), I),
        case("any-all", lambda a: (np.any(a > 1, axis=(0, 1)), np.all(a > -3, 0, keepdims=True),
                                   np.any(a > 0, 1), np.all(a)), A),
        case("copy", lambda a: np.copy(a, order="F") * 2, A),
        case("copy-complex", np.copy, Z),
        case("sort_complex-int8", lambda i: np.sort_complex(np.astype(i, np.int8)), I[0]),
        case("sort_complex-f32", lambda a: np.sort_complex(np.astype(a, "f4")), A[0]),
        case("nanargmax-keepdims", lambda a: np.nanargmax(a, axis=None, keepdims=True), HOLES),
        case("nancumsum-flat", np.nancumsum, HOLES),
        case("nanprod-dtype", lambda a: np.nanprod(a, 0, dtype=np.float32), HOLES),
        case("nanmedian-keepdims", lambda a: np.nanmedian(a, (0, 1), keepdims=True), HOLES),
        case("nanquantile-f16", lambda a: np.nanquantile(np.astype(a, "f2"), 0.3), HOLES),
        case("median-overwrite", lambda a: np.median(a, 0, overwrite_input=True), A),
        case("percentile-f32-q", lambda a: np.percentile(a, np.float32(30.0)), A),
        case("quantile-q-f32", lambda a: np.quantile(a, np.array([0.3], np.float32)), A),
        case("quantile-weak-q", lambda a: np.quantile(np.astype(a, "f4"), 0.3), A),
        case("average-complex-weights", lambda a: np.average(a + 1j, 0, weights=[1, 2, 3]), A),
        case("interp-f32", lambda a: np.interp(np.astype(a, "f4"), [0.0, 1.0], [1.0, 2.0]), A,
             grad=()),  # (finite differences through float32 are too coarse)
        case("interp-int-points", lambda a: np.interp(a, [0, 1], [1, 2]), A),
    ]


def _builder_cases():
    return [
        case("meshgrid-nd", lambda a: [m.shape for m in np.meshgrid(
            a[0], a[1], a[2], a[0, :2], indexing="ij")], A),
        case("mgrid-npfloat", lambda a: np.mgrid[np.float32(0.1):np.float32(0.35):
                                                 np.float32(0.1)] * a[0, 0], A),
        case("mgrid-npcomplex", lambda a: np.mgrid[0.1:0.3:np.complex64(3j)] * a[0, 0], A),
        case("ix_-empty", lambda a: np.ix_([], [1]), A),
        case("unravel_index-int16", lambda i: np.unravel_index(
            np.astype(np.abs(i), np.int16)[0], (3, 4)), I),
        case("ravel_multi_index-clip", lambda i: np.ravel_multi_index(
            (i[0], i[1]), (4, 5), mode="clip"), I),
        case("ravel_multi_index-raise", lambda i: np.ravel_multi_index((i[0], i[1]), (4, 5)), I),
        case("diag-past", lambda a: np.diag(a, -5), A),
        case("eye-k", lambda a: np.eye(3, 5, -1) * a[0, 0], A),
        case("histogram2d-mixed", lambda a: np.histogram2d(
            a[0], a[1], bins=[2, np.array([-1.0, 0, 2])]), A),
        case("histogram2d-density-range", lambda a: np.histogram2d(
            a[0], a[1], bins=2, density=True, range=[[-3, 3], [-3, 3]]), A),
        case("kron-0d", lambda a: np.kron(a[0, 0], a), A),
        case("apply_over_axes-neg", lambda a: np.apply_over_axes(np.sum, a, [-1]), A),
        case("expand_dims-0d", lambda a: np.expand_dims(a[0, 0], (0, 1)), A),
        case("split-unequal", lambda a: np.split(a, 3, axis=1), A),
        case("array_split-negative", lambda a: np.array_split(a, -1), A),
        case("column_stack-0d", lambda a: np.column_stack((a[0, 0], a[0, 1])), A),
        case("take_along_axis-negative", lambda a: np.take_along_axis(
            a, np.array([[-1], [0], [-4]]), 1), A),
        case("select-empty", lambda a: np.select([], [], 3), A),
        case("select-lengths", lambda a: np.select([a > 0], [a, a]), A),
        case("piecewise-fewer-functions", lambda a: np.piecewise(a, [a > 0, a < 0], [1]), A),
        case("piecewise-more-functions", lambda a: np.piecewise(a, [a > 0], [1, 2, 3]), A),
    ]


CASES = _vectorize_cases() + _reduction_cases() + _builder_cases()


test_eager, test_jit, test_grad = suite_tests(CASES)
