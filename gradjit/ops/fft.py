"""numpy.fft's transforms over the fft primitives: n and s resize the transformed axes (cut or
zero-padded), norm scales ('backward': the inverse by 1/n, 'ortho': both by 1/sqrt(n),
'forward': the forward by 1/n); real transforms keep the n // 2 + 1 lower frequencies of the
last axis. The eager Tensor's torch.fft names the same functions with PyTorch's arguments."""
from __future__ import annotations

import math

import numpy as np

from gradjit.ir import fft as F
from gradjit.ir import structural as S
from gradjit.ir.primitive import ir_type
from gradjit.ir.types import complex_of
from gradjit.ops.array import mul, shape_of
from gradjit.ops.complex import conj
from gradjit.ops.promote import astype, to_float
from gradjit.ops.shaping import roll

NORMS = ("backward", "ortho", "forward")
_SWAPPED = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def check_norm(norm) -> str:
    norm = "backward" if norm is None else norm
    if norm not in NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or '
                         '"forward".')
    return norm


def _scaled(x, norm, count, inverse):
    """x scaled for `norm`, `count` the number of points transformed."""
    norm = check_norm(norm)
    if norm == "ortho":
        return mul(x, 1 / math.sqrt(count))
    return mul(x, 1 / count) if (norm == "forward") != inverse else x


def resized(x, n, axis):
    """x cut to its first n entries along `axis`, or padded with zeros to n."""
    t = ir_type(x)
    have = t.shape[axis]
    if n == have:
        return x
    if n < have:
        stop = tuple(n if i == axis else d for i, d in enumerate(t.shape))
        return S.slice_(x, start=(0,) * t.rank, stop=stop, step=(1,) * t.rank)
    high = tuple(n - have if i == axis else 0 for i in range(t.rank))
    return S.pad(x, low=(0,) * t.rank, high=high, interior=(0,) * t.rank, value=0.0)


def as_complex(x):
    """Integers take the default float first; floats their complex type."""
    x = to_float(x)
    return astype(x, complex_of(ir_type(x).dtype))


def c2c(x, sizes, axes, inverse, norm):
    """The complex transform over `axes` (normalized, distinct), each resized to its size."""
    x = as_complex(x)
    for n, a in zip(sizes, axes):
        x = resized(x, n, a)
    out = F.fft(x, axes=tuple(axes), inverse=inverse)
    return _scaled(out, norm, math.prod(sizes), inverse)


def r2c(x, sizes, axes, norm):
    """rfftn: the real transform along the last axis, then the complex one over the others."""
    x = to_float(x)
    for n, a in zip(sizes, axes):
        x = resized(x, n, a)
    out = F.rfft(x, axis=axes[-1])
    if len(axes) > 1:
        out = F.fft(out, axes=tuple(axes[:-1]), inverse=False)
    return _scaled(out, norm, math.prod(sizes), False)


def c2r(x, sizes, axes, norm):
    """irfftn: `sizes` are the output lengths; the last axis keeps sizes[-1] // 2 + 1
    frequencies."""
    x = as_complex(x)
    for n, a in zip(sizes[:-1], axes[:-1]):
        x = resized(x, n, a)
    x = resized(x, sizes[-1] // 2 + 1, axes[-1])
    if len(axes) > 1:
        x = F.fft(x, axes=tuple(axes[:-1]), inverse=True)
    out = F.irfft(x, axis=axes[-1], n=sizes[-1])
    return _scaled(out, norm, math.prod(sizes), True)


def hermitian(x, n, axis, norm):
    """hfft: the real signal whose spectrum has Hermitian symmetry given by its lower half."""
    return c2r(conj(as_complex(x)), (n,), (axis,), _SWAPPED[check_norm(norm)])


def inverse_hermitian(x, n, axis, norm):
    return conj(r2c(x, (n,), (axis,), _SWAPPED[check_norm(norm)]))


def shift(x, axes, inverse):
    """fftshift (zero frequency to the middle) or its inverse, over `axes` (None: all)."""
    shape = shape_of(x)
    axes = tuple(range(len(shape))) if axes is None else \
        (axes,) if isinstance(axes, int) else tuple(axes)
    amounts = [-(shape[a] // 2) if inverse else shape[a] // 2 for a in axes]
    return roll(x, amounts, axes) if axes else x


def frequencies(n, d, real):
    """fftfreq / rfftfreq: the sample frequencies of a transform of n points spaced d."""
    k = np.arange(n // 2 + 1) if real else np.concatenate(
        [np.arange((n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return k / (n * d)
