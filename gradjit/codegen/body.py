"""The per-index body of a kernel in LLVM IR, for one lane or a vector of lanes.

Target independent: a loop driver (the CPU loop nest, or a GPU grid-stride loop) supplies
the loads and index values; every elementwise primitive lowers through LOWERINGS.
"""
from __future__ import annotations

from llvmlite import ir

from gradjit.codegen import body_integer
from gradjit.codegen.mathlib import call_math, emit_math

I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
SCALAR_TYPES = {"bool": I1, "i32": I32, "i64": I64, "f32": ir.FloatType(),
                "f64": ir.DoubleType()}
MEMORY_TYPES = dict(SCALAR_TYPES, bool=I8)


def value_type(dtype, lanes: int, memory=False):
    scalar = (MEMORY_TYPES if memory else SCALAR_TYPES)[dtype.name]
    return scalar if lanes == 1 else ir.VectorType(scalar, lanes)


def type_suffix(t) -> str:
    """The overload suffix of an LLVM intrinsic for type `t` (f32, v8f64, i64...)."""
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{type_suffix(t.element)}"
    if isinstance(t, ir.FloatType):
        return "f32"
    if isinstance(t, ir.DoubleType):
        return "f64"
    if isinstance(t, ir.PointerType):
        return "p0"
    return f"i{t.width}"


def call_intrinsic(builder: ir.IRBuilder, name: str, args, ret=None, overloads=None):
    """Call `llvm.<name>` overloaded on the given types (default: the first argument's)."""
    ret = ret or args[0].type
    overloads = overloads or [ret]
    full = ".".join(["llvm", name] + [type_suffix(t) for t in overloads])
    module = builder.module
    fn = module.globals.get(full) or ir.Function(
        module, ir.FunctionType(ret, [a.type for a in args]), full)
    return builder.call(fn, args)


class Lanes:
    """What a lowering needs: the builder and the lane count (1 = scalar code)."""

    def __init__(self, builder: ir.IRBuilder, lanes: int):
        self.b, self.lanes = builder, lanes

    def const(self, dtype, value):
        if dtype.name == "bool":
            value = bool(value)
        scalar = ir.Constant(SCALAR_TYPES[dtype.name], value)
        return scalar if self.lanes == 1 else ir.Constant(
            ir.VectorType(scalar.type, self.lanes), [scalar] * self.lanes)

    def splat(self, scalar):
        if self.lanes == 1:
            return scalar
        vec_type = ir.VectorType(scalar.type, self.lanes)
        one = self.b.insert_element(ir.Constant(vec_type, ir.Undefined), scalar, I32(0))
        return self.b.shuffle_vector(one, ir.Constant(vec_type, ir.Undefined),
                                     ir.Constant(ir.VectorType(I32, self.lanes),
                                                 [0] * self.lanes))


def emit_body(lanes: Lanes, body, load, index) -> list:
    """LLVM values of every body instruction; `load(n, values)` and `index(n)` give those of
    body[n], and belong to the driver (it knows the loop index and the buffers)."""
    values = []
    for n, instr in enumerate(body):
        if instr.op == "load":
            values.append(load(n, values))
        elif instr.op == "index":
            values.append(index(n))
        elif instr.op == "const":
            values.append(lanes.const(instr.dtype, instr.attrs))
        else:
            args = [values[a] for a in instr.args]
            kinds = [body[a].dtype for a in instr.args]
            values.append(LOWERINGS[instr.op](lanes, args, kinds, instr.dtype,
                                              dict(instr.attrs)))
    return values


# ---- helpers shared by the lowerings ----

def _float(dt) -> bool:
    return dt.name in ("f32", "f64")


def _is_nan(b, x):
    return b.fcmp_unordered("uno", x, x)


def nan_max(b, a, c, pick_greater=True):
    """numpy's maximum/minimum: a NaN in either operand wins; ties keep the second."""
    wins = b.fcmp_ordered(">" if pick_greater else "<", a, c)
    return b.select(b.or_(wins, _is_nan(b, a)), a, c)


