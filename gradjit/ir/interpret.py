"""The reference interpreter: runs a function on numpy arrays, op by op, with numpy.

Every backend is tested against it."""
from __future__ import annotations

import numpy as np

from gradjit.ir.core import Function
from gradjit.ir.primitive import evaluate


def interpret(fn: Function, *arrays) -> list[np.ndarray]:
    """Run `fn` on `arrays`; raises GuardFailed when the inputs leave the traced path."""
    if len(arrays) != len(fn.params):
        raise TypeError(f"@{fn.name} takes {len(fn.params)} arguments, got {len(arrays)}")
    env = {}
    for p, a in zip(fn.params, arrays):
        a = np.asarray(a)
        if a.shape != p.type.shape or a.dtype != p.type.dtype.numpy:
            raise TypeError(f"@{fn.name}: argument %{p.name} must be {p.type}, got "
                            f"{a.dtype}{list(a.shape)}")
        env[p] = a
    for op in fn.ops:
        result = evaluate(op.prim, [env[v] for v in op.inputs], op.params)
        if op.out is not None:
            env[op.out] = result
    return [env[r] for r in fn.results]
