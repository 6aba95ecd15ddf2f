"""Products, reductions and reindexing of sparse COO tensors: mm/addmm/matmul with a sparse
first operand, sums, softmax over the specified entries, transpose, narrow_copy and
index_select, each with PyTorch's grad_fn and gradient layout."""
from __future__ import annotations

import numpy as np

from gradjit.sparse import storage as K
from gradjit.sparse.arith import not_on_sparse
from gradjit.sparse.autograd import recorded, strided, wrap
from gradjit.tensor.base import _check_dim


def _fails(error):
    """The backward of an operation whose gradient PyTorch cannot form on a sparse tensor."""
    def backward(g):
        raise error
    return backward


def product(coo, dense, transposed=False):
    """The sparse matrix coo (or its transpose) times the strided matrix `dense`."""
    rows, cols = coo.indices[::-1] if transposed else coo.indices
    out = np.zeros((coo.shape[transposed], dense.shape[1]), np.result_type(coo.values, dense))
    np.add.at(out, rows, coo.values[:, None] * dense[cols])
    return out


def addmm(c, s, d, beta=1, alpha=1, name="AddmmBackward0", masked=False):
    """beta * c + alpha * (s @ d), s sparse; `masked`: s's gradient at its own pattern (as
    torch.sparse's functions give it), else strided (as torch.mm's)."""
    if s.shape[1] != d.shape[0]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {s.shape[1]}, got "
                           f"{d.shape[0]}")
    coo, dense = s._value, d.detach()._concrete()
    made = product(coo, dense)
    if c is not None:
        made = beta * c.detach()._concrete() + alpha * made
    elif alpha != 1:
        made = alpha * made

    def backward(g):
        grad = g.detach()._concrete()
        grad_s = alpha * grad @ dense.T
        grad_s = s._made(K.masked(grad_s, coo)) if masked else wrap(grad_s)
        grad_d = wrap(alpha * product(coo, grad, transposed=True))
        if c is None:
            return grad_s, grad_d
        return (g * beta).sum_to_size(*c.shape), grad_s, grad_d
    operands = (s, d) if c is None else (c, s, d)
    return recorded(name, wrap(made), operands, backward)


def dense_sparse_product(d, s):
    """d @ s, d strided and s sparse (gcn's renormalization, D @ A @ D): strided, and s's
    gradient strided, as torch.mm's (Tensor.mm checked the shapes)."""
    coo, dense = s._value, d.detach()._concrete()
    made = product(coo, dense.T, transposed=True).T  # (s.T @ d.T).T

    def backward(g):
        grad = g.detach()._concrete()
        return wrap(product(coo, grad.T).T), wrap(dense.T @ grad)
    return recorded("MmBackward0", wrap(made), (d, s), backward)


def sparse_product(a, b):
    """The product of two sparse matrices, sparse and coalesced: an entry wherever a row of a
    and a column of b share an index."""
    ca, cb = K.coalesced(a._value), K.coalesced(b._value)
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
                           f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
    dense_a, dense_b = K.dense(ca), K.dense(cb)
    reached = K.dense(ca.with_values(np.ones(ca.nnz))) @ K.dense(cb.with_values(np.ones(cb.nnz)))
    out = a._made(K.from_dense(dense_a @ dense_b, 2, reached > 0))

    def backward(g):  # sparse products again, g @ b.T and a.T @ g, kept to each pattern
        g = g.detach() if g._sparse_layout else g.detach().to_sparse()
        return (_kept_to(sparse_product(g, b.detach().t()), a),
                _kept_to(sparse_product(a.detach().t(), g), b))
    return recorded("SparseSparseMatmulBackward0", out, (a, b), backward)


def _kept_to(product, operand):
    """A sparse gradient restricted to its operand's entries as PyTorch's sparse_mask of two
    sparse tensors does it: at a coalesced operand's indices, else at the product's with the
    values the operand lacks zeroed."""
    coo, mask = product._value, operand._value
    if mask.coalesced:
        return operand._made(K.masked(K.dense(coo), mask))
    present = np.isin(coo.linear(), mask.linear())
    values = coo.values * present.reshape((-1,) + (1,) * (coo.values.ndim - 1))
    return operand._made(K.Coo(coo.indices, values, coo.shape))


