"""Forward mode as an IR -> IR pass: one function computing the results and their tangents
along given input tangents, with the JVP rules of the primitive table emitted as IR."""
from __future__ import annotations

from gradjit.ir.core import Builder, Function
from gradjit.ir.elementwise import full


def forward(fn: Function, wrt, tangent_params=None) -> Function:
    """`fn` with results [*fn.results, *their tangents] along a tangent for each `wrt`
    parameter: the parameters `tangent_params` (indices, one per wrt, of the same types), or
    new parameters appended. Tangents flow only through primitives with a JVP; a
    tangent that is never produced is a symbolic zero (one `full` op if it is a result)."""
    wrt = list(wrt)  # float parameters: callers pick them (jvp skips integer primals)
    builder = Builder(fn.name)
    builder.params, builder.ops = list(fn.params), list(fn.ops)
    if tangent_params is None:
        tangent = {fn.params[i]: builder.param(fn.params[i].type, f"{fn.params[i].name}_dot")
                   for i in wrt}
    else:
        tangent = {fn.params[i]: fn.params[j] for i, j in zip(wrt, tangent_params)}
    with builder:
        for op in fn.ops:
            if op.out is None or op.prim.jvp is None or not op.out.type.dtype.is_inexact:
                continue
            tangents = [tangent.get(v) for v in op.inputs]
            if all(t is None for t in tangents):
                continue
            builder.site = op.site
            out = op.prim.jvp(tangents, op.out, *op.inputs, **op.params)
            if out is not None:
                tangent[op.out] = out
        builder.site = None
        tangents_out = [tangent[r] if r in tangent else
                        full(value=0, shape=r.type.shape, dtype=r.type.dtype.name)
                        for r in fn.results]
    return builder.build(list(fn.results) + tangents_out)
