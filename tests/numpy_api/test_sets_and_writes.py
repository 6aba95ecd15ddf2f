"""numpy's set operations, the functions that write into an array, and the smaller names
(poly, polydiv, ldexp, nextafter, logical_xor, astype, array_equiv) on
traced values: compiled values against numpy, gradients against central differences, errors
as numpy's."""
import numpy as np
import pytest

import gradjit
from gradjit.ops.numpy_api import sets, writes
from tests.numpy_api.check import check_grad, check_values

RNG = np.random.default_rng(3)
A = RNG.integers(0, 7, 10).astype(np.float64)
B = RNG.integers(3, 10, 8).astype(np.float64)
M = RNG.standard_normal((3, 4))
OUTSIDE = np.zeros(4)  # an array made outside the traced functions: numpy's own


def written(write):
    """A function of x that writes into a copy of x with `write` and returns the copy."""
    def fn(x, *rest):
        out = x * 1.0
        write(out, *rest)
        return out
    return fn


VALUES = {
    "union1d": (np.union1d, (A, B)),
    "intersect1d": (np.intersect1d, (A, B)),
    "intersect1d-indices": (lambda a, b: np.intersect1d(a, b, return_indices=True), (A, B)),
    "intersect1d-unique": (lambda a, b: np.intersect1d(np.unique(a), np.unique(b), True, True),
                           (A, B)),
    "intersect1d-empty": (np.intersect1d, (A, B + 100)),
    "setdiff1d": (np.setdiff1d, (A, B)),
    "setdiff1d-assume": (lambda a, b: np.setdiff1d(a, b, assume_unique=True), (A, B)),
    "setxor1d": (np.setxor1d, (A, B)),
    "setxor1d-2d": (np.setxor1d, (A.reshape(2, 5), B[:4])),
    "copyto": (written(lambda o: np.copyto(o, 7.0)), (M,)),
    "copyto-where": (written(lambda o, s: np.copyto(o, s, where=s > 0)), (M, M[0] * 3)),
    "put": (written(lambda o: np.put(o, [0, 5, -1], [9.0, 8.0])), (M,)),
    "put-traced": (written(lambda o, s: np.put(o, [2, 3], s[:2])), (M, M[1])),
    "put-wrap": (written(lambda o: np.put(o, [13], 9.0, mode="wrap")), (M,)),
    "put-clip": (written(lambda o: np.put(o, [13, -4], [9.0, 1.0], mode="clip")), (M,)),
    "place": (written(lambda o: np.place(o, o > 0, [10.0, 20.0])), (M,)),
    "putmask": (written(lambda o, s: np.putmask(o, o < 0, s)), (M, M[2])),
    "fill_diagonal": (written(lambda o: np.fill_diagonal(o, 5.0)), (M,)),
    "fill_diagonal-tall": (written(lambda o: np.fill_diagonal(o, [5.0, 6.0])), (M.T,)),
    "fill_diagonal-wrap": (written(lambda o: np.fill_diagonal(o, 2.0, wrap=True)),
                           (RNG.standard_normal((7, 2)),)),
    "put_along_axis": (written(lambda o, s: np.put_along_axis(o, np.array([[1], [3], [0]]), s,
                                                               axis=1)), (M, M[:, :1])),
    "fill_diagonal-3d": (written(lambda o: np.fill_diagonal(o, 3.0)), (np.zeros((3, 3, 3)),)),
    "poly": (np.poly, (np.array([0.5, -1.0, 2.0]),)),
    "poly-f32": (np.poly, (np.array([0.5, -1.0, 2.0], np.float32),)),
    "polydiv": (np.polydiv, (np.array([3.0, 5, 2]), np.array([2.0, 1]))),
    "polydiv-exact": (np.polydiv, (np.array([1.0, 0, 0, -1]), np.array([1.0, -1]))),
    "ldexp": (lambda a: np.ldexp(a, np.array([1, -3, 1000, 5])), (M[0],)),
    "ldexp-edges": (lambda a: np.ldexp(a, np.array([-1074, 1100, 3, 1])),
                    (np.array([3.0, 1e-300, np.inf, np.nan]),)),
    "ldexp-f32": (lambda a: np.ldexp(a, 3), (M[0].astype(np.float32),)),
    "nextafter": (lambda a, b: np.nextafter(a, b), (np.array([0.0, -0.0, 1.0, 2.0, np.inf,
                                                              np.nan, 5e-324, 1.0]),
                                                    np.array([1.0, -1.0, 0.0, 3.0, 0.0, 1.0,
                                                              0.0, 1.0]))),
    "nextafter-f32": (lambda a: np.nextafter(a, np.float32(0)), (M[0].astype(np.float32),)),
    "logical_xor": (lambda a, b: np.logical_xor(a > 0, b), (M, M[0] < 0)),
    "astype": (lambda a: np.astype(a, np.int32), (M * 3,)),
    "array_equiv": (lambda a: np.array_equiv(a, a[:1]) + np.array_equiv(a, a[:, :1]),
                    (np.ones((2, 3)),)),
}


@pytest.mark.parametrize("name", VALUES)
def test_values_match_numpy(name):
    fn, args = VALUES[name]
    check_values(fn, *args, backends=("cpu",))


