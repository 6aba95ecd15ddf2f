"""numpy's lib/tests/test_arraysetops.py scenarios: unique with every flag, axis and NaN rule,
the array-API unique_* functions, intersect1d/union1d/setdiff1d/setxor1d, ediff1d and isin
of every kind; eager and compiled against numpy (the sizes of these results depend on the
values: gradjit reads them, guarded, so another count traces again)."""
import itertools

import numpy as np
import pytest

from tests.numpy_api.jax_suite import case, suite_tests

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

REPEATS = np.array([5, 7, 1, 2, 1, 5, 7] * 3)
DATA = np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]])
DATA3D = np.array([[[1, 1], [1, 0]], [[0, 1], [0, 0]]])
NANS = np.array([2.0, np.nan, 1.0, np.nan])
SIGNED = np.array([np.nan, 1.0, 0.0, 4.0, -np.nan, -0.0, 1.0, 3.0, 4.0, np.nan, 5.0, -0.0, 1.0,
                   -np.nan, 0.0])
FLAGS = list(itertools.product((False, True), repeat=3))


def _unique_cases():
    out = []
    for dtype in ("i1", "u2", "i8", "f2", "f4", "f8", "c8"):
        for flags in FLAGS:
            name = "".join("ric"[i] if f else "-" for i, f in enumerate(flags))
            out.append(case(f"unique-{dtype}-{name}",
                            lambda a, f=flags: np.unique(a, *f), REPEATS.astype(dtype)))
    for axis in (0, 1, -1):
        for flags in FLAGS:
            name = "".join("ric"[i] if f else "-" for i, f in enumerate(flags))
            out.append(case(f"unique-axis{axis}-{name}",
                            lambda a, f=flags, x=axis: np.unique(a, *f, axis=x), DATA))
    return out + [
        case("unique-axis2-3d", lambda a: np.unique(a, axis=2), DATA3D),
        case("unique-axis-float", lambda a: np.unique(a, axis=1), DATA.astype("f4")),
        case("unique-axis-bool", lambda a: np.unique(a > 0, axis=0), DATA),
        case("unique-axis-signed-zero", lambda a: np.unique(a, axis=0),
             np.array([[-0.0, 0.0], [0.0, -0.0], [-0.0, 0.0], [0.0, -0.0]])),
        case("unique-axis-sort-order", lambda a: np.unique(a, axis=0), np.array([[-1], [0]])),
        case("unique-1d-axis", lambda a: (np.unique(a, axis=0), np.unique(a, axis=-1)),
             np.array([4, 3, 2, 3, 2, 1, 2, 2])),
        case("unique-inverse-shape", lambda a: [np.unique(a, return_inverse=True, axis=x)
                                                for x in (None, 0, -1)],
             np.array([[4, 4, 3], [2, 2, 1], [2, 2, 1], [4, 4, 3]])),
        case("unique-axis-zeros-0", lambda a: np.unique(a, True, True, True, axis=0),
             np.empty((2, 0), np.int8)),
        case("unique-axis-zeros-1", lambda a: np.unique(a, True, True, True, axis=1),
             np.empty((2, 0), np.int8)),
        case("unique-axis-zeros-many", lambda a: [np.unique(a, axis=x) for x in range(7)],
             np.empty((0, 2, 0, 3, 0, 4, 0))),
        case("unique-axis-out", lambda a: np.unique(a, axis=2), np.arange(10)),
        case("unique-axis-out-neg", lambda a: np.unique(a, axis=-2), np.arange(10)),
        case("unique-axis-float-arg", lambda a: np.unique(a, axis=0.0), NANS),
        case("unique-nan", lambda a: [np.unique(a, *f) for f in FLAGS], NANS),
        case("unique-nan-complex", lambda a: np.unique(a, True, True, True),
             np.array([2.0 - 1j, np.nan, 1.0 + 1j, complex(0.0, np.nan), complex(1.0, np.nan)])),
        case("unique-all-nan", lambda a: np.unique(a, True, True, True), np.full(4, np.nan)),
        case("unique-equal-nan-false", lambda a: np.unique(a, True, True, True, equal_nan=False),
             np.array([1, 1, np.nan, np.nan, np.nan])),
        case("unique-axis-equal-nan", lambda a: (np.unique(a, axis=0, equal_nan=True),
                                                 np.unique(a, axis=-1)),
             np.array([np.nan, 0, 0, np.nan])),
        case("unique-empty", lambda a: [np.unique(a, *f) for f in FLAGS], np.array([])),
        case("unique-empty-int", lambda a: np.unique(a, True, True, True), np.array([], "i4")),
        case("unique-2d-inverse", lambda a: np.unique(a, return_inverse=True),
             np.array([[1, 2, 3], [2, 3, 1]])),
        case("unique-list", lambda: (np.unique([[0, 1, 0], [0, 1, 0]], axis=0),
                                     np.unique([(1, 2), (1, 2), (2, 3)], return_inverse=True))),
        case("unique-bool", lambda a: np.unique(a > 3, True, True, True), REPEATS),
        case("unique-complex-zeros", lambda a: np.unique(a),
             np.array([complex(0.0, -1), complex(-0.0, -1), 0])),
        case("unique-sorted-false", lambda a: np.sort(np.unique(a, sorted=False)), REPEATS),
        case("unique_values", np.unique_values, SIGNED),
        case("unique_counts", np.unique_counts, SIGNED),
        case("unique_inverse", np.unique_inverse, SIGNED),
        case("unique_all", np.unique_all, SIGNED),
        case("unique_inverse-2d", np.unique_inverse, np.array([[1, 2, 3], [2, 3, 1]])),
        case("unique_all-2d", np.unique_all, np.array([[1, 2, 3], [2, 3, 1]])),
        case("unique-traced-values", lambda a: np.unique(np.round(a * 2), return_counts=True),
             np.linspace(-2, 2, 13)),
        case("unique-distinct", lambda a: np.unique(a, True, True, True), np.cos(np.arange(9.))),
        case("unique-distinct-axis", lambda a: np.unique(a, axis=1), np.cos(np.arange(12.))
             .reshape(3, 4)[:, [3, 2, 0, 1]]),
    ]


