"""Complex tensors: their parts as views (.real, .imag, view_as_real), conjugation, angle and
sgn, torch.complex and torch.polar, and PyTorch's refusals of orders on complex numbers."""
from __future__ import annotations

import math

import numpy as np

from gradjit import ops
from gradjit.ir import elementwise as E
from gradjit.tensor import dtypes, rounding
from gradjit.tensor.arith import apply, operand
from gradjit.tensor.functions import write_out
from gradjit.tensor.signatures import check_function


class ComplexMixin:
    """The complex-number methods of Tensor."""

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    @property
    def real(self):
        """The real part: a view of a complex tensor's storage (writes reach it), PyTorch's
        view_as_real(self)[..., 0]; a real tensor is its own real part."""
        if not self.dtype.is_complex:
            return self
        return view_as_real(self).select(-1, 0)

    @property
    def imag(self):
        if not self.dtype.is_complex:
            raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
        return view_as_real(self).select(-1, 1)

    @real.setter
    def real(self, value):
        self.real.copy_(value)

    @imag.setter
    def imag(self, value):
        self.imag.copy_(value)

    def conj(self):
        return apply("ConjBackward0", E.conj, self) if self.dtype.is_complex else self

    def conj_physical(self):
        if not self.dtype.is_complex:
            return self
        return apply("ConjPhysicalBackward0", E.conj, self)

    def resolve_conj(self):
        """conj() computes its values at once (no lazy conjugate bit): nothing to resolve."""
        return self

    resolve_neg = resolve_conj

    def is_conj(self) -> bool:
        return False

    is_neg = is_conj

    def isreal(self):
        if not self.dtype.is_complex:
            return self.new_ones(self.shape, dtype=dtypes.bool_)  # every real number
        return apply("IsrealBackward0", ops.is_real_valued, self)

    def angle(self):
        """The argument atan2(imag, real); of a real number pi for negatives, 0 otherwise,
        NaN for NaN, with gradient 0 (integers give the default float)."""
        if self.dtype.is_complex:
            return apply("AngleBackward0", ops.angle, self)
        x = self if self.dtype.is_floating_point else self.to(dtypes.get_default_dtype())

        def angle(v):
            zero = ops.where(ops.isfinite(v), ops.mul(ops.abs_(v), 0.0), 0.0)  # v's, +0
            phase = ops.where(ops.lt(v, 0), ops.add(zero, math.pi), zero)
            return ops.where(ops.isnan(v), v, phase)
        return apply("AngleBackward0", angle, x)

    def sgn(self):
        """z / |z| (0 at 0) for complex tensors; sign for real ones."""
        if not self.dtype.is_complex:
            return apply("SgnBackward0", rounding.flat(rounding.sign), self)

        def sgn(z):
            magnitude = ops.abs_(z)
            zero = ops.eq(magnitude, 0)
            return ops.where(zero, 0, ops.true_divide(z, ops.where(zero, 1, magnitude)))
        return apply("SgnBackward0", lambda z: ops.in_float32(sgn, z), self)


def view_as_real(input):
    """The (..., 2) real tensor of a complex tensor's parts: a view of its storage, so that
    writes through either reach the other (complex32's excepted: a copy)."""
    if not input.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    out = apply("ViewAsRealBackward0", lambda z: ops.stack([E.real(z), E.imag(z)], -1), input)
    # complex32 is stored as complex64, whose memory holds no float16 parts to view: its
    # parts stay the float16 copy (writes through them do not reach the complex tensor)
    if type(input._value) is np.ndarray and type(out._value) is np.ndarray and \
            input.dtype is not dtypes.complex32:
        out._value = _parts(input._value)
        out._share(input, _parts)
    return out


def _parts(array):
    """The (..., 2) real view of a complex numpy array's memory: each element's real part,
    then its imaginary part. It is cut from the memory's owner, as numpy's other views are,
    so that its storage and offset read back."""
    real = array.real
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if not (owner.flags.c_contiguous or owner.flags.f_contiguous):  # as_strided's own memory
        return np.lib.stride_tricks.as_strided(real, real.shape + (2,),
                                               real.strides + (real.itemsize,))
    flat = np.ravel(owner, order="K").view(real.dtype)
    offset = array.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return np.ndarray(real.shape + (2,), real.dtype, buffer=flat, offset=offset,
                      strides=real.strides + (real.itemsize,))


