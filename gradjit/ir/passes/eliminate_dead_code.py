"""Dead code elimination: drop ops whose results nothing uses (guards always stay)."""
from __future__ import annotations

from gradjit.ir.core import Function


def eliminate_dead_code(fn: Function) -> Function:
    live = set(fn.results)
    kept = []
    for op in reversed(fn.ops):
        if op.out is None or op.out in live:
            kept.append(op)
            live.update(op.inputs)
    return Function(fn.name, list(fn.params), kept[::-1], list(fn.results))
