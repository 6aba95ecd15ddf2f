"""Branch-free inline LLVM IR for exp, log, sin, atan2, erf, pow, ... on f32/f64 scalars or vectors.

Within 4 ulp everywhere (sin/cos/tan of any finite x: mathlib_reduce). No calls but
fma/fabs/trunc/sqrt/copysign (x86 and NVPTX)."""
from __future__ import annotations

import math
import weakref

from llvmlite import ir

from gradjit.codegen.mathlib_atan import emit_atan2
from gradjit.codegen.mathlib_core import FloatOps
from gradjit.codegen.mathlib_erf import emit_erf, emit_erfc
from gradjit.codegen.mathlib_exp import emit_exp, emit_expm1, emit_sigmoid, emit_tanh, exp_finite
from gradjit.codegen.mathlib_log import emit_log, emit_log1p, emit_pow
from gradjit.codegen.mathlib_trig import emit_cos, emit_sin, emit_tan


def emit_sqrt(o: FloatOps, x):
    return o.sqrt(x)


def emit_rsqrt(o: FloatOps, x):
    return o.div(1.0, o.sqrt(x))


def emit_logaddexp(o: FloatOps, a, b):
    """max(a, b) + log1p(exp(-|a - b|)), with a - b = d + e exact (its rounding would be the
    whole error where the log1p term dominates); a tie is a + log 2, infinite ties too, where
    a - b is NaN (only a NaN operand gives NaN)."""
    d, e = o.two_sum(a, o.neg(b))
    above = o.cmp(">", d, 0.0)
    larger = o.select(above, a, b)
    tail = exp_finite(o, o.neg(o.abs(d)), lo=o.select(above, o.neg(e), e))
    res = o.add(larger, emit_log1p(o, tail))
    res = o.keep_nan(d, res)
    return o.select(o.cmp("==", a, b), o.add(a, math.log(2.0)), res)


_EMITTERS = {
    "exp": emit_exp, "expm1": emit_expm1, "log": emit_log, "log1p": emit_log1p,
    "sin": emit_sin, "cos": emit_cos, "tan": emit_tan, "tanh": emit_tanh,
    "sigmoid": emit_sigmoid, "pow": emit_pow, "sqrt": emit_sqrt, "rsqrt": emit_rsqrt,
    "erf": emit_erf, "erfc": emit_erfc, "atan2": emit_atan2, "logaddexp": emit_logaddexp,
}
# name -> number of arguments
MATH_FUNCTIONS = {name: fn.__code__.co_argcount - 1 for name, fn in _EMITTERS.items()}


# In a module that allows it (CPU code), the first calls are emitted inline, where LLVM
# schedules them with the code around them, and later ones call one out-of-line copy per
# function and type: a program with thousands of transcendentals (an unrolled ODE solver) then
# compiles in time linear in its length, instead of emitting and optimizing a few hundred
# instructions per call.
INLINE_CALLS_PER_MODULE = 64
_inline_left: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # module -> calls


def outline_after(module: ir.Module, calls: int = INLINE_CALLS_PER_MODULE) -> None:
    """Let call_math emit `calls` calls in `module` inline and call functions after that."""
    _inline_left[module] = calls


def call_math(builder: ir.IRBuilder, name: str, *args: ir.Value) -> ir.Value:
    """`name(*args)`: inline, or a call once the module's inline budget is spent."""
    module = builder.module
    left = _inline_left.get(module)
    if left is None or left > 0:
        if left is not None:
            _inline_left[module] = left - 1
        return emit_math(builder, name, *args)
    ops = FloatOps(builder, args[0].type, may_call=True)
    (value,) = ops.outlined(f"math.{name}", lambda o, *a: (emit_math(o.b, name, *a),), args,
                            [args[0].type])
    return value


def emit_math(builder: ir.IRBuilder, name: str, *args: ir.Value) -> ir.Value:
    """Emit `name(*args)` at the builder's position; the result has the arguments' type."""
    if name not in _EMITTERS:
        raise ValueError(f"no math function {name!r}; known: {', '.join(MATH_FUNCTIONS)}")
    if len(args) != MATH_FUNCTIONS[name]:
        raise TypeError(f"{name} takes {MATH_FUNCTIONS[name]} argument(s), got {len(args)}")
    types = {str(a.type) for a in args}
    if len(types) != 1:
        raise TypeError(f"{name} needs arguments of one type, got {', '.join(sorted(types))}")
    ops = FloatOps(builder, args[0].type, may_call=builder.module in _inline_left)
    return _EMITTERS[name](ops, *args)
