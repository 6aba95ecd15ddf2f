"""jax.random's gamma family, JAX's draws for the same key: gamma and loggamma, and the
distributions JAX makes of them: beta, dirichlet, chisquare, t and f, generalized_normal
and ball."""
from __future__ import annotations

import numpy as np

from gradjit.prng import threefry
from gradjit.prng.continuous import (as_shape, cast, draws_shape, exponential, float_dtype,
                                     normal_real)
from gradjit.prng.discrete import rademacher
from gradjit.prng.gamma_draws import standard_gamma
from gradjit.prng.keys import key_words


def _gamma(words, a, shape, dtype, log_space=False):
    """Gamma(a, 1) draws of `shape` (a broadcast to it), JAX's for the same key."""
    a = np.broadcast_to(cast(a, dtype), shape)
    return standard_gamma(words, a, log_space)


def gamma(key, a, shape=None, dtype=None):
    words, _ = key_words(key, "gamma")
    dtype = float_dtype(dtype, "gamma")
    return _gamma(words, a, draws_shape(shape, a), dtype)


def loggamma(key, a, shape=None, dtype=None):
    """log of a Gamma(a, 1) draw, computed in log space (exact for tiny a)."""
    words, _ = key_words(key, "loggamma")
    dtype = float_dtype(dtype, "gamma")
    return _gamma(words, a, draws_shape(shape, a), dtype, log_space=True)


def chisquare(key, df, shape=None, dtype=None):
    """Chi-squared with df degrees of freedom: twice a Gamma(df / 2) draw."""
    words, _ = key_words(key, "chisquare")
    dtype = float_dtype(dtype, "chisquare")
    return np.exp(_gamma(words, cast(df, dtype) / 2, draws_shape(shape, df), dtype, True)) * 2


def t(key, df, shape=(), dtype=None):
    """Student's t: a normal draw over the root of an independent chi-squared over df."""
    words, _ = key_words(key, "t")
    dtype = float_dtype(dtype, "t")
    shape = draws_shape(shape, df)
    normal_words, gamma_words = threefry.split(words, (2,))
    half_df = cast(df, dtype) / 2
    return normal_real(normal_words, shape, dtype) * \
        np.sqrt(half_df / _gamma(gamma_words, half_df, shape, dtype))


def f(key, dfnum, dfden, shape=(), dtype=None):
    """Snedecor's F: the ratio of two independent chi-squared draws over their degrees."""
    words, _ = key_words(key, "f")
    dtype = float_dtype(dtype, "f")
    shape = draws_shape(shape, dfnum, dfden)
    den_words, num_words = threefry.split(words, (2,))
    dfnum, dfden = cast(dfnum, dtype), cast(dfden, dtype)
    num = np.exp(_gamma(num_words, dfnum / 2, shape, dtype, True)) * 2 / dfnum
    return num / (np.exp(_gamma(den_words, dfden / 2, shape, dtype, True)) * 2 / dfden)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) as G_a / (G_a + G_b) of independent gamma draws, taken in log space and
    scaled by the larger (so that tiny a and b do not give 0 / 0)."""
    words, _ = key_words(key, "beta")
    dtype = float_dtype(dtype, "beta")
    shape = draws_shape(shape, a, b)
    keys = threefry.split(words, (2,))
    log_a, log_b = _gamma(keys[0], a, shape, dtype, True), _gamma(keys[1], b, shape, dtype, True)
    log_max = np.maximum(log_a, log_b)
    ga, gb = np.exp(log_a - log_max), np.exp(log_b - log_max)
    return ga / (ga + gb)


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) over alpha's last axis: gamma draws normalized to sum to one."""
    words, _ = key_words(key, "dirichlet")
    dtype = float_dtype(dtype, "dirichlet")
    if np.ndim(alpha) < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                         f"{np.ndim(alpha)}")
    shape = np.shape(alpha)[:-1] if shape is None else draws_shape(shape)
    logs = _gamma(words, alpha, (*shape, np.shape(alpha)[-1]), dtype, True)
    draws = np.exp(logs - np.max(logs, axis=-1, keepdims=True))
    return draws / np.sum(draws, axis=-1, keepdims=True)


def generalized_normal(key, p, shape=(), dtype=None):
    """Density proportional to exp(-|x|^p): a random sign times Gamma(1/p)^(1/p)."""
    words, _ = key_words(key, "generalized_normal")
    dtype = float_dtype(dtype, "generalized_normal")
    shape = as_shape(shape)
    gamma_words, sign_words = threefry.split(words, (2,))
    g = _gamma(gamma_words, 1 / cast(p, dtype), shape, dtype)
    return rademacher(sign_words, shape, dtype) * g ** (1 / cast(p, dtype))


def ball(key, d, p=2, shape=(), dtype=None):
    """Uniform draws from the unit Lp ball of dimension d, shape (*shape, d): generalized
    normal draws over the p-norm of themselves and an exponential draw (Barthe et al.)."""
    words, _ = key_words(key, "ball")
    dtype = float_dtype(dtype, "ball")
    shape = as_shape(shape)
    normal_words, exponential_words = threefry.split(words, (2,))
    g = generalized_normal(normal_words, p, (*shape, int(d)), dtype)
    e = exponential(exponential_words, shape, dtype)
    return g / (((np.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


__all__ = ["ball", "beta", "chisquare", "dirichlet", "f", "gamma", "generalized_normal",
           "loggamma", "t"]
