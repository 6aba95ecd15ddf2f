"""np.cov, np.corrcoef, np.unwrap, np.nanargmax/nanargmin and np.histogram_bin_edges on traced
values: compiled values against numpy (dtypes included), gradients against central
differences, numpy's errors."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import raises_as_numpy
from tests.numpy_api.check import check_grad, check_values

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
rng = np.random.default_rng(11)
M = rng.standard_normal((3, 6))
Y = rng.standard_normal((2, 6))
F = np.array([1, 2, 1, 3, 1, 2])
A = rng.uniform(0.5, 2.0, 6)

COV = {
    "plain": lambda m: np.cov(m),
    "columns": lambda m: np.cov(m, rowvar=False),
    "bias": lambda m: np.cov(m, bias=True),
    "ddof": lambda m: np.cov(m, ddof=3),
    "y": lambda m: np.cov(m, Y),
    "y-columns": lambda m: np.cov(m.T, Y.T, rowvar=False),
    "one-row": lambda m: np.cov(m[0]),
    "fweights": lambda m: np.cov(m, fweights=F),
    "aweights": lambda m: np.cov(m, aweights=A),
    "both": lambda m: np.cov(m, fweights=F, aweights=A, ddof=1),
    "both-ddof0": lambda m: np.cov(m, fweights=F, aweights=A, bias=True),
    "float32": lambda m: np.cov(m.astype(np.float32)),
    "dtype": lambda m: np.cov(m, dtype=np.float32),
    "corrcoef": lambda m: np.corrcoef(m),
    "corrcoef-y": lambda m: np.corrcoef(m, Y, rowvar=True),
    "corrcoef-columns": lambda m: np.corrcoef(m, rowvar=False),
    "corrcoef-one": lambda m: np.corrcoef(m[0]),
    "dof<=0": lambda m: np.cov(m[:, :2], ddof=2),
}


@pytest.mark.parametrize("name", COV)
def test_cov_and_corrcoef(name):
    fn = COV[name]
    single = name in ("float32", "dtype")
    check_values(fn, M, backends=("cpu",), rtol=2e-6 if single else 1e-10)
    if not single and name != "dof<=0":
        check_grad(fn, M, backends=("cpu",))


def test_cov_weights_traced_and_integer_input():
    check_values(lambda m, a: np.cov(m, aweights=a), M, A, backends=("cpu",))
    check_grad(lambda m, a: np.cov(m, aweights=a), M, A, argnums=1, backends=("cpu",))
    ints = rng.integers(-4, 5, (3, 5))
    check_values(lambda m: np.cov(m), ints, backends=("cpu",))


@pytest.mark.parametrize("call, error", [
    (lambda m: np.cov(m, ddof=1.5), ValueError),
    (lambda m: np.cov(m[None, None]), ValueError),
    (lambda m: np.cov(m, Y[None, None]), ValueError),
    (lambda m: np.cov(m, fweights=F + 0.5), TypeError),
    (lambda m: np.cov(m, fweights=-F), ValueError),
    (lambda m: np.cov(m, aweights=-A), ValueError),
    (lambda m: np.cov(m, aweights=A[:3]), RuntimeError),
    (lambda m: np.cov(m, fweights=np.ones((6, 1))), RuntimeError),
], ids=["ddof", "m-3d", "y-3d", "fweights-integer", "fweights-negative",
        "aweights-negative", "aweights-length", "fweights-2d"])
def test_cov_errors_as_numpy(call, error):
    raises_as_numpy(call, error, M)


P = np.cumsum(rng.uniform(-2.5, 2.5, (3, 12)), axis=1)


@pytest.mark.parametrize("name, fn", [
    ("default", lambda p: np.unwrap(p)),
    ("axis0", lambda p: np.unwrap(p, axis=0)),
    ("discont", lambda p: np.unwrap(p, discont=4.0)),
    ("period", lambda p: np.unwrap(p, period=3.0)),
    ("float32", lambda p: np.unwrap(p.astype(np.float32))),
])
def test_unwrap(name, fn):
    check_values(fn, P, backends=("cpu",), rtol=1e-6 if name == "float32" else 1e-10)
    if name != "float32":
        check_grad(fn, P, backends=("cpu",))


def test_unwrap_integers_and_boundary():
    ints = np.array([0, 1, 5, 4, 10, 2, 3])
    check_values(lambda p: np.unwrap(p, period=6), ints, backends=("cpu",))
    check_values(lambda p: np.unwrap(p, period=7), ints, backends=("cpu",))
    half = np.array([0.0, np.pi, 0.0, -np.pi, 2.5 * np.pi])
    check_values(lambda p: np.unwrap(p), half, backends=("cpu",))


NAN = np.array([[np.nan, 2.0, 5.0, np.nan], [1.0, np.nan, -3.0, 4.0], [0.5, 0.5, np.nan, 0.1]])


@pytest.mark.parametrize("fn", [
    lambda a: np.nanargmax(a), lambda a: np.nanargmin(a), lambda a: np.nanargmax(a, axis=0),
    lambda a: np.nanargmin(a, axis=1), lambda a: np.nanargmax(a, axis=1, keepdims=True),
    lambda a: np.nanargmin(a[:, :2] * 0 + 1, axis=0),
])
def test_nanargmax_nanargmin(fn):
    check_values(fn, NAN, backends=("cpu",))
    check_values(fn, np.arange(12.0).reshape(3, 4), backends=("cpu",))


def test_nanargmax_all_nan_slice_and_integers():
    call = gradjit.jit(lambda a: np.nanargmax(a, axis=1))
    assert call(np.array([[1.0, np.nan], [np.nan, 2.0]])).tolist() == [0, 1]
    with pytest.raises(ValueError, match="All-NaN slice encountered"):  # the guard fails
        call(np.array([[1.0, np.nan], [np.nan, np.nan]]))
    ints = rng.integers(0, 9, (3, 4))
    check_values(lambda a: np.nanargmin(a, axis=0), ints, backends=("cpu",))


DATA = rng.standard_normal(20)


EDGES = {
    "default": lambda a: np.histogram_bin_edges(a),
    "count": lambda a: np.histogram_bin_edges(a, bins=4),
    "range": lambda a: np.histogram_bin_edges(a, 5, range=(-1, 2)),
    "edges": lambda a: np.histogram_bin_edges(a, [-1.0, 0.0, 3.0]),
    "flat-data": lambda a: np.histogram_bin_edges(a * 0, 3),
    "weights": lambda a: np.histogram_bin_edges(a, 3, weights=a),
    "float32": lambda a: np.histogram_bin_edges(a.astype(np.float32), 3),
}


@pytest.mark.parametrize("name", EDGES)
def test_histogram_bin_edges(name):
    check_values(EDGES[name], DATA, backends=("cpu",))
    if name != "float32":  # the edges follow the data's min and max
        check_grad(lambda a: EDGES[name](a) * 1.0, DATA, backends=("cpu",))


@pytest.mark.parametrize("call, error", [
    (lambda a: np.histogram_bin_edges(a, "no-such-rule"), ValueError),
    (lambda a: np.histogram_bin_edges(a, [1.0, 0.0]), ValueError),
    (lambda a: np.histogram_bin_edges(a, [[1.0, 2.0]]), ValueError),
    (lambda a: np.histogram_bin_edges(a, 3, weights=a[:3]), ValueError),
], ids=["unknown-rule", "decreasing", "2d-bins", "weights-shape"])
def test_histogram_bin_edges_errors(call, error):
    with pytest.raises(error):
        gradjit.jit(call)(DATA)
    if error is ValueError:
        with pytest.raises(error):
            call(DATA)
