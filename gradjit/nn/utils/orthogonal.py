"""parametrizations.orthogonal: a matrix (or batch) kept orthogonal by mapping an unconstrained
one through the matrix exponential or the Cayley map of its skew part, or through a product
of Householder reflectors; optionally times a stored base (dynamic trivialization)."""
from __future__ import annotations

import gradjit
from gradjit.nn.modules.module import Module
from gradjit.nn.utils import parametrize

_MAPS = ("matrix_exp", "cayley", "householder")


def _householder_product(vectors, tau):
    """The first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T, v_i being column i of
    `vectors` below the diagonal with a 1 on it (LAPACK's orgqr)."""
    n, k = vectors.shape[-2], vectors.shape[-1]
    eye = gradjit.eye(n, dtype=vectors.dtype)
    q = eye[:, :k].expand(*vectors.shape[:-2], n, k)
    for i in reversed(range(k)):
        v = (vectors[..., :, i] + eye[:, i]).unsqueeze(-1)
        q = q - tau[..., i, None, None] * v @ (v.mT @ q)
    return q


def _make_orthogonal(a):
    """The Q of a = QR with R's diagonal non-negative."""
    q, r = gradjit.linalg.qr(a)
    return q * r.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _is_orthogonal(q):
    n, k = q.shape[-2], q.shape[-1]
    eps = 10.0 * n * gradjit.finfo(q.dtype).eps
    return gradjit.allclose(q.mH @ q, gradjit.eye(k, dtype=q.dtype), atol=eps)


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X, n, k = X.mT, k, n
        if self.orthogonal_map == "householder":
            A = X.tril(-1)
            Q = _householder_product(A, 2.0 / (1.0 + (A * A).sum(-2)))
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        else:
            X = X.tril()
            if n != k:
                X = gradjit.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], -1)
            A = X - X.mH
            if self.orthogonal_map == "matrix_exp":
                Q = gradjit.matrix_exp(A)
            else:
                eye = gradjit.eye(n, dtype=A.dtype)
                Q = gradjit.linalg.solve(eye - 0.5 * A, eye + 0.5 * A)
            Q = Q[..., :k]
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        """With a base: the base becomes Q (orthogonalized, and completed to a square matrix
        by random columns when Q is thin) and the stored tensor -I, which forward maps to I."""
        with gradjit.no_grad():
            if tuple(Q.shape) != tuple(self.shape):
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transpose = n < k
            if transpose:
                Q, n, k = Q.mT, k, n
            if not hasattr(self, "base"):
                return self._reflectors(Q, transpose)
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                extra = gradjit.randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype)
                Q = _make_orthogonal(gradjit.cat([Q, extra], -1))
            self.base = Q
            neg_eye = gradjit.zeros_like(Q_init)
            neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_eye

    def _reflectors(self, Q, transpose):
        """Without a base only the Householder map can be inverted: Q's reflectors, with the
        signs that forward multiplies the columns by on the diagonal."""
        if self.orthogonal_map != "householder":
            raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                      "or the Cayley parametrizations when "
                                      "use_trivialization=False.")
        A, tau = gradjit.geqrf(Q.detach())
        diagonal = A.diagonal(dim1=-2, dim2=-1)
        diagonal.copy_(gradjit.where(tau == 0.0, -diagonal.sign(), diagonal.sign()))
        return A.mT if transpose else A


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """module.<name> parametrized to be orthogonal (orthonormal columns, or rows if wide)."""
    weight = getattr(module, name, None)
    if not gradjit.is_tensor(weight):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.dim() < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.dim()} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
