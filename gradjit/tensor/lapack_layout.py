"""The memory PyTorch's LAPACK-backed results get: each matrix stored by columns, as LAPACK
writes it, with the batch outermost, in storage of its own. gradjit's linear algebra computes
row-major parts of one packed value; laying its results out so makes the stride-dependent
decisions that follow (reshape as a view or an alias, contiguous(), is_contiguous(),
stride()) PyTorch's."""
from __future__ import annotations

import math

import numpy as np

from gradjit.tensor.graph import Record


def by_columns(t, rows=None, vector=False):
    """t with each matrix (its last two dimensions; a column where `vector`) stored by
    columns. `rows`: the columns' length in storage where LAPACK's buffer is taller than t
    (lstsq's solution: the first rows of a buffer as tall as A), the rows past t's zero."""
    value = t._value
    if type(value) is not np.ndarray or value.ndim < 2 - vector:
        return by_rows(t)
    matrices = value[..., None] if vector else value
    *batch, m, n = matrices.shape
    sizes = (*batch, n, max(m, rows or m))  # in storage: each column after the one before
    steps = [1] * len(sizes)
    for i in reversed(range(len(sizes) - 1)):  # PyTorch's row-major steps (an empty size: 1)
        steps[i] = steps[i + 1] * max(sizes[i + 1], 1)
    steps[-2:] = [1, sizes[-1]]
    storage = np.zeros(math.prod(sizes), value.dtype)
    # numpy would give an empty array's dimensions 0 steps; PyTorch keeps the layout's
    laid = np.ndarray(matrices.shape, value.dtype, buffer=storage,
                      strides=tuple(s * value.itemsize for s in steps))
    laid[...] = matrices
    return _own(t, laid[..., 0] if vector else laid)


def by_rows(t):
    """t row-major in storage of its own (not a part of the packed value it was cut from)."""
    value = t._value
    if type(value) is not np.ndarray or value.base is None and value.flags.c_contiguous:
        return _own(t, value)
    return _own(t, value.copy(order="C"))


def _own(t, value):
    """t holding `value` (a layout of its elements) and no longer a view of the packed
    intermediate it was cut from; it keeps that value's version counter, so that an in-place
    write into it still stales what the operation saved for backward, as in PyTorch. A traced
    value is left as it is: compiled code lays it out row-major."""
    old = t._value
    if type(old) is not np.ndarray:
        return t
    t._value, t._base, t._view_fn, t._no_grad_view = value, None, None, False
    record = t._edge
    if isinstance(record, Record) and record.out.value is old:  # backward's saved output
        record.out.value = value
    return t
