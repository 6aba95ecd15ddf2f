"""jax.random's counting distributions, JAX's draws for the same key: poisson (Knuth's products
below a rate of 10, Hormann's transformed rejection above), binomial (geometric gaps, or
Hormann's BTRS) and multinomial (binomials of the remaining count). Each loop runs, as JAX's,
until every value is done, drawing for the whole array each round, as one host op (so that
vmap runs it per key, and jit does not trace a round per draw)."""
from __future__ import annotations

import functools

import numpy as np

from gradjit.ir.types import TensorType
from gradjit.ir.types import dtype as ir_dtype
from gradjit.ops import special
from gradjit.prng import threefry
from gradjit.prng.continuous import as_shape, cast, inexact_dtype, uniform_between
from gradjit.prng.discrete import DEFAULT_INT
from gradjit.prng.keys import key_words
from gradjit.tracer.host import host_primitive


@functools.cache
def _host_op(sampler, dtype):
    """sampler(words, *parameters) -> draws of the parameters' shape and `dtype`, as one op;
    the draws are counts, constant in the parameters, so no cotangent flows back."""
    arity = sampler.__code__.co_argcount

    def shape_rule(words, *parameters):
        return TensorType(parameters[0].shape, ir_dtype(dtype))

    def evaluate(*arrays):
        return sampler(*arrays).astype(dtype)

    def no_cotangents(g, out, *args):
        return [None] * arity

    return host_primitive(f"random_{sampler.__name__.strip('_')}", shape_rule, evaluate,
                          arity, vjp=no_cotangents)


def _uniform(words, shape, dtype):
    return uniform_between(words, shape, dtype, dtype.type(0), dtype.type(1))


def _poisson_knuth(words, lam):
    """The number of uniform draws whose product stays above e^-lam."""
    k, log_product = np.zeros(lam.shape, DEFAULT_INT), np.zeros_like(lam)
    while np.any(log_product > -lam):
        words, subkey = threefry.split(words, (2,))
        k = np.where(log_product > -lam, k + 1, k)
        log_product = log_product + np.log(_uniform(subkey, lam.shape, lam.dtype))
    return k - 1


def _poisson_rejection(words, lam):
    """Hormann's transformed rejection (PTRS), for rates of 10 and more."""
    log_lam = np.log(lam)
    b = 0.931 + 2.53 * np.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    k_out, accepted = np.full_like(lam, -1), np.zeros(lam.shape, bool)
    while not np.all(accepted):
        words, key_u, key_v = threefry.split(words, (3,))
        u = _uniform(key_u, lam.shape, lam.dtype) - lam.dtype.type(0.5)
        v = _uniform(key_v, lam.shape, lam.dtype)
        u_shifted = 0.5 - np.abs(u)
        k = np.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = np.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - special.gammaln(k + 1)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = ((u_shifted >= 0.07) & (v <= v_r)) | (~reject & (s <= t))
        k_out = np.where(accept, k, k_out)
        accepted = accepted | accept
    return k_out.astype(DEFAULT_INT)


def poisson(key, lam, shape=None, dtype=None):
    """Poisson(lam) counts, computed in float32 as JAX computes them."""
    words, _ = key_words(key, "poisson")
    dtype = DEFAULT_INT if dtype is None else np.dtype(dtype)
    shape = np.shape(lam) if shape is None else as_shape(shape)
    lam = np.broadcast_to(cast(lam, np.float32), shape)
    return _host_op(_poisson, dtype)(words, lam)


def _poisson(words, lam):
    use_knuth = np.isnan(lam) | (lam < 10)
    knuth = _poisson_knuth(words, np.where(use_knuth, lam, np.float32(0)))
    rejection = _poisson_rejection(words, np.where(use_knuth, np.float32(1e5), lam))
    out = np.where(use_knuth, knuth, rejection)
    return np.where(lam == 0, np.zeros_like(out), out)


def _binomial_inversion(words, count, prob):
    """The number of geometric gaps between successes that fit into count trials."""
    log_q = np.log1p(-prob)
    successes, total = np.zeros_like(prob), np.zeros_like(prob)
    while np.any(total <= count):
        subkey, words = threefry.split(words, (2,))
        successes = np.where(total <= count, successes + 1, successes)
        total = total + np.ceil(np.log(_uniform(subkey, prob.shape, prob.dtype)) / log_q)
    return successes - 1


