"""Elementwise ops -> canonical terms under IEEE-exact identities only: two values with one
term compute bitwise the same numbers (NaN payloads aside) on every input. This is how
simplify_elementwise proves that a rewrite sympy proposes changes no result.

Identities used, each exact for every float including +-0, +-inf and nan: a - b = a + (-b);
--a = a; a + -0.0 = a; a * 1 = a / 1 = a; a * -1 = a / -1 = -a; a + a = a * 2; (-a) * b =
-(a * b) and the same for division on either side; a / 2**k = a * 2**-k where that is a float;
add, mul, eq, ne, logical_and/or commute; lt(a, b) = gt(b, a); where(c, a, a) = a;
maximum(a, a) = minimum(a, a) = a; abs(-a) = abs(a); a cast to its own dtype is a. Arithmetic
on numbers is folded (IEEE in numpy as in compiled code). Two identities hold only on a proven
domain: a - a = +0 where a is finite, a * 0 = +0 where a is finite with its sign bit clear;
`facts` says which values are, from what produced them (a cast from bool or an integer, a
finite fill, abs, where, and bounded functions of such values). Nothing else is assumed:
x/x, exp(log(x)), log(exp(x)), 2*(x*0.75) = x*1.5 (not in the subnormals) keep their terms."""
from __future__ import annotations

import math

import numpy as np

from gradjit.ir.core import Function, Op

FINITE, SIGN_CLEAR = "finite", "sign_clear"
_COMMUTATIVE = {"add", "mul", "eq", "ne", "logical_and", "logical_or"}
_FOLDED = {"add": np.add, "mul": np.multiply, "div": np.divide, "neg": np.negative}
# Finite wherever their operands are (no overflow, no nan from finite input).
_BOUNDED = {"sin", "cos", "tanh", "sigmoid", "erf", "erfc", "floor", "ceil", "round", "sign",
            "neg", "abs"}
_SIGN_CLEAR_RESULTS = {"abs", "sigmoid", "erfc"}


def value_facts(fn: Function) -> dict:
    """Value -> frozenset of FINITE / SIGN_CLEAR, for the values of `fn` where they are proven."""
    facts: dict = {}
    for op in fn.ops:
        if op.out is not None:
            facts[op.out] = _derive(op.prim.name, op.params, [v.type.dtype for v in op.inputs],
                                    [facts.get(v, frozenset()) for v in op.inputs],
                                    op.out.type.dtype)
    return facts


def _derive(name, params, in_dtypes, operand_facts, out_dtype) -> frozenset:
    if not out_dtype.is_float:
        return frozenset()
    if name == "full":
        value = float(params["value"])
        return _number_facts(value)
    if name == "cast":
        if in_dtypes[0].is_bool:
            return frozenset({FINITE, SIGN_CLEAR})
        if in_dtypes[0].is_int:  # every int64 is a finite f32 and f64
            return frozenset({FINITE})
        return operand_facts[0] if in_dtypes[0] == out_dtype else frozenset()
    if name == "where":
        return operand_facts[1] & operand_facts[2]
    if name in _BOUNDED and all(FINITE in f for f in operand_facts):
        sign = SIGN_CLEAR in operand_facts[0] if name in ("floor", "ceil", "round") else False
        return frozenset({FINITE} | ({SIGN_CLEAR} if sign or name in _SIGN_CLEAR_RESULTS
                                     else set()))
    return frozenset()


def _number_facts(value: float) -> frozenset:
    finite = {FINITE} if math.isfinite(value) else set()
    sign = {SIGN_CLEAR} if math.copysign(1.0, value) > 0 and not math.isnan(value) else set()
    return frozenset(finite | sign)


