"""np.put_along_axis on traced values and eager Tensors: numpy's fancy assignment (the last
write to a position wins), indices known or computed at run time, axis=None; gradients to
the array and the values; numpy's errors."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_eager, check_grad, check_values
from tests.torch_reference import message

rng = np.random.default_rng(4)
X = rng.standard_normal((3, 4))
Y = rng.standard_normal((2, 3, 4))
DUPLICATES = np.array([[0, 0], [1, 3], [2, -2]])  # row 0 writes column 0 twice


def put(axis):
    def fn(a, indices, values):
        out = a * 1.0
        np.put_along_axis(out, indices, values, axis)
        return out
    return fn


CASES = {
    "duplicates": (1, X, DUPLICATES, rng.standard_normal((3, 2))),
    "broadcast-indices": (0, X, np.array([[0, 2, 1, 0]]), rng.standard_normal((1, 4))),
    "scalar-value": (1, X, np.array([[1], [0], [3]]), np.float64(7.5)),
    "axis-none": (None, X, np.array([0, 5, -1, 5]), rng.standard_normal(4)),
    "3d-middle-axis": (1, Y, rng.integers(-3, 3, (2, 5, 4)), rng.standard_normal((2, 5, 4))),
    "3d-broadcast": (-1, Y, rng.integers(0, 4, (1, 3, 2)), rng.standard_normal((2, 1, 2))),
}


@pytest.mark.parametrize("name", CASES)
def test_put_along_axis_values(name):
    axis, a, indices, values = CASES[name]
    fn = put(axis)
    check_values(fn, a, indices, values)  # indices computed at run time
    check_values(lambda a, v: fn(a, indices, v), a, values)  # indices known
    check_eager(fn, a, indices, values)


@pytest.mark.parametrize("name", CASES)
def test_put_along_axis_gradients(name):
    axis, a, indices, values = CASES[name]
    fn = put(axis)
    check_grad(lambda a, v: fn(a, indices, v), a, values, argnums=(0, 1), backends=("cpu",))


def test_put_along_axis_integers_and_a_traced_integer_array():
    ints = rng.integers(-5, 5, (3, 4))

    def fn(a, i):
        out = a + 0
        np.put_along_axis(out, i, 2.7, axis=1)  # numpy casts the value to the array's dtype
        return out
    check_values(fn, ints, DUPLICATES)


@pytest.mark.parametrize("call, error", [
    (lambda a, i: np.put_along_axis(a * 1.0, i * 2, 1.0, axis=1), IndexError),
    (lambda a, i: np.put_along_axis(a * 1.0, i - 9, 1.0, axis=1), IndexError),
    (lambda a, i: np.put_along_axis(a * 1.0, i[0], 1.0, axis=1), ValueError),
    (lambda a, i: np.put_along_axis(a * 1.0, i, 1.0, axis=None), ValueError),
    (lambda a, i: np.put_along_axis(a * 1.0, i * 0.5, 1.0, axis=1), IndexError),
    (lambda a, i: np.put_along_axis(a * 1.0, i, 1.0, axis=2), np.exceptions.AxisError),
], ids=["above", "below", "rank", "axis-none-rank", "float-indices", "axis"])
def test_put_along_axis_errors_as_numpy(call, error):
    with pytest.raises(error) as want:
        call(X, DUPLICATES)
    with pytest.raises(error) as got:
        gradjit.jit(call)(X, DUPLICATES)
    assert message(got.value) == str(want.value)
