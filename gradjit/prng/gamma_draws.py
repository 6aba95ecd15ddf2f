"""JAX's gamma draws, draw for draw: Marsaglia and Tsang's rejection loop on each value's own
key, as one op whose gradient in the shape parameter is JAX's implicit reparameterization
(the derivative of the draw at a fixed value of its distribution function)."""
from __future__ import annotations

import numpy as np

from gradjit.ops import special
from gradjit.prng import threefry
from gradjit.prng.continuous import normal_real, uniform_between
from gradjit.tracer import custom_vjp

# Marsaglia and Tsang's squeeze: most proposals are accepted without a logarithm
_SQUEEZE = 0.0331


def _split_each(keys, count: int):
    """`count` keys from each of the keys (shape (n, 2)), on axis 0: (count, n, 2)."""
    return np.moveaxis(threefry.split(keys[:, None, :], (count,)), 1, 0)


def _unit(keys, dtype):
    """One uniform float in [0, 1) from each key."""
    return uniform_between(keys, (), dtype, dtype.type(0), dtype.type(1))


def _proposal(keys, c, dtype):
    """JAX's inner loop: normal draws x on fresh keys until v = 1 + c x is positive."""
    x, v = np.zeros_like(c), np.full_like(c, -1)
    while np.any(v <= 0):
        redraw = v <= 0
        keys, subkeys = _split_each(keys, 2)
        new_x = normal_real(subkeys, (), dtype)
        x, v = np.where(redraw, new_x, x), np.where(redraw, 1 + new_x * c, v)
    return x, v


def _marsaglia_tsang(keys, alpha, log_space):
    """Gamma(alpha) draws (their logarithms when log_space), one per key, as JAX's _gamma_one
    under vmap: each value's loop ends at its first accepted proposal."""
    dtype = alpha.dtype
    one, third = dtype.type(1), dtype.type(1 / 3)
    boost_mask = alpha >= 1
    d = np.where(boost_mask, alpha, alpha + one) - third
    c = third / np.sqrt(d)
    keys, boost_keys = _split_each(keys, 2)
    big_x, v, u = np.zeros_like(d), np.ones_like(d), np.full_like(d, 2)

    def rejected(big_x, v, u):
        return (u >= one - dtype.type(_SQUEEZE) * (big_x * big_x)) & \
            (np.log(u) >= big_x * dtype.type(0.5) + d * ((one - v) + np.log(v)))

    todo = rejected(big_x, v, u)
    while np.any(todo):
        keys_next, x_keys, u_keys = _split_each(keys, 3)
        x, small_v = _proposal(x_keys, c, dtype)
        keys = np.where(todo[:, None], keys_next, keys)
        big_x = np.where(todo, x * x, big_x)
        v = np.where(todo, small_v * small_v * small_v, v)
        u = np.where(todo, _unit(u_keys, dtype), u)
        todo = todo & rejected(big_x, v, u)
    if log_space:
        log_samples = np.log1p(-_unit(boost_keys, dtype))
        log_boost = np.where(boost_mask | (log_samples == 0), dtype.type(0),
                             log_samples * (one / alpha))
        return np.log(d) + np.log(v) + log_boost
    boost = np.where(boost_mask, one, np.power(one - _unit(boost_keys, dtype), one / alpha))
    return d * v * boost


def _standard_gamma(words, alpha, log_space):
    """Gamma(alpha, 1) draws of alpha's shape (their logarithms when log_space), each on its
    own key split from `words` in row-major order, as JAX splits them."""
    keys = threefry.split(words, (max(alpha.size, 1),))
    return _marsaglia_tsang(keys, alpha.reshape(-1), log_space)[:alpha.size].reshape(
        alpha.shape)


def _standard_gamma_forward(words, alpha, log_space):
    out = _standard_gamma(words, alpha, log_space)
    return out, (alpha, out)


