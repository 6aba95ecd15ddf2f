"""Tensor arithmetic, comparisons and bitwise operations: each a named tensor
operation (its grad_fn) built from the array surface, so it runs eagerly and under tracing."""
from __future__ import annotations

import functools

import numpy as np

from gradjit import ops
from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.tensor import dtypes, graph, rounding, unsigned
from gradjit.tensor.hot_path import _NONE, AS_GIVEN, direct, elementwise
from gradjit.warn import warn_at_caller
from gradjit.tensor.refusals import (complex_type, inexact_type, no_kernel, real_only,
                                      refuse_bool_subtraction, refuse_integer_addcdiv,
                                      refuse_lerp)


def apply(name, fn, *args, operands=None, **kwargs):
    """Run `fn` as the tensor operation `name`. A result that is an operand unchanged becomes
    a new alias of it, as every PyTorch operation returns a new tensor. `operands` are those
    of PyTorch's overload, its grad_fn's next_functions (default: the floating and complex
    tensors in `args`, an integer one being an index PyTorch does not differentiate; a
    Python number is one only where PyTorch wraps it as a tensor, as add/sub/mul/div do)."""
    if name in unsigned.KERNELS:
        unsigned.refuse_wide_unsigned(name, args)
    scope = graph.op(name)
    with scope as active:
        out = fn(*args, **kwargs)
        if any(out is a for a in args):
            out = S.reshape(out, shape=tuple(out.shape))
        if scope.declares:
            graph.declare_inputs(active, operands if operands is not None else
                                 [a for a in args if hasattr(a, "_edge") and
                                  (a.dtype.is_floating_point or a.dtype.is_complex)])
    return out


def kernel(name):
    """A function of a tensor (and other arguments) recorded as the one operation `name` over
    that tensor, as PyTorch runs it in one kernel: the reshapes and copies it is written with
    join that node instead of showing in the graph."""
    def wrap(fn):
        @functools.wraps(fn)
        def run(input, *args, **kwargs):
            return apply(name, lambda x: fn(x, *args, **kwargs), input)
        return run
    return wrap


def operand(x):
    """Tensors and Python numbers pass; other data (lists, numpy arrays) become tensors. An
    integer beyond 64 bits is refused, as PyTorch refuses it, rather than cast to inf."""
    if type(x) is int and not -2 ** 63 <= x < 2 ** 64:
        raise OverflowError("int too big to convert" if x > 0 else
                            "can't convert negative int to unsigned")
    if is_python_scalar(x) or hasattr(x, "_edge"):
        return x
    if isinstance(x, np.generic) and x.dtype.kind in "iufc":  # PyTorch reads it as a number
        return x.item()
    from gradjit.tensor.factories import tensor
    try:
        return tensor(x)
    except RuntimeError as error:  # PyTorch refuses an op's argument it cannot read as a type
        raise TypeError(str(error)) from None


def _binary(name, fn, reflected_name=None, reflected_operands=None, wraps=False):
    """The operator and its reflected form. PyTorch runs `number op t` as a method of t, so
    `reflected_operands(t, number)` are its grad_fn's operands (default: as written), and
    `reflected_name` its grad_fn (a pair: for a number and for a tensor other, which only an
    explicit t.__rsub__(u) passes); `wraps`: a number operand is a wrapped tensor, an operand
    (add/sub/mul/div)."""
    prim = _PRIMITIVE_OF.get(fn)
    operands = AS_GIVEN if wraps else None

    def method(self, other):
        if prim is not None:
            out = elementwise(prim, name, self, other, operands)
            if out is not None:
                return out
        if not _is_operand(other):
            return NotImplemented
        other = operand(other)
        return apply(name, fn, self, other, operands=(self, other) if wraps else None)

    def reflected(self, other):
        operands = reflected_operands(self, other) if reflected_operands else None
        label = reflected_name or name
        if type(label) is tuple:
            label = label[not is_python_scalar(other)]
        if prim is not None:
            out = elementwise(prim, label, other, self, operands)
            if out is not None:
                return out
        if not _is_operand(other):
            return NotImplemented
        other = operand(other)
        operands = reflected_operands(self, other) if reflected_operands else None
        return apply(label, fn, other, self, operands=operands)
    return method, reflected


