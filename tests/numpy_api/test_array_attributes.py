"""ndarray attributes and methods that numpy code reads off an array (tolist, flat, view,
strides, device) on traced values, against numpy on the same data."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_grad, check_values

X = np.random.default_rng(3).normal(size=(3, 4))


def sum_of_squares_over_tolist(x):
    return np.asarray(sum(v * v for row in x.tolist() for v in row))


def flat_slice(x):
    return x.flat[2:7] * np.arange(5)


def flat_write(x):
    y = x * 1.5
    y.flat[[0, 5, 11]] = 0.0
    y.flat[1] = y.flat[2] * 3.0
    return y


def flat_iteration(x):
    return np.stack([v * i for i, v in enumerate(x.flat)])


@pytest.mark.parametrize("fn", [sum_of_squares_over_tolist, flat_slice, flat_write,
                                flat_iteration])
def test_values_and_gradients_match_numpy(fn):
    check_values(fn, X, backends=("cpu",))
    check_grad(fn, X, backends=("cpu",))


def test_view_strides_device_are_numpys():
    got = gradjit.jit(lambda x: (x.view() * 2.0, np.asarray(x.strides), np.asarray(len(x.flat))))(X)
    np.testing.assert_array_equal(got[0], X * 2.0)
    np.testing.assert_array_equal(got[1], X.strides)
    assert got[2] == X.size
    assert gradjit.jit(lambda x: x.to_device(x.device) + 1.0)(X).tolist() == (X + 1.0).tolist()


def test_reinterpreting_view_and_foreign_device_are_refused():
    with pytest.raises(TypeError, match="no memory of its own"):
        gradjit.jit(lambda x: x.view(np.int64))(X)
    with pytest.raises(ValueError, match="lives on the CPU"):
        gradjit.jit(lambda x: x.to_device("cuda"))(X)
