"""np.unique(axis=...) on traced values and eager Tensors: the distinct slices in numpy's
lexicographic order with their first positions, inverse and counts; gradients through the
lexicographic sort; numpy's AxisError."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_eager, check_grad, check_values
from tests.torch_reference import message

rng = np.random.default_rng(8)
A = rng.integers(0, 3, (6, 2, 3)).astype(np.float64)
A[3] = A[1]
A[:, :, 2] = A[:, :, 0]  # equal slices along the last axis too
NAN = np.array([[np.nan, 1], [np.nan, 1], [-0.0, 1], [0.0, 1]])
FLAGS = [(False, False, False), (True, True, True), (True, False, True), (False, True, False)]


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("flags", FLAGS, ids=str)
def test_unique_along_an_axis(axis, flags):
    fn = lambda a: np.unique(a, *flags, axis=axis)  # noqa: E731
    check_values(fn, A)
    check_values(fn, A.astype(np.int32), backends=("cpu",))
    check_eager(fn, A)


@pytest.mark.parametrize("x", [np.zeros((0, 3)), np.zeros((3, 0)), NAN],
                         ids=["no-slices", "empty-slices", "nan-and-signed-zero"])
def test_unique_along_an_axis_edge_cases(x):
    check_values(lambda a: np.unique(a, True, True, True, axis=0), x, backends=("cpu",))


def test_unique_along_an_axis_gradient_follows_the_sort():
    x = rng.standard_normal((5, 3))
    check_grad(lambda a: np.unique(a, axis=0), x, backends=("cpu",))
    check_grad(lambda a: np.unique(a, axis=1), x.T, backends=("cpu",))


def test_unique_axis_out_of_range_raises_numpy_axis_error():
    with pytest.raises(np.exceptions.AxisError) as want:
        np.unique(A, axis=3)
    with pytest.raises(np.exceptions.AxisError) as got:
        gradjit.jit(lambda a: np.unique(a, axis=3))(A)
    assert message(got.value) == str(want.value)