def _subtract(a, b):
    refuse_bool_subtraction(a, b)
    return ops.sub(a, b)


# The array functions that are one ufunc primitive when their operands already agree.
_PRIMITIVE_OF = {ops.add: E.add, _subtract: E.sub, ops.mul: E.mul, ops.true_divide: E.div,
                 ops.eq: E.eq, ops.ne: E.ne, ops.lt: E.lt, ops.le: E.le, ops.gt: E.gt,
                 ops.ge: E.ge, ops.neg: E.neg, ops.abs_: E.abs_, ops.exp: E.exp,
                 ops.expm1: E.expm1, ops.log: E.log, ops.log1p: E.log1p, ops.sqrt: E.sqrt,
                 ops.sin: E.sin, ops.cos: E.cos, ops.tan: E.tan, ops.tanh: E.tanh}


# The arithmetic methods (and torch's functions of their names) that are one ufunc primitive
# where `elementwise` takes the operands, as their operators are: name -> (primitive, grad_fn).
ELEMENTWISE = {**dict.fromkeys(("add",), (E.add, "AddBackward0")),
               **dict.fromkeys(("sub", "subtract"), (E.sub, "SubBackward0")),
               **dict.fromkeys(("mul", "multiply"), (E.mul, "MulBackward0")),
               **dict.fromkeys(("div", "divide", "true_divide"), (E.div, "DivBackward0"))}


def hot_binary(name, a, b):
    """The method `name` (alpha 1, no rounding mode) of ELEMENTWISE on a and b through
    `elementwise` (a number is an operand: PyTorch wraps it), or None."""
    prim, grad_fn = ELEMENTWISE[name]
    return elementwise(prim, grad_fn, a, b, AS_GIVEN)


def _swapped(t, other):
    """`2 * t` is t.mul(2): the tensor's edge first, the wrapped number's after."""
    return t, other


def _tensor_only(t, other):
    """`2 ** t` takes the number as a Scalar: the tensor is the only operand; t.__rpow__(u)
    is torch.pow(u, t)."""
    return (t,) if is_python_scalar(other) else (other, t)


def _self_first(t, other):
    """`1 - t` takes the number as a Scalar: the tensor is the only operand; t.__rsub__(u) is
    torch.rsub(t, u), t first."""
    return (t,) if is_python_scalar(other) else (t, other)


def _reciprocal_times(t, other):
    """PyTorch's t.__rdiv__(other) (`2 / t`) is reciprocal(t) * other, two grad_fns."""
    if not _is_operand(other):
        return NotImplemented
    return t.reciprocal() * operand(other)


def _is_operand(x):
    """Whether an operator takes x: PyTorch's operators refuse lists and tuples (Python then
    raises its TypeError, or `==` compares identities)."""
    return is_python_scalar(x) or hasattr(x, "_edge") or hasattr(x, "__array__")


def where(condition, x, y):
    """x where condition holds, else y; the grad_fn's operands are x and y (a number: None)."""
    x, y, condition = operand(x), operand(y), operand(condition)
    if condition.dtype is dtypes.uint8:
        warn_at_caller("where received a uint8 condition tensor. This behavior is deprecated and "
                       "will be removed in a future version of PyTorch. Use a boolean condition "
                       "instead.")
    elif condition.dtype is not dtypes.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {condition.dtype.legacy}")
    return apply("WhereBackward0", lambda c, a, b: ops.where(c, a, b), condition, x, y,
                 operands=(x, y))


def _in_place_operator(method):
    """`t += other` as t.add_(other), for the operands the operator takes."""
    def operator(self, other):
        return getattr(self, method)(other) if _is_operand(other) else NotImplemented
    return operator


def _unary(name, fn):
    prim = _PRIMITIVE_OF.get(fn)

    def method(self):
        if prim is not None:
            out = elementwise(prim, name, self, _NONE, None)
            if out is not None:
                return out
        return apply(name, fn, self)
    return method


