"""The sparse CSR layout of matrices: compressed row pointers, column indices and values. It
holds the coalesced COO storage of the same entries (rows in order), so the COO operations
serve it; only its constructors, accessors, conversions and printing are its own."""
from __future__ import annotations

import numpy as np

from gradjit.sparse import storage as K
from gradjit.sparse.autograd import recorded, strided, wrap
from gradjit.sparse.tensor import SparseTensor, described, make
from gradjit.tensor.layout import sparse_csr
from gradjit.tensor.tensor import Tensor


def _refused(name):
    def method(self, *args, **kwargs):
        raise RuntimeError(f"{name} expected sparse coordinate tensor layout but got SparseCsr")
    method.__name__ = name
    return method


class SparseCsrTensor(SparseTensor):
    """A matrix in the CSR layout (its `_value` the Coo of its entries, row-major)."""

    is_sparse = False
    is_sparse_csr = True
    layout = sparse_csr
    indices, _indices, coalesce, is_coalesced = map(_refused, (
        "indices", "_indices", "coalesce", "is_coalesced"))

    def _coalesce(self):
        return self

    def _check_coalesced(self, what):
        """A CSR tensor's entries are in order whatever its storage's flag says."""

    def crow_indices(self) -> Tensor:
        """Where each row's entries start among the values, then their count."""
        coo = self._value
        counts = np.bincount(coo.indices[0], minlength=coo.shape[0])
        return wrap(np.concatenate([[0], np.cumsum(counts)]).astype(np.int64))

    def col_indices(self) -> Tensor:
        return wrap(self._value.indices[1])

    def to_sparse(self, *args, **kwargs) -> SparseTensor:
        coo = self._value
        copy = K.Coo(coo.indices.copy(), coo.values, coo.shape, True)
        return recorded("ToSparseBackward1", make(copy), (self,),
                        lambda g: (self._made(K.masked(strided(g), coo)),))

    to_sparse_coo = to_sparse

    def to_sparse_csr(self, dense_dim=None):
        return self

    def transpose(self, dim0, dim1, name="TransposeBackward0"):
        """Of the COO form: gradjit has no CSC layout to give it in."""
        return self.to_sparse().transpose(dim0, dim1)

    def t(self):
        return self.to_sparse().t()

    def __repr__(self):
        coo = self._value
        return described(self, (("crow_indices", self.crow_indices()._value),
                                ("col_indices", coo.indices[1]), ("values", coo.values)),
                         force_newline=False)

    __str__ = __repr__


SparseCsrTensor._layout_class = SparseCsrTensor


def _csr(coo) -> SparseCsrTensor:
    return SparseCsrTensor._wrap(coo)


def to_sparse_csr(self) -> SparseCsrTensor:
    """A strided matrix's nonzero entries in the CSR layout."""
    coo = K.from_dense(self.detach()._concrete(), self.dim())
    return recorded("ToSparseCsrBackward0", _csr(coo), (self,), lambda g: (wrap(strided(g)),))


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None,
                      device=None, pin_memory=False, requires_grad=False,
                      check_invariants=None) -> SparseCsrTensor:
    """The matrix whose row r holds values[crow[r]:crow[r + 1]] at those columns; size: the
    rows crow describes and the largest column plus one when not given."""
    from gradjit.tensor.factories import tensor
    crow, col = (np.asarray(x.detach()._concrete() if isinstance(x, Tensor) else x, np.int64)
                 for x in (crow_indices, col_indices))
    values = values if isinstance(values, Tensor) else tensor(values, dtype=dtype)
    if dtype is not None and values.dtype is not dtype:
        values = values.to(dtype)
    rows = np.repeat(np.arange(crow.size - 1), np.diff(crow))
    shape = tuple(size) if size is not None else \
        (crow.size - 1, int(col.max()) + 1 if col.size else 0)
    coo = K.Coo(np.stack([rows, col]), values.detach()._concrete(), shape, True)
    from gradjit.sparse.functions import check_sparse_tensor_invariants
    check_sparse_tensor_invariants.warn_if_implicit(check_invariants)
    out = _csr(coo)
    if requires_grad:
        return out.requires_grad_()
    return recorded("SparseCompressedTensorBackward0", out, (values,),
                    lambda g: (wrap(K.gather(strided(g), coo)),))
