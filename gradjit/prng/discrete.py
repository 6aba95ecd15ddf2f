"""jax.random's discrete samplers: bits, randint (JAX's double-width remainder), bernoulli,
rademacher, permutation (sorts by random keys), choice and categorical (the Gumbel trick)."""
from __future__ import annotations

import math

import numpy as np

from gradjit.prng import threefry
from gradjit.prng.continuous import (as_shape, cast, gumbel, inexact_dtype, uniform,
                                     uniform_between)
from gradjit.prng.keys import key_words

# gradjit computes in 64 bits by default, as JAX with jax_enable_x64
DEFAULT_INT = np.dtype(np.int64)


def bits(key, shape=(), dtype=None):
    """Uniform random unsigned integers."""
    words, _ = key_words(key, "bits")
    dtype = np.dtype(np.uint64 if dtype is None else dtype)
    if dtype.kind != "u":
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    return threefry.random_bits(words, dtype.itemsize * 8, as_shape(shape))


def _clip_into(values, dtype):
    """Integers clipped into the range both their type and `dtype` hold, as `dtype`."""
    own, target = np.iinfo(values.dtype), np.iinfo(dtype)
    return np.clip(values, max(own.min, target.min), min(own.max, target.max)).astype(dtype)


def _integer(values):
    values = cast(values, np.result_type(values))
    return values if values.dtype.kind in "iu" else values.astype(DEFAULT_INT)


def randint(key, shape, minval, maxval, dtype=None):
    """Integers in [minval, maxval): two words of random bits per value, reduced modulo the
    span (as JAX, which keeps the modulo bias below 2**-nbits of the span squared)."""
    words, _ = key_words(key, "randint")
    dtype = DEFAULT_INT if dtype is None else np.dtype(dtype)
    if dtype.kind not in "iu":
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    shape, info = as_shape(shape), np.iinfo(dtype)
    if info.bits < 32:  # sampled in 32 bits, which keeps the bias down
        low = _integer(minval).astype(np.int32).clip(info.min, info.max)
        high = _integer(maxval).astype(np.int32).clip(info.min, info.max + 1)
        return _randint(words, shape, low, high, np.dtype(np.int32)).astype(dtype)
    return _randint(words, shape, _integer(minval), _integer(maxval), dtype)


