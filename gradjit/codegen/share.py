"""Sharing transcendentals between kernels: fusion recomputes a value in every kernel that
uses it, which for exp, log, sin... costs more than storing it once and loading it back (a
softmax's exp feeds both its row sums and, after them, its gradient)."""
from __future__ import annotations

import numpy as np

from gradjit.codegen.schedule import Pending, _nodes_in_order
from gradjit.codegen.views import contiguous

EXPENSIVE = frozenset({"exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "sigmoid",
                       "erf", "erfc", "atan2"})


def share_expensive(fuser, groups_and_steps: list) -> None:
    """Where a later kernel recomputes an expensive value that an earlier kernel over the same
    index space computes, the earlier one stores it and the later one loads it (in place)."""
    groups = [(n, s) for n, s in enumerate(groups_and_steps) if hasattr(s, "outputs")]
    for later, (position, group) in enumerate(groups):
        for before, earlier in reversed(groups[:later]):
            if earlier.domain != group.domain or earlier.serial or group.serial:
                continue
            computed = {id(node): node for node in _nodes_in_order(_roots(earlier))}
            shared = _topmost_shared(group, computed)
            writes = _writes(groups_and_steps[before:position + 1])
            for node in shared:
                if fuser.reads(node) & writes:
                    continue  # its inputs change in between: the values would differ
                _store_and_load(fuser, earlier, group, node)


def _roots(group) -> list:
    return [p.node for p in group.outputs] + [p.scatter[0] for p in group.outputs if p.scatter]


def _expensive(node, memo) -> bool:
    found = memo.get(id(node))
    if found is None:
        found = (node.kind == "apply" and node.attrs[0] in EXPENSIVE
                 or any(_expensive(a, memo) for a in node.args))
        memo[id(node)] = found
    return found


def _topmost_shared(group, computed) -> list:
    """Expensive nodes of `group` that `computed` holds, none under another."""
    found, seen, memo, stack = [], set(), {}, list(_roots(group))
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.computes and id(node) in computed and _expensive(node, memo):
            found.append(node)
        else:
            stack.extend(node.args)
    return found


def _writes(steps) -> set:
    written = set()
    for step in steps:
        outputs = getattr(step, "outputs", None)
        written |= {p.buffer for p in outputs} if outputs is not None else step.buffers()
    return written


def _store_and_load(fuser, earlier, group, node) -> None:
    buffer = fuser.new_buffer(node.dtype, int(np.prod(node.shape, dtype=np.int64)))
    view = contiguous(node.shape)
    earlier.outputs.append(Pending("store", earlier.domain, node, buffer.id, view))
    new = {id(node): fuser.load(buffer, view)}
    for n in _nodes_in_order(_roots(group)):  # operands first: no recursion on long chains
        if id(n) not in new:
            args = [new.get(id(a), a) for a in n.args]
            changed = any(a is not b for a, b in zip(args, n.args))
            new[id(n)] = fuser.node(n.kind, args, n.attrs, n.shape, n.dtype) if changed else n
    for p in group.outputs:
        p.node = new[id(p.node)]
        if p.scatter:
            p.scatter = (new[id(p.scatter[0])],) + p.scatter[1:]
