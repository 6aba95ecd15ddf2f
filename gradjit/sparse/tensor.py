"""The sparse COO Tensor: its storage (indices, values, size), metadata, coalescing,
conversions to and from the strided layout and PyTorch's printing of it."""
from __future__ import annotations

import numpy as np

from gradjit.ir.types import TensorType
from gradjit.sparse import storage as K
from gradjit.sparse.arith import SparseArith
from gradjit.sparse.autograd import recorded, strided, wrap
from gradjit.sparse.linear import SparseLinear
from gradjit.tensor import dtypes, printing
from gradjit.tensor.layout import sparse_coo, sparse_csr
from gradjit.tensor.tensor import Tensor


def make(coo) -> SparseTensor:
    return SparseTensor._wrap(coo)


class SparseTensor(SparseArith, SparseLinear, Tensor):
    """A tensor in the sparse COO layout; `_value` is its storage.Coo, and an operation on
    it records its own backward (autograd.recorded), as PyTorch's sparse kernels do."""

    __gradjit_priority__ = 6  # above strided tensors: a primitive meeting one comes here
    is_sparse = _sparse_layout = True
    layout = sparse_coo

    # ---- metadata ----

    @property
    def shape(self) -> dtypes.Size:
        return dtypes.Size(self._value.shape)

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.of_numpy(self._value.values.dtype)

    @property
    def ir_type(self) -> TensorType:
        """The full shape's type: an operation promotes by it, then reaches
        __gradjit_bind__, which refuses a primitive with no sparse kernel by its name."""
        return TensorType(self._value.shape, self.dtype.ir)

    def sparse_dim(self) -> int:
        return self._value.sparse_dim

    def dense_dim(self) -> int:
        return len(self._value.shape) - self._value.sparse_dim

    def _nnz(self) -> int:
        return self._value.nnz

    def is_coalesced(self) -> bool:
        return self._value.coalesced

    def is_contiguous(self, memory_format=None) -> bool:
        return False

    def _concrete(self):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                        "first.")

    __gradjit_constant__ = _concrete

    def numpy(self, *, force=False):
        return self._concrete()

    # ---- indices and values ----

    def _indices(self) -> Tensor:
        return wrap(self._value.indices)

    def _values(self) -> Tensor:
        return wrap(self._value.values)

    def indices(self) -> Tensor:
        self._check_coalesced("indices")
        return self._indices()

    def values(self) -> Tensor:
        """The values, a view whose gradient reaches this tensor as a sparse one."""
        self._check_coalesced("values")
        coo = self._value
        return recorded("ValuesBackward0", wrap(coo.values), (self,),
                        lambda g: (self._made(coo.with_values(g.detach()._concrete())),))

    def _check_coalesced(self, what):
        if not self._value.coalesced:
            raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call "
                               ".coalesce() first")

    def coalesce(self) -> SparseTensor:
        if self._value.coalesced:
            return self
        return recorded("CoalesceBackward0", make(K.coalesced(self._value)), (self,),
                        lambda g: (g,))

    _coalesce = coalesce  # what the operations that coalesce first call (CSR refuses coalesce)

    # ---- conversions ----

    def to_dense(self, dtype=None, *, masked_grad=True) -> Tensor:
        """The strided tensor; its gradient comes back at this tensor's (coalesced) pattern,
        or (masked_grad=False) wherever the strided gradient is not zero."""
        coo = self._value

        def backward(g):
            grad = strided(g)
            if masked_grad:
                return (self._made(K.masked(grad, coo)),)
            spread = K.from_dense(grad, coo.sparse_dim)
            spread.coalesced = False  # as PyTorch flags it
            return (self._made(spread),)
        out = recorded("ToDenseBackward0", wrap(K.dense(coo)), (self,), backward)
        return out if dtype is None else out.to(dtype)

    def to_sparse(self, *args, layout=None, **kwargs):
        return self.to_sparse_csr() if layout is sparse_csr else self

    def to_sparse_csr(self, dense_dim=None):
        """The coalesced entries in the CSR layout; the gradient comes back in COO."""
        from gradjit.sparse.csr import SparseCsrTensor
        coo = K.coalesced(self._value)
        return recorded("ToSparseCsrBackward0", SparseCsrTensor._wrap(coo), (self,),
                        lambda g: (make(K.masked(strided(g), coo)),))

    def clone(self, *, memory_format=None) -> SparseTensor:
        coo = self._value
        copy = K.Coo(coo.indices.copy(), coo.values.copy(), coo.shape, coo.coalesced)
        return recorded("CloneBackward0", self._made(copy), (self,), lambda g: (g,))

    @property
    def data(self) -> SparseTensor:
        return self.detach()

    @data.setter
    def data(self, other):
        self._value = other._value

    def detach(self) -> SparseTensor:
        out = self._made(K.Coo(self._value.indices, self._value.values, self._value.shape,
                               self._value.coalesced))
        out._counter = self._counter
        return out

    def to(self, *args, dtype=None, **kwargs) -> SparseTensor:
        for arg in args:
            if isinstance(arg, dtypes.dtype):
                dtype = arg
        target = self.dtype if dtype is None else dtypes.to_dtype(dtype)
        if target is self.dtype and not kwargs.get("copy"):
            return self
        source = self.dtype
        coo = self._value
        return recorded("ToCopyBackward0",
                        self._made(coo.with_values(coo.values.astype(target.ir.numpy))), (self,),
                        lambda g: (g.to(source),))

    def sparse_resize_(self, size, sparse_dim, dense_dim):
        """New size and sparse/dense dimension counts; where entries exist, only growing the
        dimensions, keeping their counts."""
        self._check_inplace()
        size, coo = tuple(size), self._value
        _check_dims(size, sparse_dim, dense_dim)
        if coo.nnz:
            old = (coo.sparse_dim, self.dense_dim())
            for kind, was, now in (("dense", old[1], dense_dim), ("sparse", old[0], sparse_dim)):
                if was != now:
                    _refuse_resize(f"changing the number of {kind} dimensions (from {was} to "
                                   f"{now})")
            for kind, part in (("sparse", slice(0, sparse_dim)),
                               ("dense", slice(sparse_dim, None))):
                if any(n < o for n, o in zip(size[part], coo.shape[part])):
                    _refuse_resize(f"shrinking the size of {kind} dimensions (from "
                                   f"{list(coo.shape[part])} to {list(size[part])})")
        else:
            coo.indices = np.zeros((sparse_dim, 0), np.int64)
            coo.values = np.zeros((0,) + size[sparse_dim:], coo.values.dtype)
        coo.shape = size
        return self

    def zero_(self):
        """No entries left (the size and dimension counts kept)."""
        self._check_inplace()
        coo = self._value
        coo.indices = np.zeros((coo.sparse_dim, 0), np.int64)
        coo.values = np.zeros((0,) + coo.values.shape[1:], coo.values.dtype)
        coo.coalesced = True
        return self

    def copy_(self, src, non_blocking=False):
        """src's entries (cast to this dtype) in place of this tensor's."""
        if not src._sparse_layout:
            return super().copy_(src, non_blocking)
        self._check_inplace()
        coo = src._value
        self._value.take(K.Coo(coo.indices.copy(), coo.values.astype(self._value.values.dtype),
                               coo.shape, coo.coalesced))
        return self

    def type(self, dtype=None, non_blocking=False):
        return f"torch.sparse.{self.dtype.legacy}Tensor" if dtype is None else \
            super().type(dtype, non_blocking)

    def __reduce__(self):
        return _rebuilt, (type(self), self._value, self.requires_grad)

    def __repr__(self):
        return _repr(self)

    __str__ = __repr__


