"""The range of an integer index expression (fusion's nodes): an index check it proves
passes is not emitted, and the index stays in the loop that reads through it."""
from __future__ import annotations

import numpy as np

MAX_DEPTH = 12  # an index's positions are a few adds and multiplies of ramps deep


def value_range(node, checked, assumed: dict | None = None) -> tuple[int, int] | None:
    """(least, most) of `node`'s values, or None when unknown. `checked(buffer)`: the range
    of a buffer's elements where known (a check step established it, or a constant's);
    `assumed`: id(node) -> a range narrowed by the condition of an enclosing where."""
    assumed = assumed or {}
    if id(node) in assumed:
        return assumed[id(node)]
    # deep expressions are left unknown: a shared operand is walked once per use
    if node.dtype.numpy.kind not in "iu" or node.depth > MAX_DEPTH:
        return None
    found = _range(node, checked, assumed)
    limit = 1 << (8 * node.dtype.numpy.itemsize - 2)  # no wrap-around along the way
    return found if found and -limit < found[0] and found[1] < limit else None


def _range(node, checked, assumed):
    if node.kind == "const":
        value = node.attrs
        return (int(value), int(value)) if isinstance(value, (int, np.integer)) else None
    if node.kind == "index":  # a ramp
        view = node.attrs
        spans = [(n - 1) * stride for n, stride in zip(view.shape, view.strides) if n]
        return (view.offset + sum(min(0, s) for s in spans),
                view.offset + sum(max(0, s) for s in spans))
    if node.kind == "load":
        return checked(node.attrs[0])
    if node.kind != "apply":
        return None
    name = node.attrs[0]
    if name == "where":
        return _where_range(node, checked, assumed)
    ranges = [value_range(a, checked, assumed) for a in node.args]
    if None in ranges:
        return None
    if name == "cast":
        return ranges[0]
    if name == "add":
        return ranges[0][0] + ranges[1][0], ranges[0][1] + ranges[1][1]
    if name == "mul":
        corners = [a * b for a in ranges[0] for b in ranges[1]]
        return min(corners), max(corners)
    return None


def _where_range(node, checked, assumed):
    """Each branch over the values that take it: where(i < k, i + n, i) (a negative index
    counted from the end) gives [0, n) for i in [-n, n)."""
    cond, yes, no = node.args
    branches = [(yes, assumed), (no, assumed)]
    if cond.kind == "apply" and cond.attrs[0] == "lt":
        x, k = cond.args
        rx, rk = value_range(x, checked, assumed), value_range(k, checked, assumed)
        if rx and rk and rk[0] == rk[1]:
            below, above = (rx[0], min(rx[1], rk[0] - 1)), (max(rx[0], rk[0]), rx[1])
            branches = [(branch, {**assumed, id(x): part})
                        for branch, part in ((yes, below), (no, above)) if part[0] <= part[1]]
    ranges = [value_range(branch, checked, narrowed) for branch, narrowed in branches]
    if not ranges or None in ranges:
        return None
    return min(r[0] for r in ranges), max(r[1] for r in ranges)