def sparse_sum(s, dim=None, dtype=None, name="SparseSumBackward0", method=False):
    """The sum over `dim` (all dimensions: a 0-d strided tensor); summing some sparse
    dimensions keeps the others sparse and coalesced, summing only dense ones keeps the
    pattern. The gradient is g spread back over s's pattern; Tensor.sum's (`method`) is g
    expanded, strided, or over some dimensions refused (it cannot expand a sparse g)."""
    if dtype is not None:
        s = s.to(dtype)
    base = s._coalesce()
    coo = base._value
    dims = [] if dim is None else \
        sorted({_check_dim(d, s.dim()) for d in ((dim,) if isinstance(dim, int) else dim)})

    def backward(g):
        if method and dims:
            raise RuntimeError("expand is unsupported for Sparse tensors")
        spread = np.broadcast_to(_expand(strided(g), dims), coo.shape)
        return (wrap(spread.copy()) if method else s._made(K.masked(spread, coo, not dims)),)
    if dim is None:
        total = np.asarray(coo.values.sum(dtype=coo.values.dtype))
        return recorded("SumBackward0", wrap(total), (base,), backward)
    kept = [d for d in range(coo.sparse_dim) if d not in dims]
    dense_axes = tuple(d - coo.sparse_dim + 1 for d in dims if d >= coo.sparse_dim)
    values = coo.values.sum(dense_axes) if dense_axes else coo.values
    if not kept:
        return recorded(name, wrap(values.sum(0)), (base,), backward)
    shape = tuple(n for d, n in enumerate(coo.shape) if d not in dims)
    out = K.coalesced(K.Coo(coo.indices[kept], values, shape, len(kept) == coo.sparse_dim))
    return recorded(name, s._made(out), (base,), backward)


def _expand(g, dims):
    """g with the summed dimensions put back as size 1."""
    for d in dims:
        g = np.expand_dims(g, d)
    return g


def softmax(s, dim, log=False):
    """Softmax over the specified entries along `dim` (the unspecified ones are -inf),
    entry by entry of any dense dimensions."""
    base = s._coalesce()
    coo = base._value
    dim = _check_dim(dim, s.dim())
    groups = _groups(coo, dim)
    axis = dim - coo.sparse_dim + 1 if dim >= coo.sparse_dim else 0
    x = coo.values.astype(np.float64)  # PyTorch's kernel sums the exponentials this wide
    y = np.empty_like(x)
    for members in groups:
        v = x[members]
        shifted = v - v.max(axis, keepdims=True)
        total = np.exp(shifted).sum(axis, keepdims=True)
        y[members] = shifted - np.log(total) if log else np.exp(shifted) / total
    y = y.astype(coo.values.dtype)
    out = s._made(coo.with_values(y))

    def backward(g):
        gv = K.gather(strided(g), coo)
        grad = np.empty_like(gv)
        for members in groups:
            gm, ym = gv[members], y[members]
            grad[members] = gm - np.exp(ym) * gm.sum(axis, keepdims=True) if log else \
                ym * (gm - (gm * ym).sum(axis, keepdims=True))
        return (s._made(coo.with_values(grad, coalesced=False)),)
    name = "SparseLogSoftmaxBackward0" if log else "SparseSoftmaxBackward0"
    return recorded(name, out, (base,), backward)


def _groups(coo, dim):
    """The entries softmax normalizes together: those equal in every sparse index but
    `dim`'s. Along a dense dim each entry is normalized alone, which one group of all entries
    does at once (the axis is then within each entry's block)."""
    if not coo.nnz:
        return []
    if dim >= coo.sparse_dim:
        return [np.arange(coo.nnz)]
    others = np.delete(coo.indices, dim, axis=0)
    _, label = np.unique(others.T, axis=0, return_inverse=True)
    label = np.asarray(label).reshape(-1)
    order = np.argsort(label, kind="stable")
    return np.split(order, np.cumsum(np.bincount(label))[:-1])