def _standard_gamma_backward(log_space, residuals, g):
    alpha, out = residuals
    if not log_space:
        return None, g * draw_derivative(alpha, out)
    sample = np.exp(out)
    sample = np.where(sample == 0, np.finfo(sample.dtype).tiny, sample)
    return None, g * draw_derivative(alpha, sample) / sample


standard_gamma = custom_vjp(_standard_gamma, nondiff_argnums=(2,))
standard_gamma.defvjp(_standard_gamma_forward, _standard_gamma_backward)


def _series_terms(alpha, x, eps):
    """The lower incomplete gamma function's series sum_k x^k Gamma(a+1) / Gamma(a+k+1)
    and its derivative in a, summed until the derivative's terms stop counting."""
    r, c, total = alpha.copy(), np.ones_like(x), np.ones_like(x)
    dc, dtotal = np.zeros_like(x), np.zeros_like(x)
    going = np.ones(x.shape, bool)
    while np.any(going):
        r = r + 1
        dc = np.where(going, dc * (x / r) - c * x / (r * r), dc)
        dtotal = np.where(going, dtotal + dc, dtotal)
        c = np.where(going, c * (x / r), c)
        total = np.where(going, total + c, total)
        going = going & (np.abs(dc) > eps * np.abs(dtotal))
    return total, dtotal


def _fraction_terms(alpha, x, eps, limit=2000):
    """Legendre's continued fraction of Gamma(a, x) e^x x^-a and its derivative in a, by
    Lentz's method carried with the derivative of each partial result."""
    tiny = np.finfo(x.dtype).tiny / eps
    b, db = x + 1 - alpha, -np.ones_like(x)
    d, dd = 1 / b, db / -(b * b)
    c, dcf = np.full_like(x, 1 / tiny), np.zeros_like(x)
    h, dh = d, dd
    going = np.ones(x.shape, bool)
    for i in range(1, limit):
        if not np.any(going):
            break
        an, dan = -i * (i - alpha), np.full_like(x, i)
        b = b + 2
        den = an * d + b
        dden = dan * d + an * dd + db
        den = np.where(np.abs(den) < tiny, tiny, den)
        c_new = b + an / c
        dc_new = db + dan / c - an / c * (dcf / c)
        c_new = np.where(np.abs(c_new) < tiny, tiny, c_new)
        d, dd = 1 / den, -dden / (den * den)
        c, dcf = c_new, dc_new
        step, dstep = d * c, dd * c + d * dcf
        new_dh = dh * step + h * dstep
        # a zero partial numerator (integer a) ends the fraction but not its derivative
        settled = (np.abs(step - 1) <= eps) & (np.abs(new_dh - dh) <= eps * np.abs(new_dh))
        h, dh = np.where(going, h * step, h), np.where(going, new_dh, dh)
        going = going & ~settled
    return h, dh


def draw_derivative(alpha, x):
    """d x / d alpha at a fixed value of Gamma(alpha)'s distribution function: minus its
    derivative in alpha over its density. The series serves x <= max(1, alpha), the
    continued fraction of the upper function the rest."""
    alpha, x = np.broadcast_arrays(np.asarray(alpha), np.asarray(x))
    eps = np.finfo(x.dtype).eps
    upper = (x > 1) & (x > alpha)
    safe_x = np.where(x > 0, x, 1)
    total, dtotal = _series_terms(alpha, np.where(upper, 0.5 * alpha, safe_x), eps)
    from_series = -(dtotal + total * (np.log(safe_x) - special.digamma(alpha + 1))) * \
        safe_x / alpha
    fraction, dfraction = _fraction_terms(alpha, np.where(upper, safe_x, alpha + 2), eps)
    from_fraction = safe_x * ((np.log(safe_x) - special.digamma(alpha)) * fraction +
                              dfraction)
    out = np.where(upper, from_fraction, from_series)
    return np.where(x == 0, 0, np.where((x < 0) | (alpha <= 0), np.nan, out))
