"""numpy's reductions and scans on traced values: compiled values (CPU and the PTX emulator)
against numpy, gradients against central differences and analytic answers, errors as numpy's."""
import numpy as np
import pytest

import gradjit
from gradjit.codegen.fuse import fuse
from gradjit.ops.numpy_api import reductions
from tests.numpy_api.check import check_grad, check_values

# numpy warns on all-NaN slices and ddof >= n, which the cases exercise on purpose
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
rng = np.random.default_rng(7)


def _nan(x):
    x = x.copy()
    x.reshape(-1)[::5] = np.nan
    return x


INPUTS = {
    "f64": rng.standard_normal((3, 11)),
    "f32": rng.standard_normal((2, 3, 5)).astype(np.float32),
    "i32": rng.integers(-3, 4, (4, 6)).astype(np.int32),
    "bool": rng.random((3, 4)) > 0.5,
    "nan": _nan(rng.standard_normal((4, 5))),
    "0-d": np.float64(1.5),
    "empty": np.zeros((0, 4)),
    "long": rng.uniform(0.9, 1.1, 70),
}

# Each group is compiled as one program (a tuple of results) per input; members numpy
# refuses for an input must raise the same exception when traced.
GROUPS = {
    "prod": [lambda a: np.prod(a), lambda a: np.prod(a, axis=0),
             lambda a: np.prod(a, axis=-1, keepdims=True), lambda a: np.prod(a, dtype=np.float64),
             lambda a: np.prod(a, axis=0, initial=2), lambda a: np.nanprod(a, axis=-1),
             lambda a: np.nansum(a, axis=0), lambda a: a.prod(axis=-1)],
    "scan": [lambda a: np.cumsum(a), lambda a: np.cumsum(a, axis=0),
             lambda a: np.cumprod(a, axis=-1), lambda a: np.cumsum(a, axis=-1, dtype=np.float64),
             lambda a: np.nancumsum(a, axis=-1), lambda a: np.nancumprod(a),
             lambda a: a.cumsum(0), lambda a: np.cumulative_sum(a, include_initial=True),
             lambda a: np.cumulative_prod(np.ravel(a), axis=0)],
    "diff": [lambda a: np.diff(a), lambda a: np.diff(a, 2, axis=0),
             lambda a: np.diff(a, axis=0, prepend=0.5, append=a[-1:] if a.ndim else a),
             lambda a: np.diff(a, n=0), lambda a: np.ediff1d(a, to_begin=[7, 8], to_end=-1),
             lambda a: np.trapezoid(a), lambda a: np.trapezoid(a, dx=0.5, axis=0),
             lambda a: np.gradient(a), lambda a: np.gradient(a, 0.5, axis=0, edge_order=2),
             lambda a: np.gradient(a, 1.0, 0.5, axis=(-1, 0))],  # in the order given
    "spread": [lambda a: np.var(a), lambda a: np.var(a, axis=0, ddof=1),
               lambda a: np.std(a, axis=-1, keepdims=True), lambda a: np.var(a, ddof=50),
               lambda a: np.std(a, correction=1), lambda a: np.ptp(a, axis=-1),
               lambda a: np.average(a, axis=0), lambda a: np.average(a, returned=True),
               lambda a: np.nanmean(a, axis=-1), lambda a: np.nanvar(a, axis=0, ddof=1),
               lambda a: np.nanstd(a), lambda a: a.var(), lambda a: a.std(ddof=1)],
    "extrema": [lambda a: np.max(a, axis=(0, -1)), lambda a: np.amin(a, axis=0, keepdims=True),
                lambda a: np.amax(a, axis=0, initial=0.25), lambda a: np.min(a, initial=-1),
                lambda a: np.nanmax(a, axis=-1), lambda a: np.nanmin(a),
                lambda a: np.argmax(a), lambda a: np.argmin(a, axis=0),
                lambda a: np.argmax(a, axis=-1, keepdims=True), lambda a: a.argmin(),
                lambda a: np.all(a, axis=0), lambda a: np.any(a, axis=(0, -1), keepdims=True),
                lambda a: np.count_nonzero(a), lambda a: np.count_nonzero(a, axis=0,
                                                                            keepdims=True),
                lambda a: a.max(axis=0, initial=0.5), lambda a: a.all(), lambda a: a.any(0),
                lambda a: np.nanargmax(a), lambda a: np.nanargmin(a, axis=0),
                lambda a: np.nanargmax(a, axis=-1, keepdims=True)],
    "where": [lambda a: np.prod(a, where=a > 0), lambda a: np.nanprod(a, axis=0, where=a < 1),
              lambda a: np.nansum(a, where=a != 0, initial=1),
              lambda a: np.max(a, axis=-1, initial=-5, where=a < 1),
              lambda a: np.min(a, initial=5, where=a > 0), lambda a: np.nanmin(a, initial=0.5),
              lambda a: np.all(a, axis=0, where=a != 1), lambda a: np.any(a, where=a < 0),
              lambda a: np.nanmean(a, axis=-1, where=a > 0)],
    "unwrap": [lambda a: np.unwrap(a), lambda a: np.unwrap(a, axis=0),
               lambda a: np.unwrap(a, discont=0.5, period=1.0)],
}


