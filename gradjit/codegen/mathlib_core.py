"""Branch-free float and integer operations on scalars or vectors of one float type, as LLVM IR."""
from __future__ import annotations

import struct

from llvmlite import ir


class FloatOps:
    """Emits operations on values of `ty` (float, double or a vector of either) with `builder`.

    Python numbers given as operands become constants of the operand type, so formulas read as
    math: `o.fma(x, 0.5, 1.0)`. Integer operations work on the same-width integer view (`ity`)
    or on 32-bit lanes (`i32`), which vectorize on every target, with 64-bit lanes (`i64`) for
    their products. `may_call`: the module's code may call functions of its own (CPU code;
    NVPTX's calls nothing).
    """

    def __init__(self, builder: ir.IRBuilder, ty: ir.Type, may_call: bool = False):
        elem = ty.element if isinstance(ty, ir.VectorType) else ty
        if not isinstance(elem, (ir.FloatType, ir.DoubleType)):
            raise TypeError(f"math functions take float or double (or vectors of them), not {ty}")
        self.b = builder
        self.ty = ty
        self.may_call = may_call
        self.f64 = isinstance(elem, ir.DoubleType)
        self.width = 64 if self.f64 else 32
        self.mant = 52 if self.f64 else 23
        self.bias = 1023 if self.f64 else 127
        self.ity = self._like(ir.IntType(64 if self.f64 else 32))
        self.i32 = self._like(ir.IntType(32))
        self.i64 = self._like(ir.IntType(64))
        self._suffix = elem.intrinsic_name
        if isinstance(ty, ir.VectorType):
            self._suffix = f"v{ty.count}{self._suffix}"
        # Adding this constant rounds to an integer held in the low mantissa bits (|v| < 2^mant-1).
        self.magic = 1.5 * 2.0 ** self.mant
        self._magic_low32 = self.float_bits(self.magic) & 0xFFFFFFFF

    def _like(self, elem):
        return ir.VectorType(elem, self.ty.count) if isinstance(self.ty, ir.VectorType) else elem

    def v(self, x):
        return x if isinstance(x, ir.Value) else ir.Constant(self.ty, float(x))

    def outlined(self, name: str, emit, args, results):
        """emit(ops, *args), a tuple of values of the types `results`: inline, or where the
        module may call, one function `gradjit.<name>.<type>` of the module that every use
        calls (returning a struct where there are several results)."""
        if not self.may_call:
            return emit(self, *args)
        module = self.b.module
        key = f"gradjit.{name}.{self._suffix}"
        fn = module.globals.get(key)
        kind = ir.LiteralStructType(results) if len(results) > 1 else results[0]
        if fn is None:
            fn = ir.Function(module, ir.FunctionType(kind, [a.type for a in args]), key)
            fn.linkage = "internal"
            fn.attributes.add("noinline")
            fn.attributes.add("nounwind")  # no unwind tables: the JIT registers none to free
            body = FloatOps(ir.IRBuilder(fn.append_basic_block("entry")), self.ty, True)
            values = emit(body, *fn.args)
            packed = values[0] if len(results) == 1 else ir.Constant(kind, ir.Undefined)
            for i, value in enumerate(values if len(results) > 1 else ()):
                packed = body.b.insert_value(packed, value, i)
            body.b.ret(packed)
        result = self.b.call(fn, args)
        if len(results) == 1:
            return (result,)
        return tuple(self.b.extract_value(result, i) for i in range(len(results)))

    def _intrinsic(self, name, nargs, *args):
        module = self.b.module
        full = f"llvm.{name}.{self._suffix}"
        fn = module.globals.get(full)
        if fn is None:
            fn = ir.Function(module, ir.FunctionType(self.ty, [self.ty] * nargs), name=full)
        return self.b.call(fn, [self.v(a) for a in args])

    # float arithmetic
    def add(self, a, b):
        return self.b.fadd(self.v(a), self.v(b))

    def sub(self, a, b):
        return self.b.fsub(self.v(a), self.v(b))

    def mul(self, a, b):
        return self.b.fmul(self.v(a), self.v(b))

    def div(self, a, b):
        return self.b.fdiv(self.v(a), self.v(b))

    def neg(self, a):
        return self.b.fneg(self.v(a))

    def fma(self, a, b, c):
        return self._intrinsic("fma", 3, a, b, c)

    def abs(self, a):
        return self._intrinsic("fabs", 1, a)

    def trunc(self, a):
        return self._intrinsic("trunc", 1, a)

    def sqrt(self, a):
        return self._intrinsic("sqrt", 1, a)

    def copysign(self, mag, sign):
        return self._intrinsic("copysign", 2, mag, sign)

    def poly(self, x, coeffs):
        """Horner evaluation of sum(coeffs[i] * x**i)."""
        acc = self.v(coeffs[-1])
        for c in reversed(coeffs[:-1]):
            acc = self.fma(acc, x, c)
        return acc

    # comparisons and selection
    def cmp(self, op, a, b):
        """Ordered comparison: false when either side is NaN."""
        return self.b.fcmp_ordered(op, self.v(a), self.v(b))

    def isnan(self, a):
        return self.b.fcmp_unordered("uno", a, a)

    def isfinite(self, a):
        return self.cmp("<", self.abs(a), float("inf"))

    def select(self, cond, a, b):
        return self.b.select(cond, self.v(a), self.v(b))

    def clamp(self, x, lo, hi):
        """x limited to [lo, hi]; NaN becomes lo, so integer views of it are well defined."""
        x = self.select(self.cmp(">", x, lo), x, lo)
        return self.select(self.cmp("<", x, hi), x, hi)

    def keep_nan(self, x, result):
        return self.select(self.isnan(x), x, result)

    # integer views
    def bits(self, a):
        return self.b.bitcast(self.v(a), self.ity)

    def from_bits(self, i):
        return self.b.bitcast(i, self.ty)

    def ic(self, like, value):
        return ir.Constant(like.type, value)

    def float_bits(self, value: float) -> int:
        """The representation of a Python float in this type, as a signed integer."""
        fmt = "d" if self.f64 else "f"
        itype = "q" if self.f64 else "i"
        return struct.unpack(itype, struct.pack(fmt, value))[0]

    def round_int(self, x, scale):
        """rint(x * scale) as a float and as 32-bit lanes (one rounding; |x*scale| < 2^(mant-1))."""
        t = self.fma(x, scale, self.magic)
        k = self.sub(t, self.magic)
        return k, self.b.sub(self.low32(t), ir.Constant(self.i32, self._magic_low32))

    def low32(self, a):
        """The low 32 bits of a's representation, as 32-bit integer lanes."""
        return self.b.trunc(self.bits(a), self.i32) if self.f64 else self.bits(a)

    def to_float(self, i32):
        return self.b.sitofp(i32, self.ty)

    def pow2(self, k):
        """2.0**k for 32-bit integer lanes k within the normal exponent range."""
        e = self.b.add(k, self.ic(k, self.bias))
        if self.f64:
            e = self.b.sext(e, self.ity)
        return self.from_bits(self.b.shl(e, self.ic(e, self.mant)))

    def ldexp(self, x, k):
        """x * 2**k for x in [1/2, 2) and 32-bit lanes k up to twice the exponent range: half
        of k is added to x's exponent field (x stays normal), the other half's power of two
        multiplies, the one rounding where the result is subnormal. One product instead of two:
        exp's products compete with its polynomial for the FMA units."""
        half = self.b.ashr(k, self.ic(k, 1))
        field = self.b.sext(half, self.ity) if self.f64 else half
        scaled = self.b.add(self.bits(x), self.b.shl(field, self.ic(field, self.mant)))
        return self.mul(self.from_bits(scaled), self.pow2(self.b.sub(k, half)))

    # double-word arithmetic: a value is hi + lo with |lo| <= ulp(hi) / 2
    def two_sum(self, a, b):
        s = self.add(a, b)
        bb = self.sub(s, a)
        return s, self.add(self.sub(a, self.sub(s, bb)), self.sub(b, bb))

    def fast_two_sum(self, a, b):
        """Exact when |a| >= |b|."""
        s = self.add(a, b)
        return s, self.sub(b, self.sub(s, a))

    def two_prod(self, a, b):
        p = self.mul(a, b)
        return p, self.fma(a, b, self.neg(p))

    def dd_mul(self, ahi, alo, bhi, blo):
        p, e = self.two_prod(ahi, bhi)
        return p, self.add(e, self.fma(ahi, blo, self.mul(alo, bhi)))
