"""Constant folding: ops whose operands are all known are evaluated once, at compile time.

A uniform result becomes a `full`; a small one a `constant`; large varied results are left to
run time so the program text stays small. Guards on known predicates that hold are dropped.
An elementwise op of fills is a fill, computed from one element of each, and a fill repeated or
rearranged is a fill: a fill (a one-element constant too) is never materialized at its full
size unless another op needs its elements."""
from __future__ import annotations

import numpy as np

from gradjit.ir.core import Function
from gradjit.ir.passes.rewrite import DROP, known_array, rewrite, uniform
from gradjit.ir.primitive import evaluate

MAX_CONSTANT_SIZE = 16
# Ops whose elements are all their operand's: of a fill, a fill of the same number
SPREADING = {"broadcast_to", "reshape", "transpose"}


class _Fill:
    """A known value that is one number everywhere, kept as that number."""

    def __init__(self, value, type):
        self.value, self.type = value, type

    def element(self) -> np.ndarray:
        return np.asarray(self.value, self.type.dtype.numpy)

    def array(self) -> np.ndarray:
        return np.full(self.type.shape, self.value, self.type.dtype.numpy)


def fold_constants(fn: Function) -> Function:
    known = {}

    def rule(op, builder):
        if op.prim.kind == "source":
            if op.prim.name == "full":
                known[op.out] = _Fill(op.params["value"], op.out.type)
            elif op.prim.name == "constant":
                array = known_array(op.out, {op.out: op})
                known[op.out] = (_Fill(array.reshape(-1)[0].item(), op.out.type)
                                 if array.size == 1 else array)
            return None
        operands = [known.get(v) for v in op.inputs]
        # an op of no operands that is no source (a host random draw) runs at each call
        if not operands or any(a is None for a in operands):
            return None
        if op.out is None:
            return DROP if bool(_array(operands[0])) == op.params["expected"] else None
        fills = all(isinstance(a, _Fill) for a in operands)
        if fills and op.prim.name in SPREADING:
            out = builder.full(operands[0].value, op.out.type)
            known[out] = _Fill(operands[0].value, op.out.type)
            return out
        if fills and op.prim.kind == "elementwise":
            value = evaluate(op.prim, [a.element() for a in operands], op.params).item()
            out = builder.full(value, op.out.type)
            known[out] = _Fill(value, op.out.type)
            return out
        result = evaluate(op.prim, [_array(a) for a in operands], op.params)
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


def _array(known) -> np.ndarray:
    return known.array() if isinstance(known, _Fill) else known
