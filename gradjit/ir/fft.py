"""Discrete Fourier transforms as library primitives, unnormalized (the array surface scales):
`fft` (complex to complex over axes, forward or inverse), `rfft` (real to the n//2 + 1 lower
frequencies along one axis) and `irfft` (those frequencies back to n real values).

They are linear, so each JVP is the primitive on the tangent. VJPs follow JAX's convention
for complex values (the transpose under Re(sum(a b))): the DFT matrix is symmetric, so fft's
transpose is fft in the same direction; rfft's is the forward transform of the cotangent padded
with zeros, real part; irfft's counts each frequency that stands for two (k and n - k) twice.
"""
from __future__ import annotations

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import PRIMITIVES, Primitive, ir_type, register, require
from gradjit.ir.types import TensorType, complex_of, real_of


def _prim(name, rule, evaluate, vjp, params):
    return register(Primitive(name, "library", rule, evaluate, vjp, params=params,
                              jvp=lambda tangents, out, x, **p: PRIMITIVES[name](
                                  tangents[0], **p),
                              batch=S.batch_shifted(name, _shifted)))


def _shifted(size, **params):
    """Params naming axes, moved past the leading batch axis."""
    shifted = dict(params)
    if "axes" in shifted:
        shifted["axes"] = tuple(a + 1 for a in params["axes"])
    if "axis" in shifted:
        shifted["axis"] = params["axis"] + 1
    return shifted


def _fft_rule(x, *, axes, inverse):
    require(x.dtype.is_complex, f"needs a complex operand, not {x.dtype}")
    require(len(set(axes)) == len(axes) and all(0 <= a < x.rank for a in axes),
            f"axes {axes} must be distinct axes of a rank-{x.rank} operand")
    return x


def _fft_eval(x, *, axes, inverse):
    if not axes:
        return x.copy()
    if inverse:  # "forward" leaves the inverse transform unscaled
        return np.fft.ifftn(x, axes=axes, norm="forward")
    return np.fft.fftn(x, axes=axes)


fft = _prim("fft", _fft_rule, _fft_eval,
            lambda g, y, x, *, axes, inverse: (fft(g, axes=axes, inverse=inverse),),
            ("axes", "inverse"))


def _rfft_rule(x, *, axis):
    require(x.dtype.is_float, f"needs a real floating point operand, not {x.dtype}")
    require(0 <= axis < x.rank and x.shape[axis] > 0,
            f"axis {axis} must be a nonempty axis of {x.shape}")
    shape = list(x.shape)
    shape[axis] = shape[axis] // 2 + 1
    return TensorType(tuple(shape), complex_of(x.dtype))


def _rfft_vjp(g, y, x, *, axis):
    n, kept = ir_type(x).shape[axis], ir_type(g).shape[axis]
    rank = ir_type(g).rank
    high = tuple(n - kept if i == axis else 0 for i in range(rank))
    padded = S.pad(g, low=(0,) * rank, high=high, interior=(0,) * rank, value=0.0)
    return (E.real(fft(padded, axes=(axis,), inverse=False)),)


rfft = _prim("rfft", _rfft_rule, lambda x, *, axis: np.fft.rfft(x, axis=axis), _rfft_vjp,
             ("axis",))


def _irfft_rule(x, *, axis, n):
    require(x.dtype.is_complex, f"needs a complex operand, not {x.dtype}")
    require(0 <= axis < x.rank and n > 0 and x.shape[axis] == n // 2 + 1,
            f"axis {axis} of {x.shape} must hold n // 2 + 1 = {n // 2 + 1} frequencies")
    shape = list(x.shape)
    shape[axis] = n
    return TensorType(tuple(shape), real_of(x.dtype))


def _irfft_vjp(g, y, x, *, axis, n):
    """The frequencies 1 .. (n - 1) // 2 stand for their mirror images too: counted twice."""
    t = ir_type(x)
    twice = np.full(t.shape[axis], 2.0)
    twice[0] = 1.0
    if n % 2 == 0:
        twice[-1] = 1.0
    view = [1] * t.rank
    view[axis] = t.shape[axis]
    weights = np.broadcast_to(twice.reshape(view), t.shape).astype(t.dtype.numpy)
    return (E.mul(E.conj(rfft(g, axis=axis)), weights),)


irfft = _prim("irfft", _irfft_rule,
              lambda x, *, axis, n: np.fft.irfft(x, n, axis=axis, norm="forward"), _irfft_vjp,
              ("axis", "n"))
