"""Collectives over a named vmap axis (JAX's psum, pmean, pmax, pmin, all_gather, axis_index):
in the one-example trace a collective is one op; the batching pass of its axis replaces it by
the reduction (or stack, or index) over the batch, which each example then sees. Like host
primitives they stay out of the table: no program runs one outside its vmap."""
from __future__ import annotations

import contextlib
from contextvars import ContextVar

import numpy as np

from gradjit.ir.elementwise import div
from gradjit.ir.primitive import PRIMITIVES, Primitive, ir_type
from gradjit.ir.structural import broadcast_to, iota, materialize, move_axis
from gradjit.ir.types import TensorType, int32

# the axes of the vmaps being traced, name -> size; and the axis a batching pass is batching
bound_axes: ContextVar[tuple] = ContextVar("bound_axes", default=())  # (name, size) pairs
batching_axis: ContextVar[str | None] = ContextVar("batching_axis", default=None)


@contextlib.contextmanager
def binding(context: ContextVar, value):
    token = context.set(value)
    try:
        yield
    finally:
        context.reset(token)


def _same_type(x, *, axis_name, axis_size):
    return x


def _gathered_type(x, *, axis_name, axis_size):
    return TensorType((axis_size,) + x.shape, x.dtype)


def _index_type(*, axis_name, axis_size):
    return TensorType((), int32)


def _over_batch(reduce, mean=False):
    """The value each example sees: `reduce` over the stacked batch, broadcast back."""
    def across(stacked, size):
        out = PRIMITIVES[reduce](stacked, axes=(0,), keepdims=True)
        if mean:
            t = ir_type(out)
            out = div(out, np.full(t.shape, size, t.dtype.numpy))
        return broadcast_to(out, shape=ir_type(stacked).shape)
    return across


def _gather(stacked, size):
    """Each example sees the whole stack."""
    shape = ir_type(stacked).shape
    return broadcast_to(PRIMITIVES["reshape"](stacked, shape=(1,) + shape),
                        shape=(size,) + shape)


# name -> (shape rule, the value over the whole batch, the trace's stand-in for one example,
# whether it is linear: its VJP and JVP are itself)
COLLECTIVES = {
    "psum": (_same_type, _over_batch("reduce_sum"), lambda x, n: x * n, True),
    "pmean": (_same_type, _over_batch("reduce_sum", mean=True), lambda x, n: x, True),
    "pmax": (_same_type, _over_batch("reduce_max"), lambda x, n: x, False),
    "pmin": (_same_type, _over_batch("reduce_min"), lambda x, n: x, False),
    "all_gather": (_gathered_type, _gather, lambda x, n: np.broadcast_to(x, (n,) + x.shape),
                   False),
}


def _batch(name, across):
    def batch(args, batched, size, *, axis_name, axis_size):
        (x,), (mapped,) = args, batched
        stacked = materialize(x, mapped, size)
        if axis_name != batching_axis.get():  # an outer vmap's: elementwise in this one's
            out = PRIMITIVES_OF_AXES[name](stacked, axis_name=axis_name, axis_size=axis_size)
            return move_axis(out, 1, 0) if name == "all_gather" else out
        return across(stacked, size)
    return batch


def _primitive(name, rule, across, stand_in, linear):
    vjp = (lambda g, y, x, **params: (PRIMITIVES_OF_AXES[name](g, **params),)) if linear \
        else None
    jvp = (lambda tangents, out, x, **params: None if tangents[0] is None else
           PRIMITIVES_OF_AXES[name](tangents[0], **params)) if linear else None
    return Primitive(name, "structural", rule,
                     lambda x, *, axis_name, axis_size: np.asarray(stand_in(x, axis_size)),
                     vjp, params=("axis_name", "axis_size"), differentiable=linear, jvp=jvp,
                     batch=_batch(name, across))


PRIMITIVES_OF_AXES = {name: _primitive(name, *row) for name, row in COLLECTIVES.items()}


def _index_batch(args, batched, size, *, axis_name, axis_size):
    return iota(shape=(size,), dtype="i32", axis=0)


axis_index = Primitive(
    "axis_index", "structural", _index_type,
    lambda *, axis_name, axis_size: np.asarray(0, np.int32), None,
    params=("axis_name", "axis_size"), differentiable=False, batch=_index_batch)
