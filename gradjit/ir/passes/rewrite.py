"""The walk every pass shares: ops in order, operands renamed through a replacement map,
each op kept, replaced by an existing value, or rewritten into new ops."""
from __future__ import annotations

from typing import Callable

import numpy as np

from gradjit.ir.core import Builder, Function, Op, Value

# rule(op, builder) -> None to keep `op`, DROP to remove an effect known to do nothing, or the
# value that replaces `op.out` (new ops that compute it are emitted with `builder`).
Rule = Callable[[Op, Builder], "Value | None"]
DROP = object()


def rewrite(fn: Function, rule: Rule) -> Function:
    builder = Builder(fn.name)
    builder.params = list(fn.params)
    renamed: dict[Value, Value] = {}
    for op in fn.ops:
        inputs = [renamed.get(v, v) for v in op.inputs]
        if inputs != op.inputs:
            op = Op(op.prim, inputs, op.params, op.out, op.site)
        builder.site = op.site
        replacement = rule(op, builder)
        if replacement is None:
            builder.ops.append(op)
        elif replacement is not DROP:
            renamed[op.out] = replacement
    return builder.build([renamed.get(r, r) for r in fn.results])


def definitions(fn: Function) -> dict[Value, Op]:
    return {op.out: op for op in fn.ops if op.out is not None}


def known_array(value: Value, defs: dict[Value, Op]) -> np.ndarray | None:
    """The value of a `full` or `constant` op, else None."""
    op = defs.get(value)
    if op is None or op.prim.name not in ("full", "constant"):
        return None
    return op.prim.evaluate(**op.params)


def uniform(flat: np.ndarray) -> bool:
    """Whether a non-empty flat array holds one value: a fill of 0.0 is not [0.0, -0.0]."""
    if not np.array_equiv(flat, flat[0]):
        return False
    return flat.dtype.kind != "f" or np.array_equiv(np.signbit(flat), np.signbit(flat[0]))


def fill_value(value: Value, defs: dict[Value, Op]):
    """The number a `full` op fills with, else None."""
    op = defs.get(value)
    return op.params["value"] if op is not None and op.prim.name == "full" else None
