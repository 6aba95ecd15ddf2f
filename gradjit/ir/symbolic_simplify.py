"""simplify_elementwise: each connected elementwise region of a function goes through sympy
(folding, cancellation, shared subexpressions) and back to primitives, where that is no larger
and is proven to compute bitwise what the region computed."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from gradjit.ir.core import Builder, Function, Op, Value
from gradjit.ir.passes.rewrite import DROP, rewrite
from gradjit.ir.symbolic import express, sympy_number, uniform_value, values_to_name
from gradjit.ir.symbolic_exact import Terms, value_facts
from gradjit.ir.symbolic_lower import Lowering
from gradjit.ir.types import TensorType, bool_

# Ops whose value is their operand's but which mean more than their value: removing
# stop_gradient would change what autodiff sees.
_PINNED_PRIMITIVES = {"stop_gradient", "stop_reverse"}
# Fills, and shape ops of fills: numbers to sympy.
_FILL_CHAINS = {"broadcast_to", "reshape"}
# A value used more than once gets a name when its expression has more nodes than this, and
# any value when it has more than the limit: sympy walks some expressions as trees.
_SHARED_LIMIT = 24
_EXPRESSION_LIMIT = 256
_MAX_TRIES = 8


def simplify_elementwise(fn: Function, max_ops: int = 64, max_seconds: float = 1.0) -> Function:
    """Rewrite each maximal connected region of elementwise ops (one float dtype, one shape)
    through sympy, keeping the rewrite where it has no more ops than the region had.

    sympy proposes (its bounded canonicalization as expressions are built: numbers folded and
    collected, like terms and powers combined, identities dropped, inverse functions cancelled;
    then sympy.cse; nothing is expanded and sympy.simplify, which is unbounded, is never
    called) and gradjit.ir.symbolic_exact disposes: a proposed value is kept only where its
    canonical term under IEEE-exact identities is the original's, so the rewrite changes no
    result bit on any input (NaN payloads aside): not the sign of a zero (-0.0 + 0.0), not an
    overflow ((x*2)/2), not inf or nan (x - x, x*0, x/x), not a rounding (log(exp(x)),
    3*(2*x)/4 -> 3*x/2). The first op whose proposed value is not proven pins it: it stays as
    it was, opaque to sympy, and the region is tried again. What survives: shared
    subexpressions, exact identities (x*1, x + -0.0, --x, where(c, a, a)), negations moved
    through products, divisions by powers of two, and x - x or x*0 where x is proven finite.

    Regions above `max_ops` ops are left alone, and so is one whose sympy work passes
    `max_seconds` (checked between steps; each step is bounded by the region's size). Fills
    the rewritten regions no longer use are left for eliminate_dead_code."""
    owner: dict[Value, _Plan] = {}  # by result: rewrite() renames operands into new Ops
    facts = None
    for region in find_regions(fn):
        if len(region.ops) > max_ops or not region.may_shrink():
            continue
        facts = value_facts(fn) if facts is None else facts
        plan = _plan(region, facts, time.monotonic() + max_seconds)
        if plan is not None:
            owner.update((op.out, plan) for op in region.ops + region.absorbed)
    renamed: dict[Value, Value] = {}

    def rule(op, builder):
        plan = owner.get(op.out)
        if plan is None:
            return None
        if op.out not in plan.results:
            return DROP
        renamed[op.out] = plan.emit(op.out, builder, renamed)
        return renamed[op.out]

    return rewrite(fn, rule)


# ---- regions ----

@dataclass(eq=False)
class Region:
    """Connected elementwise ops (in function order), the fills only they use (`absorbed`),
    the values they use but do not compute (`inputs`; fills excluded) and the values they
    compute that something else uses (`outputs`)."""

    ops: list[Op]
    absorbed: list[Op]
    inputs: list[Value]
    outputs: list[Value]
    type: TensorType  # the shape, with the float dtype (bool when there is none)
    fills: dict[Value, object] = field(repr=False)  # every fill value of the function

    def used_fills(self) -> dict:
        return {v: self.fills[v] for op in self.ops for v in op.inputs if v in self.fills}

    def may_shrink(self) -> bool:
        return len(self.ops) > 1 or bool(self.used_fills())


def find_regions(fn: Function) -> list[Region]:
    """The maximal connected regions of ops sympy can express: elementwise ops with a sympy
    form over float and bool values, one float dtype per region, stop_gradient and casts that
    change the dtype excluded. Fills (full, uniform constants, their broadcasts and reshapes)
    are numbers, not inputs."""
    fills: dict[Value, object] = {}
    parent: dict[int, int] = {}
    float_dtype: dict[int, object] = {}
    producer: dict[Value, int] = {}

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, op in enumerate(fn.ops):
        number = _fill_value(op, fills)
        if number is not None:
            fills[op.out] = number
        elif _joins_region(op):
            parent[i], producer[op.out] = i, i
            float_dtype[i] = next((v.type.dtype for v in [*op.inputs, op.out]
                                   if v.type.dtype.is_float), None)
            for v in op.inputs:
                if v in producer:
                    a, b = root(producer[v]), root(i)
                    dtypes = {float_dtype[a], float_dtype[b]} - {None}
                    if a != b and len(dtypes) <= 1:
                        parent[b] = a
                        float_dtype[a] = float_dtype[a] or float_dtype[b]
    members: dict[int, list[int]] = {}
    for i in parent:
        members.setdefault(root(i), []).append(i)
    region_of = {i: r for r, group in members.items() for i in group}
    _absorb_fills(fn, fills, region_of)
    return [_region(fn, sorted(group), fills, float_dtype[r], region_of, r)
            for r, group in members.items()]


def _fill_value(op: Op, fills: dict):
    if op.out is None or not (op.out.type.dtype.is_float or op.out.type.dtype.is_bool):
        return None
    if op.prim.name in _FILL_CHAINS:
        return fills.get(op.inputs[0])
    return uniform_value(op)


def _joins_region(op: Op) -> bool:
    prim = op.prim
    if (prim.kind != "elementwise" or prim.sympy is None or op.out is None
            or prim.name in _PINNED_PRIMITIVES):
        return False
    types = [v.type for v in op.inputs] + [op.out.type]
    if not all(t.dtype.is_float or t.dtype.is_bool for t in types):
        return False
    # A cast's sympy form is its operand, true only when the dtype stays.
    return prim.name != "cast" or types[0].dtype == types[1].dtype


def _absorb_fills(fn, fills, region_of):
    """A fill (chain) used only by one region's ops moves into that region (index -> root)."""
    users: dict[Value, set] = {}
    for i, op in enumerate(fn.ops):
        for v in op.inputs:
            users.setdefault(v, set()).add(i)
    results = set(fn.results)
    for i in reversed(range(len(fn.ops))):
        op = fn.ops[i]
        if op.out not in fills or op.out in results or op.out not in users:
            continue
        owners = {region_of.get(j) for j in users[op.out]}
        if len(owners) == 1 and None not in owners:
            region_of[i] = owners.pop()


def _region(fn, group, fills, dtype, region_of, r) -> Region:
    ops = [fn.ops[i] for i in group]
    absorbed = [op for i, op in enumerate(fn.ops) if region_of.get(i) == r and i not in group]
    inside = {op.out for op in ops + absorbed}
    inputs = list(dict.fromkeys(v for op in ops for v in op.inputs
                                if v not in inside and v not in fills))
    used_outside = set(fn.results) | {v for i, op in enumerate(fn.ops)
                                      if region_of.get(i) != r for v in op.inputs}
    outputs = [op.out for op in ops if op.out in used_outside]
    return Region(ops, absorbed, inputs, outputs,
                  TensorType(ops[0].out.type.shape, dtype or bool_), fills)


# ---- one region: sympy, probes, plan ----

class _OutOfTime(Exception):
    pass


@dataclass(eq=False)
class _Plan:
    """How to emit a rewritten region: an expression per output over symbols of the inputs,
    lowered lazily so each output's ops land where the output was computed."""

    leaves: dict  # input Value -> symbol
    definitions: dict  # symbol -> fn(lowering) -> value (pinned ops, shared subexpressions)
    results: dict  # output Value -> expression
    type: TensorType
    lowering: Lowering | None = None

    def emit(self, output: Value, builder: Builder, renamed: dict) -> Value:
        if self.lowering is None:
            # Inputs are looked up on first use: by then an input computed by another
            # rewritten region has its new value.
            leaves = {s: (lambda low, v=v: renamed.get(v, v)) for v, s in self.leaves.items()}
            self.lowering = Lowering({}, self.type, {**self.definitions, **leaves})
        return self.lowering.run([self.results[output]], builder)[0]


def _plan(region: Region, facts: dict, deadline: float) -> _Plan | None:
    import sympy as sp
    from sympy.core.parameters import distribute
    try:
        with distribute(False):  # c*(a + b) stays as it is, never c*a + c*b
            return _plan_with(sp, region, facts, deadline)
    except _OutOfTime:
        return None
    except (TypeError, ValueError, ArithmeticError, NotImplementedError, RecursionError):
        return None  # sympy cannot express this region (a nan compared, say): keep it as is


def _plan_with(sp, region: Region, facts: dict, deadline: float) -> _Plan | None:
    leaves = {v: sp.Dummy(v.name or "v") for v in region.inputs}
    terms = Terms()
    reference = _reference(region, facts, terms)
    pinned: set[Op] = set()
    for _ in range(_MAX_TRIES):
        exprs, kept, named = _express(sp, region, leaves, pinned, deadline)
        candidate, _ = _lower(region, [(op.out, exprs[op.out]) for op in region.ops],
                              _definitions(kept, named), leaves, terms)
        culprit = _first_difference(region, candidate, reference)
        if culprit is None:
            break
        more = {culprit} if culprit not in pinned else _producers(region, culprit) - pinned
        if not more:
            return None
        pinned |= more
    else:
        return None
    results, kept, named = _share(sp, [exprs[o] for o in region.outputs], kept, named)
    _check(deadline)
    definitions = _definitions(kept, named)
    plan = _Plan(leaves, definitions, dict(zip(region.outputs, results)), region.type)
    final, size = _lower(region, plan.results.items(), definitions, leaves, terms)
    if any(final[o] != reference[o] for o in region.outputs):
        return None
    return plan if size <= len(region.ops) + len(region.absorbed) else None


def _check(deadline: float):
    if time.monotonic() > deadline:
        raise _OutOfTime


def _express(sp, region, leaves, pinned, deadline):
    """Expressions of the region's values over the leaves and two kinds of symbols: `kept`
    (symbol -> (op, operand expressions)) for pinned ops, which stay as they are, and `named`
    (symbol -> expression) for large shared values, so that no expression sympy sees grows
    beyond about _EXPRESSION_LIMIT nodes."""
    env = {**leaves, **{v: sympy_number(sp, number, v.type.dtype)
                        for v, number in region.used_fills().items()}}
    large = values_to_name(region.ops, _SHARED_LIMIT, _EXPRESSION_LIMIT)
    kept, named = {}, {}
    for op in region.ops:
        _check(deadline)
        args = [env[v] for v in op.inputs]
        if op in pinned:
            env[op.out] = sp.Dummy(op.prim.name)
            kept[env[op.out]] = (op, args)
        elif op.out in large:
            env[op.out] = sp.Dummy("shared")
            named[env[op.out]] = express(sp, op, args)
        else:
            env[op.out] = express(sp, op, args)
    return env, kept, named


def _share(sp, results, kept, named):
    """sympy.cse over every expression the plan lowers, so that they share one vocabulary
    (an output's t0/v and a kept op's exp(x)/v would otherwise be lowered twice)."""
    slots = [*results, *named.values(), *(a for _, args in kept.values() for a in args)]
    shared, reduced = sp.cse(slots, order="none", symbols=sp.numbered_symbols("t", cls=sp.Dummy))
    rest = iter(reduced)
    results = [next(rest) for _ in results]
    named = {s: next(rest) for s in named}
    kept = {s: (op, [next(rest) for _ in args]) for s, (op, args) in kept.items()}
    return results, kept, {**named, **dict(shared)}


def _definitions(kept, named) -> dict:
    """Symbol -> how the lowering makes its value: a kept op applied to its lowered operands,
    or a named expression lowered."""
    definitions = {s: (lambda low, e=e: low(e)) for s, e in named.items()}
    definitions.update({s: (lambda low, op=op, args=args: op.prim(*map(low, args), **op.params))
                        for s, (op, args) in kept.items()})
    return definitions


def _producers(region, op) -> set[Op]:
    made_by = {o.out: o for o in region.ops}
    return {made_by[v] for v in op.inputs if v in made_by}


# ---- proof ----

def _reference(region, facts, terms: Terms) -> dict:
    """Value -> canonical term of each value the region computes (its inputs are leaves with
    the facts proven for them, its fills numbers)."""
    env = {v: terms.leaf(v, facts.get(v, frozenset())) for v in region.inputs}
    env.update((v, terms.number(number, v.type.dtype))
               for v, number in region.used_fills().items())
    for op in region.ops:
        env[op.out] = terms.op(op, [env[v] for v in op.inputs])
    return env


def _lower(region, pairs, definitions, leaves, terms: Terms) -> tuple[dict, int]:
    """(value, expression) pairs lowered into a scratch function over the region's inputs:
    (value -> canonical term of its expression, number of ops the lowering takes)."""
    pairs = list(pairs)
    trial = Builder("trial")
    lowering = Lowering({s: v for v, s in leaves.items()}, region.type, definitions)
    lowered = lowering.run([e for _, e in pairs], trial)
    env = {v: terms.leaf(v) for v in region.inputs}  # interned already: facts are kept
    for op in trial.ops:
        env[op.out] = terms.op(op, [env[v] for v in op.inputs])
    return {v: env[new] for (v, _), new in zip(pairs, lowered)}, len(trial.ops)


def _first_difference(region, candidate, reference) -> Op | None:
    """The first op (in order) computing a value whose term differs, among those the differing
    outputs depend on; None when all outputs agree."""
    wrong = [o for o in region.outputs if candidate[o] != reference[o]]
    if not wrong:
        return None
    needed = set(wrong)
    for op in reversed(region.ops):
        if op.out in needed:
            needed.update(op.inputs)
    return next(op for op in region.ops
                if op.out in needed and candidate[op.out] != reference[op.out])