class SparseLinear:
    """The product, reduction and reindexing methods of SparseTensor."""

    def mm(self, mat2):
        if mat2._sparse_layout:
            return sparse_product(self, mat2)
        return addmm(None, self, mat2, name="MmBackward0")

    def matmul(self, other):
        if other.dim() == 1:
            return self.mm(other.unsqueeze(1)).squeeze(1)
        return self.mm(other)

    __matmul__ = matmul

    def mv(self, vec):
        return self.mm(vec.unsqueeze(1)).squeeze(1)

    def sum(self, dim=None, keepdim=False, *, dtype=None):
        return sparse_sum(self, dim, dtype, "SumBackward1", method=True)

    def t(self):
        if self.sparse_dim() + self.dense_dim() > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, "
                               f"but got {self.sparse_dim()} sparse and {self.dense_dim()} "
                               "dense dimensions")
        return self.transpose(0, 1, name="TBackward0") if self.dim() == 2 else self

    def transpose(self, dim0, dim1, name="TransposeBackward0"):
        coo, rank = self._value, self.dim()
        dim0, dim1 = _check_dim(dim0, rank), _check_dim(dim1, rank)
        sparse = coo.sparse_dim
        if max(dim0, dim1) >= sparse:
            raise RuntimeError(f"sparse transpose: transposed dimensions must be sparse Got "
                               f"sparse_dim: {sparse}, d0: {dim0}, d1: {dim1}")
        order = list(range(rank))
        order[dim0], order[dim1] = dim1, dim0
        rows = order[:sparse]
        out = K.Coo(coo.indices[rows], coo.values, tuple(coo.shape[d] for d in order),
                    coo.coalesced and dim0 == dim1)
        return recorded(name, self._made(out), (self,),
                        lambda g: (g.transpose(dim0, dim1),))

    swapaxes = swapdims = transpose

    def narrow_copy(self, dim, start, length):
        """The entries with dim's index in [start, start + length), shifted to start at 0."""
        coo = self._value
        dim = _check_dim(dim, self.dim())
        shape = coo.shape[:dim] + (length,) + coo.shape[dim + 1:]
        if dim < coo.sparse_dim:
            keep = (coo.indices[dim] >= start) & (coo.indices[dim] < start + length)
            indices = coo.indices[:, keep].copy()
            indices[dim] -= start
            out = K.Coo(indices, coo.values[keep], shape, coo.coalesced)
        else:
            cut = [slice(None)] * coo.values.ndim
            cut[dim - coo.sparse_dim + 1] = slice(start, start + length)
            out = K.Coo(coo.indices.copy(), coo.values[tuple(cut)].copy(), shape, coo.coalesced)

        return recorded("NarrowCopyBackward0", self._made(out), (self,),
                        _fails(not_on_sparse("as_strided")))

    def select(self, dim, index):
        """The entries at `index` along `dim`, that dimension dropped: a strided tensor (their
        sum) once no sparse dimension is left."""
        coo = self._value
        dim = _check_dim(dim, self.dim())
        index = index + coo.shape[dim] if index < 0 else index
        rows = [d for d in range(coo.sparse_dim) if d != dim]
        if dim >= coo.sparse_dim:
            out = self._made(K.Coo(coo.indices, np.take(coo.values, index, dim - coo.sparse_dim
                                                        + 1), coo.shape[:dim] +
                                   coo.shape[dim + 1:], coo.coalesced))
        else:
            keep = coo.indices[dim] == index
            if rows:
                out = self._made(K.Coo(coo.indices[rows][:, keep], coo.values[keep],
                                       coo.shape[:dim] + coo.shape[dim + 1:]))
            else:
                out = wrap(coo.values[keep].sum(0))
        return recorded("SelectBackward0", out, (self,), _fails(not_on_sparse("select_backward")))

    def __getitem__(self, index):
        if isinstance(index, int):
            return self.select(0, index)
        raise not_on_sparse("as_strided")

    def index_select(self, dim, index):
        """For each position of `index` in turn, the entries at that index along `dim`, in
        their order."""
        coo = self._value
        dim = _check_dim(dim, self.dim())
        chosen = index.detach()._concrete().reshape(-1).astype(np.int64)
        shape = coo.shape[:dim] + (chosen.size,) + coo.shape[dim + 1:]
        if dim < coo.sparse_dim:
            position, entry = np.nonzero(coo.indices[dim][None, :] == chosen[:, None])
            indices = coo.indices[:, entry].copy()
            indices[dim] = position
            out = K.Coo(indices, coo.values[entry], shape, False)
        else:
            out = K.Coo(coo.indices.copy(), np.take(coo.values, chosen,
                                                    dim - coo.sparse_dim + 1), shape,
                        coo.coalesced)
        return recorded("IndexSelectBackward0", self._made(out), (self,),
                        _fails(not_on_sparse("index_add_")))
