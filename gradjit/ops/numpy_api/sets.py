"""numpy's set operations on 1-d arrays (union1d, intersect1d, setdiff1d, setxor1d), in
numpy's own steps: sort, compare neighbours, keep the flagged ones. How many are kept is
read from the values (guarded under tracing); which ones and their values are computed."""
from __future__ import annotations

import numpy as np

from gradjit import ops
from gradjit.ops import sorting as O
from gradjit.ops.numpy_api.dtypes import _isin


def _flat(a):
    return ops.ravel(ops.asarray(np.asarray(a) if isinstance(a, (list, tuple)) else a))


def _union1d(ar1, ar2):
    return O.unique(ops.concatenate([_flat(ar1), _flat(ar2)]))


def _neighbours(aux):
    return ops.getitem(aux, slice(None, -1)), ops.getitem(aux, slice(1, None))


def _intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The values in both, sorted; with return_indices, where each first occurs in ar1, ar2."""
    ar1, ar2 = _flat(ar1), _flat(ar2)
    if not assume_unique:
        (ar1, first1), (ar2, first2) = (O.unique(a, return_index=True) for a in (ar1, ar2))
    aux = ops.concatenate([ar1, ar2])
    order = O.argsort(aux, 0)
    before, after = _neighbours(ops.take(aux, order))
    common, positions = O.flagged(before, ops.eq(before, after))
    if not return_indices:
        return common
    order_before, order_after = _neighbours(order)
    in1 = ops.take(order_before, positions)
    in2 = ops.sub(ops.take(order_after, positions), ops.shape_of(ar1)[0])
    if not assume_unique:
        in1, in2 = ops.take(first1, in1), ops.take(first2, in2)
    return common, in1, in2


def _setdiff1d(ar1, ar2, assume_unique=False):
    ar1 = _flat(ar1) if assume_unique else O.unique(_flat(ar1))
    return O.flagged(ar1, _isin(ar1, O.unique(_flat(ar2)), invert=True))[0]


def _setxor1d(ar1, ar2, assume_unique=False):
    """The values in exactly one of them, sorted."""
    ar1, ar2 = _flat(ar1), _flat(ar2)
    if not assume_unique:
        ar1, ar2 = O.unique(ar1), O.unique(ar2)
    aux = O.sort(ops.concatenate([ar1, ar2]), 0)
    if not ops.shape_of(aux)[0]:
        return aux
    before, after = _neighbours(aux)
    edge = np.ones(1, bool)
    differs = ops.concatenate([edge, ops.ne(after, before), edge])
    alone = ops.logical_and(*_neighbours(differs))
    return O.flagged(aux, alone)[0]


FUNCTIONS = {np.union1d: _union1d, np.intersect1d: _intersect1d, np.setdiff1d: _setdiff1d,
             np.setxor1d: _setxor1d}
