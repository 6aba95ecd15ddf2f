"""torch.linalg's LU family (lu_factor, lu_factor_ex, lu, lu_solve), torch.lu_unpack and the
older torch.lu / torch.lu_solve against PyTorch 2.13: LAPACK's pivots, factors, return types,
reprs, errors and gradients, eagerly and under gradjit.grad, jit and vmap."""
import warnings

import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error, weighted_gradients

rng = np.random.default_rng(3)
SHAPES = [(4, 4), (2, 3, 3), (3, 5), (5, 3), (2, 1, 4, 2), (0, 0), (2, 0, 3)]


def _both(fn, *arrays):
    return [fn(t, *[t.tensor(a) for a in arrays]) for t in (gradjit, torch)]


@pytest.mark.parametrize("shape", SHAPES)
def test_lu_factor_has_lapacks_pivots_and_factors(shape):
    a = rng.standard_normal(shape)
    ours, theirs = _both(lambda t, x: t.linalg.lu_factor(x), a)
    assert type(ours).__name__ == type(theirs).__name__ == "linalg_lu_factor"
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    assert str(ours.pivots.dtype) == str(theirs.pivots.dtype) == "torch.int32"
    np.testing.assert_allclose(ours.LU.numpy(), theirs.LU.numpy(), rtol=1e-12, atol=1e-14)
    ours, theirs = _both(lambda t, x: t.linalg.lu(x), a)
    assert type(ours).__name__ == "linalg_lu"
    for mine, want in zip(ours, theirs):
        np.testing.assert_allclose(mine.numpy(), want.numpy(), rtol=1e-12, atol=1e-14)


def test_singular_matrices_get_infos_and_errors_as_torch():
    a = np.array([[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], [[1.0, 2.0, 0.0],
                  [2.0, 4.0, 0.0], [0.0, 0.0, 0.0]]])
    ours, theirs = _both(lambda t, x: t.linalg.lu_factor_ex(x), a)
    assert type(ours).__name__ == "linalg_lu_factor_ex"
    assert ours.info.tolist() == theirs.info.tolist() and ours.pivots.tolist() == \
        theirs.pivots.tolist()
    np.testing.assert_allclose(ours.LU.numpy(), theirs.LU.numpy(), atol=1e-15)
    for x in (a, a[1], np.concatenate([np.eye(3)[None], a])):
        same_error(lambda: gradjit.linalg.lu_factor(gradjit.tensor(x)),
                   lambda: torch.linalg.lu_factor(torch.tensor(x)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = gradjit.lu(gradjit.tensor(a), get_infos=True), torch.lu(
            torch.tensor(a), get_infos=True)
        assert type(ours).__name__ == type(theirs).__name__ == "_lu_with_info"
        assert ours.info.tolist() == theirs.info.tolist()
        assert type(gradjit.lu(gradjit.tensor(a))) is type(torch.lu(torch.tensor(a))) is tuple


@pytest.mark.parametrize("call", [
    lambda t: t.linalg.lu_factor(t.ones(3)),
    lambda t: t.linalg.lu_factor(t.ones(3, 3, dtype=t.int64)),
    lambda t: t.linalg.lu_factor(t.eye(2), pivot=False),
    lambda t: t.linalg.lu(t.eye(2), pivot=False),
    lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.eye(3)), t.ones(2, 2)),
    lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.eye(3)), t.ones(2, 2), left=False),
    lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.eye(3)), t.ones(3)),
    lambda t: t.linalg.lu_solve(t.ones(3, 4), t.linalg.lu_factor(t.eye(3))[1], t.ones(3, 2)),
    lambda t: t.linalg.lu_solve(t.eye(3), t.tensor([1, 2, 3]), t.ones(3, 2)),
    lambda t: t.linalg.lu_solve(t.eye(3), t.tensor([1, 2], dtype=t.int32), t.ones(3, 2)),
    lambda t: t.linalg.lu_solve(t.eye(3, dtype=t.float64), t.tensor([1, 2, 3], dtype=t.int32),
                                t.ones(3, 2)),
    lambda t: t.lu_unpack(t.eye(3), t.tensor([1, 2, 3])),
], ids=["1d", "long", "no-pivot", "lu-no-pivot", "shapes", "shapes-right", "b-1d",
        "not-square", "pivots-long", "pivots-count", "dtypes", "unpack-long"])
