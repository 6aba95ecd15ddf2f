"""Strided views: how a logical index maps to an element of a flat buffer.

broadcast_to, transpose, slice and (most) reshapes are views, so fusion moves them into
the loads of a kernel instead of copying data.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class View:
    """Element (i0, i1, ...) lives at `offset + sum(i_k * strides[k])` (in elements)."""

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int = 0

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __str__(self) -> str:
        strides = ",".join(map(str, self.strides))
        return f"[{strides}]+{self.offset}" if self.offset else f"[{strides}]"


def contiguous(shape, offset: int = 0) -> View:
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return View(tuple(shape), tuple(reversed(strides)), offset)


def is_contiguous(view: View) -> bool:
    """True when the view reads its elements in row-major order from `offset` on."""
    return all(s == c for n, s, c in zip(view.shape, view.strides, contiguous(view.shape).strides)
               if n != 1)


def broadcast(view: View, shape) -> View:
    lead = len(shape) - len(view.shape)
    strides = [0] * lead + [0 if n == 1 and t != 1 else s
                            for n, s, t in zip(view.shape, view.strides, shape[lead:])]
    return View(tuple(shape), tuple(strides), view.offset)


def transpose(view: View, perm) -> View:
    return View(tuple(view.shape[p] for p in perm), tuple(view.strides[p] for p in perm),
                view.offset)


def slice_view(view: View, start, stop, step) -> View:
    shape = tuple(max(0, -(-(hi - lo) // st)) for lo, hi, st in zip(start, stop, step))
    offset = view.offset + sum(lo * s for lo, s, n in zip(start, view.strides, shape) if n)
    return View(shape, tuple(s * st for s, st in zip(view.strides, step)), offset)


def select_axes(view: View, axis: int, taken: int, count: int) -> View:
    """The view with the `taken` axes from `axis` replaced by `count` new axes of stride 0
    (gather's index axes)."""
    return View(view.shape[:axis] + (1,) * count + view.shape[axis + taken:],
                view.strides[:axis] + (0,) * count + view.strides[axis + taken:], view.offset)


def reshape(view: View, shape) -> View | None:
    """The same elements under a new shape, or None when no strides can express it."""
    shape = tuple(shape)
    if view.size == 0:
        return contiguous(shape, view.offset)
    old = [(n, s) for n, s in zip(view.shape, view.strides) if n != 1]
    new_strides = [0] * len(shape)
    oi = ni = 0
    while oi < len(old) and ni < len(shape):
        oj, nj = oi + 1, ni + 1
        old_count, new_count = old[oi][0], shape[ni]
        while old_count != new_count:
            if new_count < old_count:
                new_count *= shape[nj]
                nj += 1
            else:
                old_count *= old[oj][0]
                oj += 1
        for k in range(oi, oj - 1):
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        new_strides[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            new_strides[k - 1] = new_strides[k] * shape[k]
        oi, ni = oj, nj
    return View(shape, tuple(s if n != 1 else 0 for n, s in zip(shape, new_strides)),
                view.offset)
