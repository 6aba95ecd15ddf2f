"""autograd.scipy.signal.convolve: n-d convolution over paired axes of A and B, contracting
dot_axes, as a sum of shifted tensordots (one per entry of the smaller kernel), so both
modes and every order of derivative come from the traced ops. Output axes: A's remaining
axes, then B's, then the convolved ones."""
from __future__ import annotations

import itertools

import numpy as np

_MODES = ("full", "valid", "same")


def _arranged(x, conv, dot):
    """x transposed to (its other axes, dot axes, conv axes), and the count of the others."""
    other = [i for i in range(np.ndim(x)) if i not in conv and i not in dot]
    return np.transpose(x, other + list(dot) + list(conv)), len(other)


def _full(A, B, n_dot, n_conv):
    """The full convolution of A (a..., d..., c...) and B (b..., d..., k...) as (a..., b...,
    c + k - 1 ...), summed over the entries of B's kernel k."""
    kernel = np.shape(B)[np.ndim(B) - n_conv:]
    a_rank, b_rank = np.ndim(A) - n_dot - n_conv, np.ndim(B) - n_dot - n_conv
    dot_a, dot_b = list(range(a_rank, a_rank + n_dot)), list(range(b_rank, b_rank + n_dot))
    total = None
    for offset in itertools.product(*(range(k) for k in kernel)):
        term = np.tensordot(A, B[(Ellipsis,) + offset], axes=(dot_a, dot_b))
        # tensordot leaves (a..., c..., b...): B's remaining axes go before the conv ones
        order = (list(range(a_rank)) + list(range(a_rank + n_conv, np.ndim(term)))
                 + list(range(a_rank, a_rank + n_conv)))
        term = np.transpose(term, order)
        pads = [(0, 0)] * (np.ndim(term) - n_conv) + [(j, k - 1 - j)
                                                      for j, k in zip(offset, kernel)]
        term = np.pad(term, pads)
        total = term if total is None else total + term
    return total


def convolve(A, B, axes=None, dot_axes=((), ()), mode="full"):
    """scipy.signal.convolve generalized as autograd's: `axes` = (A's axes, B's axes) are
    convolved pairwise (default: all of them), `dot_axes` pairs are contracted; mode 'full',
    'valid' (the positions where one array covers the other) or 'same' (A's size, centered)."""
    if mode not in _MODES:
        raise ValueError(f"convolve: mode must be one of {', '.join(_MODES)}, not {mode!r}")
    if axes is None:
        axes = (list(range(np.ndim(A))), list(range(np.ndim(A))))
    dot_axes = dot_axes if dot_axes is not None else ((), ())
    n_conv, n_dot = len(axes[0]), len(dot_axes[0])
    a, a_rank = _arranged(A, axes[0], dot_axes[0])
    b, b_rank = _arranged(B, axes[1], dot_axes[1])
    sizes_a, sizes_b = np.shape(a)[np.ndim(a) - n_conv:], np.shape(b)[np.ndim(b) - n_conv:]
    if np.prod(sizes_b) <= np.prod(sizes_a):
        out = _full(a, b, n_dot, n_conv)
    else:  # the smaller array as the kernel: then swap the two groups of remaining axes
        out = _full(b, a, n_dot, n_conv)
        out = np.transpose(out, list(range(b_rank, a_rank + b_rank)) + list(range(b_rank))
                           + list(range(a_rank + b_rank, np.ndim(out))))
    window = [slice(None)] * (a_rank + b_rank)
    for m, n in zip(sizes_a, sizes_b):
        start = min(m, n) - 1 if mode == "valid" else (n - 1) // 2 if mode == "same" else 0
        length = abs(m - n) + 1 if mode == "valid" else m if mode == "same" else m + n - 1
        window.append(slice(start, start + length))
    return out[tuple(window)]
