"""Reverse mode as an IR -> IR pass: one function computing the results and the gradients of
one scalar result, with the VJP rules of the primitive table emitted as IR."""
from __future__ import annotations

from gradjit.ir.core import Builder, Function, Value
from gradjit.ir.elementwise import add, full


class DifferentiationError(TypeError):
    """The requested gradient is not defined (non-scalar output, integer input, ...)."""


def differentiate(fn: Function, wrt, output: int = 0) -> Function:
    """`fn` with results [*fn.results, *d(fn.results[output])/d(fn.params[i]) for i in wrt].

    Only ops on a path from a `wrt` parameter to the output through differentiable primitives
    get a VJP; a cotangent that is never produced is a symbolic zero and costs nothing (a
    gradient that is zero everywhere becomes one `full` op). Fan-out is summed."""
    wrt = list(wrt)
    target = fn.results[output]
    _check(fn, wrt, target)
    active = _active_values(fn, [fn.params[i] for i in wrt], target)
    builder = Builder(fn.name)
    builder.params, builder.ops = list(fn.params), list(fn.ops)
    with builder:
        cotangent = {}
        if target in active:
            cotangent[target] = full(value=1.0, shape=(), dtype=target.type.dtype.name)
        backpropagate(fn.ops, cotangent, active, builder)
        builder.site = None
        grads = [cotangent[p] if p in cotangent else _zeros(p)
                 for p in (fn.params[i] for i in wrt)]
    return builder.build(list(fn.results) + grads)


def backpropagate(ops, cotangent: dict, active, builder: Builder | None = None):
    """Sweep `ops` backwards, adding each active input's VJP part to `cotangent` (value ->
    cotangent, seeded by the caller; fan-out is summed). Emits IR in the current builder."""
    for op in reversed(ops):
        if op.out not in active or not op.prim.differentiable:
            continue
        g = cotangent.get(op.out)
        if g is None:
            continue
        if builder is not None:
            builder.site = op.site
        parts = op.prim.vjp(g, op.out, *op.inputs, **op.params)
        for value, part in zip(op.inputs, parts):
            if part is None or value not in active:
                continue
            previous = cotangent.get(value)
            cotangent[value] = part if previous is None else add(previous, part)


def _zeros(value: Value) -> Value:
    return full(value=0.0, shape=value.type.shape, dtype=value.type.dtype.name)


def _check(fn: Function, wrt, target: Value):
    if target.type.shape != () or not target.type.dtype.is_inexact:
        raise DifferentiationError(
            f"@{fn.name}: the differentiated result must be a float scalar (complex: the "
            f"holomorphic derivative), not {target.type} "
            "(reduce it first, e.g. with sum(), or differentiate each element)")
    for i in wrt:
        if not 0 <= i < len(fn.params):
            raise DifferentiationError(f"@{fn.name} has {len(fn.params)} parameters, not {i + 1}")
        if not fn.params[i].type.dtype.is_inexact:
            raise DifferentiationError(
                f"@{fn.name}: cannot differentiate with respect to parameter {i} of type "
                f"{fn.params[i].type}: gradients need float or complex inputs")


def _active_values(fn: Function, sources, target: Value) -> set[Value]:
    """Float values that depend differentiably on a source and that the target depends on."""
    varying = set(sources)
    for op in fn.ops:
        if (op.out is not None and op.prim.differentiable and op.out.type.dtype.is_inexact
                and any(v in varying for v in op.inputs)):
            varying.add(op.out)
    useful = {target}
    for op in reversed(fn.ops):
        if op.out in useful and op.prim.differentiable:
            useful.update(op.inputs)
    return varying & useful
