"""PyTorch's deprecated API: the norms kept for old code (frobenius_norm, nuclear_norm,
norm_except_dim), the removed linear algebra (solve, lstsq, symeig, eig, matrix_rank) and
Variable API (volatile, reinforce), which raise or warn with the message naming the replacement."""
from __future__ import annotations

import warnings

from gradjit.tensor import linalg as L
from gradjit.tensor.arith import apply
from gradjit.tensor.contract import vector_norm
from gradjit.tensor.base import _check_dim

_REMOVED = "This function was deprecated since version 1.9 and is now removed."
_REPLACEMENTS = {
    "matrix_rank": "\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter "
                   "'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.",
    "lstsq": " `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg."
             "lstsq` has reversed arguments and does not return the QR decomposition in the "
             "returned tuple (although it returns other information about the problem).\n\nTo "
             "get the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned "
             "solution in `torch.lstsq` stored the residuals of the solution in the last m - n "
             "columns of the returned value whenever m > n. In torch.linalg.lstsq, the residuals "
             "are in the field 'residuals' of the returned named tuple.\n\nThe unpacking of the "
             "solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be "
             "replaced with:\nX = torch.linalg.lstsq(A, B).solution",
    "solve": " `torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` "
             "has its arguments reversed and does not return the LU factorization.\n\nTo get "
             "the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` or "
             "`torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced with:\nX = "
             "torch.linalg.solve(A, B)",
    "symeig": " The default behavior has changed from using the upper triangular portion of the "
              "matrix by default to using the lower triangular portion.\n\nL, _ = "
              "torch.symeig(A, upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh"
              "(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors="
              "True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper "
              "else 'L')",
    "eig": " `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather "
           "than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
           "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, "
           "eigenvectors=True) should be replaced with:\nL_complex, V_complex = "
           "torch.linalg.eig(A)",
}


def _removed(name):
    def removed(*args, **kwargs):
        raise RuntimeError(_REMOVED + _REPLACEMENTS[name])
    removed.__name__ = removed.__qualname__ = name
    return removed


matrix_rank, lstsq, solve, symeig, eig = map(_removed, _REPLACEMENTS)


def _deprecated(name, replacement):
    warnings.warn(f"at::{name} is deprecated and it is just left for JIT compatibility. It "
                  f"will be removed in a future PyTorch release. Please use "
                  f"`{replacement}` instead", UserWarning, stacklevel=3)


def frobenius_norm(input, dim, keepdim=False):
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions "
                           "instead.")
    _deprecated("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    return apply("NormBackward1", lambda x: vector_norm(x, 2, dim, keepdim), input)


def nuclear_norm(input, dim=(-2, -1), keepdim=False):
    """The sum of the singular values of the matrices spanning `dim`; nuclear_norm(input,
    keepdim) is PyTorch's other overload."""
    if isinstance(dim, bool):
        dim, keepdim = (-2, -1), dim
    _deprecated("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    if input.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    dims = tuple(_check_dim(d, input.dim()) for d in dim)
    out = L.svdvals(input.movedim(dims, (-2, -1))).sum(-1)
    return out[..., None, None].movedim((-2, -1), dims) if keepdim else out


def norm_except_dim(v, pow=2, dim=0):
    """The `pow`-norm over every dimension but `dim`, kept as size-1 dims (dim -1: of all)."""
    if dim == -1:
        return apply("NormBackward0", lambda x: x.norm(pow), v)
    last = v.dim() - 1
    dim = _check_dim(dim, v.dim())
    shape = [1] * v.dim()
    shape[dim] = v.shape[dim]
    if dim == 0:
        return v.reshape(v.shape[0], -1).norm(pow, 1).view(shape)
    if dim == last:
        return v.reshape(-1, v.shape[last]).norm(pow, 0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


_REINFORCE = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""


class DeprecatedMixin:
    """The removed functions' Tensor methods raise as the functions do."""

    lstsq, solve, symeig, eig = lstsq, solve, symeig, eig

    @property
    def volatile(self) -> bool:
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                      stacklevel=2)
        return False

    def reinforce(self, reward):
        raise RuntimeError(_REINFORCE)


__all__ = ["eig", "frobenius_norm", "lstsq", "matrix_rank", "norm_except_dim", "nuclear_norm",
           "solve", "symeig"]
