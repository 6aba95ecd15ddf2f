"""Tensor math functions (exp, log, trig, rounding, clamp, softmax): each a named tensor
operation (its grad_fn) built from the array surface, most with a fused eager path."""
from __future__ import annotations

from gradjit import ops
from gradjit.ir.primitive import is_python_scalar
from gradjit.tensor import rounding
from gradjit.tensor.arith import _refusing_bool, _unary, _values_of, apply, operand, where
from gradjit.tensor.fused import (LOG_SOFTMAX, SOFTMAX, clamp_values, kept, normalized,
                                  relu_values)
from gradjit.tensor.hot_path import unrecorded
from gradjit.tensor.refusals import refuse_integers



class _Zero:
    """round's decimals default: shown as PyTorch's 0, yet told apart from a 0 given."""
    def __repr__(self):
        return "0"


_NOT_GIVEN = _Zero()


class MathMixin:
    abs = _refusing_bool("abs_cpu", _unary("AbsBackward0", ops.abs_))
    absolute = abs
    exp = _unary("ExpBackward0", ops.exp)
    expm1 = _unary("Expm1Backward0", ops.expm1)
    log = _unary("LogBackward0", ops.log)
    log1p = _unary("Log1PBackward0", ops.log1p)
    sqrt = _unary("SqrtBackward0", ops.sqrt)
    rsqrt = _unary("RsqrtBackward0", ops.rsqrt)
    sin = _unary("SinBackward0", ops.sin)
    cos = _unary("CosBackward0", ops.cos)
    tan = _unary("TanBackward0", ops.tan)
    tanh = _unary("TanhBackward0", ops.tanh)
    sigmoid = _unary("SigmoidBackward0", ops.sigmoid)
    def relu(self):
        out = unrecorded(self, _values_of(relu_values))
        if out is None:
            out = kept("ReluBackward0", self, relu_values)
        return out if out is not None else apply("ReluBackward0", ops.relu, self)

    sign = _unary("SignBackward0", rounding.flat(rounding.sign))
    floor = _refusing_bool("floor_vml_cpu", _unary("FloorBackward0", rounding.flat(ops.floor)))
    ceil = _refusing_bool("ceil_vml_cpu", _unary("CeilBackward0", rounding.flat(ops.ceil)))
    _round_half_even = _refusing_bool("round_vml_cpu",
                                      _unary("RoundBackward0", rounding.flat(ops.round_)))

    def round(self, *, decimals=_NOT_GIVEN):
        """round(x) and round(x, decimals=d) are PyTorch's two overloads, told apart by whether
        decimals is given at all: even decimals=0 takes the second (RoundBackward1, floats
        only)."""
        if decimals is _NOT_GIVEN:
            return self._round_half_even()
        if not self.dtype.is_floating_point:
            kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
            raise NotImplementedError(f'"{kernel}" not implemented for \'{self.dtype.legacy}\'')
        return apply("RoundBackward1",
                     rounding.flat(lambda x: ops.round_decimals(x, decimals)), self)

    trunc = _refusing_bool("trunc_vml_cpu",
                           _unary("TruncBackward0", rounding.flat(rounding.trunc)))
    isfinite = _unary("IsfiniteBackward0", ops.isfinite)

    def isnan(self):
        return apply("IsnanBackward0", lambda x: ops.ne(x, x), self)

    def clamp(self, min=None, max=None):
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        min, max = (None if b is None else operand(b) for b in (min, max))
        scalar = all(b is None or is_python_scalar(b) for b in (min, max))
        # (a NaN bound takes the general path: ops.clip gives NaN there, as PyTorch does)
        if all(b is None or (type(b) is float or type(b) is int) and b == b for b in (min, max)):
            values = clamp_values(min, max)
            out = unrecorded(self, _values_of(values))
            if out is None:
                out = kept("ClampBackward1", self, values)
            if out is not None:
                return out
        return apply("ClampBackward1" if scalar else "ClampBackward0",
                     lambda x, lo, hi: ops.clip(x, lo, hi), self, min, max,
                     operands=None if scalar else (self, min, max))  # an absent bound: None

    clip = clamp

    def clamp_min(self, min):
        return self._clamp_one_side("ClampMinBackward", min, None)

    def clamp_max(self, max):
        return self._clamp_one_side("ClampMaxBackward", None, max)

    def _clamp_one_side(self, name, min, max):
        """clamp_min/clamp_max: PyTorch's own grad_fns, 0 for a number bound, 1 a tensor."""
        bound = max if min is None else min
        scalar = is_python_scalar(bound)
        bounds = [b if b is None or scalar else operand(b) for b in (min, max)]
        return apply(name + ("0" if scalar else "1"), lambda x, lo, hi: ops.clip(x, lo, hi),
                     self, *bounds)

    def where(self, condition, other):
        return where(condition, self, other)

    def softmax(self, dim, dtype=None):
        return self._normalized(dim, dtype, SOFTMAX, "SoftmaxBackward0", ops.softmax)

    def log_softmax(self, dim, dtype=None):
        return self._normalized(dim, dtype, LOG_SOFTMAX, "LogSoftmaxBackward0", ops.log_softmax)

    def _normalized(self, dim, dtype, which, name, fn):
        """softmax (which: SOFTMAX) or log_softmax (LOG_SOFTMAX): over an int dim in range of
        a float tensor, fused (`normalized`)."""
        x = self if dtype is None else self.to(dtype)
        rank = x.dim()
        last = type(dim) is int and dim % max(rank, 1) == max(rank, 1) - 1
        refuse_integers(f"{'log_' * (which is LOG_SOFTMAX)}softmax{'_lastdim' * last}"
                        "_kernel_impl", x)
        if type(dim) is int and rank and -rank <= dim < rank and x.numel():
            out = normalized(which, name, x, dim % rank)
            if out is not None:
                return out
        return apply(name, fn, x, dim)
