"""The numpy kernels of the COO layout: coalescing, densifying, masking and the merge that
PyTorch's CPU addition walks; every sparse operation builds on these."""
from __future__ import annotations

import math

import numpy as np


class Coo:
    """A sparse COO tensor's storage: indices (sparse_dim, nnz) int64, values (nnz, *dense),
    the full shape and whether the indices are known sorted and unique."""

    __slots__ = ("indices", "values", "shape", "coalesced")

    def __init__(self, indices, values, shape, coalesced=False):
        self.indices, self.values = indices, values
        self.shape, self.coalesced = tuple(shape), coalesced

    @property
    def sparse_dim(self) -> int:
        return self.indices.shape[0]

    @property
    def nnz(self) -> int:
        return self.indices.shape[1]

    def linear(self) -> np.ndarray:
        """Each entry's position in the row-major order of the sparse dimensions."""
        sizes = self.shape[:self.sparse_dim]
        strides = [math.prod(sizes[k + 1:]) for k in range(len(sizes))]
        return np.asarray(strides, np.int64) @ self.indices if sizes else \
            np.zeros(self.nnz, np.int64)

    def take(self, other: Coo):
        """Hold other's entries instead (an in-place operation's result)."""
        self.indices, self.values = other.indices, other.values
        self.shape, self.coalesced = other.shape, other.coalesced

    def with_values(self, values, coalesced=None) -> Coo:
        return Coo(self.indices, values, self.shape,
                   self.coalesced if coalesced is None else coalesced)


def coalesced(coo: Coo) -> Coo:
    """Indices sorted and unique, the values at one index summed in their order."""
    if coo.coalesced:
        return coo
    linear = coo.linear()
    order = np.argsort(linear, kind="stable")
    keys = linear[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if keys.size else \
        np.zeros(0, np.int64)
    values = np.add.reduceat(coo.values[order], starts, axis=0) if keys.size else \
        coo.values.copy()
    return Coo(coo.indices[:, order[starts]], values.astype(coo.values.dtype, copy=False),
               coo.shape, True)


def dense(coo: Coo) -> np.ndarray:
    """The strided array, duplicates summed."""
    if not coo.sparse_dim:  # the values' one block (or, uncoalesced, their sum)
        return coo.values.sum(0).astype(coo.values.dtype)
    out = np.zeros(coo.shape, coo.values.dtype)
    np.add.at(out, tuple(coo.indices), coo.values)
    return out


def from_dense(array: np.ndarray, sparse_dim: int, pattern=None) -> Coo:
    """The entries of `array` whose block over the trailing dense dimensions is not all
    zero (or where the boolean `pattern` holds), in row-major order."""
    blocks = array.reshape(array.shape[:sparse_dim] + (-1,)) if array.ndim > sparse_dim else \
        array[..., None]
    found = blocks.any(-1) if pattern is None else pattern
    kept = np.nonzero(found) if sparse_dim else (np.zeros(1, np.int64),)
    indices = np.stack(kept).astype(np.int64) if sparse_dim else np.zeros((0, 1), np.int64)
    values = array[kept] if sparse_dim else array[None]
    return Coo(indices, np.ascontiguousarray(values), array.shape, True)


def gather(array: np.ndarray, coo: Coo) -> np.ndarray:
    """array's blocks at each of coo's indices (duplicates read again)."""
    return array[tuple(coo.indices)]


def merged(a: Coo, b: Coo, alpha=1) -> Coo:
    """a + alpha * b as PyTorch's CPU kernel makes it: one walk over both entry lists in
    step, an index met in both at once summed, the lower of two taken first, the rest
    appended; the result is flagged coalesced when its indices came out increasing."""
    if a.nnz == 0 or b.nnz == 0:
        source = b if a.nnz == 0 else a
        scale = alpha if a.nnz == 0 else 1
        return Coo(source.indices.copy(), source.values * scale if scale != 1 else
                   source.values.copy(), a.shape, source.coalesced)
    left, right = _walk(a.linear(), b.linear())
    zero = np.zeros((1,) + a.values.shape[1:], np.result_type(a.values, b.values))
    va = np.concatenate([a.values, zero])[left]  # -1 reads the zero row
    vb = np.concatenate([b.values, zero])[right]
    indices = np.where(left >= 0, a.indices[:, left], b.indices[:, right])
    out = Coo(indices, va + alpha * vb, a.shape)
    out.coalesced = bool(np.all(np.diff(out.linear()) > 0))
    return out


def _walk(la, lb):
    """The merge walk over two lists of positions: for each result entry, where it comes from
    in a and in b (-1: not there). Equal lists pair up and increasing ones make their sorted
    union, without the walk in Python that the general case takes."""
    if np.array_equal(la, lb):
        return np.arange(la.size), np.arange(lb.size)
    if np.all(np.diff(la) > 0) and np.all(np.diff(lb) > 0):
        keys = np.union1d(la, lb)
        return (_found(la, keys), _found(lb, keys))
    picks, i, j = [], 0, 0
    while i < la.size and j < lb.size:
        if la[i] == lb[j]:
            picks.append((i, j))
            i, j = i + 1, j + 1
        elif la[i] < lb[j]:
            picks.append((i, -1))
            i += 1
        else:
            picks.append((-1, j))
            j += 1
    picks += [(k, -1) for k in range(i, la.size)] + [(-1, k) for k in range(j, lb.size)]
    return np.array(picks, np.int64).reshape(-1, 2).T


def _found(sorted_keys, keys):
    """Where each of `keys` sits in the increasing `sorted_keys`, -1 where absent."""
    at = np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.size - 1)
    return np.where(sorted_keys[at] == keys, at, -1)


def masked(array: np.ndarray, mask: Coo, coalesced_flag=False) -> Coo:
    """array's blocks at the coalesced pattern of `mask`: the gradient of a sparse operand,
    which PyTorch flags uncoalesced though its indices are unique (`coalesced_flag`)."""
    pattern = coalesced(mask)
    return Coo(pattern.indices.copy(), gather(array, pattern).astype(array.dtype), mask.shape,
               coalesced_flag)