def view_as_complex(input):
    """The complex tensor of a float tensor whose last dimension holds (real, imag) pairs."""
    if input.dtype not in (dtypes.float32, dtypes.float64, dtypes.float16):
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {input.dtype.legacy}")
    if not input.dim():
        raise RuntimeError("Input tensor must have one or more dimensions")
    if tuple(input.shape[-1:]) != (2,):
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if input.stride(-1) != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(step % 2 for step in input.stride()[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    return apply("ViewAsComplexBackward0", lambda x: E.complex_(
        ops.getitem(x, (Ellipsis, 0)), ops.getitem(x, (Ellipsis, 1))), input)


def complex(real, imag, *, out=None):
    return _from_parts("complex", "ComplexBackward0", ops.complex_from, real, imag, out)


def polar(abs, angle, *, out=None):
    return _from_parts("polar", "PolarBackward0", ops.polar, abs, angle, out)


def _from_parts(name, grad_fn, make, first, second, out):
    """A complex tensor made of two real tensors of one float dtype (checked in PyTorch's
    words, which complex and polar share)."""
    check_function(name, (first, second), {})
    first, second = operand(first), operand(second)
    if first.dtype is not second.dtype:
        raise RuntimeError(f"Expected object of scalar type {first.dtype.legacy} but got scalar "
                           f"type {second.dtype.legacy} for second argument")
    if first.dtype not in (dtypes.float32, dtypes.float64, dtypes.float16):
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{first.dtype.legacy} and {second.dtype.legacy}")
    return write_out(name, lambda: apply(grad_fn, make, first, second), (first, second), out)


def _kernel(name):
    return lambda t, *args, **kwargs: (NotImplementedError, f'"{name}" not implemented for '
                                                           f"'{t.dtype.legacy}'")


def _unsupported(message, error=RuntimeError):
    return lambda t, *args, **kwargs: (error, message)


def _reduced(name, kernel):
    """max()/min() over everything fail in their kernel; along a dimension, up front."""
    def refusal(t, dim=None, *args, **kwargs):
        if dim is None:
            return _kernel(kernel)(t)
        return RuntimeError, f"{name}(): does not support complex input"
    return refusal


_NO_ORDER = _unsupported(" Sort does not support complex dtypes on CPU")
# method -> (error type, message) that PyTorch raises for a complex tensor
# (ordered comparisons, maximum and minimum refuse complex operands of either side, by
# their common dtype: arith's kernels check them)
REFUSALS = {
    "max": _reduced("max", "max_all"), "min": _reduced("min", "min_all"),
    "amax": _kernel("max_values_cpu"), "amin": _kernel("min_values_cpu"),
    "argmax": _unsupported("argmax(): does not support complex input"),
    "argmin": _unsupported("argmin(): does not support complex input"),
    **{m: _unsupported("clamp is not supported for complex types", NotImplementedError)
       for m in ("clamp", "clamp_min", "clamp_max", "clip")},
    "sign": _unsupported("Unlike NumPy, torch.sign is not intended to support complex "
                         "numbers. Please use torch.sgn instead.", NotImplementedError),
    **{m: _unsupported(f"{m} is not supported for complex inputs", NotImplementedError)
       for m in ("floor", "ceil", "trunc")},
    "round": _kernel("round_vml_cpu"), "cummax": _kernel("cummax_cpu"),
    "cummin": _kernel("cummin_cpu"), "median": _kernel("median_cpu"),
    "sort": _NO_ORDER, "msort": _NO_ORDER,
    "abs_": _unsupported("In-place abs is not supported for complex tensors."),
    "topk": _unsupported(" topk does not support complex dtypes on CPU"),
}


def refuse_complex_in(cls):
    """Wrap the methods in REFUSALS so that a complex tensor raises PyTorch's error."""
    for name, refusal in REFUSALS.items():
        setattr(cls, name, _refusing(getattr(cls, name), refusal))
    return cls


def _refusing(method, refusal):
    def refusing(self, *args, **kwargs):
        if self.dtype.is_complex:
            error, message = refusal(self, *args, **kwargs)
            raise error(message)
        return method(self, *args, **kwargs)
    refusing.__name__, refusing.__doc__ = method.__name__, method.__doc__
    return refusing
