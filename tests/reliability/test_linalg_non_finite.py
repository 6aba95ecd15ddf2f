"""torch.linalg on matrices holding NaN or infinity, checked against PyTorch: the SVD family
raised numpy's LinAlgError ("SVD did not converge"), eig numpy's, and cholesky of a NaN matrix
returned NaNs where PyTorch's potrf reports the leading minor it stopped at. PyTorch's eigvals
checks nothing and crashes in LAPACK on some NaN matrices: gradjit's refuses them as eig does."""
import math

import pytest

import gradjit

torch = pytest.importorskip("torch")

NAN, INF = math.nan, math.inf
NAN_FIRST = [[NAN, 0.0], [0.0, 1.0]]
NAN_LAST = [[1.0, 0.0], [0.0, NAN]]
NAN_OFF = [[1.0, NAN], [NAN, 1.0]]
BATCH = [[[1.0, 0.0], [0.0, 1.0]], [[NAN, 0.0], [0.0, 1.0]]]

CALLS = {
    "svd": lambda t, m: t.linalg.svd(m),
    "svdvals": lambda t, m: t.linalg.svdvals(m),
    "pinv": lambda t, m: t.linalg.pinv(m),
    "matrix_rank": lambda t, m: t.linalg.matrix_rank(m),
    "matrix_norm(2)": lambda t, m: t.linalg.matrix_norm(m, 2),
    "cond": lambda t, m: t.linalg.cond(m),
    "eig": lambda t, m: t.linalg.eig(m),
    "cholesky": lambda t, m: t.linalg.cholesky(m),
    "torch.cholesky": lambda t, m: t.cholesky(m),
}


@pytest.mark.parametrize("matrix", [NAN_FIRST, NAN_LAST, NAN_OFF, BATCH],
                         ids=["nan-first", "nan-last", "nan-off-diagonal", "batch"])
@pytest.mark.parametrize("name", CALLS)
def test_nan_matrices_raise_pytorchs_error(name, matrix):
    call = CALLS[name]
    with pytest.raises(RuntimeError) as theirs:
        call(torch, torch.tensor(matrix))
    with pytest.raises(RuntimeError) as mine:
        call(gradjit, gradjit.tensor(matrix))
    assert type(mine.value).__name__ == type(theirs.value).__name__
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("matrix", [NAN_FIRST, NAN_LAST, NAN_OFF, [[1.0, 0.0], [INF, 1.0]],
                                    [[4.0, 2.0], [2.0, 3.0]]])
def test_cholesky_ex_reports_pytorchs_info(matrix):
    mine = gradjit.linalg.cholesky_ex(gradjit.tensor(matrix)).info
    assert mine.item() == torch.linalg.cholesky_ex(torch.tensor(matrix)).info.item()


@pytest.mark.parametrize("matrix", [NAN_FIRST, NAN_OFF, [[1.0, INF], [0.0, 1.0]]])
def test_eigvals_refuses_non_finite_matrices_as_eig_does(matrix):
    with pytest.raises(RuntimeError, match="should not contain infs or NaNs"):
        gradjit.linalg.eigvals(gradjit.tensor(matrix))
