"""np.linalg on gradjit values: numpy's signatures and result types (EighResult, SVDResult,
QRResult, SlogdetResult) over gradjit.ops.linalg."""
from __future__ import annotations

import numpy as np
from numpy.linalg import _linalg as numpy_linalg

from gradjit.ir.primitive import ir_type
from gradjit import ops
from gradjit.ops import linalg, norms

_NO_VALUE = np._NoValue


def _slogdet(a):
    return numpy_linalg.SlogdetResult(*linalg.slogdet(a))


def _eigh(a, UPLO="L"):
    return numpy_linalg.EighResult(*linalg.eigh(a, UPLO))


def real_if_real(a, w, v=None):
    """numpy's eig of a real matrix whose eigenvalues are all real: real results (decided on
    the traced values, a guard)."""
    if ops.is_complex(a) or bool(ops.any_(ops.ne(ops.imag(w), 0))):
        return w, v
    return ops.real(w), None if v is None else ops.real(v)


def _eig(a):
    a = linalg.matrices(a, square=True)
    return numpy_linalg.EigResult(*real_if_real(a, *linalg.eig(a)))


def _eigvals(a):
    a = linalg.matrices(a, square=True)
    return real_if_real(a, linalg.eig(a)[0])[0]


def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    if not compute_uv:
        return linalg.svdvals(a, hermitian)
    if hermitian:
        raise TypeError("np.linalg.svd(hermitian=True) is not supported when tracing: numpy "
                        "orders and signs its vectors by the eigendecomposition; use "
                        "compute_uv=False or hermitian=False")
    return numpy_linalg.SVDResult(*linalg.svd(a, full_matrices))


def _qr(a, mode="reduced"):
    out = linalg.qr(a, mode)
    return out if mode == "r" else numpy_linalg.QRResult(*out)


def _cholesky(a, /, *, upper=False):
    return linalg.cholesky(a, upper)


def _pinv(a, rcond=None, hermitian=False, *, rtol=_NO_VALUE):
    # numpy's defaults: 1e-15 when neither is given, max(M, N) * eps for rtol=None.
    if rcond is not None and rtol is not _NO_VALUE:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if rcond is None:
        a = linalg.matrices(a)
        eps = np.finfo(ir_type(a).dtype.numpy).eps
        rcond = 1e-15 if rtol is _NO_VALUE else \
            max(ir_type(a).shape[-2:]) * eps if rtol is None else rtol
    if hermitian:  # numpy reads the lower triangle: its derivative reaches that triangle alone
        a = linalg.lower_symmetric(linalg.matrices(a, square=True))
    return linalg.pinv(a, rcond, hermitian)


def _matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    # numpy: an absolute tol replaces the relative one
    if tol is not None:
        return linalg.matrix_rank(A, atol=tol, rtol=0.0, hermitian=hermitian)
    return linalg.matrix_rank(A, rtol=rtol, hermitian=hermitian)


FUNCTIONS = {
    np.linalg.inv: linalg.inv, np.linalg.solve: linalg.solve, np.linalg.det: linalg.det,
    np.linalg.slogdet: _slogdet, np.linalg.cholesky: _cholesky, np.linalg.qr: _qr,
    np.linalg.eigh: _eigh, np.linalg.eigvalsh: linalg.eigvalsh, np.linalg.svd: _svd,
    np.linalg.eig: _eig, np.linalg.eigvals: _eigvals,
    np.linalg.svdvals: lambda x, /: linalg.svdvals(x), np.linalg.pinv: _pinv,
    np.linalg.lstsq: linalg.lstsq, np.linalg.matrix_rank: _matrix_rank,
    np.linalg.cond: norms.cond, np.linalg.tensorinv: linalg.tensorinv,
    np.linalg.tensorsolve: linalg.tensorsolve,
    np.linalg.matrix_transpose: lambda x, /: linalg.matrix_transpose(x),
    np.linalg.diagonal: lambda x, /, *, offset=0: linalg.diagonal(x, offset),
    np.linalg.trace: lambda x, /, *, offset=0, dtype=None: linalg.trace(x, offset, dtype),
}
