"""IR -> IR passes, one per module, and the pipeline that runs them to a fixed point."""
from __future__ import annotations

from gradjit.ir.core import Function
from gradjit.ir.passes.eliminate_common_subexpressions import eliminate_common_subexpressions
from gradjit.ir.passes.eliminate_dead_code import eliminate_dead_code
from gradjit.ir.passes.fold_constants import fold_constants
from gradjit.ir.passes.hoist_guards import hoist_guards
from gradjit.ir.passes.simplify_algebra import simplify_algebra

PIPELINE = (
    simplify_algebra,
    fold_constants,
    eliminate_common_subexpressions,
    eliminate_dead_code,
    hoist_guards,
)


def optimize(fn: Function, passes=PIPELINE, max_rounds: int = 8) -> Function:
    """Run `passes` in order, again while a round still removes ops."""
    for _ in range(max_rounds):
        size = len(fn.ops)
        for run in passes:
            fn = run(fn)
        if len(fn.ops) == size:
            break
    return fn


__all__ = ["PIPELINE", "eliminate_common_subexpressions", "eliminate_dead_code",
           "fold_constants", "hoist_guards", "optimize", "simplify_algebra"]
