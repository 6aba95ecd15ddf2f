"""numpy's lib/tests/test_twodim_base.py, test_index_tricks.py and test_stride_tricks.py
scenarios the shape_base suite leaves out: eye/tri/diag/diagflat with offsets, shapes and
dtypes, tril/triu of stacks, bools and offsets past the edge, vander, the triangle and mask
index builders, unravel_index/ravel_multi_index with modes and orders, mgrid/ogrid with
complex steps, r_/c_ directives, ix_, fill_diagonal, broadcast_to/broadcast_arrays/
broadcast_shapes and sliding_window_view with numpy's refusals; eager, compiled, differentiated."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, suite_tests

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

A = arg((4, 5))
S3 = arg((2, 4, 3))
Z = np.array(0.0)  # a traced zero: the builders' results joined to a traced value


def _twodim_cases():
    out = []
    for k in (-5, -1, 0, 2, 7):
        out += [
            case(f"eye-k{k}", lambda z, k=k: np.eye(4, 6, k=k) + z, Z),
            case(f"tri-k{k}", lambda z, k=k: np.tri(4, 6, k=k) + z, Z),
            case(f"tril-k{k}", lambda a, k=k: np.tril(a, k), A),
            case(f"triu-k{k}", lambda a, k=k: np.triu(a, k), A),
            case(f"tril-stack-k{k}", lambda a, k=k: np.tril(a, k), S3),
            case(f"triu-stack-k{k}", lambda a, k=k: np.triu(a, k), S3),
            case(f"diag-k{k}", lambda a, k=k: np.diag(a, k), A),
            case(f"diag-vector-k{k}", lambda a, k=k: np.diag(a, k), arg(3)),
            case(f"diagflat-k{k}", lambda a, k=k: np.diagflat(a, k), arg((2, 2))),
        ]
    return out + [
        case("eye-dtypes", lambda z: [np.eye(3, dtype=d) for d in ("i4", "f4", "c8", bool)]
             + [z], Z),
        case("eye-order-f", lambda z: np.eye(3, 2, 1, order="F") + z, Z),
        case("eye-bad-order", lambda z: np.eye(3, order="X") + z, Z),
        case("tri-dtype", lambda z: (np.tri(3, dtype=int), np.tri(3, 2, dtype=bool)), Z),
        case("tril-bool", np.tril, np.ones((3, 3), bool)),
        case("triu-int", lambda a: np.triu(a, 1), np.arange(12).reshape(3, 4)),
        case("tril-1d", np.tril, arg(4)),
        case("triu-0d", np.triu, np.array(1.0)),
        case("tril-complex", lambda a: np.tril(a, -1), arg((3, 3), "c16")),
        case("diag-3d", np.diag, S3),
        case("diag-empty", lambda a: np.diag(a, 9), A),
        case("vander", lambda x: [np.vander(x, n) for n in (None, 0, 1, 3)], arg(4)),
        case("vander-increasing", lambda x: np.vander(x, 5, increasing=True), arg(4)),
        case("vander-int", np.vander, np.array([1, 2, 3, 5])),
        case("vander-complex", np.vander, arg(3, "c16")),
        case("vander-2d", np.vander, arg((2, 2))),
        case("fliplr-1d", np.fliplr, arg(3)),
        case("flipud", np.flipud, S3),
        case("tril-indices", lambda a: [a[np.tril_indices(4, k, 5)] for k in (-1, 0, 2)], A),
        case("triu-indices", lambda a: [a[np.triu_indices(4, k, 5)] for k in (-2, 0, 1)], A),
        case("tril-indices-from", lambda a: (a[np.tril_indices_from(a)],
                                             a[np.triu_indices_from(a, 1)]), A),
        case("indices-from-1d", lambda a: np.tril_indices_from(a), arg(3)),
        case("mask-indices", lambda a: [a[np.mask_indices(4, f, k)]
                                        for f, k in ((np.triu, 0), (np.tril, -1),
                                                     (np.triu, 2))], arg((4, 4))),
    ]


def _index_cases():
    flat = np.array([22, 41, 37])
    return [
        case("unravel", lambda i: np.unravel_index(i, (7, 6)), flat),
        case("unravel-f", lambda i: np.unravel_index(i, (7, 6), order="F"), flat),
        case("unravel-scalar", lambda i: np.unravel_index(i, (6, 7, 8)), np.array(1621)),
        case("unravel-out-of-range", lambda i: np.unravel_index(i, (7, 6)), np.array([42])),
        case("unravel-negative", lambda i: np.unravel_index(i, (7, 6)), np.array([-1])),
        case("unravel-float", lambda i: np.unravel_index(i, (7, 6)), np.array([1.0])),
        case("unravel-empty-shape", lambda i: np.unravel_index(i, ()), np.array(0)),
        case("unravel-2d-index", lambda i: np.unravel_index(i, (4, 5)),
             np.array([[1, 7], [19, 0]])),
        case("ravel", lambda i, j: np.ravel_multi_index((i, j), (7, 6)), np.array([3, 6, 6]),
             np.array([4, 5, 1])),
        case("ravel-f", lambda i, j: np.ravel_multi_index((i, j), (7, 6), order="F"),
             np.array([3, 6, 6]), np.array([4, 5, 1])),
        case("ravel-clip", lambda i, j: np.ravel_multi_index((i, j), (4, 6), mode="clip"),
             np.array([3, 6, -6]), np.array([4, 5, 9])),
        case("ravel-wrap", lambda i, j: np.ravel_multi_index((i, j), (4, 6),
                                                             mode=("wrap", "clip")),
             np.array([3, 6, -6]), np.array([4, 5, 9])),
        case("ravel-raise", lambda i, j: np.ravel_multi_index((i, j), (4, 6)),
             np.array([3, 6]), np.array([4, 5])),
        case("ravel-bad-mode", lambda i, j: np.ravel_multi_index((i, j), (4, 6), mode="nope"),
             np.array([3, 1]), np.array([4, 5])),
        case("ravel-round-trip", lambda i: np.ravel_multi_index(np.unravel_index(i, (3, 4, 5)),
                                                                (3, 4, 5)), np.arange(60)),
        case("mgrid", lambda z: np.mgrid[0:5, -1:2:0.5] + z, Z),
        case("mgrid-complex-step", lambda z: np.mgrid[-1:1:5j, 0:2:3j] + z, Z),
        case("mgrid-1d", lambda z: np.mgrid[-1:1:0.25] + z, Z),
        case("ogrid", lambda z: [g + z for g in np.ogrid[0:3, 0:4:2j]], Z),
        case("r-slices", lambda a: np.r_[a, 0:3, -1, a], arg(3)),
        case("r-complex-step", lambda z: np.r_[-1:1:6j] + z, Z),
        case("r-axis", lambda a: np.r_["0,2", a, a], arg(3)),
        case("r-matrix-axis", lambda a: np.r_["1,2,0", a, a], arg(3)),
        case("c", lambda a, b: np.c_[a, b], arg(3), arg(3)),
        case("c-2d", lambda a, b: np.c_[a, b, 0 * a], arg((2, 3)), arg((2, 3))),
        case("ix", lambda a: a[np.ix_([0, 2], [1, 3, 4])], A),
        case("ix-bool", lambda a: a[np.ix_([True, False, True, False], [1, 3])], A),
        case("ix-traced", lambda a, i, j: a[np.ix_(i, j)], A, np.array([3, 0]), np.array([4, 4])),
        case("ix-2d", lambda a: np.ix_(a), arg((2, 2))),
        case("s-index-exp", lambda a: (a[np.s_[1:, ::2]], a[np.index_exp[2, :3]]), A),
        case("ndindex", lambda a: [a[i] for i in np.ndindex(2, 3)], arg((2, 3))),
        case("diag-indices", lambda a: a[np.diag_indices(3, 3)], arg((3, 3, 3))),
        case("diag-indices-from-bad", lambda a: np.diag_indices_from(a), arg((3, 4))),
    ]


def _fill(a, value, wrap=False):
    a = np.copy(a)
    np.fill_diagonal(a, value, wrap=wrap)
    return a


def _stride_cases():
    sw = np.lib.stride_tricks.sliding_window_view
    return [
        case("fill-diagonal", lambda a, v: _fill(a, v), A, np.array([1.5, -2.0])),
        case("fill-diagonal-tall-wrap", lambda a: _fill(a, 9.0, True), arg((11, 3))),
        case("fill-diagonal-tall", lambda a: _fill(a, 9.0), arg((11, 3))),
        case("fill-diagonal-cube", lambda a, v: _fill(a, v), arg((3, 3, 3)), np.array(4.0)),
        case("fill-diagonal-1d", lambda a: _fill(a, 1.0), arg(3)),
        case("fill-diagonal-uneven", lambda a: _fill(a, 1.0), arg((2, 3, 3))),
        case("broadcast-to", lambda a: [np.broadcast_to(a, s) for s in ((3,), (2, 3),
                                                                         (4, 0, 3))], arg(3)),
        case("broadcast-to-scalar", lambda a: np.broadcast_to(a, (2, 2)), np.array(1.5)),
        case("broadcast-to-bad", lambda a: np.broadcast_to(a, (2,)), arg(3)),
        case("broadcast-to-negative", lambda a: np.broadcast_to(a, (-1, 3)), arg(3)),
        case("broadcast-to-fewer-dims", lambda a: np.broadcast_to(a, (3,)), arg((2, 3))),
        case("broadcast-arrays", lambda a, b: np.broadcast_arrays(a, b), arg((3, 1)), arg(4)),
        case("broadcast-arrays-bad", lambda a, b: np.broadcast_arrays(a, b), arg(3), arg(4)),
        case("broadcast-arrays-one", lambda a: np.broadcast_arrays(a), arg(3)),
        case("broadcast-shapes", lambda z: np.broadcast_shapes((6, 7), (5, 6, 1), (7,),
                                                                (5, 1, 7)) + (z,), Z),
        case("broadcast-shapes-bad", lambda z: np.broadcast_shapes((3,), (4,)), Z),
        case("broadcast-shapes-zero", lambda z: np.broadcast_shapes((0,), (1, 0)) + (z,), Z),
        case("sliding-1d", lambda a: sw(a, 3), arg(6)),
        case("sliding-2d", lambda a: sw(a, (2, 3)), A),
        case("sliding-axis", lambda a: sw(a, 2, axis=0), A),
        case("sliding-axes", lambda a: sw(a, (2, 2), axis=(1, 1)), A),
        case("sliding-too-large", lambda a: sw(a, 7), arg(6)),
        case("sliding-negative", lambda a: sw(a, -1), arg(6)),
        case("sliding-axis-mismatch", lambda a: sw(a, (2, 2), axis=0), A),
        case("sliding-too-many-windows", lambda a: sw(a, (2, 2)), arg(6)),
        case("sliding-bad-axis", lambda a: sw(a, 2, axis=3), A),
    ]


CASES = _twodim_cases() + _index_cases() + _stride_cases()


test_eager, test_jit, test_grad = suite_tests(CASES)
