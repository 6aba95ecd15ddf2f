"""Sharing between kernels: fusion recomputes a value in each kernel that reads it, up to a
bound; past it, a later kernel loads a copy that an earlier one stores. A value holding a
transcendental is computed once, any other by at most MAX_COPIES kernels."""
from __future__ import annotations

import numpy as np

from gradjit.codegen.schedule import Pending, fold_dag
from gradjit.codegen.views import contiguous

EXPENSIVE = frozenset({"exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "sigmoid",
                       "erf", "erfc", "atan2", "logaddexp"})
# exp, log, sin... cost more than a store and a load: a softmax's exp feeds its row sums and,
# after them, its gradient, which loads it. Cheaper values are recomputed, so that a
# gradient's kernel recomputes the forward values of the kernel before it rather than reading
# them back, but by no more than two kernels: a value that thousands of later ops read (an
# early state of an unrolled loop) sits in the small recomputed expressions of many of them,
# and without a bound on its copies the kernels grew faster than the program.
MAX_COPIES = 2


class Sharing:
    """Which groups (by position) compute which expression nodes, and the copies stored for
    the nodes that reached their bound. Each output is rewritten as its group admits it, so
    the work grows with the kernels' bodies, not with the program's square."""

    def __init__(self, fuser):
        self.fuser = fuser
        self.computed: dict[int, dict[int, object]] = {}  # group -> node id -> node there
        self.groups_of: dict[int, list[int]] = {}  # node id -> groups computing it
        self.copies: dict[tuple[int, int], object] = {}  # (node id, group) -> load of copy
        self.expensive: dict[int, bool] = {}  # node id -> whether it holds a transcendental

    def admit(self, pending: Pending, position: int) -> None:
        """Rewrite `pending` for the group at `position`: each node past its bound that an
        earlier group computes is read from that group's copy."""
        here = self.computed.setdefault(position, {})
        pending.node = self._rewrite(pending.node, position, here)
        if pending.scatter:
            index = self._rewrite(pending.scatter[0], position, here)
            pending.scatter = (index,) + pending.scatter[1:]

    def _rewrite(self, root, position: int, here: dict):
        """`root` as the group computes it (iteratively: expressions are hundreds deep)."""
        stack = [root]
        while stack:
            node = stack[-1]
            if id(node) in here:
                stack.pop()
                continue
            source = self._source(node, position, here) if node.computes else None
            if source is not None or not node.computes:
                here[id(node)] = node if source is None else self._copy(node, source)
                stack.pop()
                continue
            missing = [a for a in node.args if id(a) not in here]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            self.groups_of.setdefault(id(node), []).append(position)
            args = [here[id(a)] for a in node.args]
            rewritten = node
            if any(a is not b for a, b in zip(args, node.args)):
                rewritten = self.fuser.node(node.kind, args, node.attrs, node.shape, node.dtype)
                self.fuser.reindexed(node, rewritten)
            here[id(node)] = rewritten
        return here[id(root)]

    def _source(self, node, position: int, here: dict):
        """The earlier group whose copy of `node` the group at `position` loads, or None to
        compute it: when it is not yet at its bound, when it is one cheap instruction on
        operands at hand, or when no earlier group's copy would hold its values."""
        groups = self.groups_of.get(id(node), ())
        expensive = fold_dag(node, self.expensive, lambda n, args: any(args) or (
            n.kind == "apply" and n.attrs[0] in EXPENSIVE))
        if len(groups) < (1 if expensive else MAX_COPIES):
            return None
        if not (node.kind == "apply" and node.attrs[0] in EXPENSIVE) and all(
                not a.computes or id(a) in here for a in node.args):
            return None
        latest = max((g for g in groups if g < position), default=None)
        return latest if latest is not None and self._reusable(node, latest) else None

    def _reusable(self, node, position: int) -> bool:
        """A copy stored by the group at `position` holds `node`'s values for every later
        group: that group loops over the node's index space in parallel, and nothing that the
        node reads is written after it."""
        group = self.fuser.steps[position]
        if group.serial or group.domain != node.shape:
            return False
        version = self.computed[position][id(node)]
        writers = self.fuser.last_writer
        return all(writers.get(b, -1) < position for b in self.fuser.reads(version))

    def _copy(self, node, position: int):
        """The load of `node`'s copy that the group at `position` stores (from the first
        use on)."""
        key = (id(node), position)
        if key not in self.copies:
            fuser, group = self.fuser, self.fuser.steps[position]
            buffer = fuser.new_buffer(node.dtype, int(np.prod(node.shape, dtype=np.int64)))
            view = contiguous(node.shape)
            version = self.computed[position][id(node)]
            group.outputs.append(Pending("store", group.domain, version, buffer.id, view))
            fuser.last_writer[buffer.id] = position
            self.copies[key] = fuser.load(buffer, view)
        return self.copies[key]