def _refusing_bool(kernel, method):
    """method, refusing bool tensors as PyTorch's CPU kernel `kernel` does."""
    def run(self, *args, **kwargs):
        if self.dtype is dtypes.bool_:
            raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
        return method(self, *args, **kwargs)
    run.__name__ = method.__name__
    return run


def _values_of(fused_values):
    """The values alone of a fused operation's evaluation (nothing is recorded)."""
    return lambda x: fused_values(x)[0]


_negative = _unary("NegBackward0", ops.neg)
# PyTorch orders no complex numbers: its kernels for these comparisons refuse them
_ORDERED = {name: no_kernel(f"{name}_cpu", getattr(ops, name), complex_type)
            for name in ("lt", "le", "gt", "ge")}


def _bitwise(kernel, fn):
    """fn on integer and bool tensors; PyTorch has no kernel for floats or complex."""
    return no_kernel(kernel, fn, inexact_type)


def _refused(aten, fn, name):
    """The operation `name` by fn, with PyTorch's NotImplemented grad_fn in place of its own:
    aten::`aten` has no derivative."""
    def method(a, b):
        b = operand(b)
        out = apply(name, fn, a, b)
        return graph.not_implemented(out, aten, [x for x in (a, b) if hasattr(x, "_edge")])
    return method


_floor_quotient = _refused("floor_divide", rounding.floor_divide, "FloorDivideBackward0")
# remainder.Scalar_Tensor, which `2 % t` runs
_number_remainder = _refused("remainder", rounding.remainder, "RemainderBackward0")


def _power(a, b):
    result = ops.result_type(a, b)
    if result.name == "bool":  # a bool power is a bool only with a number for exponent
        if not is_python_scalar(b):
            raise NotImplementedError('"pow" not implemented for \'Bool\'')
        return ops.logical_or(a, not b)
    if result.is_inexact or is_python_scalar(b) or result.numpy.kind == "u":
        # (an unsigned result has an exponent of bools or unsigned integers, none below 0)
        if is_python_scalar(b) and isinstance(b, int) and b < 0 and not result.is_inexact:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return ops.power(a, b)
    # an integer tensor exponent below 0 gives PyTorch's 1 for base 1, +-1 by the exponent's
    # parity for base -1, else 0 (numpy's power, the primitive's, refuses it)
    # both in the result's dtype first, as PyTorch's kernel (an unsigned base is compared
    # with -1 below, an exponent may wrap below 0)
    a, b = ops.astype(a, result), ops.astype(b, result)
    negative = ops.lt(b, 0)
    out = ops.power(a, ops.where(negative, 0, b))
    inverse = ops.where(ops.eq(a, 1), 1, ops.where(ops.eq(a, -1), 1 - 2 * ops.remainder(b, 2), 0))
    return ops.astype(ops.where(negative, inverse, out), result)


_TRUE = object()  # div without rounding_mode: PyTorch's div.Tensor, not div.Tensor_mode


