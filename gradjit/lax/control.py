"""jax.lax's control flow run as Python control flow: a traced predicate or trip count becomes
a guard (the function is re-traced per path), loops unroll into the trace, so every
transformation differentiates and batches them as the straight-line code they become (a
branch index that vmap maps selects among every branch's results)."""
from __future__ import annotations

import numpy as np

from gradjit import tree_util
from gradjit.ir.elementwise import stop_gradient as _stop
from gradjit.ir.primitive import ir_type
from gradjit.lax.checks import (check_bounds, check_branches, check_carry, check_index,
                                check_pair, check_pred, check_predicate)
from gradjit.tracer.custom import _Layout
from gradjit.tracer.eager import eval_shape
from gradjit.tracer.host import host_primitive
from gradjit.tracer.trace import Traced, varies


def cond(pred, true_fun, false_fun, *operands):
    """true_fun(*operands) if pred else false_fun(*operands); JAX's older form cond(pred,
    true_operand, true_fun, false_operand, false_fun) too."""
    if not callable(true_fun) and callable(false_fun) and len(operands) == 2 \
            and callable(operands[1]):
        (true_operand, true_fun), (false_operand, false_fun) = (true_fun, false_fun), operands
        return cond(pred, lambda pair: true_fun(pair[0]), lambda pair: false_fun(pair[1]),
                    (true_operand, false_operand))
    check_pred(pred)
    index = np.where(pred, 0, 1) if varies(pred) else (0 if pred else 1)
    return _branched("cond", ("true_fun", "false_fun"), index, (true_fun, false_fun), operands)


def switch(index, branches, *operands):
    """branches[index](*operands), index clamped into range as JAX does."""
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    check_index(index)
    last = len(branches) - 1
    index = np.clip(index, 0, last) if varies(index) else min(max(int(index), 0), last)
    names = tuple(f"branch {i}" for i in range(len(branches)))
    return _branched("switch", names, index, branches, operands)


def _dtype(x):
    return x.dtype if hasattr(x, "dtype") else np.result_type(x)


def _branched(kind, names, index, branches, operands):
    """The chosen branch's results, every branch's types checked as JAX traces them all (the
    branches not taken are traced only for their types). Under vmap, an index that differs
    from example to example computes every branch and each example takes its own branch's
    results, as JAX batches cond and switch."""
    if not varies(index):
        out = branches[index](*operands)
        check_branches(kind, names, [out if i == index else eval_shape(branch, *operands)
                                     for i, branch in enumerate(branches)])
        return out
    outputs = [branch(*operands) for branch in branches]
    check_branches(kind, names, outputs)
    return tree_util.tree_map(lambda *leaves: select_n(index, *leaves), *outputs)


def choose(pred, on_true, on_false):
    """on_true if pred else on_false, for trees computed already (torch.cond's outputs,
    whose sizes may differ): a traced predicate is a guard, one that vmap maps selects per
    example."""
    if varies(pred):
        return tree_util.tree_map(lambda a, b: np.where(pred, a, b), on_true, on_false)
    return on_true if pred else on_false


def select(pred, on_true, on_false):
    return np.where(pred, on_true, on_false)


