"""Views of traced arrays: numpy's basic indexing, transposes and reshapes give arrays that share
their base's memory, so a write through one rebinds the base and every other live view of it."""
from __future__ import annotations

import weakref

import numpy as np

from gradjit import ops


class _Base:
    """A traced array that has views: a ramp of its flat positions (numpy decides whether an
    operation on it gives a view of it) and its views in the order they were made."""

    __slots__ = ("ramp", "views")

    def __init__(self, shape):
        self.ramp, self.views = np.arange(int(np.prod(shape))).reshape(shape), []


class _View:
    """A view of `base`: the base's flat positions it shows, or, where elements of the base do
    not map onto its elements (`unmapped` says how), `reread` computing it again from `parent`;
    and whether numpy lets it be written."""

    __slots__ = ("base", "parent", "positions", "reread", "unmapped", "writeable")

    def __init__(self, base, parent, positions, reread=None, unmapped=None, writeable=True):
        self.base, self.parent, self.positions = base, parent, positions
        self.reread, self.unmapped, self.writeable = reread, unmapped, writeable


def link(parent, result, take, reread=None, unmapped="at an index known only at run time",
         writeable=True):
    """result, made from the traced array `parent` by an operation that take(positions) does to
    a numpy array: a view of parent's base where numpy's answer shares the base's memory.
    `reread` (parent -> result) instead of take marks a view whose elements do not map onto
    the base's (`unmapped` says why): it follows writes into the base, and refuses writes."""
    if getattr(result, "_alias", False) is not None or result is parent or \
            getattr(parent, "_alias", False) is False:
        return result
    base = parent._alias.base if isinstance(parent._alias, _View) else parent
    if base._alias is None:
        base._alias = _Base(base.shape)
    ramp = base._alias.ramp
    if reread is not None or isinstance(parent._alias, _View) and parent._alias.positions is None:
        if reread is None:  # a view of such a view
            reread, unmapped, writeable = take, parent._alias.unmapped, parent._alias.writeable
        result._alias = _View(base, parent, None, reread, unmapped, writeable)
    else:
        positions = take(_positions(parent))
        if not isinstance(positions, np.ndarray) or not np.may_share_memory(positions, ramp):
            return result  # numpy copies: a write into it leaves the base as it was
        result._alias = _View(base, parent, positions, writeable=positions.flags.writeable)
    views = base._alias.views
    if len(views) >= 8 and not len(views) & (len(views) - 1):  # at powers of two: amortized
        views[:] = [ref for ref in views if ref() is not None]
    views.append(weakref.ref(result))
    return result


def _positions(x):
    return x._alias.positions if isinstance(x._alias, _View) else x._alias.ramp


def write(target, updated):
    """Rebind `target` to `updated` (numpy's in-place write), its base and the base's other
    views with it."""
    alias = target._alias
    if not isinstance(alias, _View):
        target._rebind(updated)
        if alias is not None:
            _refresh(target, None)
        return
    if not alias.writeable:
        raise ValueError("assignment destination is read-only")
    if alias.positions is None:
        from gradjit.tracer.trace import TraceError  # (the error names the user's line)
        raise TraceError(f"a write into a view of a traced array {alias.unmapped}: gradjit "
                         "cannot tell which elements of the base it changes; write into the "
                         "base itself (x[i] = ...) or build the value with np.where")
    base, positions = alias.base, alias.positions
    flat = ops.index_put(ops.ravel(base), positions.reshape(-1), ops.ravel(updated))
    base._rebind(ops.reshape(flat, base.shape))
    target._rebind(updated)
    _refresh(base, target)


def _refresh(base, written):
    """Each live view of base but `written` read again from the base's new value."""
    alive = [ref for ref in base._alias.views if ref() is not None]
    base._alias.views = alive
    for view in [ref() for ref in alive]:  # a reread may add a (short-lived) view
        if view is written:
            continue
        alias = view._alias
        if alias.positions is None:
            view._rebind(alias.reread(alias.parent))
        else:
            flat = ops.getitem(ops.ravel(base), alias.positions.reshape(-1))
            view._rebind(ops.reshape(flat, alias.positions.shape))


# numpy's functions whose answer may be a view of their first argument (numpy decides, on
# the base's ramp of positions); np.real and np.imag read the array's .real and .imag
_VIEWING = frozenset({
    np.reshape, np.ravel, np.transpose, np.swapaxes, np.moveaxis, np.rollaxis, np.squeeze,
    np.expand_dims, np.matrix_transpose, np.permute_dims, np.diagonal, np.broadcast_to,
    np.atleast_1d, np.atleast_2d, np.atleast_3d, np.split, np.array_split, np.hsplit,
    np.vsplit, np.dsplit, np.unstack, np.flip, np.fliplr, np.flipud, np.rot90})


def link_function(func, args, kwargs, result):
    """numpy's func(*args, **kwargs), computed as `result`, linked as the view(s) of args[0]
    numpy would give."""
    if func not in _VIEWING or not args:
        return result
    if isinstance(result, (list, tuple)):
        for i, part in enumerate(result):
            link(args[0], part, lambda p, i=i: func(p, *args[1:], **kwargs)[i])
        return result
    return link(args[0], result, lambda p: func(p, *args[1:], **kwargs))