def test_errors_as_torch(call):
    same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_values_and_gradients(left, adjoint):
    a = rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    b = rng.standard_normal((3, 1, 4, 2) if left else (2, 4))

    def fn(t, x, y):
        return t.linalg.lu_solve(*t.linalg.lu_factor(x), y, left=left, adjoint=adjoint)
    ours, g_ours = weighted_gradients(gradjit, fn, [a, b], np.float64)
    theirs, g_theirs = weighted_gradients(torch, fn, [a, b], np.float64)
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "LinalgLuSolveBackward0"
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10)
    for mine, want in zip(g_ours, g_theirs):
        np.testing.assert_allclose(mine.numpy(), want.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("shape", [(2, 4, 4), (3, 5), (5, 3)])
@pytest.mark.parametrize("kind", ["lu_factor", "lu", "lu_unpack"])
def test_factorization_gradients_as_torch(shape, kind):
    a = rng.standard_normal(shape)
    calls = {"lu_factor": lambda t, x: t.linalg.lu_factor(x).LU,
             "lu": lambda t, x: t.linalg.lu(x).L * 2 + t.linalg.lu(x).U.sum(-2, keepdim=True)
             .mT,
             "lu_unpack": lambda t, x: t.lu_unpack(*t.linalg.lu_factor(x))[2]}
    fn = calls[kind]
    if kind == "lu":  # L and U meet in one result
        m, n = shape[-2:]
        if m != n:
            fn = (lambda t, x: t.linalg.lu(x).L.sum() + (t.linalg.lu(x).U ** 2).sum())
    ours, g_ours = weighted_gradients(gradjit, fn, [a], np.float64)
    theirs, g_theirs = weighted_gradients(torch, fn, [a], np.float64)
    np.testing.assert_allclose(g_ours[0].numpy(), g_theirs[0].numpy(), rtol=1e-9, atol=1e-12)


def test_grad_fn_names_and_reprs_as_torch():
    a = rng.standard_normal((3, 3))
    for t_out, g_out in zip(*[(t.linalg.lu_factor(x), t.linalg.lu(x),
                               t.lu_unpack(*t.linalg.lu_factor(x)))
                              for t, x in ((torch, torch.tensor(a, requires_grad=True)),
                                           (gradjit, gradjit.tensor(a, requires_grad=True)))]):
        assert [type(v.grad_fn).__name__ for v in t_out] == \
            [type(v.grad_fn).__name__ for v in g_out]
    ours, theirs = _both(lambda t, x: t.linalg.lu_factor(x), np.eye(2))
    assert repr(ours) == repr(theirs)


def test_lu_unpack_options_and_older_names():
    a = rng.standard_normal((2, 5, 3))
    b = rng.standard_normal((2, 3, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for data, pivots in [(True, True), (False, True), (True, False), (False, False)]:
            ours, theirs = _both(lambda t, x: t.lu_unpack(*t.linalg.lu_factor(x), data, pivots),
                                 a)
            assert type(ours).__name__ == "lu_unpack"
            for mine, want in zip(ours, theirs):
                assert tuple(mine.shape) == tuple(want.shape)
                np.testing.assert_allclose(mine.numpy(), want.numpy(), atol=1e-14)
        square = a[:, :3] + 3 * np.eye(3)
        ours, theirs = _both(lambda t, x, y: t.lu_solve(y, *t.lu(x)), square, b)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
        ours, theirs = _both(lambda t, x, y: y.lu_solve(*x.lu()), square, b)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_float32_pivots_and_values():
    a = rng.standard_normal((3, 6, 6)).astype(np.float32)
    ours, theirs = _both(lambda t, x: t.linalg.lu_factor(x), a)
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    assert ours.LU.dtype == gradjit.float32
    np.testing.assert_allclose(ours.LU.numpy(), theirs.LU.numpy(), rtol=1e-4, atol=1e-5)


def test_under_grad_jit_and_vmap():
    """The factorization is a library primitive: traced, batched and differentiated."""
    a = rng.standard_normal((3, 4, 4)) + 3 * np.eye(4)
    b = rng.standard_normal((4, 2))

    def solve(x, y):
        lu, pivots = gradjit.linalg.lu_factor(x)
        return gradjit.linalg.lu_solve(lu, pivots, y)
    want = np.linalg.solve(a, b)
    np.testing.assert_allclose(gradjit.jit(solve)(gradjit.tensor(a), gradjit.tensor(b)),
                               want, rtol=1e-10)
    np.testing.assert_allclose(gradjit.func.vmap(solve, in_dims=(0, None))(
        gradjit.tensor(a), gradjit.tensor(b)), want, rtol=1e-10)
    grad = gradjit.grad(lambda x: solve(x, gradjit.tensor(b)).sum())(gradjit.tensor(a[0]))
    t_a = torch.tensor(a[0], requires_grad=True)
    torch.linalg.solve(t_a, torch.tensor(b)).sum().backward()
    np.testing.assert_allclose(np.asarray(grad), t_a.grad.numpy(), rtol=1e-9)


@pytest.mark.parametrize("k", [3, 2, 1])
def test_householder_product_values_and_gradients(k):
    reflectors, tau = torch.geqrf(torch.tensor(rng.standard_normal((2, 5, 3))))
    arrays = [reflectors.numpy(), tau[..., :k].numpy()]

    def fn(t, a, taus):
        return t.linalg.householder_product(a, taus) + t.orgqr(a, taus) ** 2
    ours, g_ours = weighted_gradients(gradjit, fn, arrays, np.float64)
    theirs, g_theirs = weighted_gradients(torch, fn, arrays, np.float64)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-13)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    for mine, want in zip(g_ours, g_theirs):
        np.testing.assert_allclose(mine.numpy(), want.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("shapes", [((3,), (1,)), ((2, 3), (1,)), ((3, 2), (3,))])
def test_householder_product_errors_as_torch(shapes):
    same_error(lambda: gradjit.linalg.householder_product(*map(gradjit.ones, shapes)),
               lambda: torch.linalg.householder_product(*map(torch.ones, shapes)))
