"""torch.sparse's functions: sums, products and softmax whose sparse operand's gradient
keeps its pattern."""
from __future__ import annotations

import functools

import numpy as np

from gradjit.sparse import linear
from gradjit.sparse import storage as K
from gradjit.sparse.arith import not_on_sparse
from gradjit.sparse.autograd import recorded, strided, wrap
from gradjit.tensor.layout import sparse_csr
from gradjit.warn import warn_at_caller


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


def sampled_addmm(input, mat1, mat2, *, beta=1.0, alpha=1.0):
    """beta * input + alpha * (mat1 @ mat2), computed only at the entries of the CSR
    matrix input."""
    if not input.is_sparse_csr:
        raise not_on_sparse("sparse_sampled_addmm")
    coo = input._value
    a, b = mat1.detach()._concrete(), mat2.detach()._concrete()
    rows, cols = coo.indices
    sampled = np.einsum("nk,nk->n", a[rows], b[:, cols].T)
    out = input._made(coo.with_values((beta * coo.values + alpha * sampled).astype(
        coo.values.dtype)))

    def backward(g):
        at = coo.with_values(K.gather(strided(g), coo))
        return (input._made(at.with_values(beta * at.values)),
                wrap(alpha * linear.product(at, b.T)),
                wrap(alpha * linear.product(at, a, transposed=True).T))
    return recorded("SparseSampledAddmmBackward0", out, (input, mat1, mat2), backward)


def softmax(input, dim, *, dtype=None):
    """Softmax along `dim` over the specified entries, the others taken as -inf."""
    return linear.softmax(input if dtype is None else input.to(dtype), dim)


def log_softmax(input, dim, *, dtype=None):
    return linear.softmax(input if dtype is None else input.to(dtype), dim, log=True)


def spdiags(diagonals, offsets, shape, layout=None):
    """The matrix of `shape` whose diagonal offsets[k] (above the main one when positive)
    holds diagonals[k], read at the column each entry lands in (scipy's convention)."""
    from gradjit.sparse.tensor import make
    from gradjit.tensor.graph import not_implemented
    rows, cols = shape
    table = diagonals.detach()._concrete()
    shifts = [int(o) for o in offsets.tolist()]
    if len(set(shifts)) != len(shifts):
        raise RuntimeError("Offset tensor contains duplicate values")
    if len(shifts) != table.shape[0]:
        raise RuntimeError(f"Number of diagonals ({table.shape[0]}) does not match the number "
                           f"of offsets ({len(shifts)})")
    columns = [np.arange(max(o, 0), max(min(rows + o, cols, table.shape[1]), max(o, 0)))
               for o in shifts]
    indices = np.concatenate([np.stack([c - o, c]) for c, o in zip(columns, shifts)], axis=1)
    values = np.concatenate([table[k, c] for k, c in enumerate(columns)])
    out = make(K.Coo(indices.astype(np.int64), values, (rows, cols)))
    out = out.to_sparse_csr() if layout is sparse_csr else out
    return not_implemented(out, "_spdiags", (diagonals,))


class check_sparse_tensor_invariants:
    """Within it (or decorating a function, or for good after enable()), sparse tensors are
    checked when constructed: their indices within the size and not negative."""

    _enabled = False
    _chosen = False  # enable()/disable() called: PyTorch no longer warns of implicit checks
    _warned = False

    def __init__(self, enable=True):
        self.state = enable

    @staticmethod
    def is_enabled() -> bool:
        return check_sparse_tensor_invariants._enabled

    @staticmethod
    def enable():
        check_sparse_tensor_invariants._enabled = check_sparse_tensor_invariants._chosen = True

    @staticmethod
    def disable():
        check_sparse_tensor_invariants._enabled = False
        check_sparse_tensor_invariants._chosen = True

    @staticmethod
    def warn_if_implicit(check_invariants):
        """PyTorch's warning, once a process, when a sparse constructor's checks were neither
        asked for nor refused, by its argument or by enable()/disable()."""
        self = check_sparse_tensor_invariants
        if check_invariants is not None or self._chosen or self._warned:
            return
        self._warned = True
        warn_at_caller(
            "Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) "
            "will occur when operating on a sparse tensor which violates the invariants, but "
            "checks incur performance overhead. To silence this warning, explicitly opt in or "
            "out. See `torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance.  "
            "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/Context.cpp:816.)")

    def __enter__(self):
        self.saved = check_sparse_tensor_invariants._enabled
        check_sparse_tensor_invariants._enabled = self.state

    def __exit__(self, *exc):
        check_sparse_tensor_invariants._enabled = self.saved

    def __call__(self, fn):
        @functools.wraps(fn)
        def checked(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return checked
