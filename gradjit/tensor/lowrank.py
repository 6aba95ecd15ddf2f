"""Randomized low-rank SVD and PCA (Halko, Martinsson and Tropp's range finder): a random
projection, refined by `niter` power iterations with QR between them, then an exact SVD of the
small projected matrix. The random matrix is drawn as PyTorch draws it, so seeded runs agree."""
from __future__ import annotations

from gradjit.tensor import linalg as L
from gradjit.tensor.random import randn


def _minus(x, m, product):
    return x if m is None else x - product(m)


def _approximate_basis(a, q, niter, m):
    """An orthonormal (…, rows, q) basis whose span approximates the range of a - m."""
    r = randn(a.shape[-1], q, dtype=a.dtype)
    basis = L.qr(_minus(a.matmul(r), m, lambda m: m.matmul(r))).Q
    for _ in range(2 if niter is None else niter):
        basis = L.qr(_minus(a.mH.matmul(basis), m, lambda m: m.mH.matmul(basis))).Q
        basis = L.qr(_minus(a.matmul(basis), m, lambda m: m.matmul(basis))).Q
    return basis


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) of rank q approximating A - M (V not transposed); a wide matrix is handled
    through its transpose."""
    q = 6 if q is None else q
    rows, cols = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(tuple(A.shape))
    wide = rows < cols
    if wide:
        A, M = A.mH, None if M is None else M.mH
    basis = _approximate_basis(A, q, niter, M)
    u, s, vh = L.svd(_minus(basis.mH.matmul(A), M, lambda m: basis.mH.matmul(m)),
                     full_matrices=False)
    u, v = basis.matmul(u), vh.mH
    return (v, s, u) if wide else (u, s, v)


def pca_lowrank(A, q=None, center=True, niter=2):
    """svd_lowrank of A with its column means taken out (center), q at most min(rows, cols)."""
    rows, cols = A.shape[-2:]
    if q is None:
        q = min(6, rows, cols)
    elif not 0 <= q <= min(rows, cols):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)="
                         f"{min(rows, cols)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    return svd_lowrank(A - A.mean(-2, keepdim=True) if center else A, q, niter)


__all__ = ["pca_lowrank", "svd_lowrank"]