def _int_extremum(b, a, c, dt, greater):
    op = (">" if greater else "<")
    cmp = b.icmp_unsigned(op, a, c) if dt.name == "bool" else b.icmp_signed(op, a, c)
    return b.select(cmp, a, c)


def extremum(b, a, c, dt, greater):
    return nan_max(b, a, c, greater) if _float(dt) else _int_extremum(b, a, c, dt, greater)


def _math(name):
    return lambda L, args, kinds, out, params: call_math(L.b, name, *args)


def _neg(L, args, kinds, out, params):
    (x,) = args
    return L.b.fneg(x) if _float(out) else L.b.sub(L.const(out, 0), x)


def _abs(L, args, kinds, out, params):
    (x,) = args
    if _float(out):
        return call_intrinsic(L.b, "fabs", [x])
    return L.b.select(L.b.icmp_signed("<", x, L.const(out, 0)), L.b.sub(L.const(out, 0), x), x)


def _sign(L, args, kinds, out, params):
    (x,) = args
    b, zero = L.b, L.const(out, 0)
    if _float(out):
        inner = b.select(b.fcmp_ordered("<", x, zero), L.const(out, -1.0),
                         b.select(_is_nan(b, x), x, zero))
        return b.select(b.fcmp_ordered(">", x, zero), L.const(out, 1.0), inner)
    positive = b.zext(b.icmp_signed(">", x, zero), x.type)
    return b.sub(positive, b.zext(b.icmp_signed("<", x, zero), x.type))


def _rounding(name):
    return lambda L, args, kinds, out, params: call_intrinsic(L.b, name, args)


def _arith(float_op, int_op):
    def lower(L, args, kinds, out, params):
        return getattr(L.b, float_op if _float(out) else int_op)(*args)
    return lower


def _pow(L, args, kinds, out, params):
    if _float(out):
        if _constant(args[1]) == 2.0:  # x*x is the correctly rounded square
            return L.b.fmul(args[0], args[0])
        return emit_math(L.b, "pow", *args)
    return _int_pow(L, *args, out)


def _constant(value):
    """The number a constant scalar or splat vector holds, else None."""
    if not isinstance(value, ir.Constant):
        return None
    c = value.constant
    if isinstance(c, list):
        first = c[0].constant
        return first if all(e.constant == first for e in c) else None
    return c


def _int_pow(L, base, exponent, out):
    """Integer power by squaring over every exponent bit (branch free, so it vectorizes);
    a negative exponent gives 0 except for bases 1 and -1, as integer division would."""
    b, zero, one = L.b, L.const(out, 0), L.const(out, 1)
    result, square, e = one, base, exponent
    for _ in range(out.numpy.itemsize * 8 - 1):
        odd = b.icmp_unsigned("!=", b.and_(e, one), zero)
        result = b.select(odd, b.mul(result, square), result)
        square = b.mul(square, square)
        e = b.lshr(e, one)
    negative = b.icmp_signed("<", exponent, zero)
    unit = b.select(b.icmp_signed("==", base, one), one,
                    b.select(b.icmp_signed("==", base, L.const(out, -1)),
                             b.select(b.icmp_unsigned("!=", b.and_(exponent, one), zero),
                                      L.const(out, -1), one), zero))
    return b.select(negative, unit, result)


def _extremum(greater):
    return lambda L, args, kinds, out, params: extremum(L.b, *args, out, greater)


