"""`with gradjit.debug_nans():` a call of a grad/value_and_grad/jit function whose results hold
a NaN raises NanError naming the first primitive that produced it, forward or in the gradient,
with the user's source line (found by re-running the traced IR in the interpreter)."""
from __future__ import annotations

import contextlib

import numpy as np

from gradjit.ir import GuardFailed
from gradjit.ir.primitive import evaluate
from gradjit.ir.types import type_of
from gradjit.tracer.trace import _stack, source_line


class NanError(FloatingPointError):
    """A compiled function produced a NaN while debug_nans was on."""


@contextlib.contextmanager
def debug_nans(enabled: bool = True):
    """Within this block (on this thread), calls of compiled functions check their results for
    NaN and raise NanError naming where the first one came from. Also a decorator."""
    previous = _stack.inspect
    _stack.inspect = check_nans if enabled else None
    _stack.push(None)
    try:
        yield
    finally:
        _stack.pop()
        _stack.inspect = previous


def _has_nan(array) -> bool:
    return array.dtype.kind == "f" and bool(np.isnan(array).any())


def check_nans(entry, arrays, outputs):
    """Raise NanError if an output holds a NaN, naming the op that produced it first."""
    bad = [i for i, out in enumerate(outputs) if _has_nan(np.asarray(out))]
    if not bad:
        return
    fn = entry.stages.get("differentiated", entry.stages["traced"])
    forward = len(entry.stages["traced"].ops)
    env = dict(zip(fn.params, arrays))
    with np.errstate(all="ignore"):
        for op in fn.ops:
            try:
                out = evaluate(op.prim, [env[v] for v in op.inputs], op.params)
            except GuardFailed:
                out = None
            if op.out is not None:
                env[op.out] = out
    reached = [i for i in bad if fn.results[i] in env and _has_nan(env[fn.results[i]])]
    if not reached:
        raise NanError(f"{fn.name}: compiled code returned NaN in result {bad[0]} where the "
                       "reference interpreter computes none; this is a gradjit bug, please "
                       "report it with the arguments")
    raise NanError(_origin(fn, env, fn.results[reached[0]], forward))


def _origin(fn, env, result, forward: int) -> str:
    """Follow the NaN back from `result` through operands that hold NaN to the earliest op
    that made one from operands that hold none."""
    tainted, made = {result}, []
    for index in range(len(fn.ops) - 1, -1, -1):
        op = fn.ops[index]
        if op.out not in tainted:
            continue
        nan_inputs = [v for v in op.inputs if _has_nan(env[v])]
        tainted.update(nan_inputs)
        if not nan_inputs:
            made.append(index)
    if not made:
        names = [f"%{p.name}" for p in fn.params if p in tainted]
        return f"{fn.name}: the NaN comes from the argument(s) {', '.join(names)}"
    index = min(made)
    op = fn.ops[index]
    operands = ", ".join(str(type_of(env[v])) for v in op.inputs)
    where = "forward pass" if index < forward else "gradient (the VJP of the op at that line)"
    return (f"{fn.name}: NaN first produced by {op.prim.name}({operands}) in the {where}, "
            f"at {op.site}: {source_line(op.site)}")
