"""jax.nn's functions under gradjit.nn (`import gradjit as jax`; `jax.nn.relu(x)`): activations,
softmax and its kin, one_hot and standardize, as traced numpy on arrays (torch.nn has none of
these lowercase names). Kinks take JAX's derivative there: 0 at relu(0), relu6(0), relu6(6)."""
from __future__ import annotations

import numpy as np

from gradjit.ir.elementwise import stop_gradient
from gradjit.ops import special


def _inexact(x):
    """x as floats: Python numbers and integers become float64 (JAX's x64 defaults)."""
    if isinstance(x, (bool, int, float, complex, list, tuple)):
        x = np.asarray(x)
    return x if x.dtype.kind in "fc" else x.astype(np.float64)


def relu(x):
    return np.where(x > 0, x, np.zeros_like(x))


def relu6(x):
    return np.where(x >= 6, np.full_like(x, 6), relu(x))


def sigmoid(x):
    return special.expit(x)


def softplus(x):
    return np.logaddexp(x, 0)


def soft_sign(x):
    return x / (np.abs(x) + 1)


def silu(x):
    return x * sigmoid(x)


def hard_sigmoid(x):
    return relu6(x + 3.0) / 6.0


def hard_silu(x):
    return x * hard_sigmoid(x)


def mish(x):
    return x * np.tanh(softplus(x))


def squareplus(x, b=4):
    return (x + np.sqrt(np.square(x) + b)) / 2


def sparse_plus(x):
    return np.where(x <= -1.0, 0.0, np.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def sparse_sigmoid(x):
    # maximum and minimum, not clip: at the kinks JAX's derivative is half the slope
    return 0.5 * np.minimum(np.maximum(x + 1.0, 0.0), 2.0)


def log_sigmoid(x):
    return -softplus(-x)


def leaky_relu(x, negative_slope=0.01):
    return np.where(x >= 0, x, negative_slope * x)


def hard_tanh(x):
    return np.where(x > 1, np.ones_like(x), np.where(x < -1, -np.ones_like(x), x))


def elu(x, alpha=1.0):
    # the inner where keeps expm1 of large positive x (unused) from overflowing
    return np.where(x > 0, x, alpha * np.expm1(np.where(x > 0, np.zeros_like(x), x)))


def celu(x, alpha=1.0):
    return np.maximum(x, 0.0) + alpha * np.expm1(np.minimum(x, 0.0) / alpha)


def selu(x):
    return 1.0507009873554805 * elu(x, 1.6732632423543772)


def gelu(x, approximate=True):
    """x * Phi(x); approximate=True (JAX's default) uses the tanh form."""
    x = _inexact(x)
    if approximate:
        scale = x.dtype.type(np.sqrt(2 / np.pi))
        return x * (0.5 * (1.0 + np.tanh(scale * (x + 0.044715 * x ** 3))))
    return (0.5 * x * special.erfc(-x * x.dtype.type(np.sqrt(0.5)))).astype(x.dtype)


def glu(x, axis=-1):
    first, second = np.split(x, 2, axis)
    return first * sigmoid(second)


def log_softmax(x, axis=-1, where=None):
    shifted = _shifted(x, axis, where)
    result = shifted - np.log(np.sum(np.exp(shifted), axis, where=_mask(where), keepdims=True))
    return result if where is None else np.where(where, result, -np.inf)


def softmax(x, axis=-1, where=None):
    unnormalized = np.exp(_shifted(x, axis, where))
    result = unnormalized / np.sum(unnormalized, axis, where=_mask(where), keepdims=True)
    return result if where is None else np.where(where, result, 0)


def _mask(where):
    return True if where is None else where


def _shifted(x, axis, where):
    """x minus its (non-differentiated) maximum over `axis`, -inf where `where` is False."""
    top = np.max(x, axis, where=_mask(where), initial=-np.inf, keepdims=True)
    if where is not None:
        x = np.where(where, x, -np.inf)
    return x - stop_gradient(top)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """log(sum(b * exp(a))) over `axis` (the terms where `where` holds), shifted by the
    (non-differentiated) maximum so that exp never overflows; with return_sign, (log |sum|,
    sign of the sum). scipy.special.logsumexp is this function."""
    if where is not None:
        a = np.where(where, a, -np.inf)
    top = stop_gradient(np.max(a, axis=axis, keepdims=True))
    top = np.where(np.isfinite(top), top, 0.0)
    terms = np.exp(a - top)
    if b is not None:
        terms = terms * b
    total = np.sum(terms, axis=axis, keepdims=True)
    sign = np.sign(total)
    with np.errstate(divide="ignore"):  # a sum of 0 has log -inf, as scipy's
        out = np.log(np.abs(total) if return_sign else total) + top
    if not keepdims:
        out, sign = np.squeeze(out, axis=axis), np.squeeze(sign, axis=axis)
    return (out, sign) if return_sign else out


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm="fast"):
    """(x - mean) / sqrt(variance + epsilon), the moments over `axis` unless given."""
    if algorithm not in ("fast", "stable"):
        raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    mask = _mask(where)
    if mean is None:
        mean = np.mean(x, axis, keepdims=True, where=mask)
    if variance is None and algorithm == "stable":
        variance = np.mean(np.square(x - mean), axis, keepdims=True, where=mask)
    elif variance is None:
        variance = np.mean(np.square(x), axis, keepdims=True, where=mask) - np.square(mean)
        variance = np.clip(variance, 0, None)
    return (x - mean) / np.sqrt(variance + epsilon)


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """1 where x equals the class index on a new axis of length num_classes, else 0."""
    x = np.asarray(x) if isinstance(x, (int, list, tuple)) else x
    axis = axis % (np.ndim(x) + 1)
    classes = np.arange(int(num_classes)).reshape((-1,) + (1,) * (np.ndim(x) - axis))
    hits = np.expand_dims(x, axis) == classes
    return hits.astype(np.float64 if dtype is None else dtype)


swish, hard_swish = silu, hard_silu

__all__ = ["celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
           "leaky_relu", "log_sigmoid", "log_softmax", "logsumexp", "mish", "one_hot", "relu",
           "relu6", "selu", "sigmoid", "silu", "soft_sign", "softmax", "softplus",
           "sparse_plus", "sparse_sigmoid", "squareplus", "standardize", "swish"]
