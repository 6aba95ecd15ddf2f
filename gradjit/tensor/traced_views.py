"""Views of traced tensors: eager views share numpy memory, traced values share nothing, so a
write through a view (or into its base) under a trace is copied to the base and its views.
A detached view (detach(), .data) shares the values but not the gradient."""
from __future__ import annotations

import weakref

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S

# the primitives numpy evaluates as views (reshape only where the layout allows)
VIEWS = frozenset({S.reshape, S.slice_, S.transpose, S.broadcast_to})


def link(result, source, cut, detached=False) -> None:
    """Make `result`, cut(array) of the traced tensor `source`, its view where eager would;
    a `detached` one (or any view of one) carries no gradient from its base."""
    if source._base is not None:
        positions = source._positions()
        if not np.may_share_memory(cut(positions), positions):  # eager copies it (a reshape)
            return
    result._share(source, cut)
    result._detached = detached or source._detached
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
        if tensor._detached:
            placed = _values_only(placed, flat)
        base._value = S.reshape(E.where(mask, placed, flat), shape=tuple(base.shape))
    flat = S.reshape(base._value, shape=(size,))
    for ref in views:
        view = ref()
        if view is not None and view is not tensor:
            positions = view._positions()
            value = S.reshape(S.gather(flat, positions.reshape(-1), axis=0),
                              shape=positions.shape)
            view._value = E.stop_gradient(value) if view._detached else value


def _values_only(placed, flat):
    """placed's values with flat's gradient (PyTorch: a write through detach() leaves the
    base's history as it was): placed - (sg(f) - f), 0 with f's gradient where f is finite."""
    if np.dtype(flat.dtype).kind not in "fc":
        return placed
    finite = E.where(E.lt(E.abs_(flat), np.inf), flat, E.zeros_like(flat))
    return E.sub(E.stop_gradient(placed), E.sub(E.stop_gradient(finite), finite))