def test_every_name_of_the_table_is_exercised_here():
    source = open(__file__).read()
    assert {f for f in reductions.FUNCTIONS if f"np.{f.__name__}(" not in source} == set()


def _split(members, x):
    ok, refused = [], []
    for fn in members:
        try:
            with np.errstate(all="ignore"):
                fn(x)
            ok.append(fn)
        except Exception as error:  # numpy's refusal: traced code must refuse the same way
            refused.append((fn, type(error)))
    return ok, refused


@pytest.mark.parametrize("group", sorted(GROUPS))
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_values_match_numpy(group, name):
    x = INPUTS[name]
    ok, refused = _split(GROUPS[group], x)
    rtol = 1e-5 if x.dtype == np.float32 else 1e-10
    with np.errstate(all="ignore"):
        check_values(lambda a: tuple(fn(a) for fn in ok), x, rtol=rtol, atol=rtol)
    for fn, kind in refused:
        with pytest.raises(kind):
            gradjit.jit(fn)(x)


def test_scan_of_a_long_axis_matches_numpy_and_the_blocks_line_up():
    x = rng.standard_normal((2, 1000))
    check_values(lambda a: np.cumsum(a, axis=1), x, rtol=1e-9, atol=1e-9)  # four levels


def test_integer_accumulation_promotes_like_numpy():
    x = np.array([[2**20, 2**20], [3, 4]], np.int32)
    check_values(lambda a: (np.prod(a, axis=1), np.cumsum(a), np.cumprod(a, axis=1),
                            np.var(a), np.nanmean(a)), x)


# ---- gradients ----

def _joined(fn):
    """Several results as one vector, so one compiled gradient checks them all."""
    return lambda *a: np.concatenate([np.ravel(out) for out in fn(*a)])


def _with_zeros(count):
    x = rng.uniform(0.5, 1.5, (3, 6)) * rng.choice([-1, 1], (3, 6))
    for row in range(3):
        x[row, rng.choice(6, min(count, 6) if row else 0, replace=False)] = 0.0
    return x


@pytest.mark.parametrize("zeros", [0, 1, 2])
def test_prod_and_cumprod_gradients_are_exact_at_zeros(zeros):
    """prod and cumprod are multilinear, so central differences are exact even at zeros: one
    zero gives the product of the others, two or more give 0."""
    x = _with_zeros(zeros)
    check_grad(_joined(lambda a: (np.prod(a, axis=1), np.cumprod(a, axis=1),
                                  np.prod(a, axis=0, keepdims=True))), x)
    want = np.array([np.prod(np.delete(x[1], i)) for i in range(6)])
    got = gradjit.grad(lambda a: np.prod(a[1]))(x)[1]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


def test_scan_and_difference_gradients():
    x = rng.standard_normal((3, 9))
    check_grad(_joined(lambda a: (
        np.cumsum(a, axis=1), np.cumsum(a), np.nancumprod(a, axis=0), np.diff(a, 2),
        np.ediff1d(a, to_begin=1.0), np.trapezoid(a, axis=0),
        np.diff(a, axis=0, prepend=a[:1] * 3))), x)


def test_spread_and_average_gradients():
    x, w = rng.standard_normal((3, 5)), rng.uniform(0.5, 2, 5)
    check_grad(_joined(lambda a, b: (
        np.var(a, axis=1, ddof=1), np.std(a), np.ptp(a, axis=0), np.average(a, axis=1, weights=b),
        np.average(a, axis=1, weights=b, returned=True)[1], np.nanstd(a, axis=0),
        np.max(a, axis=1, initial=0.0))), x, w, argnums=(0, 1))


def test_std_of_equal_or_single_elements_has_a_zero_gradient():
    """A spread of zero is a kink of std; PyTorch and gradjit give 0 there (not nan)."""
    g = gradjit.grad(lambda a: np.std(a) + np.std(a[:1]) + np.nanstd(a, axis=0).sum())
    np.testing.assert_array_equal(g(np.full(4, 2.5)), np.zeros(4))


def test_nan_reductions_ignore_nan_and_an_all_nan_slice_gives_nan():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    check_values(lambda a: (np.nanmean(a, axis=1), np.nanvar(a, axis=1), np.nanmax(a, axis=1),
                            np.nanmin(a, axis=1), np.nansum(a, axis=1)), x)
    grad = gradjit.grad(lambda a: np.nanmean(a, axis=1)[0] + np.nansum(a) * 2)(x)
    np.testing.assert_array_equal(grad, [[2.5, 0, 2.5], [0, 0, 0]])


