"""Elementwise primitives: numpy evaluation, VJP and scalar sympy meaning, one entry each.

Operands of a binary primitive have one shape and one dtype: broadcasting and type
promotion are explicit ops (`broadcast_to`, `cast`) inserted by the array surface.
"""
from __future__ import annotations

import math

import numpy as np

from gradjit.ir.primitive import Partials, Primitive, ir_type, register, require
from gradjit.ir.types import TensorType, bool_, complex_of, real_of
from gradjit.ir.types import dtype as resolve_dtype


def _same_type(*types: TensorType) -> TensorType:
    first = types[0]
    for other in types[1:]:
        require(other.shape == first.shape, f"shapes {first.shape} and {other.shape} differ "
                "(broadcast explicitly with broadcast_to)")
        require(other.dtype == first.dtype, f"dtypes {first.dtype} and {other.dtype} differ "
                "(convert explicitly with cast)")
    return first


def _numeric(*types):
    t = _same_type(*types)
    require(not t.dtype.is_bool, f"needs numbers, not {t.dtype}")
    return t


def _floating(*types):
    t = _same_type(*types)
    require(t.dtype.is_float, f"needs floating point operands, not {t.dtype}")
    return t


def _inexact(*types):
    t = _same_type(*types)
    require(t.dtype.is_inexact, f"needs floating point or complex operands, not {t.dtype}")
    return t


def _ordered(*types):
    return _order_rule(*types) and _numeric(*types)


def _boolean(*types):
    t = _same_type(*types)
    require(t.dtype.is_bool, f"needs bool operands, not {t.dtype}")
    return t


def _compare_rule(*types):
    t = _same_type(*types)
    return TensorType(t.shape, bool_)


def _order_rule(*types):
    t = _same_type(*types)
    require(not t.dtype.is_complex, f"complex numbers have no order ({t.dtype})")
    return TensorType(t.shape, bool_)


def _magnitude_rule(x):
    t = _numeric(x)
    return TensorType(t.shape, real_of(t.dtype))


def _define(name, arity, rule, evaluate, vjp, sympy=None, differentiable=True):
    return register(Primitive(name, "elementwise", rule, evaluate, vjp, sympy=sympy,
                              differentiable=differentiable, arity=arity,
                              jvp=diagonal_jvp(vjp) if differentiable else None,
                              batch=batch_elementwise(name)))


def batch_elementwise(name):
    """The batching rule of every elementwise primitive: operands shared by the whole batch
    are broadcast along its axis (fused loops read them without copying), then the primitive
    applies to the stacks as they are."""
    def batch(args, batched, size, **params):
        from gradjit.ir.primitive import PRIMITIVES
        from gradjit.ir.structural import materialize  # structural builds on this module
        return PRIMITIVES[name](*[materialize(a, b, size) for a, b in zip(args, batched)],
                                **params)
    return batch


def diagonal_jvp(vjp):
    """The JVP of an elementwise primitive from its VJP: operands share one shape, so each
    partial Jacobian is diagonal, hence its own transpose, and the tangent is the sum over
    operands of the VJP's part for that operand taken with the operand's tangent as g."""
    def jvp(tangents, out, *args, **params):
        total = None
        for i, t in enumerate(tangents):
            part = None if t is None else vjp(t, out, *args, **params)[i]
            if part is not None:
                total = part if total is None else add(total, part)
        return total
    return jvp


def _unary(name, rule, evaluate, vjp, sympy=None, differentiable=True):
    return _define(name, 1, rule, evaluate, vjp, sympy, differentiable)


def _binary(name, rule, evaluate, vjp, sympy=None, differentiable=True):
    return _define(name, 2, rule, evaluate, vjp, sympy, differentiable)


def _no_grad(arity):
    return lambda g, out, *args, **params: (None,) * arity


def _full_rule(*, value, shape, dtype):
    require(isinstance(value, (bool, int, float, complex)),
            f"a fill value is a number, not {value!r}")
    return TensorType(tuple(shape), resolve_dtype(dtype))


full = register(Primitive("full", "source", _full_rule,
                          lambda *, value, shape, dtype: np.full(shape, value,
                                                                 resolve_dtype(dtype).numpy),
                          lambda g, y: (), params=("value", "shape", "dtype"),
                          differentiable=False))


