"""PyTorch's floating-point math beyond the basics (asin, sinh, atan2, hypot, logaddexp, erf,
lgamma, ...) as Tensor methods with PyTorch's names and grad_fn names, on gradjit.ops."""
from __future__ import annotations

import functools
import math

from gradjit import ops
from gradjit.ir.primitive import ir_type
from gradjit.ops import special
from gradjit.ops.promote import in_float32
from gradjit.ops.ufuncs import floats
from gradjit.tensor import dtypes, rounding
from gradjit.tensor.arith import ArithMixin, apply, operand
from gradjit.tensor.refusals import complex_type, no_kernel, real_only, refuse_integers
from gradjit.tracer import custom_vjp
from gradjit.tracer.hips import unbroadcast


def _xlogy_forward(x, y):
    return special.xlogy(x, y), (x, y)


def _xlogy_backward(residuals, g):
    """PyTorch's derivatives: g log y in x (0 where x is 0 and y is not positive); x / y in y,
    NaN where both are 0 (the shared xlogy, as scipy's and JAX's, takes a zero x there as no
    dependence on y)."""
    x, y = residuals
    flat = ops.logical_and(ops.eq(x, 0), ops.le(y, 0))
    return (unbroadcast(ops.where(flat, 0.0, special.xlogy(g, y)), x),
            unbroadcast(ops.mul(g, ops.true_divide(x, y)), y))


_xlogy_of_floats = custom_vjp(special.xlogy)
_xlogy_of_floats.defvjp(_xlogy_forward, _xlogy_backward)


def _xlogy(x, y):
    # promoted first: custom_vjp fixes a number's type; its host evaluation sees bfloat16's
    # float32 storage, whose result is rounded back
    x, y = floats(x, y)
    return ops.astype(_xlogy_of_floats(x, y), ir_type(x).dtype)

def _real_only(name, fn):
    def run(x):
        if ir_type(x).dtype.is_complex:
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return fn(x)
    return run


def _signbit(x):
    if ir_type(x).dtype.is_complex:
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    return ops.signbit(x)


def _with_derivative(fn, derivative):
    """fn, its gradient of floats g * d for each operand's factor d of
    derivative(*operands, fn(*operands)) (summed to the operand's shape): PyTorch's formula,
    which keeps PyTorch's inf and NaN at the ends of the domain, where fn's composition keeps
    its own gradient finite."""
    custom = custom_vjp(fn)

    def forward(*xs):
        y = fn(*xs)
        return y, (*xs, y)

    def backward(residuals, g):
        return tuple(unbroadcast(ops.mul(g, d), x)
                     for d, x in zip(derivative(*residuals), residuals[:-1]))
    custom.defvjp(forward, backward)

    def run(*xs):
        xs = floats(*xs) if len(xs) > 1 else xs  # one dtype: custom_vjp keeps each operand's
        if not ir_type(xs[0]).dtype.is_float:
            return fn(*xs)
        # its host evaluation sees bfloat16's float32 storage: the result is rounded back
        return ops.astype(custom(*xs), ir_type(xs[0]).dtype)
    return run


def _logit(p, eps):
    return special.logit(p if eps is None else ops.clip(p, eps, 1 - eps))


def _logit_backward(eps, p, g):
    """PyTorch's: g / (p (1 - p)); NaN outside [0, 1] without eps, 0 outside [eps, 1 - eps]
    with it."""
    slope = ops.true_divide(g, ops.mul(p, ops.sub(1.0, p)))
    if eps is None:  # inf at either end, whatever the zero's sign
        ends = ops.logical_or(ops.eq(p, 0.0), ops.eq(p, 1.0))
        slope = ops.where(ends, ops.mul(g, math.inf), slope)
    low, high, value = (0.0, 1.0, math.nan) if eps is None else (eps, 1 - eps, 0.0)
    return (ops.where(ops.logical_or(ops.lt(p, low), ops.gt(p, high)), value, slope),)


_logit_of_floats = custom_vjp(_logit, nondiff_argnums=(1,))
_logit_of_floats.defvjp(lambda p, eps: (_logit(p, eps), p), _logit_backward)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


def _share(exp, a, b):
    """1 / (1 + exp(a - b)): an operand's share of logaddexp's gradient (NaN where both are
    the same infinity, as PyTorch's)."""
    return ops.true_divide(1.0, ops.add(1.0, exp(ops.sub(a, b))))


