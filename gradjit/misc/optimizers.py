"""autograd.misc.optimizers: sgd with momentum, rmsprop and adam, each taking grad(x, i) and
a starting nest of arrays (flattened to one vector while it runs) and returning the last x."""
from __future__ import annotations

import functools

import numpy as np

from gradjit.misc.flatten import flatten


def _on_nests(optimize):
    """optimize (of flat vectors) over nests: grad and callback see x and g as x0's nest."""
    @functools.wraps(optimize)
    def run(grad, x0, callback=None, *args, **kwargs):
        flat, unflatten = flatten(x0)

        def flat_grad(x, i):
            return flatten(grad(unflatten(x), i))[0]

        def flat_callback(x, i, g):
            return callback(unflatten(x), i, unflatten(g))
        return unflatten(optimize(flat_grad, flat, flat_callback if callback else None,
                                  *args, **kwargs))
    return run


@_on_nests
def sgd(grad, x, callback=None, num_iters=200, step_size=0.1, mass=0.9):
    """Gradient descent with momentum `mass`; grad(x, i) is called with the iteration i."""
    velocity = np.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        velocity = mass * velocity - (1.0 - mass) * g
        x = x + step_size * velocity
    return x


@_on_nests
def rmsprop(grad, x, callback=None, num_iters=100, step_size=0.1, gamma=0.9, eps=10**-8):
    """Steps scaled by a running root mean square of the gradients (decay gamma)."""
    mean_square = np.ones(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        mean_square = mean_square * gamma + g ** 2 * (1 - gamma)
        x = x - step_size * g / (np.sqrt(mean_square) + eps)
    return x


@_on_nests
def adam(grad, x, callback=None, num_iters=100, step_size=0.001, b1=0.9, b2=0.999,
         eps=10**-8):
    """Adam (Kingma and Ba): rmsprop with momentum, both moments bias-corrected."""
    m, v = np.zeros(len(x)), np.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g ** 2 + b2 * v
        m_hat, v_hat = m / (1 - b1 ** (i + 1)), v / (1 - b2 ** (i + 1))
        x = x - step_size * m_hat / (np.sqrt(v_hat) + eps)
    return x