def _set_cases():
    A, B = np.array([5, 7, 1, 2]), np.array([2, 4, 3, 1, 5])
    P, Q = np.array([5, 5, 7, 1, 2]), np.array([2, 1, 4, 3, 3, 1, 5])
    G, H = np.array([[2, 4, 5, 6, 6], [4, 7, 8, 7, 2]]), np.array([[3, 2, 7, 7], [10, 12, 8, 7]])
    return [
        case("intersect1d-unique", lambda a, b: np.intersect1d(a, b, assume_unique=True), A, B),
        case("intersect1d", np.intersect1d, P, Q),
        case("intersect1d-empty", lambda: np.intersect1d([], [])),
        case("intersect1d-list", lambda: np.intersect1d([1, 2, 3], [1, 2, 3])),
        case("intersect1d-indices-unique", lambda a, b: np.intersect1d(
            a, b, assume_unique=True, return_indices=True),
             np.array([1, 2, 3, 4]), np.array([2, 1, 4, 6])),
        case("intersect1d-indices", lambda a, b: np.intersect1d(a, b, return_indices=True),
             np.array([1, 2, 2, 3, 4, 3, 2]), np.array([1, 8, 4, 2, 2, 3, 2, 3])),
        case("intersect1d-indices-2d-unique", lambda a, b: np.intersect1d(
            a, b, assume_unique=True, return_indices=True),
             np.array([[2, 4, 5, 6], [7, 8, 1, 15]]), np.array([[3, 2, 7, 6], [10, 12, 8, 9]])),
        case("intersect1d-indices-2d", lambda a, b: np.intersect1d(a, b, return_indices=True),
             G, H),
        case("intersect1d-float", np.intersect1d, np.array([1.5, np.nan, 2.0, 1.5]),
             np.array([np.nan, 1.5, 3.0])),
        case("intersect1d-mixed", np.intersect1d, A, B.astype("f4")),
        case("setxor1d", np.setxor1d, A, B),
        case("setxor1d-disjoint", np.setxor1d, np.array([1, 2, 3]), np.array([6, 5, 4])),
        case("setxor1d-shared", np.setxor1d, np.array([1, 8, 2, 3]), np.array([6, 5, 4, 8])),
        case("setxor1d-empty", lambda: np.setxor1d([], [])),
        case("setxor1d-unique", lambda a, b: np.setxor1d(a, b, assume_unique=True),
             np.array([1, 8, 2, 3]), np.array([6, 5, 4, 8])),
        case("setxor1d-unique-2d", lambda a, b: np.setxor1d(a, b, assume_unique=True),
             np.array([[1], [8], [2], [3]]), np.array([[6, 5], [4, 8]])),
        case("union1d", np.union1d, np.array([5, 4, 7, 1, 2]), Q),
        case("union1d-2d", np.union1d, G, H),
        case("union1d-nan", np.union1d, NANS, np.array([np.nan, 3.0])),
        case("setdiff1d", np.setdiff1d, np.array([6, 5, 4, 7, 1, 2, 7, 4]), Q),
        case("setdiff1d-unique", lambda a, b: np.setdiff1d(a, b, assume_unique=True),
             np.array([3, 2, 1]), np.array([7, 5, 2])),
        case("setdiff1d-empty", lambda a: np.setdiff1d(a, np.array([], np.int64)), A),
        case("setdiff1d-all", lambda a: np.setdiff1d(a, a), A),
        case("setdiff1d-2d", np.setdiff1d, G, H),
        case("manyways", lambda a, b: (np.setdiff1d(np.union1d(a, b), np.intersect1d(a, b)),
                                       np.setxor1d(a, b)),
             np.array([5, 7, 1, 2, 8]), np.array([9, 8, 2, 4, 3, 1, 5])),
        case("intersect1d-float-traced", lambda a, b: np.intersect1d(a, b) * 2,
             np.array([0.5, 1.5, 2.5, 0.5]), np.array([2.5, 0.5, 9.0])),
    ]


