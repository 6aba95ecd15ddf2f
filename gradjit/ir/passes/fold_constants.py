"""Constant folding: ops whose operands are all known are evaluated once, at compile time.

A uniform result becomes a `full`; a small one a `constant`; large varied results are left to
run time so the program text stays small. Guards on known predicates that hold are dropped."""
from __future__ import annotations

from gradjit.ir.core import Function
from gradjit.ir.passes.rewrite import DROP, known_array, rewrite, uniform
from gradjit.ir.primitive import evaluate

MAX_CONSTANT_SIZE = 16


def fold_constants(fn: Function) -> Function:
    known = {}

    def rule(op, builder):
        if op.prim.kind == "source":
            if op.prim.name in ("full", "constant"):
                known[op.out] = known_array(op.out, {op.out: op})
            return None
        operands = [known.get(v) for v in op.inputs]
        if any(a is None for a in operands):
            return None
        if op.out is None:
            return DROP if bool(operands[0]) == op.params["expected"] else None
        result = evaluate(op.prim, operands, op.params)
        flat = result.reshape(-1)
        if flat.size == 0 or uniform(flat):  # (a constant op can't be empty)
            out = builder.full(flat[0].item() if flat.size else 0, op.out.type)
        elif result.size <= MAX_CONSTANT_SIZE:
            out = builder.constant(result)
        else:
            return None
        known[out] = result
        return out

    return rewrite(fn, rule)
