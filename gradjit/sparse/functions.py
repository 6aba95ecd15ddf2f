"""torch.sparse's functions: sums, products and softmax whose sparse operand's gradient
keeps its pattern."""
from __future__ import annotations

from gradjit.sparse import linear


def sum(input, dim=None, dtype=None):
    """The sum over `dim` (all dimensions when None) of a sparse tensor."""
    if not input._sparse_layout:
        return input.sum() if dim is None else input.sum(dim, dtype=dtype)
    return linear.sparse_sum(input, dim, dtype)


def mm(mat1, mat2, reduce="sum"):
    """mat1 @ mat2 for sparse mat1; mat1's gradient is sparse, at mat1's pattern (a sparse
    mat2: the sparse product)."""
    if mat2._sparse_layout:
        return linear.sparse_product(mat1, mat2)
    return linear.addmm(None, mat1, mat2, name="SparseAddmmBackward0", masked=True)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """beta * mat + alpha * (mat1 @ mat2) for sparse mat1, its gradient sparse."""
    return linear.addmm(mat, mat1, mat2, beta, alpha, name="SparseAddmmBackward0", masked=True)


def softmax(input, dim, *, dtype=None):
    """Softmax along `dim` over the specified entries, the others taken as -inf."""
    return linear.softmax(input if dtype is None else input.to(dtype), dim)


def log_softmax(input, dim, *, dtype=None):
    return linear.softmax(input if dtype is None else input.to(dtype), dim, log=True)
