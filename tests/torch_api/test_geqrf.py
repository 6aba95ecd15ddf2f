"""torch.geqrf against PyTorch 2.13: LAPACK's compact QR (a, tau) of real and complex, batched,
wide, tall and empty matrices, its use by householder_product and ormqr, and its refused
derivative."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

RNG = np.random.default_rng(0)


def _matrix(shape, dtype):
    values = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * RNG.standard_normal(shape)
    return values.astype(dtype)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 5), (2, 1, 4, 4), (0, 2), (3, 0)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64])
def test_geqrf_values_as_torch(shape, dtype):
    values = _matrix(shape, dtype)
    t_a, t_tau = torch.geqrf(torch.tensor(values))
    g_a, g_tau = gradjit.geqrf(gradjit.tensor(values))
    rtol = 1e-10 if np.dtype(dtype).itemsize in (8, 16) and dtype != np.complex64 else 1e-4
    for g, t in ((g_a, t_a), (g_tau, t_tau)):
        assert str(g.dtype) == str(t.dtype) and tuple(g.shape) == tuple(t.shape)
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=rtol, atol=rtol)


def test_geqrf_method_and_repr_as_torch():
    values = _matrix((3, 2), np.float64)
    assert repr(gradjit.tensor(values).geqrf()) == repr(torch.tensor(values).geqrf())


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_geqrf_feeds_householder_product_and_ormqr(dtype):
    values, other = _matrix((5, 3), dtype), _matrix((5, 2), dtype)
    for lib in (torch, gradjit):
        a, tau = lib.geqrf(lib.tensor(values))
        q = lib.linalg.householder_product(a, tau)
        applied = lib.ormqr(a, tau, lib.tensor(other), transpose=True)
        if lib is torch:
            t_q, t_applied = q.numpy(), applied.numpy()
    np.testing.assert_allclose(q.numpy(), t_q, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(applied.numpy(), t_applied, rtol=1e-10, atol=1e-12)
    r = np.triu(a.numpy()[:3])  # Q R rebuilds the matrix
    np.testing.assert_allclose(q.numpy() @ r, values, atol=1e-12)


def test_geqrf_backward_raises_torchs_error():
    values = _matrix((3, 3), np.float64)

    def backward(lib, field):
        x = lib.tensor(values, requires_grad=True)
        out = lib.geqrf(x)
        assert type(out.a.grad_fn).__name__ == "GeqrfBackward0" and out.a.grad_fn is \
            out.tau.grad_fn
        return lambda: getattr(out, field).sum().backward()
    for field in ("a", "tau"):
        same_error(backward(gradjit, field), backward(torch, field))


def test_geqrf_without_grad_has_no_grad_fn():
    x = gradjit.tensor(_matrix((3, 3), np.float64), requires_grad=True)
    with gradjit.no_grad():
        assert gradjit.geqrf(x).a.grad_fn is None


@pytest.mark.parametrize("make", [
    lambda t: t.ones(3),
    lambda t: t.ones(3, 3, dtype=t.int64),
    lambda t: t.ones(3, 3, dtype=t.float16),
    lambda t: t.ones(3, 3, dtype=t.bfloat16),
    lambda t: t.ones(3, 3, dtype=t.bool),
])
def test_geqrf_errors_as_torch(make):
    same_error(lambda: gradjit.geqrf(make(gradjit)), lambda: torch.geqrf(make(torch)))
