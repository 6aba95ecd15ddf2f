"""torch.lobpcg: the k largest (or smallest) eigenpairs of a symmetric positive definite A (or of
A x = e B x) by locally optimal block preconditioned conjugate gradients, iterated on the host,
as one autograd.Function whose backward is the derivative of a partial eigendecomposition."""
from __future__ import annotations

import numpy as np

from gradjit.autograd.function import Function
from gradjit.tensor.factories import eye, tensor
from gradjit.tensor.linalg import solve
from gradjit.tensor.random import randn


def _orthonormal(V, B, drop):
    """B-orthonormal columns spanning V's range, with directions whose share of it is below
    `drop` left out (singular-value QB, twice for accuracy)."""
    for _ in range(2):
        d = np.sqrt(np.einsum("ij,ij->j", V, B @ V))
        V = V[:, d > 0] / d[d > 0]
        w, Q = np.linalg.eigh(V.T @ (B @ V))
        keep = w > drop * max(w.max(initial=0.0), 1.0)
        V = V @ Q[:, keep] / np.sqrt(w[keep])
    return V


def _ritz(A, S, n, largest):
    """The n extreme Ritz pairs of A on the B-orthonormal basis S."""
    e, C = np.linalg.eigh(S.T @ A @ S)
    chosen = np.arange(len(e))[::-1][:n] if largest else np.arange(n)
    return e[chosen], S @ C[:, chosen]


def _iterate(A, B, X, iK, k, niter, tol, largest):
    """(E, X) of the k wanted eigenpairs, from the m x n start X."""
    drop = np.finfo(A.dtype).eps * 10 * A.shape[-1]
    n = X.shape[-1]
    E, X = _ritz(A, _orthonormal(X, B, drop), n, largest)
    scale = np.linalg.norm(X)
    a_norm, b_norm = np.linalg.norm(A @ X) / scale, np.linalg.norm(B @ X) / scale
    P = np.zeros((len(A), 0), A.dtype)
    for _ in range(niter):
        R = A @ X - (B @ X) * E
        error = np.linalg.norm(R, axis=0) / (np.linalg.norm(X, axis=0) *
                                              (a_norm + np.abs(E) * b_norm))
        if np.all(error[:k] < tol):
            break
        W = R if iK is None else iK @ R
        extra = np.concatenate([W, P], axis=1)
        extra = extra - X @ (X.T @ (B @ extra))  # B-orthogonal to X
        S = np.concatenate([X, _orthonormal(extra, B, drop)], axis=1)
        E, new = _ritz(A, S, n, largest)
        P, X = new - X @ (X.T @ (B @ new)), new
    return E[:k], X[:, :k]


class LOBPCGAutogradFunction(Function):
    """lobpcg as one node: the iteration forward, the eigenpairs' derivative backward."""

    @staticmethod
    def forward(ctx, A, k, B, X, n, iK, niter, tol, largest):
        arrays = [None if t is None else t.detach().numpy() for t in (A, B, X, iK)]
        batch, m = tuple(A.shape[:-2]), A.shape[-1]
        E, U = np.zeros(batch + (k,), arrays[0].dtype), np.zeros(batch + (m, k),
                                                                  arrays[0].dtype)
        starts = _starts(A, X, batch, m, n)
        for i in np.ndindex(batch):
            b = np.eye(m, dtype=E.dtype) if B is None else arrays[1][i]
            E[i], U[i] = _iterate(arrays[0][i], b, starts[i], None if iK is None else
                                  arrays[3], k, niter, tol, largest)
        E, U = tensor(E), tensor(U)
        ctx.save_for_backward(A, E, U)
        ctx.has_B = B is not None
        return E, U

    @staticmethod
    def backward(ctx, grad_E, grad_U):
        if ctx.has_B:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        A, E, U = ctx.saved_tensors
        return (_eigen_backward(A, E, U, grad_E, grad_U),) + (None,) * 8


def _starts(A, X, batch, m, n):
    """The starting blocks: X's, or standard normal draws of the default generator."""
    if X is not None:
        return np.broadcast_to(X.detach().numpy(), batch + (m, n))
    starts = np.zeros(batch + (m, n), A.detach().numpy().dtype)
    for i in np.ndindex(batch):
        starts[i] = randn((m, n), dtype=A.dtype).numpy()
    return starts


def _eigen_backward(A, E, U, grad_E, grad_U):
    """The cotangent of A for eigenpairs (E, U) of a part of its spectrum: inside U's span
    the rotation among the pairs, outside it each vector's pull through (A - e I)'s inverse
    on the complement (A + c U U^T - e I, c past the spread of E, inverts it there)."""
    inner = U.mT @ grad_U
    gaps = E.unsqueeze(-2) - E.unsqueeze(-1)
    eye_k = eye(E.shape[-1], dtype=A.dtype)
    inside = inner / (gaps + eye_k) * (1 - eye_k) + grad_E.diag_embed()
    result = U @ inside @ U.mT
    m = A.shape[-1]
    across = grad_U - U @ inner  # the part of grad_U outside U's span
    shift = 2 * E.abs().amax(-1, keepdim=True) + 1
    shifted = (A + shift.unsqueeze(-1) * (U @ U.mT)).unsqueeze(-3) - \
        E.unsqueeze(-1).unsqueeze(-1) * eye(m, dtype=A.dtype)
    pulled = solve(shifted, across.mT.unsqueeze(-1)).squeeze(-1).mT
    pulled = pulled - U @ (U.mT @ pulled)
    return result - pulled @ U.mT


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """(E, X): the k largest (largest=False: smallest) eigenvalues of A x = e B x and their
    eigenvectors; X (or n random vectors) starts the iteration. method 'ortho' and 'basic'
    run the same orthogonalized iteration; the ortho_* tuning of PyTorch's is not used."""
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and tuple(A.shape) != tuple(B.shape):
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    if tracker is not None:
        raise NotImplementedError("lobpcg: a tracker is not supported")
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
                         f" is smaller than 3 x the number of requested eigenpairs (={n})")
    if tol is None:
        tol = np.finfo(A.detach().numpy().dtype).eps ** 0.5
    if A.requires_grad:  # the derivative is that of A's symmetric part, as PyTorch takes it
        A = (A + A.mT) / 2
    return LOBPCGAutogradFunction.apply(A, k, B, X, n, iK, 1000 if niter is None else niter,
                                        tol, True if largest is None else largest)
