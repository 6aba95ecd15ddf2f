"""Views of traced tensors: eager views share numpy memory, traced values share nothing, so a
write through a view (or into its base) under a trace is copied to the base and its views."""
from __future__ import annotations

import weakref

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S

# the primitives numpy evaluates as views (reshape only where the layout allows)
VIEWS = frozenset({S.reshape, S.slice_, S.transpose, S.broadcast_to})


def link(result, prim, params, source) -> None:
    """Make `result`, `prim` of the traced tensor `source`, its view where eager would."""
    def cut(array):
        return prim.evaluate(array, **params)
    if source._base is not None and prim is S.reshape:
        positions = source._positions()
        if not np.may_share_memory(cut(positions), positions):  # eager copies it
            return
    result._share(source, cut)
    base = result._base
    views = base.__dict__.setdefault("_traced_views", [])
    if len(views) >= 8 and not len(views) & (len(views) - 1):  # at powers of two: amortized
        views[:] = [v for v in views if v() is not None]
    views.append(weakref.ref(result))


def sync(tensor) -> None:
    """After an in-place write to `tensor` under a trace: the base takes a view's new values,
    and every other live view of the base is cut from it again."""
    base = tensor._base if tensor._base is not None else tensor
    views = base.__dict__.get("_traced_views")
    if not views:
        return
    size = base.numel()
    if tensor is not base:
        positions = tensor._positions().reshape(-1)
        flat = S.reshape(base._value, shape=(size,))
        mask = np.zeros(size, bool)
        mask[positions] = True
        placed = S.scatter_add(E.zeros_like(flat), positions,
                               S.reshape(tensor._value, shape=(positions.size,)), axis=0)
        base._value = S.reshape(E.where(mask, placed, flat), shape=tuple(base.shape))
    flat = S.reshape(base._value, shape=(size,))
    for ref in views:
        view = ref()
        if view is not None and view is not tensor:
            positions = view._positions()
            view._value = S.reshape(S.gather(flat, positions.reshape(-1), axis=0),
                                    shape=positions.shape)
