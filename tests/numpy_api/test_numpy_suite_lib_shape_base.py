"""numpy's lib tests of shape_base, twodim_base, index_tricks and stride_tricks: taking and
putting along axes, applying along axes, splitting and stacking, tiling, triangles, index
builders and window views; eager, compiled and differentiated against numpy."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from tests.numpy_api.jax_suite import arg, case, suite_tests

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

A, B, C = arg((3, 4, 5)), arg((4, 4)), arg((6, 3))
V, I = arg((6,)), arg((3, 4), "i4")
IDX = np.random.default_rng(5).integers(0, 4, (3, 2, 5))


def _keep(f):
    return lambda a, axis=None: np.expand_dims(f(a, axis=axis), axis) if axis is not None \
        else f(a, axis=axis)


def _put(a, indices, values, axis):
    a = np.copy(a)
    np.put_along_axis(a, indices, values, axis)
    return a


def _f1to2(x):
    return np.flip(x) * x[1:, None]  # (a Tensor takes no negative step, as PyTorch's)


def _along_cases():
    out = []
    for axis in (0, 1, 2, None):
        out += [
            case(f"take_along-sort-{axis}",
                 lambda a, x=axis: np.take_along_axis(a, np.argsort(a, axis=x), axis=x), A),
            case(f"take_along-min-{axis}",
                 lambda a, x=axis: np.take_along_axis(a, _keep(np.argmin)(a, x), axis=x), A),
            case(f"put_along-max-{axis}",
                 lambda a, x=axis: _put(a, _keep(np.argmax)(a, x), -99.0, x), A),
        ]
    return out + [
        case("take_along-broadcast",
             lambda a: np.take_along_axis(a[:, :, :1], np.ones((1, 2, 5), np.intp), 1), A),
        case("take_along-empty", lambda a: np.take_along_axis(a, np.ones((3, 0, 5), np.intp), 1),
             A),
        case("take_along-too-few-dims", lambda a: np.take_along_axis(a, np.array(1), 1), B),
        case("take_along-bool", lambda a: np.take_along_axis(a, np.ones((4, 2), bool), 1), B),
        case("take_along-float", lambda a: np.take_along_axis(a, np.ones((4, 2)), 1), B),
        case("take_along-axis-out", lambda a: np.take_along_axis(a, np.ones((4, 2), int), 10),
             B),
        case("take_along-none-2d", lambda a: np.take_along_axis(a, np.ones((4, 2), int), None),
             B),
        case("take_along-traced", lambda a, i: np.take_along_axis(a, i, 1), A, IDX),
        case("put_along-broadcast",
             lambda a: _put(a[:, :, :1], np.arange(10).reshape((1, 2, 5)) % 4, 20.0, 1), A),
        case("put_along-broadcast-meets",  # writes along the broadcast axis meet: last wins
             lambda a, v: _put(a[:, :, :1], np.arange(10).reshape((1, 2, 5)) % 3, v, 1), A,
             arg((3, 2, 5))),
        case("put_along-values", lambda a: _put(a, np.array([[0], [1]]), np.array([[2], [1]]),
                                                0), I[:2, :3] * 10),
        case("put_along-none-2d", lambda a: _put(a, np.array([[0], [1]]), 1, None), I),
        case("apply_along_axis-sum", lambda a: np.apply_along_axis(np.sum, 0, a), C),
        case("apply_along_axis-0d",
             lambda a: np.apply_along_axis(lambda x: np.squeeze(np.sum(x, keepdims=True)), 1, a),
             C),
        case("apply_along_axis-insert-0", lambda a: np.apply_along_axis(_f1to2, 0, a), C),
        case("apply_along_axis-insert-1", lambda a: np.apply_along_axis(_f1to2, 1, a), C),
        case("apply_along_axis-3d-middle", lambda a: np.apply_along_axis(_f1to2, 1, a), A),
        case("apply_along_axis-tuple", lambda a: np.apply_along_axis(lambda x: (x[1], x[0]), 1,
                                                                     a), C),
        case("apply_along_axis-kwargs",
             lambda a: np.apply_along_axis(np.cumsum, -1, a, dtype=np.float32), A),
        case("apply_along_axis-int", lambda i: np.apply_along_axis(np.max, 1, i), I),
        case("apply_along_axis-empty-ok", lambda a: np.apply_along_axis(lambda x: 1, 1, a),
             np.zeros((10, 0))),
        case("apply_along_axis-empty-0", lambda a: np.apply_along_axis(lambda x: 1, 0, a),
             np.zeros((10, 0))),
        case("apply_over_axes", lambda a: np.apply_over_axes(np.sum, a, [0, 2]), A),
        case("apply_over_axes-mean", lambda a: np.apply_over_axes(np.mean, a, 1), A),
    ]


def _shape_cases():
    return [
        case("expand_dims", lambda a: [np.expand_dims(a, ax) for ax in (-4, -3, -2, -1, 0, 1,
                                                                       2, 3)], A),
        case("expand_dims-tuple", lambda a: [np.expand_dims(a, ax) for ax in
                                             ((0, 1), (0, -1), (1, 4), (-2, 5))], A),
        case("expand_dims-out", lambda a: np.expand_dims(a, 5), A),
        case("expand_dims-out-neg", lambda a: np.expand_dims(a, -6), A),
        case("expand_dims-repeated", lambda a: np.expand_dims(a, (1, 1)), A),
        case("expand_dims-repeated-neg", lambda a: np.expand_dims(a, (3, -3)), A),
        case("array_split-0", lambda v: np.array_split(v, 0), V),
        case("array_split", lambda v: [np.array_split(v, n) for n in range(1, 9)], V),
        case("array_split-2d-rows", lambda a: np.array_split(a, 3, axis=0), C),
        case("array_split-2d-cols", lambda a: np.array_split(a, 2, axis=1), C),
        case("array_split-indices", lambda v: np.array_split(v, [1, 5, 7]), V),
        case("array_split-low", lambda v: np.array_split(v, [0, 5, 7]), V),
        case("array_split-high", lambda v: np.array_split(v, [0, 5, 7, 10, 12]), V),
        case("split", lambda v: np.split(v, 2), V),
        case("split-unequal", lambda v: np.split(v, 4), V),
        case("hsplit-1d", lambda v: np.hsplit(v, 3), V),
        case("hsplit-0d", lambda v: np.hsplit(v[0], 1), V),
        case("vsplit-1d", lambda v: np.vsplit(v, 2), V),
        case("vsplit-2d", lambda a: np.vsplit(a, 2), C),
        case("dsplit-2d", lambda a: np.dsplit(a, 2), C),
        case("dsplit-3d", lambda a: np.dsplit(a, [1, 3]), A),
        case("column_stack-1d", lambda a, b: np.column_stack((a, b)), V, V[::-1]),
        case("column_stack-2d", lambda a, b: np.column_stack((a, b)), C, C[:, ::-1]),
        case("column_stack-generator", lambda a: np.column_stack(x for x in (a, a)), V),
        case("column_stack-non-iterable", lambda a: np.column_stack(1), V),
        case("dstack-0d", lambda a: np.dstack([a[0], a[1]]), V),
        case("dstack-1d", lambda a, b: np.dstack([a, b]), V, V * 2),
        case("dstack-2d", lambda a, b: np.dstack([a, b]), C, C * 2),
        case("dstack-2d-2", lambda a, b: np.dstack([a[:, :1], b]), C, C * 2),
        case("squeeze", lambda a: np.squeeze(a.reshape(1, 3, 1, 4, 5, 1)), A),
        case("squeeze-axis", lambda a: np.squeeze(a.reshape(1, 3, 1, 4, 5, 1), (0, 5)), A),
        case("kron", np.kron, B, C), case("kron-int", np.kron, I, I),
        case("kron-scalar", lambda a: np.kron(a, 2.0), B),
        case("kron-shapes", lambda a, b: np.kron(a[:, :1], b[None]), A, C),
        case("kron-1d-3d", lambda a, b: np.kron(a, b), V, A[:2, :2, :2]),
        case("tile", lambda a: np.tile(a, 2), V), case("tile-2", lambda a: np.tile(a, (2, 2)), V),
        case("tile-3", lambda a: np.tile(a, (1, 2)), B),
        case("tile-one", lambda a: np.tile(a, 1), B),
        case("tile-empty", lambda a: np.tile(a, (3, 2, 5)), np.zeros((2, 0))),
        case("tile-reps-0", lambda a: np.tile(a, (2, 0)), B),
        case("tile-kron", lambda i: np.tile(i, (2, 1, 3)), I),
        case("rot90-int", lambda i: [np.rot90(i, k) for k in range(-4, 5)], I),
        case("flipud-2d", np.flipud, C), case("fliplr-2d", np.fliplr, C),
    ]


def _twodim_cases():
    return [
        case("eye", lambda: (np.eye(4), np.eye(4, 3, 1, dtype=int), np.eye(3, k=-4),
                             np.eye(2, 4, k=3, dtype=bool))),
        case("diag-vector", lambda v: [np.diag(v, k) for k in (-3, 0, 2)], V),
        case("diag-matrix", lambda a: [np.diag(a, k) for k in (-8, -2, 0, 1, 3, 10)], C),
        case("diag-3d", lambda a: np.diag(a), A),
        case("diagflat", lambda a: np.diagflat(a, -1), B),
        case("diagflat-list", lambda: np.diagflat([[1, 2], [3, 4]], 1)),
        case("tri", lambda: (np.tri(3), np.tri(3, dtype=bool), np.tri(3, 5, 2),
                             np.tri(4, 2, -1, dtype=np.int16))),
        case("tril-k", lambda a: [np.tril(a, k) for k in (-2, 0, 1, 5)], C),
        case("triu-k", lambda a: [np.triu(a, k) for k in (-2, 0, 1, 5)], A),
        case("tril-int", lambda i: (np.tril(i), np.triu(i, 1)), I),
        case("tril-inf", lambda a: (np.tril(a), np.triu(a)),
             np.array([[1, 1, np.inf], [1, 1, 1], [np.inf, 1, 1]]), grad=()),
        case("tril-bool", lambda a: np.tril(a > 0, -1), B),
        case("tril-1d", lambda a: np.tril(a), V),
        case("tril-complex", lambda a: np.triu(a), arg((3, 3), "c8")),
        case("vander", lambda v: np.vander(v), V),
        case("vander-N", lambda v: [np.vander(v, n) for n in range(5)], V),
        case("vander-int", lambda i: np.vander(i[0], 3, increasing=True), I),
        case("vander-complex", lambda v: np.vander(v, 3), np.array([1 + 1j, 2j, -3.0])),
        case("vander-2d", np.vander, B),
        case("histogram2d", lambda x, y: np.histogram2d(x, y, (np.linspace(0, 1, 10),) * 2),
             np.array([0.41702200, 0.72032449, 1.1437481e-4, 0.302332573, 0.146755891]),
             np.array([0.09233859, 0.18626021, 0.34556073, 0.39676747, 0.53881673])),
        case("histogram2d-range", lambda: np.histogram2d(np.arange(10.), np.arange(10.))),
        case("histogram2d-asym", lambda x, y: np.histogram2d(
            x, y, (6, 5), range=[[0, 6], [0, 5]], density=True),
             np.array([1., 1, 2, 3, 4, 4, 4, 5]), np.array([1., 3, 2, 0, 1, 2, 3, 4]), grad=()),
        case("histogram2d-density-edges", lambda x, y: np.histogram2d(
            x, y, [[1, 2, 3, 5], [1, 2, 3, 5]], density=True),
             np.array([1., 2, 3, 1, 2, 3, 1, 2, 3]), np.array([1., 1, 1, 2, 2, 2, 3, 3, 3])),
        case("histogram2d-outliers",
             lambda r: np.histogram2d(r, r, (4, 5), range=([0, 1], [0, 1])), V + 1e6),
        case("histogram2d-empty", lambda: np.histogram2d([], [], bins=([0, 1], [0, 1]))),
        case("histogram2d-mixed-bins", lambda x, y: np.histogram2d(x, y, [3, [0.0, 0.5, 1.0]]),
             V, V[::-1]),
        case("histogram2d-weights", lambda x, y, w: np.histogram2d(x, y, 3, weights=w), V, V,
             V ** 2),
        case("histogram2d-bad-length", lambda x, y: np.histogram2d(x, y), V, V[:4]),
        case("mask_indices", lambda a: (a.ravel()[np.ravel_multi_index(
            np.mask_indices(3, np.triu), (3, 3))], np.mask_indices(3, np.triu, 1)), B[:3, :3]),
        case("tril_indices", lambda: (np.tril_indices(4), np.tril_indices(4, k=2),
                                      np.tril_indices(4, m=5), np.tril_indices(4, 2, 5))),
        case("triu_indices", lambda: (np.triu_indices(4), np.triu_indices(4, 2),
                                      np.triu_indices(4, m=5), np.triu_indices(4, -1, 2))),
        case("tril_indices_from", lambda a: a[np.tril_indices_from(a, -1)], B),
        case("triu_indices_from", lambda a: a[np.triu_indices_from(a, 1)], C),
        case("tril_indices_from-1d", lambda a: np.tril_indices_from(a), V),
        case("triu_indices_from-3d", lambda a: np.triu_indices_from(a), A),
        case("tril_indices-assign", lambda a: _assigned(a, np.tril_indices(4), -1.0), B),
    ]


def _assigned(a, index, value):
    a = np.copy(a)
    a[index] = value
    return a


def _filled(a, value, wrap=False):
    a = np.copy(a)
    np.fill_diagonal(a, value, wrap)
    return a


def _index_cases():
    return [
        case("ravel_multi_index", lambda: np.ravel_multi_index(([1, 0, 2], [2, 3, 1]), (3, 4))),
        case("ravel_multi_index-F", lambda: np.ravel_multi_index(
            ([1, 0, 2], [2, 3, 1]), (3, 4), order="F")),
        case("ravel_multi_index-clip", lambda i: np.ravel_multi_index(
            (i, i + 5), (4, 6), mode="clip"), I),
        case("ravel_multi_index-modes", lambda i: np.ravel_multi_index(
            (i, i), (3, 5), mode=("wrap", "clip")), I),
        case("ravel_multi_index-out", lambda: np.ravel_multi_index(([4], [0]), (3, 4))),
        case("ravel_multi_index-empty", lambda: np.ravel_multi_index(
            (np.array([], int), np.array([], int)), (3, 4))),
        case("unravel_index", lambda: np.unravel_index([22, 41, 37], (7, 6))),
        case("unravel_index-F", lambda: np.unravel_index([22, 41, 37], (7, 6), order="F")),
        case("unravel_index-0d", lambda: np.unravel_index(0, ())),
        case("unravel_index-traced", lambda i: np.unravel_index(np.abs(i) * 3, (2, 3, 2)), I),
        case("unravel_index-out", lambda: np.unravel_index(42, (7, 6))),
        case("unravel_index-negative", lambda: np.unravel_index(-1, (7, 6))),
        case("unravel_index-float", lambda: np.unravel_index(np.array([1.0]), (7, 6))),
        case("mgrid", lambda: (np.mgrid[0:1:0.1], np.mgrid[0:1:10j], np.mgrid[-1:1:11j],
                               np.mgrid[0:1:0.3])),
        case("mgrid-nd", lambda: (np.mgrid[-1:1:0.1, -2:2:0.2], np.mgrid[-1:1:10j, -2:2:5j])),
        case("mgrid-traced", lambda a: np.mgrid[0:3, 0:4] * a[0, :3, :4], A),
        case("ogrid", lambda: np.ogrid[-1:1:0.1, -2:2:0.2]),
        case("ogrid-complex", lambda: np.ogrid[0:2:3j, -1:1:4j]),
        case("ogrid-traced", lambda a: sum(np.ogrid[0:3, 0:4]) * a[0, :3, :4], A),
        case("mgrid-none", lambda: np.mgrid[1:None:2j]),
        case("r_", lambda a, b: np.r_[a, 0, 0, b], V, V),
        case("r_-slices", lambda a: np.r_[-1:1:6j, a, [0] * 3, 5, 6], V),
        case("r_-mixed", lambda: np.r_[10, 2j, 10.0]),
        case("r_-2d", lambda a, b: np.r_["-1", a, b], C, C),
        case("r_-axis", lambda a, b: np.r_["0,2", a, b], V, V),
        case("r_-axis-nd", lambda a, b: np.r_["0,2,0", a, b], V, V),
        case("r_-matrix-axis", lambda a, b: np.r_["1,2", a[None], b[None]], V, V),
        case("r_-0d", lambda a: np.r_[a[0], [1.0, 2.0], 3], V),
        case("r_-trans1d", lambda a, b: [np.r_[d, a, b, 0:6] for d in (
            "0,2,1", "1,2,0", "0,3,-1", "2,3,-2", "-1,3,0")], V, V ** 2),
        case("r_-trans1d-2d", lambda a, b: (np.r_["1,3,1", a, b[:1]], np.r_["0,3,1", a, b[:1]]),
             C, C),
        case("r_-weak-scalar", lambda a: np.r_[a, 2.0, 3], V.astype(np.float32)),
        case("r_-int-scalar", lambda i: np.r_[i[0], 2.5], I),
        case("r_-late-directive", lambda a: np.r_[a, "0,2"], V),
        case("r_-bad-directive", lambda a: np.r_["0,x", a], V),
        case("r_-bad-axis", lambda a: np.r_["x", a], V),
        case("c_-directive", lambda a, b: np.c_["0,2,0", a, b], V, V),
        case("c_", lambda a, b: np.c_[a, 0, 0, b], V[None], V[None]),
        case("c_-1d", lambda a, b: np.c_[a, b], V, V),
        case("c_-complex-step", lambda: np.r_[0:36:100j]),
        case("ix_", lambda a: a[np.ix_([0, 2], [1, 2, 3], [4, 0])], A),
        case("ix_-bool", lambda a: a[np.ix_([True, False, True], [False, True, True, True])],
             I),
        case("ix_-shapes", lambda: [x.shape for x in np.ix_(range(3), np.arange(4.0 > 3.0),
                                                             [1, 2, 3])]),
        case("ix_-2d", lambda: np.ix_([[1, 2]])),
        case("ix_-traced", lambda i, a: a[np.ix_(np.abs(i[0]) % 3, np.abs(i[1]) % 4)], I, A[0]),
        case("index_exp", lambda a: (a[np.index_exp[2:3, ..., 1]], a[np.s_[::2, 1]]), A),
        case("ndenumerate", lambda a: [v * k for k, (i, v) in enumerate(np.ndenumerate(a))], B),
        case("ndindex", lambda a: [a[i] * sum(i) for i in np.ndindex(*a.shape)], C),
        case("ndindex-tuple", lambda a: sum(a[i] for i in np.ndindex(a.shape)), A),
        case("ndindex-0d", lambda: list(np.ndindex())),
        case("fill_diagonal", lambda a: _filled(a, 5.0), B),
        case("fill_diagonal-traced", lambda a, v: _filled(a, v[:4]), B, V),
        case("fill_diagonal-tall", lambda a: _filled(a, 5.0), arg((7, 3))),
        case("fill_diagonal-tall-wrap", lambda a: _filled(a, 5.0, True), arg((9, 3))),
        case("fill_diagonal-wide", lambda a: _filled(a, 5.0), arg((3, 7))),
        case("fill_diagonal-4d", lambda: _filled(np.zeros((3, 3, 3, 3), int), 4)),
        case("fill_diagonal-1d", lambda a: _filled(a, 5.0), V),
        case("fill_diagonal-hetero", lambda a: _filled(a, 5.0), A),
        case("diag_indices", lambda a: a[np.diag_indices(4)], B),
        case("diag_indices-3d", lambda a: np.diag_indices(3, 3)),
        case("diag_indices_from", lambda a: a[np.diag_indices_from(a)], np.stack([B] * 4, 2)[
            :, :, :, None].repeat(4, 3)),
        case("diag_indices_from-1d", lambda v: np.diag_indices_from(v), V),
        case("diag_indices_from-nonsquare", lambda a: np.diag_indices_from(a), C),
    ]


def _stride_cases():
    as_strided = np.lib.stride_tricks.as_strided  # gradjit's, once gradjit is imported
    return [
        case("sliding_window-1d", lambda v: sliding_window_view(v, 2), V),
        case("sliding_window-2d", lambda a: sliding_window_view(a, (2, 3)), C),
        case("sliding_window-axis", lambda a: sliding_window_view(a, 3, axis=0), C),
        case("sliding_window-repeated-axis",
             lambda a: sliding_window_view(a, (2, 3, 2), axis=(0, 0, 1)), C),
        case("sliding_window-neg-axis", lambda a: sliding_window_view(a, (2, 2), (-1, 0)), A),
        case("sliding_window-full", lambda v: sliding_window_view(v, 6), V),
        case("sliding_window-too-big", lambda v: sliding_window_view(v, 7), V),
        case("sliding_window-negative", lambda v: sliding_window_view(v, -1), V),
        case("sliding_window-wrong-count", lambda a: sliding_window_view(a, (1, 2, 3)), C),
        case("sliding_window-mismatch", lambda a: sliding_window_view(a, (1, 2), axis=1), C),
        case("sliding_window-sum", lambda v: sliding_window_view(v, 3).sum(-1), V),
        case("broadcast_to", lambda a: np.broadcast_to(a, (4, 6)), V),
        case("broadcast_to-scalar", lambda a: np.broadcast_to(a[0], (2, 3)), V),
        case("broadcast_to-0d-shape", lambda a: np.broadcast_to(a[0], ()), V),
        case("broadcast_to-int-shape", lambda a: np.broadcast_to(a[:1], 5), V),
        case("broadcast_to-empty", lambda a: np.broadcast_to(a[:, :1], (0, 3, 0)), C),
        case("broadcast_to-bad", lambda a: np.broadcast_to(a, (3,)), V),
        case("broadcast_to-negative", lambda a: np.broadcast_to(a[:1], (-1,)), V),
        case("broadcast_to-fewer-dims", lambda a: np.broadcast_to(a, (3,)), C),
        case("broadcast_arrays", lambda a, b, c: np.broadcast_arrays(a, b[:1], c[:, :1]),
             C[0], C[:, :1].T, C),
        case("broadcast_arrays-one", lambda a: np.broadcast_arrays(a), C),
        case("broadcast_arrays-none", lambda: np.broadcast_arrays()),
        case("broadcast_arrays-scalar", lambda a: np.broadcast_arrays(a, 2.0), V),
        case("broadcast_arrays-empty", lambda a: np.broadcast_arrays(a[:0, None], a), V),
        case("broadcast_arrays-mismatch", lambda a: np.broadcast_arrays(a, a[:3]), V),
        case("broadcast_arrays-mixed-dtype", lambda a, i: np.broadcast_arrays(a, i), B, I[:1]),
        case("broadcast_shapes", lambda: (np.broadcast_shapes((6, 7), (5, 6, 1), (7,)),
                                          np.broadcast_shapes(), np.broadcast_shapes(1, (3, 1)))),
        case("as_strided-window", lambda v: as_strided(v, (4, 3), (8, 8)), V),
        case("as_strided-broadcast", lambda v: as_strided(v, (3, 6), (0, 8)), V),
        case("as_strided-diagonal", lambda a: as_strided(a, (4,), (40,)), B),
        case("as_strided-transpose", lambda a: as_strided(a, (3, 6), (8, 24)), C),
        case("as_strided-same", lambda a: as_strided(a), C),
        case("as_strided-int", lambda i: as_strided(i, (2, 2), (8, 4)), I),
        case("as_strided-f32", lambda a: as_strided(a, (3, 2), (4, 8)), V.astype(np.float32)),
    ]


CASES = _along_cases() + _shape_cases() + _twodim_cases() + _index_cases() + _stride_cases()


test_eager, test_jit, test_grad = suite_tests(CASES)
