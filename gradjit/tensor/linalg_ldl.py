"""torch.linalg's LDL family (ldl_factor, ldl_factor_ex, ldl_solve) for symmetric and Hermitian
matrices: LAPACK's Bunch-Kaufman factorization (sytrf/hetrf, lower) and its solve, on the host.
Neither has a derivative in PyTorch; their grad_fn says so when reached."""
from __future__ import annotations

import numpy as np

from gradjit.tensor import graph
from gradjit.tensor.arith import operand
from gradjit.tensor.factories import tensor
from gradjit.tensor.lapack_layout import by_columns
from gradjit.tensor.linalg import _result

linalg_ldl_factor = _result("linalg_ldl_factor", ("LD", "pivots"))
linalg_ldl_factor_ex = _result("linalg_ldl_factor_ex", ("LD", "pivots", "info"))

_ALPHA = (1 + np.sqrt(17)) / 8  # Bunch-Kaufman's growth bound


def _size(x):
    """The magnitude LAPACK's pivot search compares: |re| + |im| for complex entries."""
    return np.abs(np.real(x)) + np.abs(np.imag(x))


def _pivot(a, k, hermitian):
    """(kp, kstep): the row swapped into place and the size of the diagonal block at k (a
    Hermitian diagonal is read by its real part)."""
    n = len(a)
    diagonal = np.real if hermitian else (lambda x: x)
    absakk = _size(diagonal(a[k, k]))
    imax = k + 1 + int(np.argmax(_size(a[k + 1:, k]))) if k < n - 1 else k
    colmax = _size(a[imax, k]) if k < n - 1 else 0.0
    if max(absakk, colmax) == 0 or np.isnan(absakk) or absakk >= _ALPHA * colmax:
        return k, 1
    rowmax = np.max(_size(np.concatenate([a[imax, k:imax], a[imax + 1:, imax]])))
    if absakk >= _ALPHA * colmax * (colmax / rowmax):
        return k, 1
    return imax, 1 if _size(diagonal(a[imax, imax])) >= _ALPHA * rowmax else 2


def sytrf(a, hermitian=False):
    """(LD, 1-based pivots, info) of one matrix, from its lower triangle: pivots[k] > 0 is a
    1x1 block after swapping rows k and pivots[k] - 1 of the trailing matrix; a 2x2 block
    holds -(its swapped row + 1) in both of its entries. A Hermitian matrix (LAPACK's
    hetrf) is factored as L D L^H, with a real diagonal."""
    n = len(a)
    adjoint = (lambda x: x.conj().T) if hermitian else (lambda x: x.T)
    a = np.tril(a) + adjoint(np.tril(a, -1))  # the trailing matrix kept whole
    if hermitian:
        a[np.diag_indices(n)] = a.diagonal().real
    pivots, info, k = np.zeros(n, np.int32), 0, 0
    while k < n:
        kp, kstep = _pivot(a, k, hermitian)
        if not a[k:, k].any():  # a zero column: singular, nothing to eliminate
            info = info or k + 1
        kk = k + kstep - 1
        if kp != kk:  # a symmetric swap of the trailing matrix
            a[[kk, kp], k:] = a[[kp, kk], k:]
            a[k:, [kk, kp]] = a[k:, [kp, kk]]
        if kstep == 1:
            if a[k, k] != 0:
                x = a[k + 1:, k] / a[k, k]
                a[k + 1:, k + 1:] -= np.outer(x, adjoint(a[k + 1:, k]))
                a[k + 1:, k], a[k, k + 1:] = x, adjoint(x)
            pivots[k] = kp + 1
        else:
            d = a[k:k + 2, k:k + 2]
            w = a[k + 2:, k:k + 2] @ np.linalg.inv(d)  # the columns of L
            a[k + 2:, k + 2:] -= w @ adjoint(a[k + 2:, k:k + 2])
            a[k + 2:, k:k + 2], a[k:k + 2, k + 2:] = w, adjoint(w)
            pivots[k:k + 2] = -(kp + 1)
        k += kstep
    return np.tril(a), pivots, info


