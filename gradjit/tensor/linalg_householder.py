"""torch.geqrf, LAPACK's compact QR (a, tau); torch.linalg.householder_product (torch.orgqr):
the first columns of H_1 ... H_k from that form, and torch.ormqr, the whole product applied to a
matrix; the last two written with tensor operations so that their gradients are autograd's."""
from __future__ import annotations

import numpy as np

from gradjit.tensor import dtypes, graph
from gradjit.tensor.arith import apply, operand
from gradjit.tensor.factories import tensor
from gradjit.tensor.functions import write_out
from gradjit.tensor.lapack_layout import by_columns
from gradjit.tensor.linalg import _result

geqrf_result = _result("geqrf", ("a", "tau"))


def geqrf(input, *, out=None):
    """(a, tau): R on and above a's diagonal, the Householder vectors below it, their scales in
    tau. numpy's raw QR is LAPACK's geqrf on the transposed (row-major) matrix. PyTorch has no
    derivative for it: backward reaching it raises."""
    input = operand(input)
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if input.dtype not in (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128):
        raise NotImplementedError(f'"geqrf_cpu" not implemented for \'{input.dtype.legacy}\'')

    def factor():
        h, tau = np.linalg.qr(input.detach().numpy(), mode="raw")
        a, tau = by_columns(tensor(np.swapaxes(h, -1, -2))), tensor(tau)
        if graph.is_grad_enabled() and input.requires_grad:
            node = graph.Node.named("GeqrfBackward0")
            a, tau = (graph.refuse_gradient(t, node, "the derivative for 'geqrf' is not "
                                            "implemented.", [input], NotImplementedError)
                      for t in (a, tau))
        return geqrf_result(a, tau)
    return write_out("geqrf", factor, (input,), out)


def _product(A, tau):
    # empty sums of A and tau: with no reflection applied, the result still depends on both,
    # as torch's graph has it
    return (_reflections(A, tau)[..., :A.shape[-1]] + A[..., :0, :].sum(-2, keepdim=True)
            + tau[..., None, :0].sum(-1, True))


def _reflections(A, tau):
    """The square H_1 ... H_k of A's geqrf form."""
    import gradjit
    m = A.shape[-2]
    rows = gradjit.arange(m).unsqueeze(-1)
    q = gradjit.eye(m, dtype=A.dtype).expand(*A.shape[:-2], m, m)
    for i in range(tau.shape[-1]):
        # v_i: 1 at row i, A's column i below it, 0 above
        v = gradjit.where(rows > i, A[..., i:i + 1], (rows == i).to(A.dtype))
        q = q - (q @ v) * tau[..., i, None, None] @ v.mH  # H_i = I - tau_i v_i v_i^H
    return q


def householder_product(A, tau):
    A, tau = operand(A), operand(tau)
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.householder_product: input must have at least 2 "
                           "dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater "
                           "than or equal to input.shape[-1]")
    if A.shape[-1] < tau.shape[-1]:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater "
                           "than or equal to tau.shape[-1]")
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"torch.linalg.householder_product: tau dtype {tau.dtype.legacy} does "
                           f"not match input dtype {A.dtype.legacy}")
    return by_columns(apply("LinalgHouseholderProductBackward0", _product, A, tau))


def orgqr(input, tau):
    return householder_product(input, tau)


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """other multiplied by Q = H_1 ... H_k of input's geqrf form (Q^H with transpose), from
    the left or from the right."""
    input, tau, other = operand(input), operand(tau), operand(other)
    _check_ormqr(input, tau, other, -2 if left else -1)

    def applied(A, t, C):
        q = _reflections(A, t)
        q = q.mH if transpose else q
        return q @ C if left else C @ q
    return write_out("ormqr", lambda: by_columns(apply("OrmqrBackward0", applied, input, tau,
                                                       other)),
                     (input, tau, other), out)


def _check_ormqr(input, tau, other, side):
    for name, t in (("input", input), ("other", other)):
        if t.dim() < 2:
            raise RuntimeError(f"torch.ormqr: {name} must have at least 2 dimensions.")
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.dim() != input.dim() - 1:
        raise RuntimeError(f"torch.ormqr: Expected tau to have one dimension less than input, "
                           f"but got tau.ndim equal to {tau.dim()} and input.ndim is equal to "
                           f"{input.dim()}")
    if tau.shape[-1] != min(other.shape[side], input.shape[-1]):
        raise RuntimeError("torch.ormqr: tau.shape[-1] must be equal to min(other.shape[-2], "
                           "input.shape[-1])")
