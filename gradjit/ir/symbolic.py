"""IR -> sympy: the scalar meaning of a function's results as expressions over its parameters,
and `formula`, which prints one (reductions and matmuls in index and matrix notation).
sympy is imported only when one of these runs, never by `import gradjit`."""
from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from fractions import Fraction

import numpy as np

from gradjit.ir.core import Function, Op
from gradjit.ir.symbolic_lower import from_sympy
from gradjit.ir.types import DType

__all__ = ["express", "formula", "from_sympy", "parameter_symbols", "region_to_sympy",
           "sympy_number", "to_sympy", "uniform_value", "values_to_name"]

INDEX_LETTERS = "ijklmnpqrstuvw"
_REDUCTIONS = {"reduce_sum": "sum", "reduce_max": "max", "reduce_min": "min",
               "reduce_prod": "prod"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Above this many nodes a formula's tree (which repeats shared subexpressions) is printed as
# named subexpressions and the result, so printing never blows up.
_TREE_LIMIT = 120
_DENOMINATOR_LIMITS = (10, 100, 1000, 10_000, 100_000, 1_000_000)


def parameter_symbols(fn: Function) -> list:
    """One sympy symbol per parameter, named as the text form names it (`x`, else `arg0`)."""
    import sympy as sp
    names: list[str] = []
    for i, p in enumerate(fn.params):
        usable = p.name and _IDENT.match(p.name) and p.name not in names
        names.append(p.name if usable else f"arg{i}")
    return [sp.Symbol(name) for name in names]


def to_sympy(fn: Function) -> list:
    """Sympy expressions of `fn`'s results over `parameter_symbols(fn)`.

    Elementwise ops use their primitive's sympy form; fills and uniform constants are numbers;
    broadcast_to and reshapes that only add or drop size-1 axes keep the element's expression.
    Other ops become structural notes: reductions `sum_j(e)` (`max_`, `min_`; the letters name
    the operand's reduced axes, i for axis 0), anything else an application named after its
    primitive (`matmul(x, w)`, `transpose(x)`), which `from_sympy` refuses to lower."""
    env = region_to_sympy(fn.ops, dict(zip(fn.params, parameter_symbols(fn))))
    return [env[r] for r in fn.results]


def region_to_sympy(ops: list[Op], env: dict, rename=None) -> dict:
    """`env` (Value -> expression, for the values the ops use but do not compute) extended
    with the expression of every result of `ops`, which are in order. `rename(op, args, expr)`,
    if given, returns what stands for the op's result in later expressions (a symbol, say)."""
    import sympy as sp
    from sympy.core.parameters import distribute
    env = dict(env)
    counter = itertools.count()
    with distribute(False):
        for op in ops:
            if op.out is None:
                continue
            missing = [v for v in op.inputs if v not in env]
            if missing:
                raise ValueError(f"{op.prim.name}: operand {missing[0]} has no expression (it "
                                 "is neither computed by an earlier op nor given in env)")
            args = [env[v] for v in op.inputs]
            expr = express(sp, op, args, counter)
            env[op.out] = rename(op, args, expr) if rename else expr
    return env


def express(sp, op: Op, args: list, counter=None):
    """The expression of one op's result from those of its operands. Run it within
    sympy's `distribute(False)`, or sympy expands c*(a + b) into c*a + c*b."""
    number = uniform_value(op)
    if number is not None:
        return sympy_number(sp, number, op.out.type.dtype)
    structure = _STRUCTURE.get(op.prim.name)
    if structure is not None:
        return structure(sp, op, args)
    if op.prim.kind == "elementwise" and op.prim.sympy is not None:
        return op.prim.sympy(sp, *args, **op.params)
    return _opaque(sp, op.prim.name, args, counter or itertools.count())


def sympy_number(sp, value, dtype: DType):
    """A fill value as an exact sympy number that lowers back to the same `dtype` value: the
    shortest to read of its shortest decimal, its exact binary fraction and fractions with
    small denominators (the f32 value 0.083333336 is 1/12, 0.1 is 1/10, 2**-20 is 1/1048576)."""
    if dtype.is_bool:
        return sp.true if value else sp.false
    if dtype.is_int:
        return sp.Integer(int(value))
    value = float(value)
    if math.isnan(value):
        return sp.nan
    if math.isinf(value):
        return sp.oo if value > 0 else -sp.oo
    exact = dtype.numpy.type(value)
    binary = Fraction(float(exact))
    candidates = [Fraction(str(exact)), binary,
                  *(binary.limit_denominator(limit) for limit in _DENOMINATOR_LIMITS)]
    # The test mirrors the lowering, which rounds p/q to a float, then to `dtype`.
    best = min((f for f in candidates if dtype.numpy.type(f.numerator / f.denominator) == exact),
               key=lambda f: len(str(f)))
    return sp.Rational(best.numerator, best.denominator)


def uniform_value(op: Op):
    """The number every element of a `full` or uniform `constant` result holds, else None."""
    if op.prim.name == "full":
        return op.params["value"]
    if op.prim.name == "constant":
        values = np.unique(np.asarray(op.params["value"]))
        if values.size == 1:
            return values.item()
    return None


def _reshape(sp, op, args):
    kept = [d for d in op.out.type.shape if d != 1]
    if kept == [d for d in op.inputs[0].type.shape if d != 1]:
        return args[0]
    return _opaque(sp, "reshape", args)


def _reduce(sp, op, args):
    axes = op.params["axes"]
    if not axes:
        return args[0]
    letters = "".join(INDEX_LETTERS[a] if a < len(INDEX_LETTERS) else f"i{a}" for a in axes)
    return sp.Function(f"{_REDUCTIONS[op.prim.name]}_{letters}")(args[0])


def _opaque(sp, name, args, counter=None):
    if args:
        return sp.Function(name)(*args)
    return sp.Symbol(f"{name}{next(counter or itertools.count())}")


_STRUCTURE = {
    "broadcast_to": lambda sp, op, args: args[0],
    "reshape": _reshape,
    **{name: _reduce for name in _REDUCTIONS},
}


# ---- formula ----

def formula(fn: Function, result_index: int = 0, latex: bool = False) -> str:
    """A readable formula of one result over the parameters, e.g. `3*x/2 + 3` or
    `exp(x)/sum_j(exp(x))`; matmuls print as `x @ w`. When the formula as one expression would
    be large (it repeats what the ops share), shared parts are named: lines `t0 = ...`, then
    the result."""
    import sympy as sp
    if not -len(fn.results) <= result_index < len(fn.results):
        raise IndexError(f"@{fn.name} has {len(fn.results)} results; there is no result "
                         f"{result_index}")
    target = fn.results[result_index]
    ops = _cone(fn.ops, target)
    named = set()
    if _tree_size(ops, target) > _TREE_LIMIT:
        named = values_to_name(ops, shared_limit=4, limit=_TREE_LIMIT // 2) - {target}
    taken = {str(s) for s in parameter_symbols(fn)}
    names = (f"t{i}" for i in itertools.count() if f"t{i}" not in taken)
    lines = []

    def rename(op, args, expr):
        if op.out not in named:
            return expr
        lines.append((sp.Symbol(next(names)), expr))
        return lines[-1][0]

    env = region_to_sympy(ops, dict(zip(fn.params, parameter_symbols(fn))), rename)
    printer = _printers()[1 if latex else 0]
    text = [f"{printer.doprint(name)} = {printer.doprint(e)}" for name, e in lines]
    return (" \\\\\n" if latex else "\n").join(text + [printer.doprint(env[target])])


def values_to_name(ops: list[Op], shared_limit: int, limit: int) -> set:
    """Results of `ops` that expressions should refer to by a name rather than repeat: those
    used more than once whose expression has more than `shared_limit` nodes, and any with more
    than `limit`. No expression then has more than about `limit` nodes, however much the ops
    share (as one tree, a chain of shared values doubles at every step)."""
    uses = Counter(v for op in ops for v in op.inputs)
    named: set = set()
    sizes: dict = {}
    for op in ops:
        if op.out is None:
            continue
        size = 1 + sum(sizes.get(v, 1) for v in op.inputs)
        if size > limit or (uses[op.out] > 1 and size > shared_limit):
            named.add(op.out)
            size = 1
        sizes[op.out] = size
    return named


def _tree_size(ops: list[Op], target) -> int:
    sizes: dict = {}
    for op in ops:
        if op.out is not None:
            sizes[op.out] = 1 + sum(sizes.get(v, 1) for v in op.inputs)
    return sizes.get(target, 1)


def _cone(ops: list[Op], target) -> list[Op]:
    """The ops `target` depends on, in order."""
    needed = {target}
    for op in reversed(ops):
        if op.out in needed:
            needed.update(op.inputs)
    return [op for op in ops if op.out in needed]


_PRINTERS = []


def _printers():
    """(text, LaTeX) printers that know the structural notes; built once sympy is loaded."""
    if _PRINTERS:
        return _PRINTERS
    from sympy.printing.latex import LatexPrinter
    from sympy.printing.precedence import PRECEDENCE
    from sympy.printing.str import StrPrinter

    def matmul(printer, expr, joint):
        return joint.join(printer.parenthesize(a, PRECEDENCE["Mul"]) for a in expr.args)

    class Text(StrPrinter):
        def _print_Function(self, expr):
            if expr.func.__name__ == "matmul":
                return matmul(self, expr, " @ ")
            return super()._print_Function(expr)

    class Latex(LatexPrinter):
        def _print_Function(self, expr, exp=None):
            name = expr.func.__name__
            reduction = re.fullmatch(r"(sum|max|min)_([a-z]+)", name)
            if name == "matmul":
                text = matmul(self, expr, " ")
            elif reduction:
                kind, letters = reduction.groups()
                body = self._print(expr.args[0])
                text = rf"\{kind}_{{{','.join(letters)}}} \left({body}\right)"
            else:
                return super()._print_Function(expr, exp)
            return rf"\left({text}\right)^{{{exp}}}" if exp else text

    _PRINTERS.extend([Text(), Latex()])
    return _PRINTERS
