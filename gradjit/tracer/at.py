"""JAX's functional index updates on traced values, `x.at[index].set(v)` and its kin: a new array,
with JAX's out-of-bounds rules (updates there are dropped, reads are clamped) and gradients
through gathers and scatter-adds."""
from __future__ import annotations

import numpy as np

from gradjit import ops
from gradjit.ir import structural as S
from gradjit.ir.elementwise import stop_gradient
from gradjit.ops.indexing import _expand_ellipsis, constant_value

_MODES = (None, "promise_in_bounds", "clip", "drop", "fill")


class IndexUpdateHelper:
    """`x.at`: indexed by the positions to update or read."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


class IndexUpdateRef:
    """`x.at[index]`: its methods return x with x[index] read or updated, never writing x.
    indices_are_sorted and unique_indices are accepted as promises gradjit does not need."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None):
        """x[index], out-of-bounds indices clamped, or with mode='fill' (or 'drop') giving
        fill_value there (NaN for floats, the extreme value for integers, as in JAX)."""
        x, parts = self.array, _parts(self.array, self.index)
        mode = _mode(mode)
        if mode == "clip":
            return ops.getitem(x, tuple(_clip(p, n) for p, n in parts))
        positions = _positions(x.shape, parts)
        if mode is None or mode == "promise_in_bounds":
            known = constant_value(positions)
            clamped = ops.getitem(x, tuple(_clip(p, n) for p, n in parts))
            if known is not None and not np.any(known == x.size):
                return clamped
            # JAX clamps the value read out of bounds, but its gradient goes nowhere
            padded = np.concatenate([np.ravel(x), np.zeros(1, x.dtype)])
            return np.where(positions == x.size, stop_gradient(clamped),
                            ops.getitem(padded, positions))
        if fill_value is None:
            fill_value = _default_fill(x.dtype)
        padded = np.concatenate([np.ravel(x), np.full(1, fill_value, x.dtype)])
        return ops.getitem(padded, positions)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update(None, values, mode)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """func (a unary ufunc) applied at the indexed elements, once per occurrence."""
        return self._update(func, None, mode)

    def _update(self, ufunc, values, mode):
        """x with ufunc(x[index], values) at the index (values alone when ufunc is None), the
        flat array carrying one extra element where dropped updates go."""
        x = self.array
        parts = _parts(x, self.index)
        if _mode(mode) == "clip":
            parts = [(_clip(p, n), n) for p, n in parts]
        positions = _positions(x.shape, parts)
        flat = np.concatenate([np.ravel(x), np.zeros(1, x.dtype)])
        if values is not None:
            values = np.broadcast_to(np.asarray(values).astype(x.dtype), np.shape(positions))
        known = constant_value(positions)
        if ufunc in (np.add, np.subtract):
            values = -values if ufunc is np.subtract else values
            flat = S.scatter_add(flat, np.ravel(positions), np.ravel(values), axis=0)
        elif known is not None:
            flat = _at_known(flat, known, ufunc, values)
        else:
            current = ops.getitem(flat, positions)
            new = values if ufunc is None else ufunc(current) if values is None else \
                ufunc(current, values)
            flat = _place(flat, positions, np.asarray(new).astype(x.dtype))
        return np.reshape(flat[:x.size], x.shape)


def _at_known(flat, positions, ufunc, values):
    """Positions known at trace time: numpy's rules, each repeated index applied again."""
    flat = flat.copy()
    if ufunc is None:
        flat[positions] = values
    elif values is None:
        ufunc.at(flat, positions)
    else:
        ufunc.at(flat, positions, values)
    return flat


def _place(flat, positions, values):
    """flat with values written at run-time positions (repeated positions get the mean of
    their values: JAX leaves which one wins unspecified)."""
    index, values = np.ravel(positions), np.ravel(values)
    counts = S.scatter_add(np.zeros_like(flat), index, np.ones_like(values), axis=0)
    placed = S.scatter_add(np.zeros_like(flat), index, values, axis=0)
    return np.where(counts > 0, placed / np.maximum(counts, 1), flat)


def _make_update(name, ufunc):
    def update(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update(ufunc, values, mode)
    update.__name__ = update.__qualname__ = name
    update.__doc__ = f"x with x[index] = np.{ufunc.__name__}(x[index], values)."
    return update


for _name, _ufunc in (("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
                      ("divide", np.true_divide), ("power", np.power), ("min", np.minimum),
                      ("max", np.maximum)):
    setattr(IndexUpdateRef, _name, _make_update(_name, _ufunc))
IndexUpdateRef.mul = IndexUpdateRef.multiply  # JAX's older name, which it keeps


def _mode(mode):
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES[1:]}, not {mode!r}")
    return mode


def _parts(x, index):
    """The index as one (part, size of the axis it indexes) per part, the ellipsis and the
    trailing axes spelled as whole slices, boolean masks known now as their integer arrays."""
    parts = []
    for p in index if isinstance(index, tuple) else (index,):
        known = None if p is None or p is Ellipsis or isinstance(p, slice) else \
            constant_value(p)
        if known is not None and known.dtype == bool:
            parts.extend(np.nonzero(known))
        elif isinstance(p, list):
            parts.append(np.asarray(p))
        else:
            parts.append(p)
    marked = [p if p is None or p is Ellipsis else [p] for p in parts]  # `in` without ==
    axis, out = 0, []
    for p in _expand_ellipsis(marked, x.ndim):
        out.append((None, None) if p is None else (p if isinstance(p, slice) else p[0],
                                                   x.shape[axis]))
        axis += p is not None
    return out


def _clip(part, n):
    """An integer index with negative values counted from the end, then clamped into range."""
    if part is None or isinstance(part, slice):
        return part
    if isinstance(part, (int, np.integer)):
        return min(max(part + n if part < 0 else part, 0), n - 1)
    return np.clip(np.where(part < 0, part + n, part), 0, n - 1)


def _positions(shape, parts):
    """The flat positions x[index] reads, out-of-bounds ones being len(x.ravel()): indexes a
    table of positions with one extra row on each axis holding that value."""
    size = int(np.prod(shape))
    table = np.pad(np.arange(size, dtype=np.int64).reshape(shape), [(0, 1)] * len(shape),
                   constant_values=size)
    index = tuple(_bounded(p, n) for p, n in parts)
    if all(constant_value(p) is not None or p is None or isinstance(p, slice) for p in index):
        return table[tuple(p if p is None or isinstance(p, slice) else constant_value(p)
                           for p in index)]
    return ops.getitem(ops.asarray(table), index)


def _bounded(part, n):
    """A part of an index into the padded table: slices stay within the n real rows, integers
    out of [-n, n) go to the extra row."""
    if part is None:
        return None
    if isinstance(part, slice):
        start, stop, step = part.indices(n)
        return slice(start, stop if stop >= 0 else None, step)
    if isinstance(part, (int, np.integer)):
        return part % n if -n <= part < n else n
    inside = (part >= -n) & (part < n)
    return np.where(inside, np.where(part < 0, part + n, part), n)


def _default_fill(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.nan
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max
