"""jax.random's distributions made by transforming uniform, normal and exponential draws the way
JAX transforms them: lognormal, pareto, rayleigh, weibull_min, maxwell, double_sided_maxwell,
wald, triangular and geometric."""
from __future__ import annotations

import numpy as np

from gradjit.prng import threefry
from gradjit.prng.continuous import (as_shape, cast, draws_shape, exponential, float_dtype,
                                     inexact_dtype, normal, uniform, uniform_between)
from gradjit.prng.discrete import DEFAULT_INT, rademacher
from gradjit.prng.keys import key_words


def lognormal(key, sigma=1.0, shape=None, dtype=None):
    dtype = float_dtype(dtype, "lognormal", "fc")
    return np.exp(normal(key, draws_shape(shape, sigma), dtype) * cast(sigma, dtype))


def pareto(key, b, shape=None, dtype=None):
    dtype = float_dtype(dtype, "pareto")
    return np.exp(exponential(key, draws_shape(shape, b), dtype) / cast(b, dtype))


def rayleigh(key, scale, shape=None, dtype=None):
    dtype = float_dtype(dtype, "rayleigh")
    u = uniform(key, draws_shape(shape, scale), dtype)
    return cast(scale, dtype) * np.sqrt(np.log(u) * dtype.type(-2))


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    dtype = float_dtype(dtype, "weibull_min")
    u = uniform(key, shape, dtype)
    return np.power(-np.log1p(-u), 1.0 / concentration) * scale


def maxwell(key, shape=(), dtype=None):
    """The length of a standard normal vector in three dimensions."""
    dtype = float_dtype(dtype, "maxwell")
    return np.linalg.norm(normal(key, (*as_shape(shape), 3), dtype), axis=-1)


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    words, _ = key_words(key, "double_sided_maxwell")
    dtype = float_dtype(dtype, "double_sided_maxwell")
    parameters = np.broadcast_shapes(np.shape(loc), np.shape(scale))
    shape = (as_shape(shape) or parameters) + parameters
    maxwell_words, sign_words = threefry.split(words, (2,))
    return rademacher(sign_words, shape, dtype) * maxwell(maxwell_words, shape, dtype) * \
        scale + loc


def wald(key, mean, shape=None, dtype=None):
    """The inverse Gaussian of the given mean (shape 1), by Michael, Schucany and Haas."""
    words, _ = key_words(key, "wald")
    dtype = float_dtype(dtype, "wald")
    shape = draws_shape(shape, mean)
    normal_words, uniform_words = threefry.split(words, (2,))
    mean = np.broadcast_to(cast(mean, dtype), shape)
    y = normal(normal_words, shape, dtype) ** 2
    z = uniform(uniform_words, shape, dtype)
    x = mean + mean ** 2 * y / 2 - mean / 2 * np.sqrt(4 * mean * y + mean ** 2 * y ** 2)
    return np.where(z <= mean / (mean + x), x, mean ** 2 / x)


def triangular(key, left, mode, right, shape=None, dtype=None):
    words, _ = key_words(key, "triangular")
    dtype = float_dtype(dtype, "triangular")
    shape = draws_shape(shape, left, mode, right)
    left, mode, right = (np.broadcast_to(cast(v, dtype), shape) for v in (left, mode, right))
    u = uniform_between(words, shape, dtype, dtype.type(0), dtype.type(1))
    below = left + np.sqrt(u * (right - left) * (mode - left))
    above = right - np.sqrt((1 - u) * (right - left) * (right - mode))
    return np.where(u < (mode - left) / (right - left), below, above)


def geometric(key, p, shape=None, dtype=None):
    """The number of Bernoulli(p) trials up to the first success."""
    dtype = DEFAULT_INT if dtype is None else np.dtype(dtype)
    if dtype.kind not in "iu":
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    p = cast(p, inexact_dtype(p))
    shape = draws_shape(shape, p)
    u = uniform(key, shape, p.dtype)
    u = np.where(u == 0, np.ones_like(u), u)
    return (np.floor(np.log(u) / np.broadcast_to(np.log1p(-p), shape)) + 1).astype(dtype)


__all__ = ["double_sided_maxwell", "geometric", "lognormal", "maxwell", "pareto", "rayleigh",
           "triangular", "wald", "weibull_min"]
