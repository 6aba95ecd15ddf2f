"""Common subexpression elimination: a pure op repeating an earlier op (same primitive,
operands and params) reuses the earlier result."""
from __future__ import annotations

from gradjit.ir.core import Function
from gradjit.ir.passes.rewrite import rewrite


def eliminate_common_subexpressions(fn: Function) -> Function:
    seen = {}

    def rule(op, builder):
        if op.out is None:
            return None
        key = (op.prim.name, tuple(map(id, op.inputs)), _param_key(op.params))
        earlier = seen.setdefault(key, op.out)
        return None if earlier is op.out else earlier

    return rewrite(fn, rule)


def _param_key(v):
    """Numbers compare by their float's repr, so 0 and 0.0 meet but -0.0 and nan stay apart."""
    if isinstance(v, dict):
        return tuple((k, _param_key(x)) for k, x in v.items())
    if isinstance(v, tuple):
        return tuple(map(_param_key, v))
    if isinstance(v, (bool, int, float)):
        return repr(float(v))
    return v