def sytrs(ld, pivots, b, hermitian=False):
    """X with A X = B for A = L D L^T (L D L^H when Hermitian) as sytrf gives it."""
    n, x = len(ld), np.array(b, copy=True)
    adjoint = (lambda m: m.conj().T) if hermitian else (lambda m: m.T)
    k = 0
    while k < n:  # L D Y = P B
        step = 1 if pivots[k] > 0 else 2
        kp = abs(pivots[k]) - 1
        x[[k + step - 1, kp]] = x[[kp, k + step - 1]]
        x[k + step:] -= ld[k + step:, k:k + step] @ x[k:k + step]
        with np.errstate(all="ignore"):  # a singular D gives infinities, as LAPACK's
            x[k:k + step] = _diagonal_solve(ld[k:k + step, k:k + step], x[k:k + step],
                                            hermitian)
        k += step
    k = n - 1
    while k >= 0:  # L^T P^T X = Y
        step = 1 if pivots[k] > 0 else 2
        first = k - step + 1
        x[first:k + 1] -= adjoint(ld[k + 1:, first:k + 1]) @ x[k + 1:]
        kp = abs(pivots[k]) - 1
        x[[k, kp]] = x[[kp, k]]
        k -= step
    return x


def _diagonal_solve(d, b, hermitian=False):
    """D's 1x1 or 2x2 block solved by sytrs's formulas (scaled by the off-diagonal entry); a
    Hermitian 2x2 block is solved whole."""
    if len(d) == 1:
        return b / d[0, 0]
    if hermitian:
        return np.linalg.solve(np.tril(d) + np.tril(d, -1).conj().T, b)
    off = d[1, 0]
    first, second, denom = d[0, 0] / off, d[1, 1] / off, d[0, 0] / off * (d[1, 1] / off) - 1
    b0, b1 = b[0] / off, b[1] / off
    return np.stack([(second * b0 - b1) / denom, (first * b1 - b0) / denom])


def _batched(A):
    """A's matrices (a numpy array of them) and A, checked as PyTorch does."""
    A = operand(A)
    name = "torch.linalg.ldl_factor_ex"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {A.dtype.legacy}")
    return A


def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    return _factor(A, check_errors, "ldl_factor_ex", hermitian)


def _factor(A, check_errors, name, hermitian):
    A = _batched(A)
    values = _host(A, name)
    batch, n = values.shape[:-2], values.shape[-1]
    ld, pivots = np.zeros_like(values), np.zeros(batch + (n,), np.int32)
    info = np.zeros(batch, np.int32)
    for i in np.ndindex(batch):
        ld[i], pivots[i], info[i] = sytrf(values[i], hermitian and A.dtype.is_complex)
    if check_errors and info.any():
        _raise(info)
    return linalg_ldl_factor_ex(graph.not_implemented(by_columns(tensor(ld)),
                                                      "linalg_ldl_factor_ex", [A]),
                                tensor(pivots), tensor(info))


def _host(t, name):
    """t's values for LAPACK on the host; a traced t has none until the function runs."""
    values = t.__gradjit_constant__()
    if values is None:
        from gradjit.tracer.torch_surface import refuse
        refuse(f"linalg.{name}", "it factorizes on the host, from values known only when the "
               "function runs; call it outside gradjit.grad/jit")
    return values


def _raise(info):
    raise RuntimeError(f"torch.linalg.ldl_factor: Unknown error code: {info[info > 0][0]}.")


def ldl_factor(A, *, hermitian=False):
    """(LD, pivots); an exactly singular matrix is an error, as in PyTorch."""
    ld, pivots, info = _factor(A, False, "ldl_factor", hermitian)
    if info.numpy().any():
        _raise(info.numpy())
    return linalg_ldl_factor(ld, pivots)


def ldl_solve(LD, pivots, B, *, hermitian=False):
    LD, pivots, B = operand(LD), operand(pivots), operand(B)
    if B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix "
                           f"is {LD.shape[-2]} by {LD.shape[-1]} but each b matrix is "
                           f"{B.shape[-2]} by {B.shape[-1]}")
    batch = np.broadcast_shapes(tuple(LD.shape[:-2]), tuple(B.shape[:-2]))
    ld = np.broadcast_to(_host(LD, "ldl_solve"), batch + tuple(LD.shape[-2:]))
    piv = np.broadcast_to(_host(pivots, "ldl_solve"), batch + tuple(pivots.shape[-1:]))
    b = np.broadcast_to(_host(B, "ldl_solve"), batch + tuple(B.shape[-2:]))
    x = np.zeros(b.shape, np.result_type(ld.dtype, b.dtype))
    for i in np.ndindex(batch):
        x[i] = sytrs(ld[i].astype(x.dtype), piv[i], b[i], hermitian and LD.dtype.is_complex)
    return graph.not_implemented(by_columns(tensor(x)), "linalg_ldl_solve", [LD, B])
