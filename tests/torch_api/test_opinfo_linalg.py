"""torch.linalg against PyTorch 2.13 on the cases its operator database (op_db) samples: empty
batches, batched and scalar inputs, option spellings; values, gradients and errors."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

RNG = np.random.default_rng(0)


def run(t, fn, arrays, grad=True):
    """fn(t, *tensors)'s tensors (flattened) and the gradients of a weighted sum of them."""
    xs = [t.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    out = fn(t, *xs)
    outs = [o for o in (out if isinstance(out, (tuple, list)) else [out])]
    total = sum((o * t.tensor(np.linspace(0.5, 1.5, o.numel()).reshape(tuple(o.shape)),
                              dtype=o.dtype)).sum()
                for o in outs if o.requires_grad)
    if not grad or isinstance(total, int):
        return outs, []
    grads = t.autograd.grad(total, xs, allow_unused=True)
    return outs, [t.zeros_like(x) if g is None else g for x, g in zip(xs, grads)]


def check(fn, *arrays, grad=True, rtol=1e-10):
    (t_outs, t_grads), (g_outs, g_grads) = (run(t, fn, arrays, grad) for t in (torch, gradjit))
    assert len(g_outs) == len(t_outs) and len(g_grads) == len(t_grads)
    for g, t in zip(g_outs + list(g_grads), t_outs + list(t_grads)):
        assert str(g.dtype) == str(t.dtype) and tuple(g.shape) == tuple(t.shape)
        np.testing.assert_allclose(g.detach().numpy(), t.detach().numpy(), rtol=rtol,
                                   atol=rtol)


@pytest.mark.parametrize("name", ["inv_ex", "cholesky_ex"])
@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0)])
def test_ex_forms_of_empty_matrices(name, shape):
    check(lambda t, a: getattr(t.linalg, name)(a), np.zeros(shape))


def test_solve_ex_of_empty_matrices():
    check(lambda t, a, b: t.linalg.solve_ex(a, b), np.zeros((2, 0, 0)), np.zeros((2, 0, 3)))


@pytest.mark.parametrize("shape,n", [((), 3), ((4,), None), ((2, 3), 4), ((2, 0), 3)])
def test_vander_of_batches_and_scalars(shape, n):
    check(lambda t, x: t.linalg.vander(x, N=n), RNG.standard_normal(shape))


def test_vander_of_integers_is_int64():
    check(lambda t, x: t.linalg.vander(x, N=3), np.array([2, 3], np.int32))


def test_vander_refuses_booleans_and_short_rows():
    same_error(lambda: gradjit.linalg.vander(gradjit.tensor([True]), N=3),
               lambda: torch.linalg.vander(torch.tensor([True]), N=3))
    same_error(lambda: gradjit.linalg.vander(gradjit.tensor(2.0)),
               lambda: torch.linalg.vander(torch.tensor(2.0)))


@pytest.mark.parametrize("shape", [(0, 0), (2, 0), (1, 1, 0), (3, 0, 2)])
def test_matrix_rank_of_empty_matrices(shape):
    check(lambda t, a: t.linalg.matrix_rank(a), np.zeros(shape))
    if shape[-1] == shape[-2]:
        check(lambda t, a: t.linalg.matrix_rank(a, hermitian=True), np.zeros(shape))


@pytest.mark.parametrize("shapes,kwargs", [
    (((5, 5, 3), (5, 3)), {}), (((5, 2), (5, 2)), {"dim": 2}), (((5, 3), (5, 3)), {"dim": -3}),
    (((3,), (2, 3)), {})])
def test_cross_refuses_as_torch(shapes, kwargs):
    same_error(lambda: gradjit.linalg.cross(*map(gradjit.ones, shapes), **kwargs),
               lambda: torch.linalg.cross(*map(torch.ones, shapes), **kwargs))


@pytest.mark.parametrize("kwargs", [{"dim1": 1, "dim2": 1}, {"dim1": 10000}, {"dim2": 10000},
                                    {"dim1": -1, "dim2": 1}])
def test_diagonal_refuses_as_torch(kwargs):
    same_error(lambda: gradjit.linalg.diagonal(gradjit.ones(10, 20), **kwargs),
               lambda: torch.linalg.diagonal(torch.ones(10, 20), **kwargs))


@pytest.mark.parametrize("kwargs", [{}, {"offset": 1, "dim1": 2, "dim2": 0}])
def test_diagonal_as_torch(kwargs):
    check(lambda t, a: t.linalg.diagonal(a, **kwargs), RNG.standard_normal((2, 3, 4)))