class ArithMixin:
    """Operators, elementwise math, comparisons, reductions and products of Tensor."""

    # ---- operators ----
    __add__, __radd__ = _binary("AddBackward0", ops.add, None, _swapped, True)
    __sub__, __rsub__ = _binary("SubBackward0", _subtract, ("RsubBackward1", "RsubBackward0"),
                                _self_first, True)
    __mul__, __rmul__ = _binary("MulBackward0", ops.mul, None, _swapped, True)
    __truediv__ = _binary("DivBackward0", ops.true_divide, wraps=True)[0]
    __rtruediv__ = __rdiv__ = _reciprocal_times  # torch keeps Python 2's name as an alias
    __rpow__ = _binary("PowBackward2", _power, ("PowBackward2", "PowBackward1"), _tensor_only)[1]
    __and__, __rand__ = _binary("BitwiseAndBackward0", _bitwise("bitwise_and_cpu",
                                                                ops.bitwise_and))
    __or__, __ror__ = _binary("BitwiseOrBackward0", _bitwise("bitwise_or_cpu", ops.bitwise_or))
    __xor__, __rxor__ = _binary("BitwiseXorBackward0", _bitwise("bitwise_xor_cpu",
                                                                ops.bitwise_xor))
    __lshift__, __rlshift__ = _binary("BitwiseLeftShiftBackward0", _bitwise("lshift_cpu",
                                                                            ops.left_shift))
    __rshift__, __rrshift__ = _binary("BitwiseRightShiftBackward0", _bitwise("rshift_cpu",
                                                                             ops.right_shift))
    __eq__ = _binary("EqBackward0", ops.eq)[0]
    __ne__ = _binary("NeBackward0", ops.ne)[0]
    __lt__ = _binary("LtBackward0", _ORDERED["lt"])[0]
    __le__ = _binary("LeBackward0", _ORDERED["le"])[0]
    __gt__ = _binary("GtBackward0", _ORDERED["gt"])[0]
    __ge__ = _binary("GeBackward0", _ORDERED["ge"])[0]
    __hash__ = object.__hash__

    def __pow__(self, other):
        return self.pow(other) if _is_operand(other) else NotImplemented

    def __matmul__(self, other):
        return self.matmul(operand(other)) if _is_operand(other) else NotImplemented

    def __rmatmul__(self, other):
        return operand(other).matmul(self) if _is_operand(other) else NotImplemented

    def __neg__(self):
        if self.dtype is dtypes.bool_:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        return _negative(self)

    def __pos__(self):
        return self

    def __invert__(self):
        if self.dtype.is_floating_point:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                            "tensors")
        return apply("BitwiseNotBackward0", ops.invert, self)

    def bitwise_not(self):
        if self.dtype.is_floating_point or self.dtype.is_complex:
            raise NotImplementedError(f'"bitwise_not_cpu" not implemented for '
                                      f"'{self.dtype.legacy}'")
        return ~self

    def bitwise_and(self, other):
        return self & operand(other)

    def bitwise_or(self, other):
        return self | operand(other)

    def bitwise_xor(self, other):
        return self ^ operand(other)

    def bitwise_left_shift(self, other):
        return self << operand(other)

    def bitwise_right_shift(self, other):
        return self >> operand(other)

    def __mod__(self, other):
        return self.remainder(other) if _is_operand(other) else NotImplemented

    def remainder(self, other):
        name = "RemainderBackward0" if is_python_scalar(other) else "RemainderBackward1"
        return apply(name, rounding.remainder, self, operand(other))

    def fmod(self, other):
        name = "FmodBackward0" if is_python_scalar(other) else "FmodBackward1"
        return apply(name, rounding.fmod, self, operand(other))

    floor_divide = _floor_quotient
    _floor_divide_ = _refused("floor_divide_", rounding.floor_divide, "FloorDivideBackward0")

    def __floordiv__(self, other):
        return self.floor_divide(other) if _is_operand(other) else NotImplemented

    def __rfloordiv__(self, other):
        return _floor_quotient(operand(other), self) if _is_operand(other) else NotImplemented

    def __rmod__(self, other):
        if hasattr(other, "_edge"):  # t.__rmod__(u) called directly: u.remainder(t)
            return other.remainder(self)
        return _number_remainder(operand(other), self) if _is_operand(other) else NotImplemented

    def gcd(self, other):
        return apply("GcdBackward0", _bitwise("gcd_cpu", ops.gcd), self, operand(other))

    def lcm(self, other):
        return apply("LcmBackward0", _bitwise("lcm_cpu", ops.lcm), self, operand(other))

    def float_power(self, exponent):
        name = "PowBackward0" if is_python_scalar(exponent) else "PowBackward1"
        return apply(name, ops.float_power, self, operand(exponent))

    def __abs__(self):
        return self.abs()

    __iadd__, __isub__, __imul__, __itruediv__, __ipow__ = map(
        _in_place_operator, ("add_", "sub_", "mul_", "div_", "pow_"))

    # ---- arithmetic with PyTorch's keywords ----

    def add(self, other, *, alpha=1):
        out = hot_binary("add", self, other) if type(alpha) is int and alpha == 1 else None
        if out is not None:
            return out
        other = operand(other)
        alpha = _checked_alpha(self, other, alpha)
        return apply("AddBackward0", lambda a, b: _fma(_strided(b), _single(alpha, a), a), self,
                     other, operands=(self, other))

    def sub(self, other, *, alpha=1):
        out = hot_binary("sub", self, other) if type(alpha) is int and alpha == 1 else None
        if out is not None:
            return out
        other = operand(other)
        refuse_bool_subtraction(self, other)
        alpha = _checked_alpha(self, other, alpha)
        return apply("SubBackward0", lambda a, b: _fma(_strided(b), -_single(alpha, a), a),
                     self, other, operands=(self, other))

    subtract = sub

    def addcmul(self, tensor1, tensor2, *, value=1):
        return apply("AddcmulBackward0", lambda a, b, c: _fma(_scaled(b, value), c, a),
                     self, operand(tensor1), operand(tensor2))

    def addcdiv(self, tensor1, tensor2, *, value=1):
        refuse_integer_addcdiv(tensor1, tensor2)
        return apply("AddcdivBackward0", lambda a, b, c: ops.add(a, ops.true_divide(
            _scaled(b, value), c)), self, operand(tensor1), operand(tensor2))

    def lerp(self, end, weight):
        """PyTorch's two forms, each exact at its own end: from self for weights below 0.5,
        from end above."""
        name = "LerpBackward0" if is_python_scalar(weight) else "LerpBackward1"
        refuse_lerp(self, end, weight)
        if is_python_scalar(weight):  # converted to self's dtype as PyTorch's Scalar is
            weight = dtypes.scalar_in(weight, self.dtype)

        def lerp(a, b, w):
            if is_python_scalar(w):  # in self's dtype: it takes no part in the promotion
                first = abs(w) < 0.5
                w = ops.astype(np.asarray(_single(w, a)), ir_type(a).dtype)
                return (_fma(w, ops.sub(b, a), a) if first else
                        _fma(ops.sub(w, 1), ops.sub(b, a), b))
            near_a, near_b = _fma(w, ops.sub(b, a), a), _fma(ops.sub(w, 1), ops.sub(b, a), b)
            return ops.where(ops.lt(ops.abs_(w), 0.5), near_a, near_b)
        return apply(name, lerp, self, operand(end),
                     weight if is_python_scalar(weight) else operand(weight))

    def mul(self, other):
        out = hot_binary("mul", self, other)
        if out is not None:
            return out
        other = operand(other)
        return apply("MulBackward0", ops.mul, self, other, operands=(self, other))

    multiply = mul

    def div(self, other, *, rounding_mode=_TRUE):
        out = hot_binary("div", self, other) if rounding_mode is _TRUE else None
        if out is not None:
            return out
        other = operand(other)
        if rounding_mode is _TRUE:
            return apply("DivBackward0", ops.true_divide, self, other, operands=(self, other))
        if rounding_mode not in rounding.QUOTIENTS:
            raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or "
                               f"'floor' but found '{rounding_mode}'")
        return apply("DivBackward2", rounding.QUOTIENTS[rounding_mode], self, other,
                     operands=(self, other))

    divide = true_divide = div

    def pow(self, exponent):
        if (type(exponent) is float or type(exponent) is int) and exponent != 0.5:
            out = direct(E.pow_, "PowBackward0", (self, exponent), None)  # (0.5: a sqrt)
            if out is not None:
                return out
        if is_python_scalar(exponent):  # pow.Tensor_Scalar: the exponent is no operand
            return apply("PowBackward0", _power, self, operand(exponent))
        return apply("PowBackward1", _power, self, operand(exponent))

    def square(self):
        return apply("PowBackward0", ops.power, self, 2)

    def reciprocal(self):
        return apply("ReciprocalBackward0", lambda x: ops.true_divide(1.0, x), self)

    def maximum(self, other):
        return apply("MaximumBackward0", real_only("maximum", ops.maximum), self, operand(other))

    def minimum(self, other):
        return apply("MinimumBackward0", real_only("minimum", ops.minimum), self, operand(other))

    def eq(self, other):
        return apply("EqBackward0", ops.eq, self, operand(other))

    def ne(self, other):
        return apply("NeBackward0", ops.ne, self, operand(other))

    def lt(self, other):
        return apply("LtBackward0", _ORDERED["lt"], self, operand(other))

    def le(self, other):
        return apply("LeBackward0", _ORDERED["le"], self, operand(other))

    def gt(self, other):
        return apply("GtBackward0", _ORDERED["gt"], self, operand(other))

    def ge(self, other):
        return apply("GeBackward0", _ORDERED["ge"], self, operand(other))

    def logical_and(self, other):
        return apply("LogicalAndBackward0", ops.logical_and, self, operand(other))

    def logical_or(self, other):
        return apply("LogicalOrBackward0", ops.logical_or, self, operand(other))

    def logical_not(self):
        return apply("LogicalNotBackward0", ops.logical_not, self)

    def equal(self, other) -> bool:
        return tuple(self.shape) == tuple(other.shape) and bool(self.eq(other).all())

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
        return bool(self.isclose(other, rtol, atol, equal_nan).all())

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        for name, tolerance in (("rtol", rtol), ("atol", atol)):
            if tolerance < 0:
                raise RuntimeError(f"{name} must be greater than or equal to zero, but got "
                                   f"{tolerance}")
        if hasattr(other, "_edge") and other.dtype != self.dtype:
            raise RuntimeError(f"{self.dtype.legacy} did not match {other.dtype.legacy}")

        measured = self.dtype.ir.name != "bool"  # bools have no difference to measure

        def close(a, b):
            near = ops.eq(a, b)
            if measured:  # an infinite difference (inf against -inf) is never within bounds
                error = ops.abs_(ops.sub(a, b))
                within = ops.le(error, ops.add(ops.mul(ops.abs_(b), rtol), atol))
                near = ops.logical_or(near, ops.logical_and(ops.isfinite(error), within))
            if equal_nan:
                near = ops.logical_or(near, ops.logical_and(ops.ne(a, a), ops.ne(b, b)))
            return near
        return apply("IscloseBackward0", close, self, operand(other))

    neg = negative = __neg__

    # ---- reductions ----


