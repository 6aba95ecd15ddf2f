"""jax.nn.initializers under gradjit.nn.initializers: functions of (key, shape, dtype) drawing
from gradjit.random's JAX-compatible samplers, so they give JAX's parameters for a key."""
from __future__ import annotations

import math

import numpy as np

from gradjit import prng

DEFAULT_FLOAT = np.float64  # JAX's default float with jax_enable_x64, as gradjit's


def _dtype(dtype):
    return np.dtype(DEFAULT_FLOAT if dtype is None else dtype)


def zeros(key, shape, dtype=None):
    return np.zeros(shape, _dtype(dtype))


def ones(key, shape, dtype=None):
    return np.ones(shape, _dtype(dtype))


def constant(value, dtype=None):
    def init(key, shape, dtype=dtype):
        return np.full(shape, value, _dtype(dtype))
    return init


def _scaled(sampler, factor, dtype, *args):
    """An initializer drawing `sampler(key, *args, shape, dtype)` times factor (in dtype)."""
    def init(key, shape, dtype=dtype):
        dtype = _dtype(dtype)
        return sampler(key, *args, shape, dtype) * np.asarray(factor, dtype)
    return init


def uniform(scale=1e-2, dtype=None):
    return _scaled(prng.uniform, scale, dtype)


def normal(stddev=1e-2, dtype=None):
    return _scaled(prng.normal, stddev, dtype)


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    return _scaled(prng.truncated_normal, stddev, dtype, lower, upper)


def _size(shape, axes):
    return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)


def compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    """(fan_in, fan_out): the in and out axes' sizes times the receptive field (the other
    axes but the batch axes)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional "
                         "weights tensor with default in_axis. Must be at least 2D or specify "
                         "in_axis explicitly.")
    in_size, out_size = _size(shape, in_axis), _size(shape, out_axis)
    receptive_field = math.prod(shape) / in_size / out_size / _size(shape, batch_axis)
    return in_size * receptive_field, out_size * receptive_field


_DENOMINATORS = {"fan_in": lambda fan_in, fan_out: fan_in,
                 "fan_out": lambda fan_in, fan_out: fan_out,
                 "fan_avg": lambda fan_in, fan_out: (fan_in + fan_out) / 2,
                 "fan_geo_avg": lambda fan_in, fan_out: (fan_in * fan_out) ** 0.5}
# the standard deviation of a standard normal truncated to [-2, 2]
_TRUNCATED_STDDEV = 0.8796256610342398


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None):
    """Draws of variance scale / n, n the fan chosen by `mode`, from a truncated normal, a
    normal or a uniform `distribution`."""
    if mode not in _DENOMINATORS:
        raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
    if distribution not in ("truncated_normal", "normal", "uniform"):
        raise ValueError("invalid distribution for variance scaling initializer: "
                         f"{distribution}")

    def init(key, shape, dtype=dtype):
        shape, dtype = tuple(shape), _dtype(dtype)
        fans = compute_fans(shape, in_axis, out_axis, batch_axis)
        variance = np.asarray(scale / _DENOMINATORS[mode](*fans), dtype)
        if distribution == "truncated_normal":
            stddev = np.sqrt(variance) / np.asarray(_TRUNCATED_STDDEV, dtype)
            return prng.truncated_normal(key, -2, 2, shape, dtype) * stddev
        if distribution == "normal":
            return prng.normal(key, shape, dtype) * np.sqrt(variance)
        return prng.uniform(key, shape, dtype, -1) * np.sqrt(3 * variance)
    return init


def _family(scale, mode, distribution, doc):
    def make(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)
    make.__doc__ = doc
    return make


glorot_uniform = xavier_uniform = _family(1.0, "fan_avg", "uniform", "Glorot's uniform.")
glorot_normal = xavier_normal = _family(1.0, "fan_avg", "truncated_normal", "Glorot's normal.")
lecun_uniform = _family(1.0, "fan_in", "uniform", "LeCun's uniform.")
lecun_normal = _family(1.0, "fan_in", "truncated_normal", "LeCun's normal.")
he_uniform = kaiming_uniform = _family(2.0, "fan_in", "uniform", "He's uniform.")
he_normal = kaiming_normal = _family(2.0, "fan_in", "truncated_normal", "He's normal.")


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """Orthogonal matrices (of the other axes flattened against `column_axis`) times scale."""
    def init(key, shape, dtype=dtype):
        shape, dtype = tuple(shape), _dtype(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if 0 in shape:
            return np.zeros(shape, dtype)
        n_cols = shape[column_axis]
        q = prng.orthogonal(key, math.prod(shape) // n_cols, (), dtype, n_cols)
        q = np.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        return np.asarray(scale, dtype) * np.moveaxis(q, -1, column_axis)
    return init