@pytest.mark.parametrize("shapes", [((0, 0), (0,)), ((3, 2), (0,)), ((2, 4, 3), (2, 2))])
def test_householder_product_with_no_or_some_reflections(shapes):
    check(lambda t, a, tau: t.linalg.householder_product(a, tau),
          *(RNG.standard_normal(s) for s in shapes))


@pytest.mark.parametrize("m,n", [(3, 3), (5, 3), (3, 5)])
def test_pinv_gradient_of_rank_deficient_matrices(m, n):
    """a b^T of rank 2 with orthonormal factors (op_db's samples): its singular values 1, 1, 0
    leave no gap to divide by, as the SVD's gradient would; the closed form's holds."""
    a, b = (np.linalg.qr(RNG.standard_normal((2, k, 2)))[0] for k in (m, n))
    check(lambda t, a, b: t.linalg.pinv(a @ b.mT), a, b, rtol=1e-8)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pinv_hermitian_reads_the_lower_triangle_and_differentiates_the_input(dtype):
    tolerance = 1e-8 if dtype == np.float64 else 2e-3
    check(lambda t, a: t.linalg.pinv(a, hermitian=True),
          RNG.standard_normal((2, 4, 4)).astype(dtype), rtol=tolerance)


def test_pinv_hermitian_refuses_as_torch_eigh():
    same_error(lambda: gradjit.linalg.pinv(gradjit.ones(2, 3), hermitian=True),
               lambda: torch.linalg.pinv(torch.ones(2, 3), hermitian=True))


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd"])
@pytest.mark.parametrize("m", [2, 3, 4])
def test_lstsq_gradient_of_nearly_orthogonal_float32_matrices(driver, m):
    """Singular values within 1e-3 of each other (op_db's samples): the SVD's gradient loses
    float32's digits dividing by their gaps; the closed form's keeps them."""
    u, _, vh = np.linalg.svd(RNG.standard_normal((m, 3)), full_matrices=False)
    a = u @ vh + 1e-3 * RNG.standard_normal((m, 3))
    check(lambda t, a, b: t.linalg.lstsq(a, b, driver=driver).solution, a.astype(np.float32),
          RNG.standard_normal((m, 3)).astype(np.float32), rtol=1e-4)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_cholesky_solve_gradient_treats_every_entry_of_the_factor_as_free(upper, batch):
    """op_db passes a whole positive definite matrix as the factor: the value reads its
    triangle, and torch's gradient -(A^-1 G X^H + X G^H A^-1) L uses all of it."""
    m = RNG.standard_normal(batch + (4, 4))
    factor = m @ np.swapaxes(m, -1, -2) + 4 * np.eye(4)
    check(lambda t, b, f: t.cholesky_solve(b, f, upper=upper),
          RNG.standard_normal(batch + (4, 3)), factor, rtol=1e-9)


def test_cholesky_solve_of_a_triangular_factor_gives_the_triangles_gradient_plus_the_rest():
    """A true Cholesky factor: values as torch's, gradients too (nonzero above the diagonal,
    as torch's formula gives)."""
    a = RNG.standard_normal((3, 3))
    factor = np.linalg.cholesky(a @ a.T + 3 * np.eye(3))
    check(lambda t, b, f: t.cholesky_solve(b, f), RNG.standard_normal((3, 2)), factor)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (0, 5), (2, 0, 3), (0, 2, 2)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_geqrf_is_lapacks_form(shape, dtype):
    a = RNG.standard_normal(shape) + (1j * RNG.standard_normal(shape) if "complex" in dtype
                                      else 0)
    (t_a, t_tau), (g_a, g_tau) = (lib.geqrf(lib.tensor(a.astype(dtype)))
                                  for lib in (torch, gradjit))
    for g, t in ((g_a, t_a), (g_tau, t_tau)):
        assert str(g.dtype) == str(t.dtype) and tuple(g.shape) == tuple(t.shape)
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-5, atol=1e-5)
    assert repr(gradjit.geqrf(gradjit.eye(2))).startswith("torch.return_types.geqrf(\na=")


def test_geqrf_into_out_and_as_a_method():
    a = RNG.standard_normal((4, 3))
    outs = (gradjit.empty(0, dtype=gradjit.float64), gradjit.empty(0, dtype=gradjit.float64))
    result = gradjit.geqrf(gradjit.tensor(a), out=outs)
    assert result[0] is outs[0] and result[1] is outs[1]
    expected = torch.tensor(a).geqrf()
    np.testing.assert_allclose(gradjit.tensor(a).geqrf().a.numpy(), expected.a.numpy())
    np.testing.assert_allclose(outs[1].numpy(), expected.tau.numpy())