def _strided(x):
    """A sparse operand added to a strided tensor as its strided form (dense + sparse)."""
    return x.to_dense() if getattr(x, "_sparse_layout", False) else x


def _scaled(x, alpha):
    return x if alpha == 1 else ops.mul(x, _single(alpha, x))


def _checked_alpha(a, b, alpha):
    """add's and sub's alpha as PyTorch takes it: not of a higher category than the result
    (bool < integer < float < complex), cast to bool for a bool result."""
    if type(alpha) is int and alpha == 1:
        return alpha
    result = ops.result_type(a, b)
    if isinstance(alpha, bool) and result.name != "bool":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, (float, complex)) and not result.is_inexact:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if isinstance(alpha, complex) and not result.is_complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex "
                           "number.")
    return bool(alpha) if result.name == "bool" else alpha


def _single(scalar, like):
    """A Python number in a float32 operation, rounded to float32 as PyTorch's kernels take it."""
    if is_python_scalar(scalar) and not isinstance(scalar, (bool, int)) and \
            ops.result_type(like, scalar).name == "f32":
        return float(np.float32(scalar))
    return scalar


def _fma(x, y, z):
    """x * y + z rounded once, as PyTorch's vectorized CPU kernels compute add(alpha=), addcmul
    and lerp: a float32 product is exact in float64, so one rounding back to float32 matches
    the fused multiply-add except at double-rounding ties."""
    # z (self) first in each sum: a sum takes the flavor of its first operand, and a traced
    # number argument (x) would make a Tensor's result a numpy array
    if is_python_scalar(y) and y == 1:  # (the scale first: True + t * 1 stays a bool sum)
        return ops.add(z, x)
    if is_python_scalar(x) and x == 1:
        return ops.add(z, y)
    if is_python_scalar(y) and y == -1 and not isinstance(y, bool):  # sub: x * -1 is exact
        return ops.sub(z, x)
    common = ops.result_type(x, y, z)
    if common.name != "f32":  # the product in the common dtype, as PyTorch's promoted kernel
        return ops.add(z, ops.mul(ops.astype(x, common), y))
    wide = [ops.astype(v, "f64") for v in (x, y, z)]
    return ops.astype(ops.add(wide[2], ops.mul(wide[0], wide[1])), "f32")