def test_argmax_takes_the_first_occurrence_and_the_first_nan():
    x = np.array([[1.0, 3.0, 3.0, np.nan, np.nan], [2.0, 2.0, -1.0, -1.0, 0.0]])
    check_values(lambda a: (np.argmax(a, axis=1), np.argmin(a, axis=1), np.argmax(a),
                            np.argmin(a[1])), x)


def test_take_along_axis_with_constant_and_traced_indices_and_its_gradient():
    x = rng.standard_normal((3, 5))
    idx = np.array([[4, 0, 4], [-1, 2, 2], [1, 1, 1]])
    check_values(lambda a, i: (np.take_along_axis(a, i, axis=1),
                               np.take_along_axis(a, i[:, 1:2], 0),
                               np.take_along_axis(a, np.argmax(a, 1)[:, None], axis=-1)),
                 x, idx)
    check_grad(lambda a: np.take_along_axis(a, idx, axis=1), x)
    check_values(lambda a: np.take_along_axis(a, np.array([3, 0, 3]), axis=None), x)


def test_take_along_axis_index_out_of_range_raises_index_error():
    fn = gradjit.jit(lambda a, i: np.take_along_axis(a, i, axis=1))
    with pytest.raises(IndexError):
        fn(np.ones((2, 3)), np.array([[0], [3]]))


OUTSIDE = np.empty(6)  # an array made outside the traced functions: numpy's own


@pytest.mark.parametrize("call,kind", [
    (lambda a: np.nanvar(a, dtype=np.int64), TypeError),
    (lambda a: np.max(a, where=a > 0), ValueError),
    (lambda a: np.nanmin(a, axis=0, where=a > 0), ValueError),
    (lambda a: np.cumsum(a, out=OUTSIDE), TypeError),  # a numpy array: refused
    (lambda a: np.diff(a, -1), ValueError),
    (lambda a: np.diff(a[0, 0]), ValueError),
    (lambda a: np.argmax(a[:, :0], axis=1), ValueError),
    (lambda a: np.cumulative_sum(a), ValueError),
    (lambda a: np.var(a, ddof=1, correction=1), ValueError),
    (lambda a: np.average(a, weights=np.ones(3)), TypeError),
    (lambda a: np.average(a, axis=1, weights=np.ones(2)), ValueError),
    (lambda a: np.take_along_axis(a, np.zeros(2, int), axis=1), ValueError),
    (lambda a: np.take_along_axis(a, np.zeros((2, 1)), axis=1), IndexError),
    (lambda a: np.gradient(a, np.arange(4.0), axis=1), ValueError),
    (lambda a: np.gradient(a, np.ones((3, 1)), axis=1), ValueError),
    (lambda a: np.gradient(a, 1.0, 2.0, 3.0), TypeError),
    (lambda a: np.gradient(a, edge_order=3), ValueError),
    (lambda a: np.gradient(a, axis=0, edge_order=2), ValueError),
])
def test_refusals(call, kind):
    with pytest.raises(kind):
        gradjit.jit(call)(np.ones((2, 3)))


def test_scans_stay_linear_in_the_axis_length():
    """The blocked scan and its gradient use memory proportional to n (a few passes), not an
    n x n matrix or n log n copies."""
    def memory(n):
        fn = gradjit.grad(lambda a: (np.cumprod(a) * a).sum() + np.cumsum(a)[-1],
                          backend="interpreter")  # the IR is what is measured: no need to compile
        return sum(b.size for b in fuse(fn.ir(np.ones(n))).buffers)
    small, large = memory(256), memory(1024)  # about 24 n: n log n would give 5x, n^2 16x
    assert large < 4.2 * small and large < 30 * 1024


def test_second_derivative_of_prod_away_from_zeros():
    x, w = np.array([1.5, -2.0, 0.7, 3.0]), np.arange(1.0, 5.0)
    got = gradjit.grad(lambda a: (gradjit.grad(lambda b: np.prod(b))(a) * w).sum())(x)
    p = np.prod(x)
    want = [sum(w[i] * p / (x[i] * x[j]) for i in range(4) if i != j) for j in range(4)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("fn", [
    lambda f, x: np.gradient(f, x, axis=1),
    lambda f, x: np.stack(np.gradient(f, x[:4], x, edge_order=2)),
    lambda f, x: np.gradient(f[0], x, edge_order=2),
    lambda f, x: np.gradient(f, np.arange(4) * 2, axis=0),  # even integer steps: numpy's h
])
def test_gradient_with_coordinates(fn):
    f, x = rng.standard_normal((4, 6)), np.cumsum(rng.uniform(0.2, 1.0, 6))
    check_values(fn, f, x, backends=("cpu",))
    check_grad(fn, f, x, argnums=(0, 1), backends=("cpu",))