def _lgamma(x):
    """PyTorch's lgamma: inf at -inf, where scipy's (numpy arrays carry no flavor inside a
    custom rule) is -inf."""
    return ops.where(ops.eq(x, -math.inf), math.inf, special.gammaln(x))

# method names -> (grad_fn name, function of the tensor)
UNARY = {
    ("asin", "arcsin"): ("AsinBackward0", ops.arcsin),
    ("acos", "arccos"): ("AcosBackward0", ops.arccos),
    ("atan", "arctan"): ("AtanBackward0", ops.arctan),
    ("sinh",): ("SinhBackward0", ops.sinh), ("cosh",): ("CoshBackward0", ops.cosh),
    ("asinh", "arcsinh"): ("AsinhBackward0", ops.arcsinh),
    ("acosh", "arccosh"): ("AcoshBackward0", _with_derivative(
        ops.arccosh, lambda x, y: (ops.rsqrt(ops.sub(ops.mul(x, x), 1.0)),))),
    ("atanh", "arctanh"): ("AtanhBackward0", _with_derivative(
        ops.arctanh, lambda x, y: (ops.true_divide(1.0, ops.sub(1.0, ops.mul(x, x))),))),
    ("exp2",): ("Exp2Backward0", ops.exp2), ("log2",): ("Log2Backward0", ops.log2),
    ("log10",): ("Log10Backward0", ops.log10), ("sinc",): ("SincBackward0", ops.sinc),
    ("deg2rad",): ("Deg2RadBackward0", _real_only("deg2rad", ops.deg2rad)),
    ("rad2deg",): ("Rad2DegBackward0", _real_only("rad2deg", ops.rad2deg)),
    ("erf",): ("ErfBackward0", no_kernel("erf_vml_cpu", special.erf, complex_type)),
    ("erfc",): ("ErfcBackward0", no_kernel("erfc_vml_cpu", special.erfc, complex_type)),
    ("erfinv",): ("ErfinvBackward0", no_kernel("erfinv_vml_cpu", _with_derivative(
        special.erfinv, lambda x, y: (ops.mul(ops.exp(ops.mul(y, y)), _HALF_SQRT_PI),)),
        complex_type)),
    ("lgamma",): ("LgammaBackward0", no_kernel("lgamma_vml_cpu", _with_derivative(
        _lgamma, lambda x, y: (special.digamma(x),)), complex_type)),
    ("digamma",): ("DigammaBackward0", no_kernel("digamma", special.digamma, complex_type)),
}
PREDICATES = {
    ("isinf",): ("IsinfBackward0", ops.isinf), ("signbit",): ("SignbitBackward0", _signbit),
}
BINARY = {
    ("atan2", "arctan2"): ("Atan2Backward0", no_kernel("atan2_cpu", ops.arctan2,
                                                        complex_type)),
    ("logaddexp",): ("LogaddexpBackward0", _with_derivative(ops.logaddexp, lambda x, y, out: (
        _share(ops.exp, y, x), _share(ops.exp, x, y)))),
    ("logaddexp2",): ("Logaddexp2Backward0", _with_derivative(ops.logaddexp2, lambda x, y, out: (
        _share(ops.exp2, y, x), _share(ops.exp2, x, y)))),
    ("hypot",): ("HypotBackward0", no_kernel("hypot_cpu", _with_derivative(
        ops.hypot, lambda x, y, out: (ops.true_divide(x, out), ops.true_divide(y, out))),
        lambda dt: not dt.is_float)),
    ("fmax",): ("FmaxBackward0", real_only("fmax", ops.fmax)),
    ("fmin",): ("FminBackward0", real_only("fmin", ops.fmin)),
    ("xlogy",): ("XlogyBackward0", _xlogy),
}


def _unary(grad_fn, fn):
    """The method; half-precision tensors computed in float32 and rounded once, as PyTorch's
    kernels do (a composition in float16 would round at each of its steps)."""
    def method(self):
        return apply(grad_fn, lambda x: in_float32(fn, x), self)
    return method


def _predicate(grad_fn, fn):
    def method(self):
        return apply(grad_fn, fn, self)
    return method


def _binary(grad_fn, fn):
    def method(self, other):
        return apply(grad_fn, fn, self, operand(other))
    return method


