"""simplify_elementwise: each connected elementwise region of a function goes through sympy
(folding, cancellation, shared subexpressions) and back to primitives, where that is no larger
and computes, on probes of special and ordinary values, what the region computed."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from gradjit.ir.core import Builder, Function, Op, Value
from gradjit.ir.passes.rewrite import DROP, rewrite
from gradjit.ir.primitive import evaluate
from gradjit.ir.symbolic import express, sympy_number, uniform_value, values_to_name
from gradjit.ir.symbolic_lower import Lowering
from gradjit.ir.types import TensorType, bool_

# Ops whose value is their operand's but which mean more than their value: removing
# stop_gradient would change what autodiff sees.
_PINNED_PRIMITIVES = {"stop_gradient"}
# Fills, and shape ops of fills: numbers to sympy.
_FILL_CHAINS = {"broadcast_to", "reshape"}
# A value used more than once gets a name when its expression has more nodes than this, and
# any value when it has more than the limit: sympy walks some expressions as trees.
_SHARED_LIMIT = 24
_EXPRESSION_LIMIT = 256
_MAX_TRIES = 8
_MAX_PROBES = 4096
_RTOL = {"f32": 1e-3, "f64": 1e-9}


def simplify_elementwise(fn: Function, max_ops: int = 64, max_seconds: float = 1.0) -> Function:
    """Rewrite each maximal connected region of elementwise ops (one float dtype, one shape)
    through sympy, keeping the rewrite where it has no more ops than the region had.

    Allowed rewrites are sympy's bounded canonicalization as expressions are built (numbers
    folded and collected: 3*(2*x)/4 -> 3*x/2; like terms and powers combined: x*x -> x**2;
    identities dropped: x*1, x + 0, --x; Max/Min/Piecewise with known parts folded), its
    automatic inverse cancellations (exp(log(x)) -> x), and sympy.cse; nothing is expanded and
    sympy.simplify, which is unbounded, is never called. Several of those hold for the reals
    but not for floats (x - x -> 0 and 0*x -> 0 at inf and nan, x/x -> 1 at 0, exp(log(x)) ->
    x and sqrt(x)**2 -> x for x < 0, log(exp(x)) -> x past overflow, Eq(x, x) -> True at nan,
    reassociation across an overflow or a cancellation). So each candidate is run against the
    original ops on probes, every combination (or a seeded sample of 4096) of nan, +-inf, +-0,
    +-1, 0.5, 3, 0.1, -7.25, 100 and +-1e19 (f32) or +-1e150 (f64) for the region's inputs: a
    value that differs in nan/inf position or beyond rounding (relative 1e-3 in f32, 1e-9 in
    f64; the sign of zero is not compared) pins the op computing it, which stays as it was and
    is opaque to sympy, and the region is tried again.

    Regions above `max_ops` ops are left alone, and so is one whose sympy work passes
    `max_seconds` (checked between steps; each step is bounded by the region's size). Fills
    the rewritten regions no longer use are left for eliminate_dead_code."""
    owner: dict[Value, _Plan] = {}  # by result: rewrite() renames operands into new Ops
    for region in find_regions(fn):
        if len(region.ops) > max_ops or not region.may_shrink():
            continue
        plan = _plan(region, time.monotonic() + max_seconds)
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


def _plan(region: Region, deadline: float) -> _Plan | None:
    import sympy as sp
    from sympy.core.parameters import distribute
    try:
        with distribute(False):  # c*(a + b) stays as it is, never c*a + c*b
            return _plan_with(sp, region, deadline)
    except _OutOfTime:
        return None
    except (TypeError, ValueError, ArithmeticError, NotImplementedError, RecursionError):
        return None  # sympy cannot express this region (a nan compared, say): keep it as is


def _plan_with(sp, region: Region, deadline: float) -> _Plan | None:
    leaves = {v: sp.Dummy(v.name or "v") for v in region.inputs}
    probes, n = _probes(region.inputs)
    reference = _reference(region, probes, n)
    pinned: set[Op] = set()
    for _ in range(_MAX_TRIES):
        exprs, kept, named = _express(sp, region, leaves, pinned, deadline)
        candidate = _run([(op.out, exprs[op.out]) for op in region.ops],
                         _definitions(kept, named), region, leaves, probes, n)
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
    final = _run(plan.results.items(), definitions, region, leaves, probes, n)
    if any(_differs(final[o], reference[o]) for o in region.outputs):
        return None
    trial = Builder("trial")
    Lowering({s: v for v, s in leaves.items()}, region.type, definitions).run(results, trial)
    return plan if len(trial.ops) <= len(region.ops) + len(region.absorbed) else None


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


# ---- probes ----

def _probe_values(dtype) -> np.ndarray:
    big = 1e19 if dtype.name == "f32" else 1e150
    return np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 0.1, -7.25,
                     100.0, big, -big, 1 / big], dtype.numpy)


def _probes(inputs) -> tuple[dict, int]:
    """Arrays of one length for the inputs: all combinations of the probe values, or a seeded
    sample of them when there are too many."""
    choices = [np.array([False, True]) if v.type.dtype.is_bool else _probe_values(v.type.dtype)
               for v in inputs]
    total = int(np.prod([len(c) for c in choices], dtype=np.float64))
    if total <= _MAX_PROBES:
        grids = np.meshgrid(*choices, indexing="ij") if choices else []
        return {v: g.reshape(-1) for v, g in zip(inputs, grids)}, max(total, 1)
    rng = np.random.default_rng(0)
    return {v: rng.choice(c, _MAX_PROBES) for v, c in zip(inputs, choices)}, _MAX_PROBES


def _reference(region, probes, n) -> dict:
    """The region's ops run with numpy on the probes."""
    env = dict(probes)
    for v, number in region.used_fills().items():
        env[v] = np.full(n, number, v.type.dtype.numpy)
    for op in region.ops:
        env[op.out] = evaluate(op.prim, [env[v] for v in op.inputs], op.params)
    return env


def _run(pairs, definitions, region, leaves, probes, n) -> dict:
    """(value, expression) pairs lowered onto the probes: value -> array."""
    bound = {leaves[v]: probes[v] for v in region.inputs}
    lowering = Lowering(bound, TensorType((n,), region.type.dtype), definitions)
    values = [v for v, _ in pairs]
    return dict(zip(values, lowering.run([e for _, e in pairs])))


def _first_difference(region, candidate, reference) -> Op | None:
    """The first op (in order) computing a value that differs, among those the differing
    outputs depend on; None when all outputs agree."""
    wrong = [o for o in region.outputs if _differs(candidate[o], reference[o])]
    if not wrong:
        return None
    needed = set(wrong)
    for op in reversed(region.ops):
        if op.out in needed:
            needed.update(op.inputs)
    return next(op for op in region.ops
                if op.out in needed and _differs(candidate[op.out], reference[op.out]))


def _differs(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == np.bool_ or b.dtype == np.bool_:
        return a.dtype != b.dtype or bool(np.any(a != b))
    with np.errstate(all="ignore"):
        nan_a, nan_b = np.isnan(a), np.isnan(b)
        finite = np.isfinite(a) & np.isfinite(b)
        close = np.abs(a - b) <= _RTOL[_name(a.dtype)] * (np.abs(a) + np.abs(b))
        same = np.where(finite, close | (a == b), (nan_a & nan_b) | (a == b))
    return not bool(np.all(same))


def _name(dtype) -> str:
    return "f32" if dtype == np.float32 else "f64"
