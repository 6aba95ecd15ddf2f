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


def test_writing_several_values_through_a_run_time_mask_counts_them_as_numpy():
    """The mask's value decides how many values it takes (the trace holds for that mask): a
    row of values fits a mask marking as many elements, and is refused as numpy refuses it
    otherwise."""
    def f(x):
        y = x * 1.0
        y[x > 0] = x[0]
        return y
    fits = np.array([[1.0, -1.0, 2.0, -2.0], [-1.0, -1.0, -1.0, 3.0], [4.0, -5.0, -5.0, -5.0]])
    np.testing.assert_array_equal(gradjit.jit(f)(fits), f(fits))
    with pytest.raises(ValueError, match="cannot assign 4 input values to the 6 output"):
        f(X)
    with pytest.raises(ValueError, match="cannot assign 4 input values to the 6 output"):
        gradjit.jit(f)(X)


@pytest.mark.parametrize("case", ["repeated", "negative", "rows-and-slice", "broadcast-value",
                                  "two-arrays", "one-value"])
def test_writing_through_run_time_index_arrays(case):
    """y[index] = v with index arrays known only at run time: numpy's values (the last write
    to a repeated position wins), and the gradient of every written value, a replaced one
    included, as PyTorch's backward gives it."""
    torch = pytest.importorskip("torch")
    m = np.arange(12.0).reshape(3, 4) / 7
    index, value, shape = {
        "repeated": ((np.array([1, 2, 1]),), np.array([[1.0], [2.0], [3.0]]), (3, 4)),
        "negative": ((np.array([-1, 0]),), np.array([5.0, 6.0, 7.0, 8.0]), (3, 4)),
        "rows-and-slice": ((np.array([2, 0, 2]), slice(1, None)), np.arange(9.0).reshape(3, 3),
                           (3, 4)),
        "broadcast-value": ((np.array([[0], [2]]), np.array([1, 3])), np.array([9.0, 8.0]),
                            (3, 4)),
        "two-arrays": ((np.array([0, 2, 0]), np.array([1, 1, 1])), np.array([1.0, 2.0, 3.0]),
                       (3, 4)),
        "one-value": ((np.array([1, 1]),), np.array(2.5), (3, 4))}[case]

    def write(y, v, *arrays):
        y = y * 1.0
        y[tuple(a if isinstance(a, slice) else arrays[i] for i, a in enumerate(index))] = v * 2
        return y
    arrays = [a for a in index if not isinstance(a, slice)]
    np.testing.assert_array_equal(gradjit.jit(write)(m, value, *arrays), write(m, value, *index))

    weights = np.random.default_rng(0).uniform(0.5, 1.5, shape)
    got = gradjit.grad(lambda y, v, *a: (write(y, v, *a) * weights).sum(), argnums=(0, 1))(
        m, value, *arrays)
    y, v = torch.tensor(m, requires_grad=True), torch.tensor(value, requires_grad=True)
    out = y * 1.0
    out[tuple(a if isinstance(a, slice) else torch.tensor(a) for a in index)] = v * 2
    (out * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(got[0], y.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got[1], v.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["logsumexp", "logsumexp-weights", "log_softmax"])
def test_scipy_array_api_functions_under_grad(name):
    special = pytest.importorskip("scipy.special")
    fn = {"logsumexp": lambda a: special.logsumexp(a, axis=1),
          "logsumexp-weights": lambda a: special.logsumexp(a, axis=0, b=np.arange(3.0)[:, None]),
          "log_softmax": lambda a: special.log_softmax(a, axis=1)}[name]
    check_values(fn, X, backends=("cpu",))
    check_grad(fn, X, backends=("cpu",))


def test_writing_a_number_through_a_run_time_index_array():
    def write(y, i):
        y = y * 1.0
        y[i] = 2.5
        return y
    m, i = np.arange(6.0), np.array([4, 1, 4])
    np.testing.assert_array_equal(gradjit.jit(write)(m, i), write(m, i))