def _ediff1d_cases():
    return [
        case("ediff1d-zero", lambda a: (np.ediff1d(a), np.ediff1d(a, to_begin=0),
                                        np.ediff1d(a, to_end=0),
                                        np.ediff1d(a, to_begin=-1, to_end=0)), np.array([])),
        case("ediff1d-one", np.ediff1d, np.array([1])),
        case("ediff1d-two", lambda a: (np.ediff1d(a), np.ediff1d(a, to_begin=7, to_end=9),
                                       np.ediff1d(a, to_begin=[5, 6], to_end=[7, 8]),
                                       np.ediff1d(a, to_end=9), np.ediff1d(a, to_end=[7, 8]),
                                       np.ediff1d(a, to_begin=7),
                                       np.ediff1d(a, to_begin=[5, 6])), np.array([1, 2])),
        case("ediff1d-nan-to-int", lambda a: np.ediff1d(a, to_end=np.nan),
             np.array([1, 2, 3])),
        case("ediff1d-downcast", lambda a: np.ediff1d(a, to_begin=np.array([5, 7, 2], "f4")),
             np.array([1, 2, 3])),
        case("ediff1d-nan-both", lambda a: np.ediff1d(a, np.nan, np.nan),
             np.array([1, 3, 9], np.int8)),
        case("ediff1d-wrap", lambda a: np.ediff1d(a, 2 ** 16 + 4, 2 ** 16),
             np.array([1, 2, 3], np.int16)),
        case("ediff1d-f32-f64", lambda a: np.ediff1d(a, to_begin=np.array([5.0])),
             np.array([1, 2, 3], np.float32)),
        case("ediff1d-int32", lambda a: np.ediff1d(a, 0, 0), np.array([1, 2, 3], np.int32)),
        case("ediff1d-int64", lambda a: np.ediff1d(a, -9, 3), np.array([1, 2, 3])),
        case("ediff1d-traced-ends", lambda a, b: np.ediff1d(a, to_end=b, to_begin=b[0]),
             np.linspace(0, 1, 5) ** 2, np.array([0.3, -0.2])),
    ]


