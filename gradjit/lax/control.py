"""jax.lax's control flow run as Python control flow: a traced predicate or trip count becomes
a guard (the function is re-traced per path), loops unroll into the trace, so every
transformation differentiates and batches them as the straight-line code they become (a
branch index that vmap maps selects among every branch's results)."""
from __future__ import annotations

import numpy as np

from gradjit import tree_util
from gradjit.ir.elementwise import stop_gradient as _stop
from gradjit.ir.primitive import ir_type
from gradjit.tracer.custom import _Layout
from gradjit.tracer.host import host_primitive
from gradjit.tracer.trace import Traced, varies


def cond(pred, true_fun, false_fun, *operands):
    """true_fun(*operands) if pred else false_fun(*operands)."""
    if np.shape(pred) != ():
        raise TypeError(f"Pred must be a scalar, got {pred!r} of shape {np.shape(pred)}.")
    if varies(pred):
        return _selected(np.where(pred, 1, 0), (false_fun, true_fun), operands)
    return true_fun(*operands) if pred else false_fun(*operands)


def switch(index, branches, *operands):
    """branches[index](*operands), index clamped into range as JAX does."""
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if varies(index):
        return _selected(np.clip(index, 0, len(branches) - 1), branches, operands)
    return branches[min(max(int(index), 0), len(branches) - 1)](*operands)


def _selected(index, branches, operands):
    """Under vmap, an index that differs from example to example: every branch is computed
    and each example takes its own branch's results, as JAX batches cond and switch."""
    outputs = [branch(*operands) for branch in branches]

    def pick(*leaves):
        out = leaves[-1]
        for i in range(len(leaves) - 2, -1, -1):
            out = np.where(index == i, leaves[i], out)
        return out
    return tree_util.tree_map(pick, *outputs)


def select(pred, on_true, on_false):
    return np.where(pred, on_true, on_false)


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """body_fun(i, val) for i from lower to upper - 1, the loop unrolled into the trace."""
    val = init_val
    for i in range(int(lower), int(upper)):
        val = body_fun(i, val)
    return val


def while_loop(cond_fun, body_fun, init_val):
    """body_fun applied to the carry while cond_fun holds. Under vmap, a predicate that
    differs from example to example makes the rest of the loop one host op, which vmap runs
    per example: each loops until it is done, as JAX's batched loop leaves it."""
    val = init_val
    while True:
        pred = cond_fun(val)
        if varies(pred):
            return _host_loop(cond_fun, body_fun, val)
        if not pred:
            return val
        val = body_fun(val)


def _host_loop(cond_fun, body_fun, val):
    leaves, treedef = tree_util.tree_flatten(val)
    leaves = [x if isinstance(x, Traced) else np.asarray(x) for x in leaves]
    # traced values the functions close over become operands too, put in their cells while
    # the loop runs on the host
    cells = [c for f in (cond_fun, body_fun) for c in (getattr(f, "__closure__", None) or ())
             if isinstance(c.cell_contents, Traced)]
    captured = [c.cell_contents for c in cells]
    count = len(leaves)

    def layout(types):  # the carry's types are the loop's: no need to run it to find them
        return _Layout([np.zeros(t.shape, t.dtype.numpy) for t in types[:count]])

    def run(*arrays):
        for cell, value in zip(cells, arrays[count:]):
            cell.cell_contents = value
        try:
            out = while_loop(cond_fun, body_fun, treedef.unflatten(arrays[:count]))
        finally:
            for cell, value in zip(cells, captured):
                cell.cell_contents = value
        return layout(tuple(ir_type(a) for a in arrays)).pack(treedef.flatten_up_to(out))

    loop = host_primitive(f"while_loop_{getattr(body_fun, '__name__', 'body')}",
                          lambda *types: layout(types).packed_type, run, count + len(cells))
    packed = loop(*leaves, *captured)
    return treedef.unflatten(layout(tuple(ir_type(x) for x in leaves)).unpack(packed))


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """(carry, ys): carry threaded through f(carry, x) over the leading axis of xs (a tree),
    the per-step outputs stacked along a new leading axis (in xs's order when reversed)."""
    leaves, treedef = tree_util.tree_flatten(xs)
    lengths = {np.shape(x)[0] for x in leaves}
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1:
        raise ValueError(f"scan got inconsistent lengths: {sorted(lengths)} (the leading axes "
                         "of xs and length must agree, and one of them must be given)")
    n = lengths.pop()
    carry, outputs = init, [None] * n
    for i in (range(n - 1, -1, -1) if reverse else range(n)):
        carry, outputs[i] = f(carry, treedef.unflatten(x[i] for x in leaves))
    return carry, _stack(outputs)


def map(f, xs, *, batch_size=None):  # noqa: A001
    """f over the leading axis of xs, the results stacked."""
    return scan(lambda _, x: (None, f(x)), None, xs)[1]


def _stack(trees):
    if not trees:
        return None
    _, treedef = tree_util.tree_flatten(trees[0])
    columns = zip(*(treedef.flatten_up_to(t) for t in trees))
    return treedef.unflatten(np.stack(column) for column in columns)


def stop_gradient(x):
    """x, with no gradient flowing through it (each leaf of a tree)."""
    return tree_util.tree_map(_stop, x)