_ORDERED = {"eq": "==", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _compare(name):
    def lower(L, args, kinds, out, params):
        b, dt = L.b, kinds[0]
        if _float(dt):
            return (b.fcmp_unordered("!=", *args) if name == "ne"
                    else b.fcmp_ordered(_ORDERED[name], *args))
        op = "!=" if name == "ne" else _ORDERED[name]
        return (b.icmp_unsigned(op, *args) if dt.name == "bool"
                else b.icmp_signed(op, *args))
    return lower


def _cast(L, args, kinds, out, params):
    (x,) = args
    b, src = L.b, kinds[0]
    target = value_type(out, L.lanes)
    if src.name == out.name:
        return x
    if out.name == "bool":
        zero = L.const(src, 0)
        return b.fcmp_unordered("!=", x, zero) if _float(src) else b.icmp_unsigned("!=", x, zero)
    if _float(out):
        if _float(src):
            return (b.fpext if out.numpy.itemsize > src.numpy.itemsize else b.fptrunc)(x, target)
        return (b.uitofp if src.name == "bool" else b.sitofp)(x, target)
    if _float(src):
        return _float_to_int(L, x, src, out, target)
    if src.name == "bool" or out.numpy.itemsize > src.numpy.itemsize:
        return (b.zext if src.name == "bool" else b.sext)(x, target)
    return b.trunc(x, target)


def _float_to_int(L, x, src, out, target):
    """The conversion of ir/elementwise.py's cast: x86's, NaN and out-of-range values giving
    the minimum int32 or int64 (never LLVM's poison); narrower integers wrap the int32."""
    b = L.b
    bits = max(out.numpy.itemsize * 8, 32)
    wide = ir.IntType(bits) if L.lanes == 1 else ir.VectorType(ir.IntType(bits), L.lanes)
    limit = L.const(src, 2.0 ** (bits - 1))
    minimum = L.splat(ir.Constant(ir.IntType(bits), -(1 << (bits - 1))))

    def truncating(v):
        saturated = call_intrinsic(b, "fptosi.sat", [v], wide, [wide, v.type])
        return b.select(b.fcmp_ordered("<", v, limit), saturated, minimum)

    if out.numpy.kind == "u" and bits == out.numpy.itemsize * 8:
        upper = b.fcmp_ordered(">=", x, limit)
        signed = truncating(b.select(upper, b.fsub(x, limit), x))
        return b.select(upper, b.xor(signed, minimum), signed)
    result = truncating(x)
    return result if bits == out.numpy.itemsize * 8 else b.trunc(result, target)


LOWERINGS = {
    "neg": _neg, "abs": _abs, "sign": _sign,
    "exp": _math("exp"), "log": _math("log"), "log1p": _math("log1p"),
    "expm1": _math("expm1"), "sqrt": _math("sqrt"), "rsqrt": _math("rsqrt"),
    "sin": _math("sin"), "cos": _math("cos"), "tan": _math("tan"), "tanh": _math("tanh"),
    "sigmoid": _math("sigmoid"), "erf": _math("erf"), "erfc": _math("erfc"),
    "atan2": _math("atan2"), "logaddexp": _math("logaddexp"),
    "floor": _rounding("floor"), "ceil": _rounding("ceil"), "round": _rounding("roundeven"),
    "stop_gradient": lambda L, args, kinds, out, params: args[0],
    "stop_reverse": lambda L, args, kinds, out, params: args[0],
    "add": _arith("fadd", "add"), "sub": _arith("fsub", "sub"), "mul": _arith("fmul", "mul"),
    "div": lambda L, args, kinds, out, params: L.b.fdiv(*args), "pow": _pow,
    "maximum": _extremum(True), "minimum": _extremum(False),
    "eq": _compare("eq"), "ne": _compare("ne"), "lt": _compare("lt"), "le": _compare("le"),
    "gt": _compare("gt"), "ge": _compare("ge"),
    "logical_and": lambda L, args, kinds, out, params: L.b.and_(*args),
    "logical_or": lambda L, args, kinds, out, params: L.b.or_(*args),
    "logical_not": lambda L, args, kinds, out, params: L.b.xor(args[0], L.const(out, True)),
    "where": lambda L, args, kinds, out, params: L.b.select(*args),
    "cast": _cast,
    **body_integer.LOWERINGS,
}
