"""Indices known only at run time, past an axis' end or below its start, checked in compiled
code as numpy and PyTorch check them eagerly; in range, negative ones count from the end."""
import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")


def _add_at(a, rows, cols):
    np.add.at(a, (rows, cols), 1.0)
    return a


@pytest.mark.parametrize("rows, cols", [([0, 2], [1, 4]), ([0, -4], [1, 0]), ([3], [0]),
                                        ([0], [-4])])
def test_add_at_refuses_an_index_past_its_own_axis(rows, cols):
    """Column 4 of a 3x3 array landed in the next row, and row -4 wrapped twice: wrong sums."""
    rows, cols = np.array(rows), np.array(cols)
    with pytest.raises(IndexError):
        _add_at(np.zeros((3, 3)), rows, cols)
    with pytest.raises(IndexError):
        gradjit.jit(_add_at)(np.zeros((3, 3)), rows, cols)


def test_add_at_counts_negative_indices_from_the_end():
    rows, cols = np.array([0, -1, -3, 2]), np.array([-1, -3, 0, 1])
    compiled = gradjit.jit(_add_at)
    for _ in range(2):  # traced, then cached
        assert np.array_equal(compiled(np.zeros((3, 3)), rows, cols),
                              _add_at(np.zeros((3, 3)), rows, cols))


@pytest.mark.parametrize("index", [[-4], [3, 0]])
def test_subtract_at_of_one_index_array_refuses_it_out_of_range(index):
    def subtract_at(a, i):
        np.subtract.at(a, i, 1.0)
        return a
    with pytest.raises(IndexError):
        subtract_at(np.zeros((3, 2)), np.array(index))
    with pytest.raises(IndexError):
        gradjit.jit(subtract_at)(np.zeros((3, 2)), np.array(index))


def _compiled_on_good_indices(fn, x, good):
    compiled = gradjit.compile(lambda x, i: fn(gradjit, x, i))
    compiled(gradjit.tensor(x), gradjit.tensor(good))  # traced with indices in range
    return compiled


X = np.arange(6.0, dtype=np.float32).reshape(2, 3)
TAKE = lambda t, x, i: x.take(i)  # noqa: E731
EMBED = lambda t, w, i: t.nn.functional.embedding(i, w)  # noqa: E731


@pytest.mark.parametrize("fn, index", [(TAKE, [0, -7]), (TAKE, [6]), (EMBED, [0, -1]),
                                       (EMBED, [2])])
def test_take_and_embedding_refuse_indices_out_of_range_under_compile(fn, index):
    """take(-7) of 6 elements read element 5, and embedding of row -1 read the last row, where
    PyTorch raises."""
    with pytest.raises(IndexError):
        fn(torch, torch.tensor(X), torch.tensor(index))
    compiled = _compiled_on_good_indices(fn, X, [0, 1])
    with pytest.raises(IndexError):
        compiled(gradjit.tensor(X), gradjit.tensor(index))


@pytest.mark.parametrize("fn, index", [(TAKE, [-6, 5, -1]), (EMBED, [1, 0, 1])])
def test_take_and_embedding_in_range_under_compile(fn, index):
    compiled = _compiled_on_good_indices(fn, X, [0, 1, 0])
    got = compiled(gradjit.tensor(X), gradjit.tensor(index))
    assert np.array_equal(got.numpy(), fn(torch, torch.tensor(X), torch.tensor(index)).numpy())
