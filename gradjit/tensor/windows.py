"""torch's signal windows: hann, hamming, blackman, bartlett and kaiser, periodic (the default:
one point of a window one longer, dropped) or symmetric, computed in the result's dtype."""
from __future__ import annotations

import math

from gradjit.tensor import dtypes


def _points(window_length, periodic, dtype, name):
    from gradjit.tensor.factories import arange
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    dtype = dtype or dtypes.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    n = arange(window_length, dtype=dtype)
    span = window_length if periodic else window_length - 1
    return n, span


def _window(name, shape):
    def window(window_length, periodic=True, *args, dtype=None, layout=None, device=None,
               requires_grad=False):
        from gradjit.tensor.factories import ones
        n, span = _points(window_length, periodic, dtype, name)
        if window_length <= 1:
            out = ones(window_length, dtype=n.dtype)
        else:
            out = shape(n, span, *args)
        return out.requires_grad_(requires_grad)
    window.__name__ = name
    return window


def _cosine_sum(*coefficients):
    def shape(n, span):
        phase = n * (2 * math.pi / span)
        total = coefficients[0]
        for k, a in enumerate(coefficients[1:], 1):
            total = total + (phase * k).cos() * ((-1) ** k * a)
        return total
    return shape


hann_window = _window("hann_window", _cosine_sum(0.5, 0.5))
blackman_window = _window("blackman_window", _cosine_sum(0.42, 0.5, 0.08))
hamming_window = _window("hamming_window",
                         lambda n, span, alpha=0.54, beta=0.46:
                         _cosine_sum(alpha, beta)(n, span))
bartlett_window = _window("bartlett_window",
                          lambda n, span: 1 - (n * (2 / span) - 1).abs())
kaiser_window = _window("kaiser_window",
                        lambda n, span, beta=12.0:
                        (beta * (1 - ((n - span / 2) / (span / 2)) ** 2).sqrt()).i0() /
                        math.fsum([(beta / 2) ** (2 * k) / math.factorial(k) ** 2
                                   for k in range(60)]))

__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window",
           "kaiser_window"]
