"""torch.linalg's LDL family (ldl_factor, ldl_factor_ex, ldl_solve) against PyTorch 2.13 for real
symmetric matrices: LAPACK's Bunch-Kaufman pivots and factors, solutions, infos, errors and the
refused derivative."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

SHAPES = [(1, 1), (2, 2), (5, 5), (3, 8, 8), (2, 1, 6, 6), (0, 0)]


def _symmetric_and_not(shape, seed):
    """A symmetric matrix, and a general one (only its lower triangle is read)."""
    a = np.random.default_rng(seed).standard_normal(shape)
    return (a + np.swapaxes(a, -1, -2)) / 2 if seed % 2 else a


def _both(fn, *arrays):
    return [fn(t, *[t.tensor(a) for a in arrays]) for t in (gradjit, torch)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", range(4))
def test_factor_has_lapacks_pivots_and_factors(shape, seed):
    a = _symmetric_and_not(shape, seed)
    ours, theirs = _both(lambda t, x: t.linalg.ldl_factor_ex(x), a)
    assert type(ours).__name__ == type(theirs).__name__ == "linalg_ldl_factor_ex"
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    assert ours.info.tolist() == theirs.info.tolist()
    assert str(ours.pivots.dtype) == str(theirs.pivots.dtype) == "torch.int32"
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), rtol=1e-12, atol=1e-13)
    ours, theirs = _both(lambda t, x: t.linalg.ldl_factor(x, hermitian=True), a)
    assert type(ours).__name__ == "linalg_ldl_factor"
    assert ours.pivots.tolist() == theirs.pivots.tolist()


def test_two_by_two_blocks_and_float32():
    # a zero diagonal forces 2x2 pivots (negative entries in pivots)
    a = np.array([[0.0, 1.0, 2.0, 0.5], [1.0, 0.0, 3.0, 1.0], [2.0, 3.0, 0.0, 4.0],
                  [0.5, 1.0, 4.0, 0.0]], np.float32)
    ours, theirs = _both(lambda t, x: t.linalg.ldl_factor(x), a)
    assert (theirs.pivots < 0).any()
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    assert ours.LD.dtype == gradjit.float32
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), rtol=1e-5, atol=1e-6)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("shapes", [((5, 5), (5, 3)), ((3, 4, 4), (4, 2)),
                                    ((4, 4), (2, 4, 1)), ((2, 2), (2, 0))])
@pytest.mark.parametrize("seed", range(3))
def test_solve_solves_as_torch(shapes, seed):
    a = _symmetric_and_not(shapes[0], seed)
    b = np.random.default_rng(seed + 10).standard_normal(shapes[1])

    def solve(t, x, rhs):
        LD, pivots = t.linalg.ldl_factor(x)
        return t.linalg.ldl_solve(LD, pivots, rhs)
    ours, theirs = _both(solve, a, b)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)
    full = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)
    np.testing.assert_allclose(full @ ours.numpy(), np.broadcast_to(b, ours.shape),
                               atol=1e-9)


def test_singular_matrices_get_infos_and_an_error():
    a = np.array([[[0.0, 0.0], [0.0, 1.0]], [[2.0, 1.0], [1.0, 3.0]]])
    ours, theirs = _both(lambda t, x: t.linalg.ldl_factor_ex(x), a)
    assert ours.info.tolist() == theirs.info.tolist() == [1, 0]
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    with pytest.raises(RuntimeError, match="Unknown error code: 1"):
        torch.linalg.ldl_factor(torch.tensor(a))
    with pytest.raises(RuntimeError, match="Unknown error code: 1"):
        gradjit.linalg.ldl_factor(gradjit.tensor(a))


@pytest.mark.parametrize("a", [np.zeros((3, 4)), np.zeros(3), np.zeros((3, 3), np.int64)])
def test_malformed_inputs_raise_as_torch(a):
    same_error(lambda: gradjit.linalg.ldl_factor(gradjit.tensor(a)),
               lambda: torch.linalg.ldl_factor(torch.tensor(a)))


def test_no_derivative_as_in_torch():
    a = _symmetric_and_not((3, 3), 1)
    results = []
    for t in (gradjit, torch):
        x = t.tensor(a, requires_grad=True)
        LD, pivots = t.linalg.ldl_factor(x)
        b = t.ones(3, 2, dtype=t.float64, requires_grad=True)
        solved = t.linalg.ldl_solve(LD.detach(), pivots, b)
        results.append((t, LD, solved))
    for (_, ours, _), (_, theirs, _) in [results]:
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__ == "NotImplemented"
    for i in (1, 2):
        same_error(lambda: results[0][i].sum().backward(),
                   lambda: results[1][i].sum().backward())
