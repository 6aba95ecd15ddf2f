"""jax.lax's gather and scatter family with XLA's dimension numbers: each window of the
operand becomes a broadcast integer index (numpy's advanced indexing, `.at`'s updates), so
they differentiate and batch as indexing does."""
from __future__ import annotations

import enum
from typing import NamedTuple

import numpy as np

from gradjit.tracer.at import IndexUpdateRef, _default_fill


class GatherDimensionNumbers(NamedTuple):
    offset_dims: tuple
    collapsed_slice_dims: tuple
    start_index_map: tuple
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()


class ScatterDimensionNumbers(NamedTuple):
    update_window_dims: tuple
    inserted_window_dims: tuple
    scatter_dims_to_operand_dims: tuple
    operand_batching_dims: tuple = ()
    scatter_indices_batching_dims: tuple = ()


class GatherScatterMode(enum.Enum):
    """Windows reaching out of bounds: moved inside (CLIP), or filled with fill_value when
    read and dropped when written (FILL_OR_DROP, the default)."""
    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()

    @staticmethod
    def from_any(s):
        if isinstance(s, GatherScatterMode):
            return s
        names = {"clip": "CLIP", None: "FILL_OR_DROP", "fill": "FILL_OR_DROP",
                 "drop": "FILL_OR_DROP", "promise_in_bounds": "PROMISE_IN_BOUNDS"}
        if s not in names:
            raise ValueError(f'Unknown gather mode "{s}"')
        return GatherScatterMode[names[s]]


def _windows(shape, indices, index_map, batching, index_batching, sizes, mode):
    """One broadcast integer index per operand axis, of shape batch + (1,)*rank with the
    window's extent on that axis, and whether each window lies in bounds. Windows are clamped
    inside (so they can be read), the caller filling or dropping the ones out of bounds."""
    batch = np.shape(indices)[:-1]
    rank, valid, index = len(shape), np.ones(batch, bool), []
    for axis, (n, size) in enumerate(zip(shape, sizes)):
        if axis in index_map:
            start = indices[..., index_map.index(axis)]
        elif axis in batching:
            along = index_batching[batching.index(axis)]
            start = np.arange(batch[along]).reshape([-1 if d == along else 1
                                                     for d in range(len(batch))])
        else:
            start = np.zeros((), np.int64)
        valid = valid & (start >= 0) & (start <= n - size)
        start = np.clip(start, 0, n - size)
        placed = [1] * rank
        placed[axis] = size
        index.append(np.reshape(start, np.shape(start) + (1,) * rank)
                     + np.arange(size).reshape(placed))
    if GatherScatterMode.from_any(mode) is not GatherScatterMode.FILL_OR_DROP:
        valid = None
    return index, valid


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """The slices of slice_sizes at start_indices' rows (XLA's gather); without a mode,
    windows out of bounds are moved inside, as JAX's gather does."""
    dn, rank = dimension_numbers, np.ndim(operand)
    index, valid = _windows(np.shape(operand), start_indices, tuple(dn.start_index_map),
                            tuple(dn.operand_batching_dims),
                            tuple(dn.start_indices_batching_dims), slice_sizes,
                            "clip" if mode is None else mode)
    out = operand[tuple(index)]
    batch = np.ndim(out) - rank
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    out = np.squeeze(out, tuple(batch + d for d in sorted(dropped)))
    if valid is not None:
        fill = _default_fill(np.result_type(operand)) if fill_value is None else fill_value
        valid = np.reshape(valid, np.shape(valid) + (1,) * (np.ndim(out) - batch))
        out = np.where(valid, out, np.asarray(fill, np.result_type(operand)))
    offsets = iter(range(batch, np.ndim(out)))
    batches = iter(range(batch))
    order = [next(offsets) if p in dn.offset_dims else next(batches) for p in range(np.ndim(out))]
    return np.transpose(out, order)


def _scatter(name, method):
    def scatter(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
        dn, shape = dimension_numbers, np.shape(operand)
        inserted = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
        window = iter(np.shape(updates)[d] for d in dn.update_window_dims)
        sizes = [1 if axis in inserted else next(window) for axis in range(len(shape))]
        index, valid = _windows(shape, scatter_indices, tuple(dn.scatter_dims_to_operand_dims),
                                tuple(dn.operand_batching_dims),
                                tuple(dn.scatter_indices_batching_dims), sizes, mode)
        if valid is not None:  # a window out of bounds goes past the end, where it is dropped
            valid = np.reshape(valid, np.shape(valid) + (1,) * len(shape))
            index = [np.where(valid, i, n) for i, n in zip(index, shape)]
        scattered = [d for d in range(np.ndim(updates)) if d not in dn.update_window_dims]
        arranged = np.transpose(updates, scattered + list(dn.update_window_dims))
        arranged = np.reshape(arranged, np.shape(scatter_indices)[:-1] + tuple(sizes))
        return getattr(IndexUpdateRef(operand, tuple(index)), method)(arranged, mode="drop")
    scatter.__name__ = scatter.__qualname__ = name
    scatter.__doc__ = f"operand with updates {method} at its windows (XLA's scatter)."
    return scatter


_SCATTERS = {"scatter": "set", "scatter_add": "add", "scatter_sub": "subtract",
             "scatter_mul": "multiply", "scatter_min": "min", "scatter_max": "max"}
globals().update({name: _scatter(name, method) for name, method in _SCATTERS.items()})

__all__ = ["GatherDimensionNumbers", "GatherScatterMode", "ScatterDimensionNumbers", "gather",
           *_SCATTERS]
