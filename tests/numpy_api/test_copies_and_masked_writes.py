"""Copies of traced values are new arrays (np.copy, x.copy(), np.array(x)): writing into one
leaves the other as numpy leaves it; x[mask] = v with a mask computed at run time; and array
API libraries that write into a copy (scipy.special.logsumexp, log_softmax) under grad."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_eager, check_grad, check_values

rng = np.random.default_rng(15)
X = rng.standard_normal((3, 4))


def _written(make):
    def fn(x):
        x = x * 1.0  # numpy would write into the caller's array where make aliases
        y = make(x)
        y[0] = 5.0
        np.add.at(y, [1, 1], 1.0)
        return x * 1.0, y * 1.0
    return fn


COPIES = {
    "np.copy": _written(np.copy),
    "method": _written(lambda x: x.copy()),
    "np.array": _written(np.array),
    "np.array-copy": _written(lambda x: np.array(x, copy=True)),
    "np.asarray-aliases": _written(np.asarray),
    "np.array-copy-none-aliases": _written(lambda x: np.array(x, copy=None)),
}


@pytest.mark.parametrize("name", COPIES)
def test_a_copy_is_written_alone(name):
    check_values(COPIES[name], X)
    check_grad(lambda x: np.concatenate(COPIES[name](x)), X, backends=("cpu",))


def test_np_copy_of_a_tensor_is_a_clone():
    check_eager(lambda x: COPIES["np.copy"](x)[0], X)


def _masked(x):
    y = x * 1.0
    y[y > 0.5] = 0.0  # a mask over every axis
    y[x[:, 0] < 0] = -1.0  # a mask over the leading axis
    y[x > 1.0] = x[0, 0]  # one traced value
    return y


def test_writing_one_value_through_a_run_time_mask():
    check_values(_masked, X)
    check_eager(_masked, X)
    check_grad(_masked, X, backends=("cpu",))


def test_writing_several_values_through_a_run_time_mask_is_refused():
    def f(x):
        y = x * 1.0
        y[x > 0] = x[0]
        return y
    with pytest.raises(IndexError, match="computed at run time is not supported"):
        gradjit.jit(f)(X)


@pytest.mark.parametrize("name", ["logsumexp", "logsumexp-weights", "log_softmax"])
def test_scipy_array_api_functions_under_grad(name):
    special = pytest.importorskip("scipy.special")
    fn = {"logsumexp": lambda a: special.logsumexp(a, axis=1),
          "logsumexp-weights": lambda a: special.logsumexp(a, axis=0, b=np.arange(3.0)[:, None]),
          "log_softmax": lambda a: special.log_softmax(a, axis=1)}[name]
    check_values(fn, X, backends=("cpu",))
    check_grad(fn, X, backends=("cpu",))