class Terms:
    """Interned canonical terms: equal ids mean bitwise-equal values."""

    def __init__(self):
        self.ids: dict = {}
        self.keys: list = []
        self.facts: list = []
        self.numbers: dict = {}  # id -> (dtype name, number) for numbers

    def _intern(self, key, facts=frozenset()) -> int:
        i = self.ids.get(key)
        if i is None:
            i = self.ids[key] = len(self.keys)
            self.keys.append(key)
            self.facts.append(facts)
        return i

    def leaf(self, value, facts=frozenset()) -> int:
        return self._intern(("leaf", id(value)), facts)

    def number(self, value, dtype) -> int:
        array = np.asarray(value, dtype.numpy)
        if dtype.is_float:
            key = ("number", dtype.name, "nan" if np.isnan(array) else array.tobytes())
        else:
            key = ("number", dtype.name, array.item())
        i = self._intern(key, _number_facts(float(array)) if dtype.is_float else frozenset())
        self.numbers[i] = (dtype, array)
        return i

    def op(self, op: Op, operands: list[int]) -> int:
        """The term of `op.out` given its operands' terms."""
        if op.prim.name == "full":
            return self.number(op.params["value"], op.out.type.dtype)
        dtype = op.out.type.dtype
        in_dtypes = [v.type.dtype for v in op.inputs]
        if op.prim.name == "cast" and in_dtypes[0] == dtype:
            return operands[0]
        return self.apply(op.prim.name, op.params, operands, dtype, in_dtypes)

    def apply(self, name, params, operands, dtype, in_dtypes=None) -> int:
        rule = _RULES.get(name)
        if rule is not None:
            found = rule(self, operands, dtype)
            if found is not None:
                return found
        if name in _FOLDED and all(i in self.numbers for i in operands):
            with np.errstate(all="ignore"):
                result = _FOLDED[name](*(self.numbers[i][1] for i in operands))
            return self.number(result, dtype)
        if name in _COMMUTATIVE:
            operands = sorted(operands)
        key = (name, repr(sorted(params.items())), tuple(operands), dtype.name)
        in_dtypes = in_dtypes or [dtype] * len(operands)
        return self._intern(key, _derive(name, params, in_dtypes,
                                         [self.facts[i] for i in operands], dtype))

    # ---- helpers for the rules ----

    def is_number(self, i, number) -> bool:
        """Whether term i is `number`, the sign of a zero included."""
        if i not in self.numbers:
            return False
        value = float(self.numbers[i][1])
        return value == number and math.copysign(1.0, value) == math.copysign(1.0, number)

    def head(self, i):
        key = self.keys[i]
        return key[0], (key[2] if key[0] not in ("leaf", "number") else ())

    def neg(self, i, dtype) -> int:
        return self.apply("neg", {}, [i], dtype)

    def negated(self, i):
        """j where term i is neg(j), else None."""
        name, operands = self.head(i)
        return operands[0] if name == "neg" else None


def _neg(t: Terms, ops, dtype):
    return t.negated(ops[0])


def _sub(t: Terms, ops, dtype):
    return t.apply("add", {}, [ops[0], t.neg(ops[1], dtype)], dtype)


def _add(t: Terms, ops, dtype):
    a, b = ops
    if t.is_number(b, -0.0):
        return a
    if t.is_number(a, -0.0):
        return b
    if a == b:
        return t.apply("mul", {}, [a, t.number(2.0, dtype)], dtype)
    for x, y in ((a, b), (b, a)):
        if t.negated(y) == x and FINITE in t.facts[x]:
            return t.number(0.0, dtype)
    return None


def _mul(t: Terms, ops, dtype):
    for x, y in (ops, ops[::-1]):
        if t.is_number(y, 1.0):
            return x
        if t.is_number(y, -1.0):
            return t.neg(x, dtype)
        if t.is_number(y, 0.0) and {FINITE, SIGN_CLEAR} <= t.facts[x]:
            return y
    return _pull_negation(t, "mul", ops, dtype)


def _div(t: Terms, ops, dtype):
    a, b = ops
    if t.is_number(b, 1.0):
        return a
    if t.is_number(b, -1.0):
        return t.neg(a, dtype)
    inverse = _exact_inverse(t, b, dtype)
    if inverse is not None:
        return t.apply("mul", {}, [a, t.number(inverse, dtype)], dtype)
    return _pull_negation(t, "div", ops, dtype)


def _exact_inverse(t: Terms, i, dtype):
    """1/c where term i is a number c = +-2**k whose inverse is a float of `dtype`, else None."""
    if i not in t.numbers or not dtype.is_float:
        return None
    c = float(t.numbers[i][1])
    if c == 0 or not math.isfinite(c) or math.frexp(abs(c))[0] != 0.5:
        return None
    with np.errstate(all="ignore"):
        inverse = dtype.numpy.type(1) / dtype.numpy.type(c)
    return float(inverse) if inverse != 0 and 1 / float(inverse) == c else None


def _pull_negation(t: Terms, name, ops, dtype):
    """(-a) op b = a op (-b) = -(a op b) for mul and div: rounding is symmetric."""
    a, b = ops
    na, nb = t.negated(a), t.negated(b)
    if na is None and nb is None:
        return None
    inner = t.apply(name, {}, [na if na is not None else a, nb if nb is not None else b], dtype)
    return inner if na is not None and nb is not None else t.neg(inner, dtype)


def _same_operands(t: Terms, ops, dtype):
    return ops[0] if ops[0] == ops[1] else None


def _where(t: Terms, ops, dtype):
    cond, a, b = ops
    if a == b:
        return a
    if cond in t.numbers:
        return a if bool(t.numbers[cond][1]) else b
    return None


def _abs(t: Terms, ops, dtype):
    inner = t.negated(ops[0])
    return None if inner is None else t.apply("abs", {}, [inner], dtype)


def _swap(name):
    return lambda t, ops, dtype: t.apply(name, {}, ops[::-1], dtype)


_RULES = {
    "neg": _neg, "sub": _sub, "add": _add, "mul": _mul, "div": _div, "where": _where,
    "maximum": _same_operands, "minimum": _same_operands, "abs": _abs,
    "gt": _swap("lt"), "ge": _swap("le"),
}