def zeros_like(x):
    t = ir_type(x)
    return full(value=0, shape=t.shape, dtype=t.dtype.name)


def _sigmoid(x):
    return np.exp(-np.logaddexp(0, -x))


def _sign(x):
    return np.sign(x)


# ---- unary ----
neg = _unary("neg", _numeric, np.negative, lambda g, y, x: (neg(g),), lambda sp, x: -x)
def _abs_vjp(g, y, x):
    """g sign(x); for complex x, g conj(x) / |x| (the gradient of a real function of z
    is df/dx - i df/dy, as JAX and HIPS autograd give it)."""
    if not ir_type(x).dtype.is_complex:
        return (mul(g, sign(x)),)
    return (mul(_as_complex(g, x), _conj_direction(x, y)),)


def _abs_jvp(tangents, y, x):
    (t,) = tangents
    if not ir_type(x).dtype.is_complex:
        return mul(t, sign(x))
    return real(mul(t, _conj_direction(x, y)))


def _conj_direction(z, magnitude):
    """conj(z) / |z|, 0 at 0 (where PyTorch and JAX put abs's gradient): written with
    differentiable primitives, so that second derivatives flow through it."""
    zero = eq(z, zeros_like(z))
    safe = where(zero, add(zeros_like(z), 1.0), z)
    scale = where(zero, add(zeros_like(magnitude), 1.0), magnitude)
    return where(zero, zeros_like(z), div(conj(safe), _as_complex(scale, z)))


abs_ = register(Primitive("abs", "elementwise", _magnitude_rule, np.abs, _abs_vjp, arity=1,
                          jvp=_abs_jvp, batch=batch_elementwise("abs"),
                          sympy=lambda sp, x: sp.Abs(x)))
sign = _unary("sign", _numeric, _sign, _no_grad(1), lambda sp, x: sp.sign(x), differentiable=False)
exp = _unary("exp", _inexact, np.exp, lambda g, y, x: (mul(g, y),), lambda sp, x: sp.exp(x))
log = _unary("log", _inexact, np.log, lambda g, y, x: (mul(g, div(1.0, x)),),
             lambda sp, x: sp.log(x))
log1p = _unary("log1p", _inexact, np.log1p,
               lambda g, y, x: (mul(g, div(1.0, add(x, 1.0))),),
               lambda sp, x: sp.log(1 + x))
expm1 = _unary("expm1", _inexact, np.expm1, lambda g, y, x: (mul(g, add(y, 1.0)),),
               lambda sp, x: sp.exp(x) - 1)
sqrt = _unary("sqrt", _inexact, np.sqrt, lambda g, y, x: (mul(g, div(0.5, y)),),
              lambda sp, x: sp.sqrt(x))
rsqrt = _unary("rsqrt", _inexact, lambda x: 1 / np.sqrt(x),
               lambda g, y, x: (mul(g, mul(-0.5, div(y, x))),),
               lambda sp, x: 1 / sp.sqrt(x))
sin = _unary("sin", _inexact, np.sin, lambda g, y, x: (mul(g, cos(x)),), lambda sp, x: sp.sin(x))
cos = _unary("cos", _inexact, np.cos, lambda g, y, x: (neg(mul(g, sin(x))),),
             lambda sp, x: sp.cos(x))
tan = _unary("tan", _inexact, np.tan, lambda g, y, x: (mul(g, add(mul(y, y), 1.0)),),
             lambda sp, x: sp.tan(x))
tanh = _unary("tanh", _inexact, np.tanh, lambda g, y, x: (mul(g, sub(1.0, mul(y, y))),),
              lambda sp, x: sp.tanh(x))
sigmoid = _unary("sigmoid", _inexact, _sigmoid,
                 lambda g, y, x: (mul(g, mul(y, sub(1.0, y))),),
                 lambda sp, x: 1 / (1 + sp.exp(-x)))
_erf = np.frompyfunc(math.erf, 1, 1)
erf = _unary("erf", _floating, lambda x: np.asarray(_erf(x), x.dtype),
             lambda g, y, x: (mul(g, mul(2 / math.sqrt(math.pi), exp(neg(mul(x, x))))),),
             lambda sp, x: sp.erf(x))