SparseTensor._layout_class = SparseTensor  # what its operations return


def _rebuilt(cls, coo, requires_grad):
    """A pickled sparse tensor again (a leaf, as copies of tensors are)."""
    out = cls._wrap(coo)
    return out.requires_grad_() if requires_grad else out


def _repr(t) -> str:
    coo = t._value
    return described(t, (("indices", coo.indices), ("values", coo.values)), force_newline=True)


def described(t, parts, force_newline) -> str:
    """PyTorch's printing of a sparse tensor: each (name, array) of `parts` as
    name=tensor(...) on its own line, then size, nnz, dtype, layout and autograd state."""
    coo, indent = t._value, len("tensor(")
    suffixes = [f"size={coo.shape}", f"nnz={coo.nnz}"]
    default = dtypes.get_default_dtype()
    if t.dtype not in (default, default.to_complex(), dtypes.int64, dtypes.bool_):
        suffixes.append(f"dtype={t.dtype}")
    shown = []
    for name, array in parts:
        text = printing.tensor_str(array, indent + len(name) + len("=tensor("))
        if array.size == 0:
            text += f", size={array.shape}"
        shown.append(f"{name}=tensor({text})")
    suffixes.append(f"layout={t.layout}")
    fn = t.grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{type(fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    body = "tensor(" + (",\n" + " " * indent).join(shown)
    return printing.add_suffixes(body, suffixes, indent, force_newline=force_newline)


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None,
                      is_coalesced=None) -> SparseTensor:
    """A sparse tensor of `values` at `indices` (sparse_dim x nnz); size: the largest index
    plus one along each sparse dimension when not given. The values are shared, not
    copied."""
    from gradjit.tensor.factories import tensor
    indices = indices if isinstance(indices, Tensor) else tensor(indices)
    values = values if isinstance(values, Tensor) else tensor(values, dtype=dtype)
    if dtype is not None and values.dtype is not dtypes.to_dtype(dtype):
        values = values.to(dtype)
    index = indices.detach()._concrete().astype(np.int64, copy=False)
    sparse_dim = index.shape[0] if index.ndim else 0
    if index.ndim == 1:  # PyTorch reads a 1-d indices tensor's length as sparse_dim
        index = index.reshape(sparse_dim, -1) if index.size else index.reshape(0, 0)
    array = values.detach()._concrete()
    if size is None:
        size = tuple(int(m) + 1 for m in (index.max(1) if index.shape[1] else
                                           np.full(sparse_dim, -1))) + array.shape[1:]
    size = tuple(size)
    _check_dims(size, sparse_dim, array.ndim - 1)
    if index.shape[1] != array.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{index.shape[1]}, nnz from values: {array.shape[0]}")
    if check_invariants or check_invariants is None and _checking():
        _check_indices(index, size)
    _invariants().warn_if_implicit(check_invariants)
    coalesced = index.shape[1] <= 1 if is_coalesced is None else is_coalesced
    out = make(K.Coo(index, array, size, coalesced))
    if requires_grad:
        if not (out.dtype.is_floating_point or out.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        out.requires_grad_()
        return out
    return recorded("SparseCooTensorWithDimsAndTensorsBackward0", out, (values,),
                    lambda g: (wrap(K.gather(strided(g), K.Coo(index, array, size))),))


def zeros(shape, sparse_dim, dtype, requires_grad=False) -> SparseTensor:
    """A sparse tensor of `shape` without entries (sparse_dim None: every dimension)."""
    sparse_dim = len(shape) if sparse_dim is None else sparse_dim
    out = make(K.Coo(np.zeros((sparse_dim, 0), np.int64),
                     np.zeros((0,) + tuple(shape)[sparse_dim:], dtype.ir.numpy), shape, True))
    return out.requires_grad_() if requires_grad else out


def to_sparse(self, *args, layout=None, blocksize=None, dense_dim=None):
    """A strided tensor in the COO layout (the first `sparse_dim` dimensions sparse, default
    all): the entries whose blocks are not all zero. layout=torch.sparse_csr: in CSR."""
    if layout is sparse_csr:
        return self.to_sparse_csr()
    sparse_dim = args[0] if args else self.dim() if dense_dim is None else \
        self.dim() - dense_dim
    if not 0 <= sparse_dim <= self.dim():
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{self.dim()}] "
                           f"range, but {sparse_dim} is given")
    name = "ToSparseSparseDimBackward0" if args else "ToSparseBackward1"
    return recorded(name, make(K.from_dense(self.detach()._concrete(), sparse_dim)), (self,),
                    lambda g: (wrap(strided(g)),))