def _isin_cases():
    out = []
    a24 = np.arange(24).reshape([2, 3, 4])
    for kind in (None, "sort", "table"):
        out += [
            case(f"isin-{kind}-nd", lambda a, b, k=kind: np.isin(a, b, kind=k),
                 a24, np.array([[10, 20, 30], [0, 1, 3], [11, 22, 33]])),
            case(f"isin-{kind}-scalar", lambda a, k=kind: (np.isin(a, 6, kind=k),
                                                           np.isin(5, a, kind=k)), a24),
            case(f"isin-{kind}-unique", lambda a, b, k=kind: np.isin(a, b, assume_unique=True,
                                                                     kind=k),
                 np.array([5, 7, 1, 2]), np.array([2, 4, 3, 1, 5] * 10)),
            case(f"isin-{kind}-repeats", lambda a, b, k=kind: np.isin(a, b, kind=k),
                 np.array([5, 4, 5, 3, 4, 4, 3, 4, 3, 5, 2, 1, 5, 5]), np.array([2, 3, 4] * 10)),
            case(f"isin-{kind}-invert", lambda a, b, k=kind: np.isin(a, b, invert=True, kind=k),
                 np.array([5, 4, 5, 3, 4, 4, 3, 4, 3, 5, 2, 1, 5, 5]), np.array([2, 3, 4])),
            case(f"isin-{kind}-bool", lambda a, k=kind: np.isin(a, [True], kind=k),
                 np.array([True, False])),
            case(f"isin-{kind}-mixed-bool", lambda a, k=kind: np.isin(a, [False, True], kind=k),
                 np.array([1, 0, 2])),
            case(f"isin-{kind}-empty", lambda a, k=kind: np.isin(a, np.array([], int), kind=k),
                 np.array([1, 2])),
            case(f"isin-{kind}-mixed-dtype", lambda a, b, k=kind: np.isin(a, b, kind=k),
                 np.array([0, 1, 200], np.int16), np.array([1, 200, 255], np.uint8)),
        ]
        if kind != "table":  # numpy's table of 2**40 entries does not fit in memory
            out.append(case(f"isin-{kind}-huge", lambda a, b, k=kind: np.isin(a, b, kind=k),
                            np.array([-1, 2, 3], np.int64), np.array([-1, 2 ** 40], np.int64)))
    return out + [
        case("isin-float", np.isin, np.array([1.5, np.nan, 2.0]), np.array([np.nan, 2.0])),
        case("isin-float-table", lambda a: np.isin(a, [1.0], kind="table"),
             np.array([1.0, 2.0])),
        case("isin-bad-kind", lambda a: np.isin(a, [1], kind="quicksort"), np.arange(5)),
        case("isin-table-overflow", lambda a, b: np.isin(a, b, kind="table"),
             np.array([-1, 2, 3], np.int32), np.array([-1, 2 ** 31 - 1], np.int32)),
        case("isin-traced-both", lambda a, b: np.isin(np.round(a), np.round(b)),
             np.linspace(-2, 2, 9), np.array([0.4, 1.6, -1.2])),
    ]


# Finite differences move a repeated value off its ties (and change the result's length): only
# the cases named here hold distinct values to differentiate.
DIFFERENTIABLE = {"unique-distinct", "unique-distinct-axis", "intersect1d-indices-2d-unique",
                  "ediff1d-traced-ends"}
CASES = [c if c.name in DIFFERENTIABLE else c._replace(grad=())
         for c in _unique_cases() + _set_cases() + _ediff1d_cases() + _isin_cases()]


test_eager, test_jit, test_grad = suite_tests(CASES)