def _randint(words, shape, minval, maxval, dtype):
    maxval_out_of_range = maxval > _clip_into(np.array(np.iinfo(dtype).max, dtype),
                                              maxval.dtype)
    minval, maxval = _clip_into(minval, dtype), _clip_into(maxval, dtype)
    nbits = np.iinfo(dtype).bits
    unsigned = np.dtype(f"uint{nbits}")
    higher, lower = (threefry.random_bits(k, nbits, shape)
                     for k in threefry.split(words, (2,)))
    with np.errstate(over="ignore"):  # wrapping unsigned arithmetic, as JAX's
        span = maxval.astype(unsigned) - minval.astype(unsigned)
        span = np.where(maxval <= minval, unsigned.type(1), span)
        span = np.where(maxval_out_of_range & (maxval > minval), span + unsigned.type(1), span)
        multiplier = unsigned.type(2 ** (nbits // 2)) % span
        multiplier = (multiplier * multiplier) % span
        offset = ((higher % span) * multiplier + lower % span) % span
        return minval + offset.astype(dtype)


def bernoulli(key, p=0.5, shape=None, mode="low"):
    """True with probability p: a uniform draw below p (mode 'high' adds a second draw's
    bits, for tiny p)."""
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    words, _ = key_words(key, "bernoulli")
    dtype = np.result_type(p)
    if dtype.kind != "f":
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    shape = np.shape(p) if shape is None else as_shape(shape)
    p = cast(p, dtype)
    if mode == "low":
        return uniform_between(words, shape, dtype, dtype.type(0), dtype.type(1)) < p
    pair = uniform_between(words, (2, *shape), dtype, dtype.type(0), dtype.type(1))
    return pair[1] * dtype.type(2.0 ** -np.finfo(dtype).nmant) < p - pair[0]


def rademacher(key, shape=(), dtype=None):
    """-1 or 1 with equal probability."""
    dtype = DEFAULT_INT if dtype is None else np.dtype(dtype)
    return (2 * bernoulli(key, 0.5, as_shape(shape)).astype(dtype) - 1).astype(dtype)


def _shuffle(words, x, axis):
    """x reordered along `axis` by stable sorts on fresh random 32-bit keys, enough rounds
    that all keys differ with high probability."""
    rounds = math.ceil(3 * math.log(max(1, np.size(x))) / math.log(np.iinfo(np.uint32).max))
    for _ in range(rounds):
        pair = threefry.split(words, (2,))
        words, sort_keys = pair[0], threefry.random_bits(pair[1], 32, np.shape(x))
        x = np.take_along_axis(x, np.argsort(sort_keys, axis=axis, kind="stable"), axis)
    return x


def _take(a, index, axis):
    """np.take(a, index, axis) for a 1-D index, written with take_along_axis, which dispatches
    on a traced index (np.take of a numpy array does not)."""
    shape = [1] * np.ndim(a)
    shape[axis] = -1
    target = list(np.shape(a))
    target[axis] = np.shape(index)[0]
    return np.take_along_axis(a, np.broadcast_to(np.reshape(index, shape), target), axis)


def permutation(key, x, axis=0, independent=False):
    """A random permutation of range(x) for an integer x, else of x's entries along `axis`
    (each slice on its own when `independent`)."""
    words, _ = key_words(key, "permutation")
    if not np.ndim(x):
        if np.result_type(x).kind not in "iu":
            raise TypeError("x must be an integer or at least 1-dimensional")
        return _shuffle(words, np.arange(int(x)), 0)
    axis = axis % np.ndim(x)
    if independent or np.ndim(x) == 1:
        return _shuffle(words, x, axis)
    return _take(x, _shuffle(words, np.arange(np.shape(x)[axis]), 0), axis)


def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
    """Draws from a (or range(a) for an integer a) along `axis`, with probabilities p."""
    key_words(key, "choice")
    shape = as_shape(shape)
    population = np.ndim(a) == 0
    n_inputs = int(a) if population else np.shape(a)[axis % np.ndim(a)]
    axis = 0 if population else axis % np.ndim(a)
    n_draws = math.prod(shape)
    if n_draws == 0:
        return np.zeros(shape, np.result_type(a))
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population "
                         f"(size {n_inputs}) when 'replace=False'")
    if p is None and replace:
        index = randint(key, shape, 0, n_inputs)
    elif p is None:
        index = permutation(key, n_inputs)[:n_draws]
    else:
        p = cast(p, inexact_dtype(p))
        if np.shape(p) != (n_inputs,):
            raise ValueError("p must be None or a 1D vector with the same size as "
                             f"a.shape[axis]. p has shape {np.shape(p)} and a.shape[axis] is "
                             f"{n_inputs}.")
        if replace:
            cumulative = np.cumsum(p)
            r = cumulative[-1] * (1 - uniform(key, shape, cumulative.dtype))
            index = np.searchsorted(cumulative, r).astype(DEFAULT_INT)
        else:
            g = gumbel(key, (n_inputs,), p.dtype, mode) + np.log(p)
            index = np.argsort(-g, kind="stable")[:n_draws]
    if population:
        return index.reshape(shape)
    return _take(a, index.reshape(-1), axis).reshape(
        np.shape(a)[:axis] + shape + np.shape(a)[axis + 1:])


def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None):
    """Category indices drawn with probabilities softmax(logits) along `axis`: the argmax of
    logits plus Gumbel noise (the top k of them without replacement)."""
    key_words(key, "categorical")
    ndim = np.ndim(logits)
    axis = axis % ndim
    batch_shape = tuple(np.delete(np.shape(logits), axis))
    shape = batch_shape if shape is None else as_shape(shape)
    prefix = shape[:len(shape) - len(batch_shape)]
    dtype = np.result_type(logits)
    if replace:
        noise_shape = list(shape[len(prefix):])
        noise_shape.insert(axis, np.shape(logits)[axis])
        noise = gumbel(key, (*prefix, *noise_shape), dtype, mode)
        return np.argmax(noise + logits, axis=axis - ndim)
    k = math.prod(prefix)
    if k > np.shape(logits)[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number "
                         f"of categories ({np.shape(logits)[axis]}).")
    noisy = np.moveaxis(logits + gumbel(key, np.shape(logits), dtype, mode), axis, -1)
    top = np.argsort(-noisy, axis=-1, kind="stable")[..., :k].astype(np.int32)  # lax.top_k's
    return np.moveaxis(top, -1, 0).reshape(shape)


__all__ = ["bernoulli", "bits", "categorical", "choice", "permutation", "rademacher",
           "randint"]
