"""Sympy -> IR: expressions over symbols bound to values become primitive ops. Bound to numpy
arrays instead of IR values, the same lowering evaluates the expressions."""
from __future__ import annotations

import functools

from gradjit.ir import elementwise as E
from gradjit.ir import integer as I
from gradjit.ir.primitive import ambient_handler, ir_type
from gradjit.ir.types import TensorType, bool_

# x**n for integer 1 < n <= this is a chain of products, above it one pow.
_MAX_PRODUCT_POWER = 4


def from_sympy(exprs, builder, symbol_to_value: dict, type: TensorType | None = None) -> list:
    """Lower `exprs` into ops recorded by `builder` (None: evaluate them with numpy, the
    symbols bound to arrays), one value per expression.

    Numbers become `full` ops of `type` (default: the type of the first float value bound;
    True/False become bool fills of its shape). Each distinct subexpression is lowered once.
    Add/Mul become add/sub/mul/div chains, integer powers products (or pow), halves sqrt and
    rsqrt, exp/log/trig/atan2/erf/erfc/Abs/sign/floor/ceiling/Max/Min their primitives,
    Piecewise nested where, relations and And/Or/Not comparisons and logic; exp(a) - 1, log(1 + a),
    log(exp(a) + exp(b)), 1/(1 + exp(-a)) and round's form become expm1, log1p, logaddexp,
    sigmoid and round. Anything else
    (a structural note such as `sum_j(x)`) raises ValueError."""
    return Lowering(symbol_to_value, type).run(exprs, builder)


