"""searchsorted's sorter and bincount's weights of the wrong size or out of range, refused
with numpy's and PyTorch's errors; they were read past the sorter's end or scattered with the
wrong number of weights."""
import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")

SEQUENCE = np.array([3.0, 1.0, 2.0])


@pytest.mark.parametrize("sorter", [[1, 2], [1, 2, 0, 0]])
def test_numpy_sorter_of_another_size(sorter):
    def search(a, s):
        return np.searchsorted(a, 2.0, sorter=s)
    with pytest.raises(ValueError) as numpy_error:
        search(SEQUENCE, np.array(sorter))
    with pytest.raises(ValueError) as traced_error:
        gradjit.jit(search)(SEQUENCE, np.array(sorter))
    assert str(numpy_error.value) in str(traced_error.value)


@pytest.mark.parametrize("weights", [[1.0, 2.0, 3.0], [1.0], [[1.0, 2.0]]])
def test_bincount_weights_of_another_shape(weights):
    def count(i, w):
        return np.bincount(i, w)
    with pytest.raises(ValueError) as numpy_error:
        count(np.array([0, 4]), np.array(weights))
    with pytest.raises(ValueError) as traced_error:
        gradjit.jit(count)(np.array([0, 4]), np.array(weights))
    assert str(numpy_error.value) in str(traced_error.value)


@pytest.mark.parametrize("sorter", [[1, 2, 5], [1, 2, -1]])
def test_torch_sorter_out_of_range(sorter):
    """A negative sorter index counted from the end: a search of a sequence PyTorch refuses."""
    def search(t):
        return t.searchsorted(t.tensor(SEQUENCE), t.tensor([2.0]), sorter=t.tensor(sorter))
    with pytest.raises(RuntimeError) as theirs:
        search(torch)
    with pytest.raises(RuntimeError) as mine:
        search(gradjit)
    assert str(mine.value) == str(theirs.value)


def test_torch_sorter_in_range_gives_torchs_positions():
    def search(t, side):
        return t.searchsorted(t.tensor(SEQUENCE), t.tensor([0.5, 2.0, 2.5, 9.0]),
                              sorter=t.tensor([1, 2, 0]), side=side)
    for side in ("left", "right"):
        assert search(gradjit, side).tolist() == search(torch, side).tolist()