def select_n(which, *cases):
    """cases[which], elementwise: `which` a boolean (two cases) or an index, a scalar or of
    the cases' shape; an index past the end takes the last case."""
    if not cases:
        raise ValueError("select_n() must have at least one case")
    shapes = [np.shape(c) for c in cases]
    if len(set(shapes)) > 1:
        raise TypeError(f"select cases must have the same shapes, got {shapes}.")
    dtypes = [np.result_type(_dtype(c)) for c in cases]
    if len(set(dtypes)) > 1:
        raise TypeError("lax.select requires arguments to have the same dtypes, got "
                        f"{', '.join(d.name for d in dtypes)}. (Tip: jnp.where is a similar "
                        "function that does automatic type promotion on inputs).")
    kind = np.result_type(_dtype(which)).kind
    if kind not in "biu":
        raise TypeError(f"select `which` must be boolean or integer type, got "
                        f"{np.result_type(_dtype(which)).name}.")
    if kind == "b" and len(cases) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")
    if np.shape(which) not in ((), shapes[0]):
        raise TypeError("select `which` must be scalar or have the same shape as cases, got "
                        f"`which` shape {np.shape(which)} but case shape {shapes[0]}.")
    out = cases[-1]
    for i in range(len(cases) - 2, -1, -1):
        out = np.where(which == i, cases[i], out)
    return out


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """body_fun(i, val) for i from lower to upper - 1, the loop unrolled into the trace (a
    while_loop when vmap maps a bound)."""
    check_bounds(lower, upper)
    if varies(lower) or varies(upper):
        return while_loop(lambda c: c[0] < upper, lambda c: (c[0] + 1, body_fun(*c)),
                          (lower, init_val))[1]
    val = init_val
    for i in range(int(lower), int(upper)):
        val, before = body_fun(i, val), val
        check_carry("scan", before, val)  # JAX's loop with known bounds is a scan
    return val


def while_loop(cond_fun, body_fun, init_val):
    """body_fun applied to the carry while cond_fun holds. Under vmap, a predicate that
    differs from example to example makes the rest of the loop one host op, which vmap runs
    per example: each loops until it is done, as JAX's batched loop leaves it."""
    val = init_val
    while True:
        pred = cond_fun(val)
        check_predicate(pred)
        if varies(pred):
            return _host_loop(cond_fun, body_fun, val)
        if not pred:
            return val
        val, before = body_fun(val), val
        check_carry("while_loop", before, val)


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
    for x in leaves:
        if np.ndim(x) == 0:
            raise ValueError(f"scan got value with no leading axis to scan over: {x}.")
    lengths = {np.shape(x)[0] for x in leaves}
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1:
        raise ValueError(f"scan got inconsistent lengths: {sorted(lengths)} (the leading axes "
                         "of xs and length must agree, and one of them must be given)")
    n = lengths.pop()
    if n == 0:  # no step runs: the outputs' types come from tracing one
        step = treedef.unflatten(np.zeros(np.shape(x)[1:], _dtype(x)) for x in leaves)
        out = check_pair(eval_shape(f, init, step))
        check_carry("scan", init, out[0])
        return type(out)((init, tree_util.tree_map(lambda y: np.zeros((0, *y.shape), y.dtype),
                                                   out[1])))
    carry, outputs = init, [None] * n
    for i in (range(n - 1, -1, -1) if reverse else range(n)):
        out = check_pair(f(carry, treedef.unflatten(x[i] for x in leaves)))
        check_carry("scan", carry, out[0])
        carry, outputs[i] = out
    return type(out)((carry, _stack(outputs)))  # a list when the body returns one, as in JAX


def associative_scan(fn, elems, reverse=False, axis=0):
    """The prefix combinations fn(...fn(x0, x1)..., xi) along `axis` of elems' leaves, for an
    associative fn of two trees like elems: log2(n) rounds, each combining every element with
    the one `offset` before it (reverse: suffixes, as if elems were flipped)."""
    leaves, treedef = tree_util.tree_flatten(elems)
    shapes = [np.shape(x) for x in leaves]
    axis = axis % len(shapes[0])
    if len({shape[axis] for shape in shapes}) > 1:
        raise ValueError("Array inputs to associative_scan must have the same first dimension."
                         f" (saw: {shapes})")
    part = lambda x, start, stop: x[(slice(None),) * axis + (slice(start, stop),)]  # noqa: E731
    leaves = [np.flip(x, axis) for x in leaves] if reverse else leaves
    n, offset = shapes[0][axis], 1
    while offset < n:
        combined = fn(treedef.unflatten(part(x, 0, n - offset) for x in leaves),
                      treedef.unflatten(part(x, offset, n) for x in leaves))
        leaves = [np.concatenate([part(x, 0, offset), c], axis)
                  for x, c in zip(leaves, treedef.flatten_up_to(combined))]
        offset *= 2
    return treedef.unflatten(np.flip(x, axis) if reverse else x for x in leaves)


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
