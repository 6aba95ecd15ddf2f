"""numpy's products and contractions, sorting, searching, sets, polynomials, histograms,
differences, interpolation, convolution and bit packing as JAX's lax_numpy tests call them:
eager, compiled and differentiated against numpy."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_eager, check_grad, check_jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

M, N, T = arg((3, 4)), arg((4, 2)), arg((2, 3, 4))
V, W, P = arg((4,)), arg((4,)), arg((3,))
I, J, C = arg((3, 4), "i4"), arg((4, 2), "i4"), arg((3, 4), "c8")
S = np.sort(arg((6,)))  # sorted, for searchsorted and interpolation
R = np.array([3.0, 1.0, 2.0, 1.0, np.nan, 3.0, 0.5])  # repeats and a NaN
K = np.array([2, 0, 3, 0, 1, 5, 3])  # non-negative integers with repeats

CASES = [
    case("dot", np.dot, M, N), case("dot-vector", np.dot, V, W), case("dot-int", np.dot, I, J),
    case("dot-scalar", lambda a: np.dot(a, 2.0), M), case("dot-nd", np.dot, T, N),
    case("dot-complex", lambda a, b: np.dot(a, b.T), C, M),
    case("matmul", np.matmul, T, N), case("matmul-vector", np.matmul, M, V),
    case("matmul-batch", lambda a, b: a @ b, T, arg((1, 4, 5))),
    case("vdot", np.vdot, M, M), case("vdot-complex", np.vdot, C, C),
    case("vecdot", lambda a, b: np.vecdot(a, b, axis=0), M, M),
    case("matvec", np.matvec, M, V), case("vecmat", np.vecmat, P, M),
    case("inner", np.inner, M, T), case("outer", np.outer, M, V), case("outer-int", np.outer, I, K),
    case("kron", np.kron, M, N), case("kron-mixed", np.kron, V, I),
    case("tensordot", lambda a, b: np.tensordot(a, b, 1), T, N),
    case("tensordot-axes", lambda a, b: np.tensordot(a, b, ([1, 2], [0, 1])), T, M),
    case("tensordot-0", lambda a, b: np.tensordot(a, b, 0), V, P),
    case("cross", np.cross, arg((4, 3)), arg((4, 3))), case("cross-2", np.cross, M[:, :2], P[:2]),
    case("cross-axis", lambda a, b: np.cross(a, b, axisa=0, axisb=0), M[:3], M[:3, ::-1]),
    case("trace", lambda a: np.trace(a, 1), M), case("trace-int", np.trace, I),
    case("einsum-matmul", lambda a, b: np.einsum("ij,jk->ik", a, b), M, N),
    case("einsum-trace", lambda a: np.einsum("ii", a[:, :3]), M),
    case("einsum-diag", lambda a: np.einsum("ii->i", a[:, :3]), M),
    case("einsum-batch", lambda a, b: np.einsum("bij,jk->bik", a, b), T, N),
    case("einsum-ellipsis", lambda a, b: np.einsum("...j,j->...", a, b), T, V),
    case("einsum-outer", lambda a, b: np.einsum("i,j", a, b), V, P),
    case("einsum-three", lambda a, b, c: np.einsum("ij,jk,k->i", a, b, c), M, N, arg((2,))),
    case("einsum-sum", lambda a: np.einsum("ijk->", a), T),
    case("einsum-int", lambda a, b: np.einsum("ij,jk", a, b), I, J),
    case("einsum-optimize", lambda a, b: np.einsum("ij,jk->ki", a, b, optimize=True), M, N),
    case("einsum-sublist", lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [0, 2]), M, N),
    case("sort", lambda a: np.sort(a, axis=0), M), case("sort-none", lambda a: np.sort(a, None), M),
    case("sort-int", np.sort, I), case("sort-nan", np.sort, R), case("sort-complex", np.sort, C),
    case("sort-stable-desc", lambda a: np.sort(a, stable=True, descending=True), M),
    case("argsort", lambda a: np.argsort(a, axis=0), M), case("argsort-nan", np.argsort, R),
    case("argsort-stable", lambda a: np.argsort(a, kind="stable"), I),
    case("sort_complex", np.sort_complex, M),
    case("lexsort", lambda a: np.lexsort((a[0], a[1])), I),
    case("partition", lambda a: np.partition(a, 2, axis=-1), M),
    case("partition-list", lambda a: np.sort(np.partition(a, [1, 3]), axis=-1), M),
    case("argpartition", lambda a: np.take_along_axis(a, np.argpartition(a, 1, axis=0), 0)[1], M),
    case("searchsorted", np.searchsorted, S, V),
    case("searchsorted-right", lambda s, v: np.searchsorted(s, v, side="right"), S, V),
    case("searchsorted-sorter",
         lambda s, v: np.searchsorted(np.flip(s), v, sorter=np.arange(5, -1, -1)),
         S, V),
    case("searchsorted-int", np.searchsorted, np.sort(K), I),
    case("digitize", np.digitize, V, S), case("digitize-right",
                                              lambda v, s: np.digitize(v, s, right=True), V, S),
    case("digitize-decreasing", lambda v, s: np.digitize(v, np.flip(s)), V, S),
    case("bincount", np.bincount, K), case("bincount-weights", np.bincount, K, arg((7,))),
    case("bincount-minlength", lambda k: np.bincount(k, minlength=9), K),
    case("histogram", lambda a: np.histogram(a, bins=4), M),
    case("histogram-range", lambda a: np.histogram(a, bins=3, range=(-1, 1), density=True), M),
    case("histogram-edges", lambda a, b: np.histogram(a, bins=np.array([-2.0, 0.0, 0.5, 2.0]),
                                                      weights=b), M, M),
    case("histogram_bin_edges", lambda a: np.histogram_bin_edges(a, bins=5), M),
    case("histogram2d", lambda a, b: np.histogram2d(a, b, bins=3), V, W),
    case("histogramdd", lambda a: np.histogramdd(a, bins=(2, 3)), N),
    case("unique", np.unique, K), case("unique-float", np.unique, R),
    case("unique-all", lambda k: np.unique(k, True, True, True), K),
    case("unique-axis", lambda a: np.unique(a, axis=0), np.array([[1, 2], [0, 5], [1, 2]])),
    case("unique_counts", np.unique_counts, K), case("unique_inverse", np.unique_inverse, K),
    case("unique_values", np.unique_values, R), case("unique_all", np.unique_all, K),
    case("intersect1d", np.intersect1d, K, I), case("union1d", np.union1d, K, I),
    case("setdiff1d", np.setdiff1d, K, I), case("setxor1d", np.setxor1d, K, I),
    case("intersect1d-indices", lambda a, b: np.intersect1d(a, b, return_indices=True), K, I),
    case("isin", np.isin, I, K), case("isin-invert", lambda a, b: np.isin(a, b, invert=True), I, K),
    case("poly", np.poly, P), case("polyadd", np.polyadd, P, V), case("polysub", np.polysub, V, P),
    case("polymul", np.polymul, P, V), case("polydiv", np.polydiv, V, P + np.array([3, 0, 0])),
    case("polyval", np.polyval, P, M), case("polyval-2d", np.polyval, M, V),
    case("polyval-int", np.polyval, K, I),
    case("polyder", lambda p: np.polyder(p, 2), V),
    case("polyint", lambda p: np.polyint(p, 2, k=[1, 2]), V),
    case("polyfit", lambda x, y: np.polyfit(x, y, 2), S, arg((6,))),
    case("polyfit-weights", lambda x, y: np.polyfit(x, y, 1, w=np.linspace(1, 2, 6)), S, arg((6,))),
    case("roots", lambda p: np.sort_complex(np.roots(p)), np.array([1.0, -6.0, 11.0, -6.0])),
    case("vander", lambda x: np.vander(x, 3), P),
    case("diff", lambda a: np.diff(a, 2), M), case("diff-axis", lambda a: np.diff(a, axis=0), I),
    case("diff-bool", np.diff, np.array([True, False, False, True])),
    case("diff-prepend", lambda a: np.diff(a, prepend=0.0, append=a[:, -1:]), M),
    case("ediff1d", lambda a: np.ediff1d(a, to_end=[1.0, 2.0], to_begin=-1.0), M),
    case("gradient", np.gradient, M),
    case("gradient-spacing", lambda a: np.gradient(a, 2.0, axis=1), M),
    case("gradient-coords", lambda a, x: np.gradient(a, x, axis=0), M, np.array([0.0, 0.5, 2.0])),
    case("gradient-edge2", lambda a: np.gradient(a, edge_order=2), V),
    case("interp", np.interp, V, S, arg((6,))),
    case("interp-bounds", lambda x, s, y: np.interp(x * 3, s, y, left=-1.0, right=2.0),
         V, S, arg((6,))),
    case("interp-period", lambda x, s, y: np.interp(x, s, y, period=2.0), V, S, arg((6,))),
    case("convolve", np.convolve, V, P),
    case("convolve-same", lambda a, b: np.convolve(a, b, "same"), V, P),
    case("convolve-valid", lambda a, b: np.convolve(a, b, "valid"), V, P),
    case("correlate", np.correlate, V, P),
    case("correlate-full", lambda a, b: np.correlate(a, b, "full"), V, P),
    case("correlate-complex", lambda a, b: np.correlate(a, b, "same"), C[0], C[1, :3]),
    case("cov", np.cov, M), case("cov-rowvar", lambda a: np.cov(a, rowvar=False, ddof=0), M),
    case("cov-weights", lambda a: np.cov(a, fweights=[1, 2, 1, 3], aweights=[0.5, 1, 1, 2]), M),
    case("corrcoef", np.corrcoef, M), case("corrcoef-two", np.corrcoef, V, W),
    case("frexp", np.frexp, M), case("ldexp", lambda a, e: np.ldexp(a, e), M, I),
    case("modf", np.modf, M * 3), case("packbits", lambda k: np.packbits(k > 1), K),
    case("packbits-axis", lambda a: np.packbits(a > 0, axis=1, bitorder="little"), M),
    case("unpackbits", lambda k: np.unpackbits(np.astype(k, np.uint8)), K),
    case("unpackbits-count",
         lambda k: np.unpackbits(np.astype(k, np.uint8), count=4, bitorder="little"), K),
    case("isclose", lambda a, b: np.isclose(a, b + 1e-9, rtol=0, atol=1e-8), M, M),
    case("isclose-nan", lambda r: np.isclose(r, r, equal_nan=True), R),
    case("nan_to_num", lambda r: np.nan_to_num(r, nan=-1.0, posinf=9.0), R),
    case("unwrap", lambda a: np.unwrap(a * 4), M),
    case("trapezoid", lambda a: np.trapezoid(a, dx=0.5), M),
    case("cumulative_prod", lambda a: np.cumulative_prod(a, axis=1), M),
    case("argwhere-const", lambda a: a[tuple(np.argwhere(np.eye(3, 4) > 0).T)], M),
    case("nonzero-const", lambda a: a[np.nonzero(np.tri(3, 4))], M),
    case("tri-indices", lambda a: a[np.triu_indices(3, 1, 4)], M),
    case("tril_indices_from", lambda a: a[np.tril_indices_from(a, -1)], M),
    case("diag_indices", lambda a: a[np.diag_indices(3)], M[:, :3]),
    case("mask_indices", lambda a: a[np.mask_indices(3, np.triu)], M[:, :3]),
    case("eye-tri-identity",
         lambda a: np.eye(3, 4, k=1) * a + np.tri(3, 4, -1) + np.identity(4)[1:], M),
    case("arange", lambda a: np.arange(2, 9, 2.5) * a[0], M),
]


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad], ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
