"""jax.lax's collectives over a vmap axis named by axis_name: psum, pmean, pmax, pmin,
all_gather and axis_index, each one op of gradjit.ir.collectives on every leaf."""
from __future__ import annotations

import numpy as np

from gradjit import tree_util
from gradjit.ir import collectives as C
from gradjit.tracer.trace import current_trace


def _size(axis_name) -> int:
    sizes = dict(C.bound_axes.get())
    if axis_name not in sizes:
        raise NameError(f"unbound axis name: {axis_name}")
    return sizes[axis_name]


def _collective(name):
    def collective(x, axis_name):
        size = _size(axis_name)
        return tree_util.tree_map(lambda leaf: C.PRIMITIVES_OF_AXES[name](
            np.asarray(leaf) if np.isscalar(leaf) else leaf, axis_name=axis_name,
            axis_size=size), x)
    collective.__name__ = collective.__qualname__ = name
    collective.__doc__ = f"JAX's lax.{name} of each leaf of x over the vmap axis axis_name."
    return collective


psum, pmean, pmax, pmin = (_collective(name) for name in ("psum", "pmean", "pmax", "pmin"))
_gathered = _collective("all_gather")


def all_gather(x, axis_name, *, axis=0, tiled=False):
    """Every example's x, stacked along `axis` (joined along it when tiled)."""
    def place(leaf):
        stacked = np.moveaxis(leaf, 0, axis)
        if not tiled:
            return stacked
        shape = np.shape(stacked)
        return np.reshape(stacked, shape[:axis] + (shape[axis] * shape[axis + 1],) +
                          shape[axis + 2:])
    return tree_util.tree_map(place, _gathered(x, axis_name))


def axis_index(axis_name):
    """The index of the example along the vmap axis axis_name: an op of no operands, bound
    to the vmap's trace (not computed at once, as a constant would be)."""
    params = {"axis_name": axis_name, "axis_size": _size(axis_name)}
    return current_trace().bind(C.axis_index, (), params)
