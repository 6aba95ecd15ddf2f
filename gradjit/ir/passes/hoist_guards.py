"""Guard hoisting: guards, and only the ops their predicates need, move to the front, so a call
that leaves the traced path fails before the expensive work."""
from __future__ import annotations

from gradjit.ir.core import Function


def hoist_guards(fn: Function) -> Function:
    needed = set()
    for op in reversed(fn.ops):
        if op.out is None or op.out in needed:
            needed.update(op.inputs)
    first = [op for op in fn.ops if op.out is None or op.out in needed]
    rest = [op for op in fn.ops if not (op.out is None or op.out in needed)]
    return Function(fn.name, list(fn.params), first + rest, list(fn.results))