class Lowering:
    """One lowering: symbols bound to values, and `definitions`, symbols whose value is made on
    first use by calling `definitions[symbol](lowering)` (shared subexpressions, kept ops)."""

    def __init__(self, symbol_to_value: dict, type: TensorType | None = None,
                 definitions: dict | None = None):
        import sympy
        self.sp = sympy
        self.bound = dict(symbol_to_value)
        self.definitions = dict(definitions or {})
        self.type = type if type is not None else _default_type(self.bound.values())
        self.memo: dict = {}
        self.rules = _rules(sympy)

    def run(self, exprs, builder=None) -> list:
        from sympy.core.parameters import distribute
        # With no builder, an outer Builder must not capture the fills: numpy evaluates them.
        # distribute(False): negating c*(a + b) must not expand it.
        with builder if builder is not None else ambient_handler(None), distribute(False):
            return [self(e) for e in exprs]

    def __call__(self, expr):
        value = self.memo.get(expr)
        if value is None:
            value = self._lower(self.sp.sympify(expr))
            self.memo[expr] = value
        return value

    def _lower(self, e):
        if e.is_Symbol:
            return self._symbol(e)
        if e.is_Number:
            return self._number(e)
        if e in (self.sp.true, self.sp.false):
            return E.full(value=bool(e), shape=self._type().shape, dtype="bool")
        rule = self.rules.get(e.func)
        if rule is None:
            raise ValueError(f"cannot lower {e.func.__name__} (in {e}) to gradjit primitives")
        return rule(self, e)

    def _type(self) -> TensorType:
        if self.type is None:
            raise ValueError("numbers need a type: pass type= or bind a float value")
        return self.type

    def _symbol(self, s):
        if s in self.bound:
            return self.bound[s]
        if s in self.definitions:
            return self.definitions[s](self)
        raise ValueError(f"no value is bound to the symbol {s}")

    def _number(self, n):
        t = self._type()
        if t.dtype.is_int and n.is_Integer:
            value = int(n)
        elif t.dtype.is_float:
            value = _float(n)
        else:
            raise ValueError(f"{n} is not a {t.dtype} number")
        return E.full(value=value, shape=t.shape, dtype=t.dtype.name)

    # ---- arithmetic ----

    def add(self, e):
        terms = list(e.args)
        value = None
        exp_term = next((t for t in terms if t.func == self.sp.exp), None)
        if exp_term is not None and self.sp.S.NegativeOne in terms:
            terms.remove(exp_term)
            terms.remove(self.sp.S.NegativeOne)
            value = E.expm1(self(exp_term.args[0]))
        for t in terms:
            if not t.could_extract_minus_sign():
                value = self(t) if value is None else E.add(value, self(t))
        for t in terms:
            if t.could_extract_minus_sign():
                value = E.neg(self(-t)) if value is None else E.sub(value, self(-t))
        return value

    def mul(self, e):
        coeff, factors = e.as_coeff_mul()
        numerator, denominator = [], []
        for f in factors:
            if f.is_Pow and f.exp.is_Number and f.exp < 0 and self._sigmoid_of(f) is None:
                denominator.append(f.base ** -f.exp)
            else:
                numerator.append(f)
        sign = -1 if coeff < 0 else 1
        coeff = abs(coeff)
        if not numerator:
            numerator, coeff, sign = [coeff * sign], self.sp.S.One, 1
        value = functools.reduce(E.mul, map(self, numerator))
        if denominator:
            value = E.div(value, self(self.sp.Mul(*denominator)))
        if coeff == 2:
            value = E.add(value, value)  # exact as 2*x is, and needs no fill
        elif coeff != 1:
            # x/3 stays a division: 1/3 has no exact float, and x*(1/3) would round twice.
            inverse = 1 / coeff
            exact = not inverse.is_Integer or _is_power_of_two(inverse)
            value = E.mul(value, self(coeff)) if exact else E.div(value, self(inverse))
        return E.neg(value) if sign < 0 else value

    def pow(self, e):
        base, exponent = e.args
        argument = self._sigmoid_of(e)
        if argument is not None:
            return E.sigmoid(self(argument))
        if exponent == self.sp.Rational(1, 2):
            return E.sqrt(self(base))
        if exponent == self.sp.Rational(-1, 2):
            return E.rsqrt(self(base))
        if exponent.is_Integer and exponent < 0:
            return E.div(self(self.sp.S.One), self(base ** -exponent))
        if exponent.is_Integer and int(exponent) <= _MAX_PRODUCT_POWER:
            n = int(exponent)
            half = self(base ** (n // 2))
            square = E.mul(half, half)
            return square if n % 2 == 0 else E.mul(square, self(base))
        return E.pow_(self(base), self(exponent))

    def _sigmoid_of(self, e):
        """a where e is 1/(1 + exp(-a)), else None."""
        sp = self.sp
        if not (e.is_Pow and e.exp == -1 and e.base.is_Add and len(e.base.args) == 2
                and sp.S.One in e.base.args):
            return None
        other = next(t for t in e.base.args if t != sp.S.One)
        if other.func != sp.exp:
            return None
        argument = -other.args[0]
        return argument if E.sigmoid.sympy(sp, argument) == e else None

    def log(self, e):
        (argument,) = e.args
        terms = argument.args if argument.is_Add else ()
        if len(terms) == 2 and all(t.func == self.sp.exp for t in terms):
            return E.logaddexp(*(self(t.args[0]) for t in terms))  # no exp overflows
        if argument.is_Add and self.sp.S.One in argument.args:
            return E.log1p(self(argument - 1))
        return E.log(self(argument))

    def piecewise(self, e):
        sp = self.sp
        *branches, (default, always) = e.args
        if always != sp.true:
            raise ValueError(f"{e} has no value where no condition holds (no True branch)")
        if default.func == sp.floor and len(branches) == 1:
            argument = default.args[0] - sp.Rational(1, 2)
            if E.round_.sympy(sp, argument) == e:
                return E.round_(self(argument))
        value = self(default)
        for expr, cond in reversed(branches):
            value = E.where(self(cond), self(expr), value)
        return value


@functools.cache
def _rules(sp) -> dict:
    """sympy head -> how to lower it."""
    def unary(prim):
        return lambda low, e: prim(low(e.args[0]))

    def binary(prim):
        return lambda low, e: prim(low(e.lhs), low(e.rhs))

    def chain(prim):
        return lambda low, e: functools.reduce(prim, map(low, e.args))

    return {
        sp.Add: Lowering.add, sp.Mul: Lowering.mul, sp.Pow: Lowering.pow, sp.log: Lowering.log,
        sp.Piecewise: Lowering.piecewise,
        sp.exp: unary(E.exp), sp.sin: unary(E.sin), sp.cos: unary(E.cos),
        sp.tan: unary(E.tan), sp.tanh: unary(E.tanh), sp.Abs: unary(E.abs_),
        sp.sign: unary(E.sign), sp.floor: unary(E.floor), sp.ceiling: unary(E.ceil),
        sp.Not: unary(E.logical_not), sp.erf: unary(E.erf), sp.erfc: unary(E.erfc),
        sp.atan2: lambda low, e: E.atan2(low(e.args[0]), low(e.args[1])),
        # sympy writes atan2(y, c) with a positive constant c as atan(y / c)
        sp.atan: lambda low, e: E.atan2(low(e.args[0]), low(sp.S.One)),
        sp.Max: chain(E.maximum), sp.Min: chain(E.minimum),
        sp.And: chain(E.logical_and), sp.Or: chain(E.logical_or),
        sp.Eq: binary(E.eq), sp.Ne: binary(E.ne), sp.StrictLessThan: binary(E.lt),
        sp.LessThan: binary(E.le), sp.StrictGreaterThan: binary(E.gt),
        sp.GreaterThan: binary(E.ge),
        I.sympy_fmod(sp): lambda low, e: I.fmod(*map(low, e.args)),
    }


def _default_type(values) -> TensorType | None:
    types = [ir_type(v) for v in values]
    floats = [t for t in types if t.dtype.is_float]
    if floats:
        return floats[0]
    return TensorType(types[0].shape, bool_) if types else None


def _float(n) -> float:
    try:
        return float(n)
    except OverflowError:
        return float("inf") if n > 0 else float("-inf")


def _is_power_of_two(n) -> bool:
    """0 counts too: its multiple is exact (and 1/0 is not ours to divide by)."""
    n = abs(int(n))
    return n & (n - 1) == 0
