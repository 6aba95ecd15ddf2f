"""torch.linalg.householder_product (torch.orgqr): the first columns of H_1 ... H_k from
LAPACK's geqrf form, written with tensor operations so that its gradient is autograd's."""
from __future__ import annotations

from gradjit.tensor.arith import apply, operand


def _product(A, tau):
    import gradjit
    m, n = A.shape[-2:]
    rows = gradjit.arange(m).unsqueeze(-1)
    q = gradjit.eye(m, dtype=A.dtype).expand(*A.shape[:-2], m, m)
    for i in range(tau.shape[-1]):
        # v_i: 1 at row i, A's column i below it, 0 above
        v = gradjit.where(rows > i, A[..., i:i + 1], (rows == i).to(A.dtype))
        q = q - (q @ v) * tau[..., i, None, None] @ v.mT
    # empty sums of A and tau: with no reflection applied, the result still depends on both,
    # as torch's graph has it
    return q[..., :n] + A[..., :0, :].sum(-2, keepdim=True) + tau[..., None, :0].sum(-1, True)


def householder_product(A, tau, *, out=None):
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
    return apply("LinalgHouseholderProductBackward0", _product, A, tau)


def orgqr(input, tau):
    return householder_product(input, tau)
