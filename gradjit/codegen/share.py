"""Sharing transcendentals between kernels: fusion recomputes a value in every kernel that
uses it, which for exp, log, sin... costs more than storing it once and loading it back (a
softmax's exp feeds both its row sums and, after them, its gradient)."""
from __future__ import annotations

import bisect

import numpy as np

from gradjit.codegen.schedule import Pending, _nodes_in_order, fold_dag
from gradjit.codegen.views import contiguous

EXPENSIVE = frozenset({"exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "sigmoid",
                       "erf", "erfc", "atan2", "logaddexp"})


def share_expensive(fuser, groups_and_steps: list) -> None:
    """Where a later kernel recomputes an expensive value that an earlier kernel over the same
    index space computes, the earlier one stores it and the later one loads it (in place).

    One pass over the kernels, with a map from each computed node to the latest kernel that
    computes it, so the cost grows with the program, not with its square."""
    writers = _writers(groups_and_steps)
    latest: dict = {}  # (domain, id(node)) -> (node, position of its latest group)
    stores: dict = {}  # (id(node), position of the group storing it) -> the load of its copy
    for position, group in enumerate(groups_and_steps):
        if not hasattr(group, "outputs") or group.serial:
            continue
        computed = _Domain(latest, group.domain)
        shared = []
        for node in _topmost_shared(group, computed):
            before = computed[id(node)][1]
            if not any(_written_between(writers, b, before, position) for b in fuser.reads(node)):
                shared.append((node, before))
        if shared:
            _store_and_load(fuser, shared, group, groups_and_steps, stores)
        for node in _nodes_in_order(_roots(group)):
            if node.computes:
                latest[(group.domain, id(node))] = (node, position)


class _Domain:
    """`latest` seen from one index space: id(node) -> (node, position)."""

    def __init__(self, latest, domain):
        self.latest, self.domain = latest, domain

    def __contains__(self, key):
        return (self.domain, key) in self.latest

    def __getitem__(self, key):
        return self.latest[(self.domain, key)]


def _writers(steps) -> dict:
    """buffer -> the positions of the steps that write it, ascending."""
    positions: dict = {}
    for position, step in enumerate(steps):
        outputs = getattr(step, "outputs", None)
        written = {p.buffer for p in outputs} if outputs is not None else step.buffers()
        for b in written:
            positions.setdefault(b, []).append(position)
    return positions


def _written_between(writers, buffer, first, last) -> bool:
    at = writers.get(buffer, ())
    i = bisect.bisect_left(at, first)
    return i < len(at) and at[i] <= last


def _roots(group) -> list:
    return [p.node for p in group.outputs] + [p.scatter[0] for p in group.outputs if p.scatter]


def _expensive(node, memo) -> bool:
    return fold_dag(node, memo, lambda n, args: n.kind == "apply" and n.attrs[0] in EXPENSIVE
                    or any(args))


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


def _store_and_load(fuser, shared, group, groups_and_steps, stores) -> None:
    """Each (node, position of an earlier group) of `shared`: the earlier group stores node
    (once, however many later groups load it), `group` loads it."""
    new = {}
    for node, before in shared:
        if (id(node), before) not in stores:
            earlier = groups_and_steps[before]
            buffer = fuser.new_buffer(node.dtype, int(np.prod(node.shape, dtype=np.int64)))
            view = contiguous(node.shape)
            earlier.outputs.append(Pending("store", earlier.domain, node, buffer.id, view))
            stores[(id(node), before)] = fuser.load(buffer, view)
        new[id(node)] = stores[(id(node), before)]
    for n in _nodes_in_order(_roots(group)):  # operands first: no recursion on long chains
        if id(n) not in new:
            args = [new.get(id(a), a) for a in n.args]
            changed = any(a is not b for a, b in zip(args, n.args))
            new[id(n)] = fuser.node(n.kind, args, n.attrs, n.shape, n.dtype) if changed else n
    for p in group.outputs:
        p.node = new[id(p.node)]
        if p.scatter:
            p.scatter = (new[id(p.scatter[0])],) + p.scatter[1:]