_erfc = np.frompyfunc(math.erfc, 1, 1)
erfc = _unary("erfc", _floating, lambda x: np.asarray(_erfc(x), x.dtype),
              lambda g, y, x: (mul(g, mul(-2 / math.sqrt(math.pi), exp(neg(mul(x, x))))),),
              lambda sp, x: sp.erfc(x))
floor = _unary("floor", _floating, np.floor, _no_grad(1), lambda sp, x: sp.floor(x),
               differentiable=False)
ceil = _unary("ceil", _floating, np.ceil, _no_grad(1), lambda sp, x: sp.ceiling(x),
              differentiable=False)


def _round_half_even(sp, x):
    """numpy's and PyTorch's rounding: halfway cases go to the even neighbour."""
    half = sp.Rational(1, 2)
    tie = sp.Eq(x + half, sp.floor(x + half))
    return sp.Piecewise((2 * sp.floor(x / 2 + half / 2), tie), (sp.floor(x + half), True))


round_ = _unary("round", _floating, np.round, _no_grad(1), _round_half_even,
                differentiable=False)

stop_gradient = _unary("stop_gradient", _same_type, lambda x: x.copy(), _no_grad(1),
                       lambda sp, x: x, differentiable=False)
# torch's no_grad: the value leaves reverse mode only (no VJP); a forward tangent passes
# through it, itself cut from reverse mode (torch computes it under the same no_grad)
stop_reverse = register(Primitive("stop_reverse", "elementwise", _same_type, lambda x: x.copy(),
                                  _no_grad(1), sympy=lambda sp, x: x, differentiable=False,
                                  arity=1, jvp=lambda tangents, out, x: stop_reverse(tangents[0]),
                                  batch=batch_elementwise("stop_reverse")))

# ---- complex numbers: their parts, and a complex number from its parts ----
def _complex_only(x):
    require(x.dtype.is_complex, f"needs a complex operand, not {x.dtype}")
    return x


def _part_rule(x):
    return TensorType(_complex_only(x).shape, real_of(x.dtype))


def _compose_rule(re, im):
    t = _floating(re, im)
    return TensorType(t.shape, complex_of(t.dtype))


def _as_complex(g, like):
    return cast(g, dtype=ir_type(like).dtype.name)


def _compose_jvp(tangents, z, re, im):
    tr, ti = (zeros_like(x) if t is None else t for t, x in zip(tangents, (re, im)))
    return complex_(tr, ti)


conj = _unary("conj", _complex_only, np.conj, lambda g, y, z: (conj(g),),
              lambda sp, z: sp.conjugate(z))
# Cotangents follow JAX: the gradient of a real f(z) is df/dx - i df/dy, so real's is 1 and
# imag's -i; PyTorch's convention is its conjugate (tensor/engine.py conjugates).
real = register(Primitive("real", "elementwise", _part_rule, np.real,
                          lambda g, y, z: (_as_complex(g, z),), arity=1,
                          jvp=lambda tangents, y, z: real(tangents[0]),
                          batch=batch_elementwise("real"), sympy=lambda sp, z: sp.re(z)))
imag = register(Primitive("imag", "elementwise", _part_rule, np.imag,
                          lambda g, y, z: (mul(_as_complex(g, z), -1j),), arity=1,
                          jvp=lambda tangents, y, z: imag(tangents[0]),
                          batch=batch_elementwise("imag"), sympy=lambda sp, z: sp.im(z)))
def _compose(re, im):
    """re + i im, with infinities, NaNs and signed zeros of each part kept as they are."""
    z = np.empty(np.shape(re), complex_of(resolve_dtype(re.dtype)).numpy)
    z.real, z.imag = re, im
    return z


complex_ = register(Primitive("complex", "elementwise", _compose_rule, _compose,
                              lambda g, y, re, im: (real(g), neg(imag(g))), arity=2,
                              jvp=_compose_jvp, batch=batch_elementwise("complex"),
                              sympy=lambda sp, re, im: re + sp.I * im))

# ---- binary arithmetic ----
add = _binary("add", _numeric, np.add, lambda g, y, a, b: (g, g), lambda sp, a, b: a + b)
sub = _binary("sub", _numeric, np.subtract, Partials(lambda g, y, a, b: g,
                                                     lambda g, y, a, b: neg(g)),
              lambda sp, a, b: a - b)
