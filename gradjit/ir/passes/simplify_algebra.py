"""Algebraic simplification: identities (x*1, x+0, x-0, x/1, x**1, --x, x @ I, where on a known
condition, or/and with a known operand),
shape no-ops, and chains (transpose of transpose, reshape of reshape, broadcast of broadcast,
broadcast or reshape of a fill) folded into one op. stop_gradient has done its job once
gradients exist, so it is removed: run this pass only after autodiff."""
from __future__ import annotations

import math

import numpy as np

from gradjit.ir.core import Function
from gradjit.ir.passes.rewrite import definitions, fill_value, known_array, rewrite


def simplify_algebra(fn: Function) -> Function:
    defs = definitions(fn)

    def rule(op, builder):
        simplify = RULES.get(op.prim.name)
        emitted = len(builder.ops)
        out = simplify(op, defs, builder) if simplify else None
        for new in builder.ops[emitted:] if out is not None else [op]:
            defs[new.out] = new
        return out

    return rewrite(fn, rule)


def _is_fill(value, number, defs) -> bool:
    fill = fill_value(value, defs)
    if fill is None or isinstance(fill, bool) or fill != number:
        return False
    # A float zero keeps its sign: -0.0 + 0.0 is 0.0, so only x + -0.0 (and x - 0.0) is x.
    return not (value.type.dtype.is_float and number == 0) or \
        math.copysign(1.0, fill) == math.copysign(1.0, number)


def _identity(number, sides):
    """x op c -> x, where c is a fill of `number` on one of the `sides` (0 left, 1 right)."""
    def simplify(op, defs, builder):
        for side in sides:
            if _is_fill(op.inputs[side], number, defs):
                return op.inputs[1 - side]
        return None
    return simplify


def _producer(value, name, defs):
    op = defs.get(value)
    return op if op is not None and op.prim.name == name else None


def _neg(op, defs, builder):
    inner = _producer(op.inputs[0], "neg", defs)
    return inner.inputs[0] if inner else None


def _where(op, defs, builder):
    cond, a, b = op.inputs
    if a is b:
        return a
    fill = fill_value(cond, defs)
    return None if fill is None else (a if fill else b)


def _logical(absorbing):
    """logical_or (absorbing True) and logical_and (absorbing False) with a known operand:
    the absorbing value gives a fill of it, the other value gives the other operand."""
    def simplify(op, defs, builder):
        for side in (0, 1):
            fill = fill_value(op.inputs[side], defs)
            if fill is None:
                continue
            if bool(fill) == absorbing:
                return builder.full(absorbing, op.out.type)
            other = op.inputs[1 - side]
            return other if other.type == op.out.type else None
        return None
    return simplify


def _transpose(op, defs, builder):
    x, perm = op.inputs[0], op.params["perm"]
    inner = _producer(x, "transpose", defs)
    if inner:
        x, perm = inner.inputs[0], tuple(inner.params["perm"][p] for p in perm)
    if perm == tuple(range(len(perm))):
        return x
    return builder.emit(op.prim, [x], {"perm": perm}) if inner else None


def _reshape_like(op, defs, builder):
    """reshape and broadcast_to: a no-op to the same shape, a chain collapses, a fill refills."""
    x, shape = op.inputs[0], op.params["shape"]
    if x.type.shape == op.out.type.shape:
        return x
    fill = fill_value(x, defs)
    if fill is not None:
        return builder.full(fill, op.out.type)
    inner = _producer(x, op.prim.name, defs)
    if inner is None:
        return None
    source = inner.inputs[0]
    same = source.type.shape == op.out.type.shape
    return source if same else builder.emit(op.prim, [source], {"shape": shape})


def _add(op, defs, builder):
    """x + -0.0 is x; x + scatter_add(zeros, i, u) is scatter_add(x, i, u): a gather's
    gradient added to another is scattered into it instead of into a zero fill, so the sum
    costs no pass of its own (reassociated: where both terms are -0.0 it is now -0.0)."""
    same = _identity(-0.0, (0, 1))(op, defs, builder)
    if same is not None:
        return same
    for side in (0, 1):
        scatter = _producer(op.inputs[side], "scatter_add", defs)
        other = op.inputs[1 - side]
        if scatter and _is_fill(scatter.inputs[0], 0.0, defs) and other.type == op.out.type:
            return builder.emit(scatter.prim, [other, *scatter.inputs[1:]], scatter.params)
    return None


def _matmul(op, defs, builder):
    """x @ I and I @ x are x: a Jacobian's basis is the identity, so the forward-mode product
    that pushes it through a matmul selects columns (a view) rather than multiplying."""
    for side in (0, 1):
        other = op.inputs[1 - side]
        if other.type == op.out.type and _is_identity(op.inputs[side], defs):
            return other
    return None


def _is_identity(value, defs) -> bool:
    """Whether value is known to be a stack of identity matrices (a fill only if 1 x 1,
    checked without making its array)."""
    *_, m, n = value.type.shape
    fill = fill_value(value, defs)
    if fill is not None or m != n:
        return m == n == 1 and fill == 1
    known = known_array(value, defs)
    if known is None:
        return False
    diagonal = np.diagonal(known, axis1=-2, axis2=-1)
    return bool(np.all(diagonal == 1)) and np.count_nonzero(known) == diagonal.size


def _same_type(op, defs, builder):
    """cast to the type it has, stop_gradient after autodiff, reductions over no axis."""
    x = op.inputs[0]
    return x if x.type == op.out.type else None


RULES = {
    "add": _add,
    "sub": _identity(0.0, (1,)),
    "mul": _identity(1, (0, 1)),
    "div": _identity(1, (1,)),
    "pow": _identity(1, (1,)),
    "neg": _neg,
    "where": _where,
    "matmul": _matmul,
    "logical_or": _logical(True),
    "logical_and": _logical(False),
    "transpose": _transpose,
    "reshape": _reshape_like,
    "broadcast_to": _reshape_like,
    "cast": _same_type,
    "stop_gradient": _same_type,
    "stop_reverse": _same_type,
    "reduce_sum": _same_type,
}
