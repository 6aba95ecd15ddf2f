"""jax.random's continuous samplers: uniform floats made from random bits as JAX makes them,
and the distributions JAX derives from them (normal by the inverse error function, ...)."""
from __future__ import annotations

import numpy as np

from gradjit.ops import special
from gradjit.prng import threefry
from gradjit.prng.keys import key_words

# gradjit computes in float64 by default, as JAX with jax_enable_x64
DEFAULT_FLOAT = np.dtype(np.float64)


def float_dtype(dtype, name: str, kinds: str = "f") -> np.dtype:
    dtype = DEFAULT_FLOAT if dtype is None else np.dtype(dtype)
    if dtype.kind not in kinds:
        kind = "float" if kinds == "f" else "float or complex"
        raise ValueError(f"dtype argument to `{name}` must be a {kind} dtype, got {dtype}")
    return dtype


def as_shape(shape) -> tuple:
    return (int(shape),) if np.ndim(shape) == 0 and not isinstance(shape, tuple) else \
        tuple(int(d) for d in shape)


def draws_shape(shape, *parameters) -> tuple:
    """The draws' shape: the given one, else the parameters' broadcast shape."""
    if shape is None:
        return np.broadcast_shapes(*(np.shape(p) for p in parameters))
    return as_shape(shape)


def cast(value, dtype):
    """`value` as an array of `dtype` (a traced value stays traced)."""
    return value.astype(dtype) if hasattr(value, "astype") else np.asarray(value, dtype)


def inexact_dtype(*values) -> np.dtype:
    """The float type JAX computes values in: theirs if inexact, else float64 (Python
    numbers and lists count as float64, not as weakly typed)."""
    dtype = np.result_type(*(np.asarray(v) if isinstance(v, (int, float, list, tuple)) else v
                             for v in values))
    return dtype if dtype.kind in "fc" else DEFAULT_FLOAT


def unit_floats(words, shape, dtype):
    """Floats in [0, 1): a value's top mantissa-width random bits over 2**mantissa, which is
    JAX's 1.m bit pattern minus one, exactly."""
    info = np.finfo(dtype)
    bits = threefry.random_bits(words, info.bits, shape)
    mantissa = bits >> bits.dtype.type(info.bits - info.nmant)
    return mantissa.astype(dtype) * dtype.type(2.0 ** -info.nmant)


def fused_multiply_add(a, b, c):
    """a * b + c rounded once, as XLA's CPU code computes the scaling of unit floats: exact
    in float64 for narrower floats; for float64, Dekker's exact product and Knuth's exact
    sum carry the rounding errors into one final addition."""
    dtype = np.result_type(a)
    if dtype.itemsize < 8:
        return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(dtype)
    product = a * b
    split_a, split_b = a * 134217729.0, b * 134217729.0  # 2**27 + 1: halves of 26 bits
    a_high, b_high = split_a - (split_a - a), split_b - (split_b - b)
    a_low, b_low = a - a_high, b - b_high
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + \
        a_low * b_low
    total = product + c
    virtual = total - product
    sum_error = (product - (total - virtual)) + (c - virtual)
    return total + (sum_error + product_error)


def uniform_between(words, shape, dtype, low, high):
    """Floats in [low, high) (bounds of `dtype` already), as JAX scales unit floats."""
    return np.maximum(low, fused_multiply_add(unit_floats(words, shape, dtype), high - low, low))


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    words, _ = key_words(key, "uniform")
    dtype = float_dtype(dtype, "uniform")
    return uniform_between(words, as_shape(shape), dtype, cast(minval, dtype),
                           cast(maxval, dtype))


def normal_real(words, shape, dtype):
    low = np.nextafter(dtype.type(-1), dtype.type(0))
    return dtype.type(np.sqrt(2)) * special.erfinv(
        uniform_between(words, shape, dtype, low, dtype.type(1)))