mul = _binary("mul", _numeric, np.multiply, Partials(lambda g, y, a, b: mul(g, b),
                                                     lambda g, y, a, b: mul(g, a)),
              lambda sp, a, b: a * b)
div = _binary("div", _inexact, np.divide,
              Partials(lambda g, y, a, b: mul(g, div(1.0, b)),
                       lambda g, y, a, b: mul(neg(g), div(y, b))),
              lambda sp, a, b: a / b)


def _pow_base_vjp(g, y, a, b):
    # d/da a**0 = 0, also at a = 0 where 0 * 0**-1 would be NaN (as PyTorch masks it)
    return where(eq(b, 0.0), zeros_like(g), mul(g, mul(b, pow_(a, sub(b, 1.0)))))


def _pow_exponent_vjp(g, y, a, b):
    # d/db a**b = log(a) a**b; where a == 0 and b >= 0 the limit is 0, as in PyTorch; for
    # b < 0 it is -inf (inf times log 0), as PyTorch gives it too.
    exponent = real(b) if ir_type(b).dtype.is_complex else b
    zero = logical_and(eq(a, 0.0), ge(exponent, 0.0))
    safe_a = where(zero, add(a, 1.0), a)
    return where(zero, zeros_like(g), mul(g, mul(log(safe_a), y)))


pow_ = _binary("pow", _numeric, np.power, Partials(_pow_base_vjp, _pow_exponent_vjp),
               lambda sp, a, b: a ** b)


def _atan2_vjp(g, y, a, b):
    """d atan2(a, b) = (b da - a db) / (a^2 + b^2), with a and b scaled by max(|a|, |b|) so
    that squares neither overflow nor underflow. At infinity the limit 0; at the origin, where
    the angle jumps, 0 too (PyTorch gives NaN there)."""
    scale = maximum(abs_(a), abs_(b))
    edge = logical_or(eq(scale, 0.0), eq(scale, math.inf))
    zero = zeros_like(g)
    scale = where(edge, add(zero, 1.0), scale)
    an, bn = div(a, scale), div(b, scale)
    denom = mul(add(mul(an, an), mul(bn, bn)), scale)
    return (where(edge, zero, mul(g, div(bn, denom))),
            where(edge, zero, mul(neg(g), div(an, denom))))


atan2 = _binary("atan2", _floating, np.arctan2, _atan2_vjp, lambda sp, a, b: sp.atan2(a, b))


def _split_ties(g, a, b, pick_a):
    """Cotangent of max/min: to the chosen operand, halved on ties (as PyTorch does)."""
    half = mul(g, 0.5)
    zero = zeros_like(g)
    tie = eq(a, b)
    ga = where(tie, half, where(pick_a, g, zero))
    gb = where(tie, half, where(pick_a, zero, g))
    return ga, gb


maximum = _binary("maximum", _ordered, np.maximum,
                  lambda g, y, a, b: _split_ties(g, a, b, gt(a, b)),
                  lambda sp, a, b: sp.Max(a, b))
minimum = _binary("minimum", _ordered, np.minimum,
                  lambda g, y, a, b: _split_ties(g, a, b, lt(a, b)),
                  lambda sp, a, b: sp.Min(a, b))


def _share(a, b):
    """d logaddexp(a, b) / da = sigmoid(a - b), smooth at ties; a tie of infinities (where
    a - b is NaN, and PyTorch's gradient too) takes 1/2, the limit along the diagonal."""
    infinite_tie = logical_and(eq(a, b), eq(abs_(a), float("inf")))
    d = sub(a, b)
    return sigmoid(where(infinite_tie, zeros_like(d), d))


logaddexp = _binary("logaddexp", _floating, np.logaddexp,
                    Partials(lambda g, y, a, b: mul(g, _share(a, b)),
                             lambda g, y, a, b: mul(g, _share(b, a))),
                    lambda sp, a, b: sp.log(sp.exp(a) + sp.exp(b)))

# ---- comparisons and logic: no gradient flows through them ----
def _comparison(name, numpy_fn, relation):
    rule = _compare_rule if name in ("eq", "ne") else _order_rule
    return _binary(name, rule, numpy_fn, _no_grad(2),
                   lambda sp, a, b: getattr(sp, relation)(a, b), differentiable=False)