def sparse_mask(self, mask) -> SparseTensor:
    """This strided tensor's blocks at each of sparse `mask`'s indices."""
    coo = mask._value
    picked = coo.with_values(K.gather(self.detach()._concrete(), coo))
    return recorded("SparseMaskBackward0", make(picked),
                    (self,), lambda g: (wrap(strided(g)),))


def _invariants():
    from gradjit.sparse.functions import check_sparse_tensor_invariants
    return check_sparse_tensor_invariants


def _checking() -> bool:
    return _invariants().is_enabled()


def _check_indices(index, size):
    """Each sparse dimension's indices within [0, size), as check_invariants asks."""
    for d, row in enumerate(index):
        if row.size and row.min() < 0:
            raise RuntimeError(f"found negative index {row.min()} for dim {d}")
        if row.size and row.max() >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                               f"{size[d]} but found index {row.max()}")


def _check_dims(size, sparse_dim, dense_dim):
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) "
                           f"= {len(size)}, sparse_dim = {sparse_dim}, dense_dim = {dense_dim}")


def _refuse_resize(what):
    raise RuntimeError(
        f"{what} on a non-empty sparse tensor is not supported.\nYou could try the following "
        "options:\n1. If you need an empty sparse tensor of this size, call `x = "
        "torch.sparse_coo_tensor(size)`.\n2. If you need to resize this tensor, you have the "
        "following options:\n    1. For both sparse and dense dimensions, keep the number of "
        "them constant and the size of them non-shrinking, and then try the same call again."
        "\n    2. Or, create a new sparse tensor with the correct indices and values from this "
        "sparse tensor.")
