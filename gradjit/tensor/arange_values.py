"""The values PyTorch's CPU arange kernel writes for float32/float64: AVX2 vectors (8 floats
or 4 doubles, two per loop step) each start at fma(step, i, start) and add k * step with a
fused multiply-add; the elements after the last pair of vectors are fma(step, i, start)."""
from __future__ import annotations

import numpy as np

_SPLIT = 134217729.0  # 2**27 + 1: Dekker's splitting constant for doubles


def _split(x):
    scaled = _SPLIT * x
    high = scaled - (scaled - x)
    return high, x - high


def fma(a, b, c):
    """a * b + c rounded once (to within the rare tie that double rounding can break), from
    the exact product error (Dekker) and the exact sum error (Knuth's TwoSum)."""
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    product = a * b
    (a_hi, a_lo), (b_hi, b_lo) = _split(a), _split(b)
    product_error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total = product + c
    back = total - product
    sum_error = (product - (total - back)) + (c - back)
    return total + (sum_error + product_error)


def arange_values(start, step, count, float32):
    """float64 values that, cast to the tensor's dtype, are PyTorch's."""
    width = 8 if float32 else 4
    index = np.arange(count, dtype=np.float64)
    first = index // width * width
    base = fma(step, first, start)
    if float32:
        base = base.astype(np.float32).astype(np.float64)
    vectorized = fma(index - first, step, base)
    last_pair = count // (2 * width) * (2 * width)
    return np.where(index < last_pair, vectorized, fma(step, index, start))
