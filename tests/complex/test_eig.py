"""eig and eigvals of general matrices: numpy's and PyTorch's values and dtypes, gradients of
the eigenvalues against jax and torch, and of phase-independent functions of the eigenvectors
against jax, torch and central differences."""
import numpy as np
import pytest
import torch as T

import gradjit
import gradjit as torch
import gradjit.numpy as gnp
from gradjit.ir import PRIMITIVES
from gradjit.ir.primitive import evaluate

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(2)
A = rng.standard_normal((4, 4))
C = A + 1j * rng.standard_normal((4, 4))
SYMMETRIC = A + A.T
WEIGHTS = np.arange(16.0).reshape(4, 4)


@pytest.mark.parametrize("backend", ["cpu", "interpreter"])
@pytest.mark.parametrize("matrix", [A, C, SYMMETRIC, A.astype(np.float32),
                                    rng.standard_normal((2, 3, 3))], ids=str)
def test_values_and_dtypes_as_numpy(matrix, backend):
    """A real matrix with real eigenvalues gives real results, as numpy decides on the data."""
    w, v = gradjit.jit(np.linalg.eig, backend=backend)(matrix)
    want_w, want_v = np.linalg.eig(matrix)
    assert (w.dtype, v.dtype) == (want_w.dtype, want_v.dtype)
    tol = 1e-5 if matrix.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(w, want_w, rtol=tol, atol=tol)
    np.testing.assert_allclose(v, want_v, rtol=tol, atol=tol)
    values = gradjit.jit(np.linalg.eigvals, backend=backend)(matrix)
    assert values.dtype == np.linalg.eigvals(matrix).dtype


def _jax_eig(a):
    return jax.lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)


LOSSES = {
    "eigvals": (lambda a: gnp.sum(gnp.abs(gnp.linalg.eigvals(a)) ** 2),
                lambda a: jnp.sum(jnp.abs(jnp.linalg.eigvals(a)) ** 2)),
    "eigvals_real": (lambda a: gnp.real(gnp.sum(gnp.linalg.eig(a)[0] ** 3)),
                     lambda a: jnp.real(jnp.sum(jnp.linalg.eigvals(a) ** 3))),
    "eigvectors": (lambda a: gnp.sum(gnp.abs(gnp.linalg.eig(a)[1]) ** 4 * WEIGHTS),
                   lambda a: jnp.sum(jnp.abs(_jax_eig(a)[1]) ** 4 * WEIGHTS)),
}


@pytest.mark.parametrize("matrix", [A, C], ids=["real", "complex"])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradients_match_jax(name, matrix):
    ours, theirs = LOSSES[name]
    got = gradjit.grad(ours)(matrix)
    want = jax.grad(theirs)(matrix)
    assert got.dtype == matrix.dtype
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("matrix", [A, C], ids=["real", "complex"])
def test_vjp_matches_central_differences_for_phase_independent_losses(matrix):
    """The cotangent of |v|^2 and of Re(c w) (JAX's convention: df/dx - i df/dy)."""
    eig = PRIMITIVES["eig"]
    y = evaluate(eig, [matrix], {})
    cw = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    v = y[4:].reshape(4, 4)
    (ga,) = eig.vjp(np.concatenate([cw, (2 * np.conj(v) * WEIGHTS).ravel()]), y, matrix)

    def loss(a):
        w, v = np.linalg.eig(a)
        return np.real(np.sum(w * cw)) + np.sum(WEIGHTS * np.abs(v) ** 2)
    eps = 1e-6
    for idx in [(0, 0), (1, 3), (3, 2)]:
        for step, part in [(1, np.real(ga[idx])), (1j, -np.imag(ga[idx]))]:
            if step == 1j and matrix.dtype.kind == "f":
                continue
            plus, minus = matrix.astype(complex if step == 1j else matrix.dtype), matrix.copy()
            minus = minus.astype(plus.dtype)
            plus[idx] += eps * step
            minus[idx] -= eps * step
            np.testing.assert_allclose(part, (loss(plus) - loss(minus)) / (2 * eps),
                                       rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("matrix", [A, C, rng.standard_normal((2, 3, 3))], ids=str)
def test_torch_linalg_eig_as_torch(matrix):
    results = []
    for t in (torch, T):
        a = t.tensor(matrix, requires_grad=True)
        w, v = t.linalg.eig(a)
        weights = t.tensor(np.arange(v.shape[-1] ** 2, dtype=float).reshape(v.shape[-2:]))
        loss = (w.abs() ** 2).sum() + (v.abs() ** 4 * weights).sum() + \
            t.linalg.eigvals(a).real.sum()
        loss.backward()
        results.append((w.detach().numpy(), v.detach().numpy(), a.grad.numpy(),
                        w.grad_fn.name(), t.linalg.eigvals(a).grad_fn.name(), str(w.dtype)))
    for got, want in zip(*results):
        if isinstance(got, str):
            assert got == want
        else:
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)
    assert repr(torch.linalg.eig(torch.tensor(A))) == repr(T.linalg.eig(T.tensor(A)))


def test_eig_refuses_non_square_and_integer_operands():
    from gradjit.ir import ShapeError
    with pytest.raises(ShapeError, match="square float or complex matrices"):
        PRIMITIVES["eig"](np.ones((2, 3)))
    with pytest.raises(ShapeError, match="square float or complex matrices"):
        PRIMITIVES["eig"](np.ones((3, 3), np.int64))
