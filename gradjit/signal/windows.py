"""torch.signal.windows: scipy-style windows of M points, symmetric (sym=True, the default)
or periodic, each a function of M evenly spaced positions written with public tensor ops."""
from __future__ import annotations

import math
from collections.abc import Iterable

from gradjit.tensor import dtypes
from gradjit.tensor.factories import arange, empty, full, linspace, ones, tensor
from gradjit.tensor.layout import strided

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _checked(name, M, dtype, layout):
    """The window's dtype, after PyTorch's checks of the common arguments."""
    dtype = dtype or dtypes.get_default_dtype()
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (dtypes.float32, dtypes.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _span(M, sym):
    """Steps from the first point to the last of the symmetric window this one is cut from:
    a periodic window is the symmetric window one point longer without its last point."""
    return M - 1 if sym or M <= 1 else M


def _window(name, ends, shape, min_length=1, **fixed):
    """A window function: `ends(M, sym, **options)` gives its first and last positions,
    `shape(positions, **options)` its values there. Windows shorter than `min_length` are
    all ones; `fixed` are options the user does not choose (blackman's coefficients)."""
    def window(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False,
               **options):
        dtype = _checked(name, M, dtype, layout)
        factory = dict(dtype=dtype, device=device, requires_grad=requires_grad)
        if M == 0:
            return empty((0,), **factory)
        if M < min_length:
            return ones((M,), **factory)
        options.update(fixed)
        return shape(linspace(*ends(M, sym, **options), M, **factory), **options)
    window.__name__ = name
    return window


def _line(M, start, step):
    return start, start + (M - 1) * step


def _exponential_ends(M, sym, center=None, tau=1.0):
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    center = _span(M, sym) / 2.0 if center is None else center
    return _line(M, -center / tau, 1 / tau)


def _gaussian_ends(M, sym, std=1.0):
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    scale = 1 / (std * math.sqrt(2))
    return _line(M, -_span(M, sym) / 2.0 * scale, scale)


def _kaiser_ends(M, sym, beta=12.0):
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    # the last position may round past beta, where the square root would be NaN
    return -beta, min(beta, _line(M, -beta, 2.0 * beta / _span(M, sym))[1])


def _kaiser(k, beta=12.0):
    return (beta * beta - k ** 2).sqrt().i0() / full((), beta, dtype=k.dtype).i0()


def _cosine_sum_ends(M, sym, a):
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    return _line(M, 0.0, 2 * math.pi / _span(M, sym))


def _cosine_sum(k, a):
    """sum_i (-1)^i a_i cos(i k), one row per term."""
    signed = tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=k.dtype)
    orders = arange(len(signed), dtype=k.dtype)
    return (signed.unsqueeze(-1) * (orders.unsqueeze(-1) * k).cos()).sum(0)


exponential = _window("exponential", _exponential_ends, lambda k, **_: (-k.abs()).exp())
cosine = _window("cosine", lambda M, sym: _line(M, 0.5 * math.pi / (_span(M, sym) + 1),
                                                math.pi / (_span(M, sym) + 1)),
                 lambda k: k.sin())
gaussian = _window("gaussian", _gaussian_ends, lambda k, **_: (-(k ** 2)).exp())
kaiser = _window("kaiser", _kaiser_ends, _kaiser, min_length=2)
bartlett = _window("bartlett", lambda M, sym: _line(M, -1.0, 2 / _span(M, sym)),
                   lambda k: 1 - k.abs(), min_length=2)
general_cosine = _window("general_cosine", _cosine_sum_ends, _cosine_sum, min_length=2)
blackman = _window("blackman", _cosine_sum_ends, _cosine_sum, min_length=2,
                   a=(0.42, 0.5, 0.08))


def general_hamming(M, *, alpha=0.54, **common):
    return general_cosine(M, a=[alpha, 1.0 - alpha], **common)


def hamming(M, **common):
    return general_hamming(M, **common)


def hann(M, **common):
    return general_hamming(M, alpha=0.5, **common)


def nuttall(M, **common):
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], **common)
