"""torch.linalg's _ex forms (inv_ex, solve_ex, cholesky_ex): the result with LAPACK's info
per matrix, 0 on success, instead of an error; plus linalg.vander."""
from __future__ import annotations

import numpy as np

from gradjit.tensor import dtypes, linalg
from gradjit.tensor.arith import operand
from gradjit.tensor.shape import cat
from gradjit.tensor.factories import tensor

linalg_inv_ex = linalg._result("linalg_inv_ex", ("inverse", "info"))
linalg_solve_ex = linalg._result("linalg_solve_ex", ("result", "info"))
linalg_cholesky_ex = linalg._result("linalg_cholesky_ex", ("L", "info"))


def _infos(A, rule, name):
    values = A.__gradjit_constant__()
    if values is None:
        from gradjit.tracer.torch_surface import refuse
        refuse(f"linalg.{name}_ex", f"its info is read from the matrices' values, known only "
               f"when the function runs; use linalg.{name}")
    batch = values.shape[:-2]
    # the batch size spelled out: -1 is ambiguous for empty matrices
    flat = values.reshape((int(np.prod(batch)),) + values.shape[-2:])
    return np.array([rule(m) for m in flat], np.int32).reshape(batch)


def _ex(kind, plain, failure, A, *args, check_errors=False, **kwargs):
    """plain(A, ...) with the info of each matrix; a failed one (info > 0) raises plain's
    error under check_errors, else its result is NaN (LAPACK's partial result is not kept)."""
    name = plain.__name__
    A = linalg._matrices(f"linalg.{name}", A)
    info = _infos(A, linalg._FAILURES[failure][1], name)
    if check_errors and info.any():
        raise linalg.LinAlgError(linalg.failure(f"linalg.{name}_ex", failure,
                                                A.detach().numpy(), info))
    if not info.any():
        return kind(plain(A, *args, **kwargs), tensor(info))
    safe = A.detach().clone()
    eye = np.broadcast_to(np.eye(A.shape[-1]), tuple(A.shape)).astype(safe.numpy().dtype)
    safe.numpy()[info > 0] = eye[info > 0]
    out = plain(safe, *args, **kwargs).detach()
    out.numpy()[info > 0] = np.nan
    return kind(out, tensor(info))


def inv_ex(A, *, check_errors=False):
    return _ex(linalg_inv_ex, linalg.inv, "inversion", A, check_errors=check_errors)


def solve_ex(A, B, *, left=True, check_errors=False):
    return _ex(linalg_solve_ex, linalg.solve, "solver", A, B, left=left,
               check_errors=check_errors)


def cholesky_ex(A, *, upper=False, check_errors=False):
    return _ex(linalg_cholesky_ex, linalg.cholesky, "indefinite", A, upper=upper,
               check_errors=check_errors)


def vander(x, N=None):
    """The powers x^0, ..., x^(N-1) of each entry along a new last dimension (x of shape (*, n);
    a number is one entry); N defaults to n."""
    x = operand(x)
    if x.dtype == dtypes.bool_:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer "
                           "tensors, but got Bool")
    x = x.unsqueeze(0) if x.dim() == 0 else x
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    # PyTorch's: a column of ones before the running products of n - 1 copies of x
    products = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    return cat([products.new_ones((*x.shape, 1)), products], -1)
