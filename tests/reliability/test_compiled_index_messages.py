"""An index out of range in compiled code raises what eager PyTorch or numpy raises: the same
exception type and message, naming the user's index value, its dimension (axis) and that
size, not a position in a flattened array; in range, negative indices follow each library
(PyTorch's gather family refuses them, numpy's take_along_axis counts them from the end)."""
import numpy as np
import pytest

import gradjit
import gradjit as gt

torch = pytest.importorskip("torch")

BACKENDS = ["cpu", "interpreter"]
X = np.arange(12.0).reshape(3, 4)
ROWS = [[0, 1], [1, 2], [2, 0]]  # an index of shape (3, 2) in range along dim 1


def _with(rows, row, col, value):
    rows = [list(r) for r in rows]
    rows[row][col] = value
    return rows


# name -> (the call on a namespace `m` (torch or gradjit), index in range)
TORCH = {
    "gather": (lambda m, x, i: m.gather(x, 1, i), ROWS),
    "scatter": (lambda m, x, i: x.scatter(1, i, m.ones(3, 2, dtype=x.dtype)), ROWS),
    "scatter_add": (lambda m, x, i: x.scatter_add(1, i, m.ones(3, 2, dtype=x.dtype)), ROWS),
    "scatter_reduce": (lambda m, x, i: x.scatter_reduce(1, i, m.ones(3, 2, dtype=x.dtype),
                                                        "amax"), ROWS),
    "gather_dim0": (lambda m, x, i: m.gather(x, 0, i), [[0, 1], [2, 2]]),
    "index_add": (lambda m, x, i: x.index_add(1, i, m.ones(3, 2, dtype=x.dtype)), [0, 3]),
    "index_select_dim1": (lambda m, x, i: x.index_select(1, i), [0, 3]),
    "index_select_dim0": (lambda m, x, i: x.index_select(0, i), [0, 2]),
    "index_rows": (lambda m, x, i: x[i], [0, 2]),
    "index_columns": (lambda m, x, i: x[1:, i], [[0], [3]]),
    "index_after_new_axis": (lambda m, x, i: x[None, :, i], [0, 3]),
    "index_both": (lambda m, x, i: x[i[0], i[1]], [[0, 1], [2, 3]]),
}


def _bad(index, value):
    """`index` with its last element replaced by `value`."""
    return _with(index, -1, -1, value) if isinstance(index[0], list) else index[:-1] + [value]


def _raised(call):
    with pytest.raises(Exception) as info:
        call()
    return type(info.value), str(info.value).split("\n  at ")[0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("value", [7, 4, -1, -9])
@pytest.mark.parametrize("name", sorted(TORCH))
def test_torch_ops_raise_torchs_error_naming_the_index(name, value, backend):
    op, index = TORCH[name]
    if name.startswith("index_") and value == -1:
        value = -5  # an index tensor counts -1 from the end, as numpy does
    bad = _bad(index, value)
    expected = _raised(lambda: op(torch, torch.tensor(X), torch.tensor(bad)))
    compiled = gt.compile(lambda x, i: op(gt, x, i), backend=backend)
    good = compiled(gt.tensor(X), gt.tensor(index))  # traced on an index in range
    np.testing.assert_array_equal(good.numpy(), op(torch, torch.tensor(X),
                                                   torch.tensor(index)).numpy())
    assert _raised(lambda: compiled(gt.tensor(X), gt.tensor(bad))) == expected


NUMPY = {
    "take_along_axis_1": (lambda x, i: np.take_along_axis(x, i, 1), ROWS),
    "take_along_axis_0": (lambda x, i: np.take_along_axis(x, i, 0), [[0, 2, 1, 0]]),
    "put_along_axis": (lambda x, i: _put_along_axis(x, i), ROWS),
    "index_rows": (lambda x, i: x[i], [0, 2]),
    "index_columns": (lambda x, i: x[1:, i], [[0], [3]]),
    "index_after_new_axis": (lambda x, i: x[None, ..., i], [0, 3]),
    "take_axis_1": (lambda x, i: np.take(x, i, axis=1), [0, 3]),
    "take_flat": (lambda x, i: np.take(x[:1], i), [0, 3]),  # 4 elements
}


def _put_along_axis(x, i):
    x = x.copy()
    np.put_along_axis(x, i, -1.0, 1)
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("value", [4, 5, -5, -100])
@pytest.mark.parametrize("name", sorted(NUMPY))
def test_numpy_ops_raise_numpys_error_naming_the_index(name, value, backend):
    op, index = NUMPY[name]
    bad = np.array(_bad(index, value))  # out of range for axis 0 (size 3) and 1 (size 4)
    expected = _raised(lambda: op(X, bad))
    compiled = gradjit.jit(op, backend=backend)
    np.testing.assert_array_equal(compiled(X, np.array(index)), op(X, np.array(index)))
    assert _raised(lambda: compiled(X, bad)) == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_numpy_counts_a_negative_index_from_the_end_where_torch_refuses_it(backend):
    index = np.array(_with(ROWS, 0, 0, -4))
    along = gradjit.jit(lambda x, i: np.take_along_axis(x, i, 1), backend=backend)
    np.testing.assert_array_equal(along(X, index), np.take_along_axis(X, index, 1))
    gathered = gt.compile(lambda x, i: gt.gather(x, 1, i), backend=backend)
    gathered(gt.tensor(X), gt.tensor(ROWS))
    with pytest.raises(RuntimeError, match="^index -4 is out of bounds for dimension 1 with "
                                           "size 4$"):
        gathered(gt.tensor(X), gt.tensor(index))