eq = _comparison("eq", np.equal, "Eq")
ne = _comparison("ne", np.not_equal, "Ne")
lt = _comparison("lt", np.less, "Lt")
le = _comparison("le", np.less_equal, "Le")
gt = _comparison("gt", np.greater, "Gt")
ge = _comparison("ge", np.greater_equal, "Ge")
logical_and = _binary("logical_and", _boolean, np.logical_and, _no_grad(2),
                      lambda sp, a, b: sp.And(a, b), differentiable=False)
logical_or = _binary("logical_or", _boolean, np.logical_or, _no_grad(2),
                     lambda sp, a, b: sp.Or(a, b), differentiable=False)
logical_not = _unary("logical_not", _boolean, np.logical_not, _no_grad(1),
                     lambda sp, a: sp.Not(a), differentiable=False)


def _where_rule(cond, a, b):
    require(cond.dtype == bool_, f"the condition must be bool, not {cond.dtype}")
    require(cond.shape == a.shape, f"condition shape {cond.shape} and value shape {a.shape} "
            "differ (broadcast explicitly with broadcast_to)")
    return _same_type(a, b)


_where_vjp = Partials(None, lambda g, y, cond, a, b: where(cond, g, zeros_like(g)),
                      lambda g, y, cond, a, b: where(cond, zeros_like(g), g))


where = register(Primitive("where", "elementwise", _where_rule, np.where, _where_vjp,
                           jvp=diagonal_jvp(_where_vjp), batch=batch_elementwise("where"),
                           sympy=lambda sp, c, a, b: sp.Piecewise((a, c), (b, True))))


def _cast_rule(x, *, dtype):
    return TensorType(x.shape, resolve_dtype(dtype))


def _cast_vjp(g, y, x, *, dtype):
    """The cotangent in the operand's type; into a real type only its real part flows back."""
    source = ir_type(x).dtype
    if not (source.is_inexact and resolve_dtype(dtype).is_inexact):
        return (None,)
    if ir_type(g).dtype.is_complex and not source.is_complex:
        g = real(g)
    return (cast(g, dtype=source.name),)


def _cast_eval(x, *, dtype):
    target = resolve_dtype(dtype).numpy
    if x.dtype.kind == "c" and target.kind == "b":  # PyTorch: true where either part is
        return x != 0
    if x.dtype.kind == "c" and target.kind != "c":  # the real part, as PyTorch converts
        return _cast_eval(x.real, dtype=dtype)
    if x.dtype.kind != "f" or target.kind not in "iu":
        return x.astype(target)
    # C's float -> int conversion on x86, which both numpy and PyTorch's CPU kernels use
    # (and gradjit follows on every target): NaN and values out of range give the minimum
    # integer of 32 or 64 bits; narrower integers wrap that 32-bit result.
    bits = max(target.itemsize * 8, 32)
    x = x.astype(np.promote_types(x.dtype, np.float32))  # (float16 cannot hold the limits)
    if target.itemsize < 4:
        return _cast_truncating(x, 32).astype(target)
    if target.kind == "i":
        return _cast_truncating(x, bits)
    # unsigned: the upper half is converted shifted down by 2**(bits-1)
    limit = 2.0 ** (bits - 1)
    upper = x >= limit
    signed = _cast_truncating(np.where(upper, x - limit, x), bits)
    return np.where(upper, signed ^ np.iinfo(signed.dtype).min, signed).view(target)


def _cast_truncating(x, bits):
    """x rounded toward zero into int<bits>, the minimum integer where NaN or out of range."""
    limit = 2.0 ** (bits - 1)
    signed = np.dtype(f"int{bits}")
    valid = (x >= -limit) & (x < limit)
    return np.where(valid, np.where(valid, x, 0).astype(signed), np.iinfo(signed).min)


def _cast_jvp(tangents, y, x, *, dtype):
    if not (ir_type(x).dtype.is_inexact and resolve_dtype(dtype).is_inexact):
        return None
    return cast(tangents[0], dtype=dtype)


cast = register(Primitive("cast", "elementwise", _cast_rule, _cast_eval, _cast_vjp, jvp=_cast_jvp,
                          params=("dtype",), sympy=lambda sp, x, *, dtype: x,
                          batch=batch_elementwise("cast")))
