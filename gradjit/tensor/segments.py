"""torch.segment_reduce: consecutive runs of `data` along an axis (given by their lengths or
offsets) each reduced to one value, written with Tensor reductions so gradients follow."""
from __future__ import annotations

import math

import numpy as np

from gradjit.tensor.arith import apply
from gradjit.tensor.base import _check_dim

# reduction -> (Tensor method over a dim, value of an empty segment, how `initial` joins)
_REDUCTIONS = {
    "sum": ("sum", 0.0, lambda r, init, n: r + init),
    "prod": ("prod", 1.0, lambda r, init, n: r * init),
    "mean": ("mean", math.nan, lambda r, init, n: (r * n + init) / max(n, 1)),
    "max": ("amax", -math.inf, lambda r, init, n: r.clamp_min(init)),
    "min": ("amin", math.inf, lambda r, init, n: r.clamp_max(init)),
}
_REDUCTIONS["amax"], _REDUCTIONS["amin"] = _REDUCTIONS["max"], _REDUCTIONS["min"]


def _reduce_row(data, lengths, axis, reduce, initial):
    """One row of lengths: each run along `axis` reduced; stacked in order along `axis`."""
    method, empty, join = _REDUCTIONS[reduce]
    parts, start = [], 0
    for n in lengths:
        run = data.narrow(axis, start, n)
        if n == 0:
            shape = list(data.shape)
            del shape[axis]
            out = data.new_full(tuple(shape), empty if initial is None else initial)
        else:
            out = getattr(run, method)(axis)
            out = out if initial is None else join(out, initial, n)
        parts.append(out)
        start += n
    from gradjit.tensor.shape import stack
    return stack(parts, axis)


def _reduce(data, lengths, axis, reduce, initial):
    if lengths.ndim == 1:
        return _reduce_row(data, lengths.tolist(), axis, reduce, initial)
    from gradjit.tensor.shape import stack
    return stack([_reduce(data[i], lengths[i], axis - 1, reduce, initial)
                  for i in range(lengths.shape[0])])


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    """lengths (or offsets, one more than the segments) has the leading shape of data up to
    `axis`; its last dimension lists the runs, which must cover data along `axis`."""
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    runs = np.diff(offsets.numpy(), axis=-1) if lengths is None else lengths.numpy()
    if (runs < 0).any():
        if lengths is not None and not unsafe:
            raise RuntimeError("lengths contains negative value!")
        raise RuntimeError(f"segment_reduce(): segments cannot have negative lengths, got "
                           f"{runs.tolist()}")
    axis = _check_dim(axis, data.dim())
    if axis != runs.ndim - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of lengths "
                           f"but got {axis}.")
    if not unsafe and (runs.sum(-1) != data.shape[runs.ndim - 1]).any():
        raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                           "data.size(lengths.dim()-1) when !unsafe.")
    return apply("SegmentReduceBackward0",
                 lambda x: _reduce(x, runs, axis, reduce, initial), data)


__all__ = ["segment_reduce"]
