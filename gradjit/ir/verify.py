"""The verifier: every value defined once before use, every op typed as its shape rule says."""
from __future__ import annotations

from gradjit.ir.core import Function, canonical_params
from gradjit.ir.primitive import ShapeError


class VerifyError(ValueError):
    """An ill-formed function; the message names the op and the problem."""


def verify(fn: Function) -> Function:
    defined = set()
    for p in fn.params:
        if p in defined:
            raise VerifyError(f"@{fn.name}: parameter {p} appears twice")
        defined.add(p)
    for index, op in enumerate(fn.ops):
        where = f"@{fn.name}, op {index} ({op.prim.name})"
        for v in op.inputs:
            if v not in defined:
                raise VerifyError(f"{where}: operand {v} is used before it is defined")
        try:
            params = canonical_params(op.prim, op.params)
            inferred = op.prim.infer(*(v.type for v in op.inputs), **params)
        except (TypeError, ShapeError) as error:
            raise VerifyError(f"{where}: {error}") from None
        if (inferred is None) != (op.out is None):
            raise VerifyError(f"{where}: result present/absent against the shape rule")
        if op.out is not None:
            if op.out.type != inferred:
                raise VerifyError(f"{where}: result typed {op.out.type}, rule gives {inferred}")
            if op.out in defined:
                raise VerifyError(f"{where}: result {op.out} is defined twice")
            defined.add(op.out)
    for r in fn.results:
        if r not in defined:
            raise VerifyError(f"@{fn.name}: result {r} is never defined")
    return fn