def normal(key, shape=(), dtype=None):
    words, _ = key_words(key, "normal")
    dtype = float_dtype(dtype, "normal", "fc")
    shape = as_shape(shape)
    if dtype.kind == "f":
        return normal_real(words, shape, dtype)
    real = np.finfo(dtype).dtype
    re_words, im_words = threefry.split(words, (2,))
    parts = [normal_real(w, shape, real).astype(dtype) for w in (re_words, im_words)]
    return (parts[0] + 1j * parts[1]) / dtype.type(np.sqrt(2))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    words, _ = key_words(key, "truncated_normal")
    dtype = float_dtype(dtype, "truncated_normal")
    shape = draws_shape(shape, lower, upper)
    sqrt2 = dtype.type(np.sqrt(2))
    lower, upper = cast(lower, dtype), cast(upper, dtype)
    a, b = special.erf(lower / sqrt2), special.erf(upper / sqrt2)
    out = sqrt2 * special.erfinv(uniform_between(words, shape, dtype, a, b))
    return np.clip(out, np.nextafter(lower, dtype.type(np.inf)),
                   np.nextafter(upper, dtype.type(-np.inf)))


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    key_words(key, "multivariate_normal")
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dtype = inexact_dtype(mean, cov) if dtype is None else \
        float_dtype(dtype, "multivariate_normal")
    mean, cov = cast(mean, dtype), cast(cov, dtype)
    if shape is None:
        shape = np.broadcast_shapes(np.shape(mean)[:-1], np.shape(cov)[:-2])
    if method == "svd":
        u, s, _ = np.linalg.svd(cov)
        factor = u * np.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = np.linalg.eigh(cov)
        factor = v * np.sqrt(w[..., None, :])
    else:
        factor = np.linalg.cholesky(cov)
    samples = normal(key, as_shape(shape) + np.shape(mean)[-1:], dtype)
    return mean + np.einsum("...ij,...j->...i", factor, samples)


def _transformed_uniform(name, bounds, transform, doc):
    """A sampler of `transform(u)` for u uniform between `bounds(finfo)`."""
    def sampler(key, shape=(), dtype=None):
        words, _ = key_words(key, name)
        dtype = float_dtype(dtype, name)
        low, high = (dtype.type(b) for b in bounds(np.finfo(dtype)))
        return transform(uniform_between(words, as_shape(shape), dtype, low, high))
    sampler.__name__ = sampler.__qualname__ = name
    sampler.__doc__ = doc
    return sampler


# name: (the uniform's bounds from the dtype's finfo, the transform): JAX's own choices, which
# keep the transforms off their singular points
_FROM_UNIFORM = {
    "exponential": (lambda i: (0, 1), lambda u: -np.log1p(-u), "Exp(1) by inversion."),
    "laplace": (lambda i: (-1 + i.epsneg, 1), lambda u: np.sign(u) * np.log1p(-np.abs(u)),
                "Laplace(0, 1) by inversion."),
    "logistic": (lambda i: (i.tiny, 1), lambda u: np.log(u) - np.log1p(-u),
                 "Logistic(0, 1) by inversion."),
    "cauchy": (lambda i: (i.eps, 1), lambda u: np.tan(np.pi * (u - 0.5)),
               "Cauchy(0, 1) by inversion."),
}
for _name, (_bounds, _transform, _doc) in _FROM_UNIFORM.items():
    globals()[_name] = _transformed_uniform(_name, _bounds, _transform, _doc)


def gumbel(key, shape=(), dtype=None, mode=None):
    """Gumbel(0, 1) as -log(-log(u)); mode 'high' refines small u with a second uniform."""
    words, _ = key_words(key, "gumbel")
    dtype = float_dtype(dtype, "gumbel")
    mode = "low" if mode is None else mode
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    shape, info = as_shape(shape), np.finfo(dtype)
    if mode == "low":
        return -np.log(-np.log(uniform_between(words, shape, dtype, info.tiny,
                                               dtype.type(1))))
    pair = unit_floats(words, (2, *shape), dtype)
    high, low = pair[0], pair[1]
    x = np.where(high >= 0.5, high, high + dtype.type(2.0 ** -info.nmant) * low + info.tiny)
    return -np.log(-np.log1p(-x))


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Matrices with orthonormal columns (or rows when n < m): Q of a normal matrix's QR, its
    columns' signs fixed by R's diagonal."""
    m = n if m is None else m
    q, r = np.linalg.qr(normal(key, (*as_shape(shape), max(n, m), min(n, m)), dtype))
    x = q * np.expand_dims(np.sign(np.diagonal(r, axis1=-2, axis2=-1)), -2)
    return np.swapaxes(x, -1, -2) if n < m else x


__all__ = ["gumbel", "multivariate_normal", "normal", "orthogonal", "truncated_normal",
           "uniform", *_FROM_UNIFORM]