# log k! - (k + 1/2) log(k + 1) + (k + 1) - log(2 pi) / 2 at k = 0..9 (Stirling's remainder),
# beyond which its series serves
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_tail(k):
    table = np.asarray(_STIRLING_TAIL, k.dtype)
    clipped = np.clip(k, 0, 9)
    square = (clipped + 1) * (clipped + 1)
    series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / square) / square) / (clipped + 1)
    # a one-hot sum, not np.take: a traced index does not dispatch np.take on a numpy table
    looked_up = np.sum(np.where(np.floor(clipped)[..., None] == np.arange(10), table, 0), -1)
    return np.where(k <= 9, looked_up, series)


def _btrs(words, count, prob):
    """Hormann's transformed rejection with squeeze (BTRS), for count * prob above 10."""
    stddev = np.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = np.floor((count + 1) * prob)
    k_out, accepted = np.full_like(prob, -1), np.zeros(prob.shape, bool)
    while not np.all(accepted):
        words, key_u, key_v = threefry.split(words, (3,))
        u = _uniform(key_u, prob.shape, prob.dtype) - 0.5
        v = _uniform(key_v, prob.shape, prob.dtype)
        us = 0.5 - np.abs(u)
        k = np.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        log_v = np.log(v * alpha / (a / (us * us) + b))
        bound = (m + 0.5) * np.log((m + 1) / (r * (count - m + 1))) + \
            (count + 1) * np.log((count - m + 1) / (count - k + 1)) + \
            (k + 0.5) * np.log(r * (count - k + 1) / (k + 1)) + \
            _stirling_tail(m) + _stirling_tail(count - m) - _stirling_tail(k) - \
            _stirling_tail(count - k)
        accept = ((us >= 0.07) & (v <= v_r)) | (~reject & (log_v <= bound))
        k_out = np.where(accept, k, k_out)
        accepted = accepted | accept
    return k_out


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) counts as floats (nan for p outside [0, 1] or n < 0 or nan)."""
    words, _ = key_words(key, "binomial")
    dtype = np.dtype(np.float64 if dtype is None else dtype)
    if dtype.kind != "f":
        raise ValueError(f"dtype argument to `binomial` must be a float dtype, got {dtype}")
    shape = np.broadcast_shapes(np.shape(n), np.shape(p)) if shape is None else as_shape(shape)
    p = cast(p, inexact_dtype(p))
    count = np.broadcast_to(cast(n, p.dtype), shape)
    return _host_op(_binomial, dtype)(words, count, np.broadcast_to(p, shape))


def _binomial(words, count, p):
    below_half = p < 0.5
    q = np.where(below_half, p, 1.0 - p)
    bad_count, infinite, bad_q = np.isnan(count) | (count < 0), np.isinf(count), np.isnan(q)
    negative_q = q < 0
    q = np.where(bad_q | negative_q, np.full_like(q, 0.01), q)
    use_inversion = bad_count | (count * q <= 10)
    count = np.floor(count)
    with np.errstate(divide="ignore", invalid="ignore"):  # infinite counts go through both
        inversion = _binomial_inversion(words, np.where(use_inversion, count, 0), q)
        rejection = _btrs(words, np.where(use_inversion, 1e4, count),
                          np.where(use_inversion, 0.5, q))
    samples = np.where(use_inversion, inversion, rejection)
    invalid = negative_q | bad_q | bad_count
    samples = np.where(invalid, np.nan, samples)
    samples = np.where(infinite & ~invalid, np.inf, samples)
    with np.errstate(invalid="ignore"):
        return np.where(below_half | bad_count | bad_q | infinite, samples, count - samples)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Counts of n trials over p's last axis of categories: each category's count a binomial
    of the trials left, with its share of the probability left."""
    words, _ = key_words(key, "multinomial")
    inexact = inexact_dtype(n, p)
    n, p = cast(n, inexact), cast(p, inexact)
    shape = np.shape(p) if shape is None else as_shape(shape)
    remainder = np.broadcast_to(n, shape[:-1])
    p = np.moveaxis(np.broadcast_to(p, shape), -1, 0)
    left = np.flip(np.cumsum(np.flip(p, 0), 0), 0)
    ratios = p / np.where(left == 0, 1, left)
    counts = []
    for ratio, subkey in zip(ratios, threefry.split(words, (len(ratios),))):
        count = binomial(subkey, remainder, np.clip(ratio, 0, 1), dtype=inexact)
        remainder = remainder - count
        counts.append(count)
    out = np.moveaxis(np.stack(counts), 0, -1)
    return out if dtype is None else out.astype(dtype)


__all__ = ["binomial", "multinomial", "poisson"]