def _methods():
    table = {}
    for kind, rows in ((_unary, UNARY), (_predicate, PREDICATES), (_binary, BINARY)):
        for names, (grad_fn, fn) in rows.items():
            table.update(dict.fromkeys(names, kind(grad_fn, fn)))
    return table


_COPYSIGN = no_kernel("copysign_cpu", ops.copysign, complex_type)


def _refuse_complex(name, x):
    if x.dtype.is_complex:
        raise RuntimeError(f"{name} does not support complex inputs.")


class UfuncMixin:
    def copysign(self, other):
        # PyTorch names the tensor-scalar form CopysignBackward1
        scalar = not hasattr(other, "_edge")
        return apply("CopysignBackward1" if scalar else "CopysignBackward0", _COPYSIGN, self,
                     other if scalar else operand(other))

    def heaviside(self, values):
        """0 below 0 and at NaN, 1 above, values at 0, in the operands' one dtype."""
        values = operand(values)
        if values.dtype is not self.dtype:
            raise RuntimeError("heaviside is not yet implemented for tensors with different "
                               "dtypes.")

        def step(x, v):
            low = ops.logical_or(ops.lt(x, 0), ops.isnan(x))
            return ops.astype(ops.where(low, 0, ops.where(ops.gt(x, 0), 1, v)), self.dtype.ir)
        return apply("HeavisideBackward0", step, self, values)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return apply("NanToNumBackward0", ops.nan_to_num, self, nan, posinf, neginf)

    def frac(self):
        refuse_integers("frac_cpu", self)
        return apply("FracBackward0", no_kernel(
            "frac_cpu", lambda x: ops.sub(x, rounding.trunc(x)), complex_type), self)

    def fix(self):
        return self.trunc()

    def positive(self):
        if self.dtype is dtypes.bool_:
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return self

    def ldexp(self, other):
        """self * 2 ** other, in floating point (integers go to the default float32)."""
        def ldexp(x, e):
            dt = ops.result_type(x, e)
            dt = dt.name if dt.is_float else "f32"
            return ops.mul(ops.astype(x, dt), ops.exp2(ops.astype(e, dt)))
        return apply("LdexpBackward0", ldexp, self, operand(other))

    def isposinf(self):
        _refuse_complex("isposinf", self)
        return apply("IsposinfBackward0", lambda x: ops.logical_and(ops.isinf(x),
                                                                      ops.gt(x, 0)), self)

    def isneginf(self):
        _refuse_complex("isneginf", self)
        return apply("IsneginfBackward0", lambda x: ops.logical_and(ops.isinf(x),
                                                                      ops.lt(x, 0)), self)

    def logical_xor(self, other):
        return apply("LogicalXorBackward0", ops.logical_xor, self, operand(other))

    greater, greater_equal = ArithMixin.gt, ArithMixin.ge
    less, less_equal, not_equal = ArithMixin.lt, ArithMixin.le, ArithMixin.ne

    def is_signed(self) -> bool:
        return self.dtype.is_signed

    def ndimension(self) -> int:
        return self.dim()

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self.dtype.itemsize

    def logit(self, eps=None):
        """log(p / (1 - p)), p first clamped to [eps, 1 - eps] when eps is given."""
        @functools.partial(no_kernel, "logit_cpu", refused=complex_type)
        def logit(p):
            return (_logit_of_floats if ir_type(p).dtype.is_float else _logit)(p, eps)
        return apply("LogitBackward0", lambda x: in_float32(logit, x), self)


for _name, _method in _methods().items():
    setattr(UfuncMixin, _name, _method)
METHOD_NAMES = sorted(set(_methods()) | {
    "copysign", "nan_to_num", "logit", "frac", "sgn", "fix", "positive", "ldexp", "isposinf",
    "isneginf", "isreal", "logical_xor", "greater", "greater_equal", "less", "less_equal",
    "not_equal", "heaviside"})
# the methods PyTorch also has in place (x.asin_()); the rest (fmax, isinf, ...) it has not
IN_PLACE = [n for n in METHOD_NAMES if n not in (
    "fmax", "fmin", "logaddexp", "logaddexp2", "isinf", "signbit", "positive", "isposinf",
    "isneginf", "isreal")] + ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
                              "logical_not", "absolute", "negative", "multiply", "divide",
                              "subtract", "true_divide"]
