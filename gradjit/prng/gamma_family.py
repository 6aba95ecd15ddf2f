"""jax.random's gamma family by law (JAX's rejection loop is not reproduced draw for draw):
gamma and loggamma, and the distributions made of gamma draws: beta, dirichlet, chisquare,
t and f."""
from __future__ import annotations

import numpy as np

from gradjit.prng import threefry
from gradjit.prng.continuous import (cast, draws_shape, float_dtype, normal_real,
                                     uniform_between)
from gradjit.prng.keys import key_words


# Marsaglia and Tsang's proposals drawn per value: each is accepted with probability >= 0.95,
# so all of them fail with probability below 1e-20 (the first proposal is kept then)
_GAMMA_PROPOSALS = 16


def _gamma(words, a, shape, dtype):
    """Gamma(a, 1): the first accepted of a fixed number of Marsaglia-Tsang proposals,
    boosted by u**(1/a) for a < 1."""
    a = np.broadcast_to(cast(a, dtype), shape)
    boosted = np.where(a < 1, a + 1, a)
    d = boosted - dtype.type(1 / 3)
    c = 1 / np.sqrt(9 * d)
    normal_words, uniform_words, boost_words = threefry.split(words, (3,))
    proposals = (_GAMMA_PROPOSALS, *shape)
    one = dtype.type(1)
    x = normal_real(normal_words, proposals, dtype)
    v = (1 + c * x) ** 3
    safe_v = np.where(v > 0, v, one)
    log_u = np.log(uniform_between(uniform_words, proposals, dtype, dtype.type(0), one))
    accept = (v > 0) & (log_u < x * x / 2 + d - d * safe_v + d * np.log(safe_v))
    first = np.expand_dims(np.argmax(accept, axis=0), 0)
    sample = np.take_along_axis(d * safe_v, first, 0)[0]
    boost = uniform_between(boost_words, shape, dtype, dtype.type(0), one)
    return np.where(a < 1, sample * boost ** (1 / a), sample)


def gamma(key, a, shape=None, dtype=None):
    words, _ = key_words(key, "gamma")
    dtype = float_dtype(dtype, "gamma")
    return _gamma(words, a, draws_shape(shape, a), dtype)


def loggamma(key, a, shape=None, dtype=None):
    """log of a Gamma(a, 1) draw."""
    return np.log(gamma(key, a, shape, float_dtype(dtype, "loggamma")))


def chisquare(key, df, shape=None, dtype=None):
    """Chi-squared with df degrees of freedom: twice a Gamma(df / 2) draw."""
    words, _ = key_words(key, "chisquare")
    dtype = float_dtype(dtype, "chisquare")
    return 2 * _gamma(words, cast(df, dtype) / 2, draws_shape(shape, df), dtype)


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
    num_words, den_words = threefry.split(words, (2,))
    dfnum, dfden = cast(dfnum, dtype), cast(dfden, dtype)
    return (2 * _gamma(num_words, dfnum / 2, shape, dtype) / dfnum) / \
        (2 * _gamma(den_words, dfden / 2, shape, dtype) / dfden)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) as G_a / (G_a + G_b) of independent gamma draws."""
    words, _ = key_words(key, "beta")
    dtype = float_dtype(dtype, "beta")
    shape = draws_shape(shape, a, b)
    keys = threefry.split(words, (2,))
    ga, gb = _gamma(keys[0], a, shape, dtype), _gamma(keys[1], b, shape, dtype)
    return ga / (ga + gb)


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) over alpha's last axis: gamma draws normalized to sum to one."""
    words, _ = key_words(key, "dirichlet")
    dtype = float_dtype(dtype, "dirichlet")
    if np.ndim(alpha) < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                         f"{np.ndim(alpha)}")
    shape = np.shape(alpha)[:-1] if shape is None else draws_shape(shape)
    draws = _gamma(words, alpha, (*shape, np.shape(alpha)[-1]), dtype)
    return draws / np.sum(draws, axis=-1, keepdims=True)


__all__ = ["beta", "chisquare", "dirichlet", "f", "gamma", "loggamma", "t"]