@pytest.mark.parametrize("op, kept", [
    (np.union1d, lambda a, b: np.ones(len(a), bool)), (np.intersect1d, np.isin),
    (np.setdiff1d, lambda a, b: ~np.isin(a, b)), (np.setxor1d, lambda a, b: ~np.isin(a, b))])
def test_set_results_take_their_gradient_from_each_value_first_place(op, kept):
    """The kept values come from their first occurrence in the first argument, so the
    gradient of their sum of squares is 2 a there and 0 at the repeats."""
    grad = gradjit.grad(lambda a: (op(a, B) ** 2).sum())(A)
    first = np.zeros(len(A), bool)
    first[np.unique(A, return_index=True)[1]] = True
    np.testing.assert_array_equal(grad, np.where(first & kept(A, B), 2 * A, 0.0))


GRADIENTS = {
    "copyto-where": (written(lambda o: np.copyto(o, o[0] * 2, where=M > 0)), M),
    "put": (written(lambda o: np.put(o, [2, 3], o[0, :2] * 3)), M),
    "place": (written(lambda o: np.place(o, M > 0, o[1, :2] ** 2)), M),
    "putmask": (written(lambda o: np.putmask(o, M < 0, np.sin(o[2]))), M),
    "fill_diagonal": (written(lambda o: np.fill_diagonal(o, o[0, :3] * 2)), M),
    "poly": (np.poly, np.array([0.5, -1.0, 2.0])),
    "polydiv": (lambda u: np.concatenate(np.polydiv(u, np.array([2.0, 1]))),
                np.array([3.0, 5, 2, 1])),
    "ldexp": (lambda a: np.ldexp(a, np.array([1, -3, 5, 0])), M[0]),
}


@pytest.mark.parametrize("name", GRADIENTS)
def test_gradients_match_central_differences(name):
    fn, x = GRADIENTS[name]
    check_grad(fn, x, backends=("cpu",))


ERRORS = {
    "put-range": (lambda x: np.put(x, [20], 1.0), IndexError, "index 20 is out of bounds"),
    "put-mode": (lambda x: np.put(x, [0], 1.0, mode="x"), ValueError, "clipmode must be one of"),
    "place-size": (lambda x: np.place(x, [True], [1.0]), ValueError,
                   "place: mask and data must be the same size"),
    "place-empty": (lambda x: np.place(x, x > -10, []), ValueError,
                    "Cannot insert from an empty array"),
    "putmask-size": (lambda x: np.putmask(x, [True], [1.0]), ValueError,
                     "putmask: mask and data must be the same size"),
    "fill-1d": (lambda x: np.fill_diagonal(x[0], 1.0), ValueError, "at least 2-d"),
    "fill-unequal": (lambda x: np.fill_diagonal(np.stack([x, x]), 1.0), ValueError,
                     "equal length"),
    "copyto-cast": (lambda x: np.copyto(x.astype(np.int64), x), TypeError,
                    "according to the rule 'same_kind'"),
    "copyto-shape": (lambda x: np.copyto(x, x[:2, :2]), ValueError, "could not broadcast"),
    "poly-2d": (lambda x: np.poly(x), ValueError, "input must be 1d or non-empty square"),
    "ldexp-float": (lambda x: np.ldexp(x, x), TypeError, "ufunc 'ldexp' not supported"),
    "apply_over_axes-shape": (lambda x: np.apply_over_axes(lambda a, axis: a.sum(), x, [0]),
                              ValueError, "function is not returning an array of the correct"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_as_numpy(name):
    call, error, message = ERRORS[name]
    with pytest.raises(error, match=message):
        call(M.copy())
    with pytest.raises(error, match=message):
        gradjit.jit(lambda x: call(x * 1.0))(M)


def test_writing_a_run_time_value_into_a_numpy_array_is_refused():
    with pytest.raises(TypeError, match="np.copyto: the destination is a numpy array"):
        gradjit.jit(lambda x: np.copyto(OUTSIDE, x))(M[0])


@pytest.mark.parametrize("a", [np.array([[2.0, 1.0], [-3.0, 0.5]]),
                               np.array([[1.0, 2j], [0.5, -1j]])])
def test_poly_of_a_square_matrix_is_its_characteristic_polynomial(a):
    got, want = gradjit.jit(np.poly)(a), np.poly(a)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_a_written_tensor_is_written_in_place_with_its_gradient():
    x = gradjit.tensor(M, requires_grad=True)
    out = x * 1.0
    np.putmask(out, M < 0, x[0] * 2)
    out.sum().backward()
    want = np.where(M < 0, 0.0, 1.0)
    spread = np.resize(np.arange(4), 12).reshape(3, 4)
    np.add.at(want[0], spread[M < 0], 2.0)
    np.testing.assert_allclose(x.grad.numpy(), want)


def test_every_function_of_these_areas_is_tested():
    called = {fn.__name__ for fn, _ in VALUES.values()} | set(VALUES)
    for table in (sets.FUNCTIONS, writes.FUNCTIONS):
        assert {f.__name__ for f in table} <= {n.split("-")[0] for n in called}
