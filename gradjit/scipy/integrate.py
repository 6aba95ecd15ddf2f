"""autograd.scipy.integrate.odeint: scipy's odeint as one op whose gradient (in y0, t and the
arrays of `args`) is the adjoint method: the ODE augmented with its adjoint state, solved by
odeint backwards between the observation times (Froehlich et al. 2017, sec. 2.4.2)."""
from __future__ import annotations

import functools

import numpy as np
import scipy.integrate

from gradjit.tracer.custom import custom_vjp
from gradjit.tracer.pytree import flatten, unflatten


def _solve(func, structure, options, y0, t, *leaves):
    args = unflatten(structure, iter(leaves))
    return scipy.integrate.odeint(func, y0, t, args=tuple(args), **dict(options))


_odeint = custom_vjp(_solve, nondiff_argnums=(0, 1, 2))


def _forward(func, structure, options, y0, t, *leaves):
    yt = _odeint(func, structure, options, y0, t, *leaves)
    return yt, (t, leaves, yt)


@functools.lru_cache(maxsize=64)
def _adjoint_dynamics(func, structure, size):
    """The compiled right-hand side of (y, a, a_t, a_args): f, then a's cotangents through f
    in y, t and the arguments, negated (the adjoint runs backwards). One per system, so its
    compilation is reused by every gradient of it."""
    from gradjit.tracer import jit, vjp

    def dynamics(state, time, *leaves):
        y, adjoint = state[:size], state[size:2 * size]
        dy, pull = vjp(lambda y, time, *leaves: func(y, time, *unflatten(structure, iter(leaves))),
                       y, time, *leaves)
        cotangents = pull(-adjoint)
        return np.concatenate([dy] + [np.ravel(c) for c in cotangents])
    return jit(dynamics)


def _backward(func, structure, options, residuals, g):
    t, leaves, yt = residuals
    size, sizes = np.shape(yt)[1], [np.size(leaf) for leaf in leaves]
    dynamics = _adjoint_dynamics(func, structure, size)
    args = unflatten(structure, iter(leaves))
    adjoint, adjoint_t0 = g[-1], 0.0
    adjoint_args = np.zeros(sum(sizes))
    time_cotangents = []
    for i in range(len(t) - 1, 0, -1):
        moved = np.dot(func(yt[i], t[i], *args), g[i])  # moving observation time t[i]
        time_cotangents.append(moved)
        adjoint_t0 = adjoint_t0 - moved
        state = np.concatenate([yt[i], adjoint, [adjoint_t0], adjoint_args])
        # odeint itself, not scipy's: traced again for the derivatives of this gradient
        state = odeint(dynamics, state, np.array([t[i], t[i - 1]]), tuple(leaves),
                       **dict(options))[1]
        adjoint, adjoint_t0 = state[size:2 * size] + g[i - 1], state[2 * size]
        adjoint_args = state[2 * size + 1:]
    time_cotangents.append(adjoint_t0)
    ends = np.cumsum([0] + sizes)
    leaf_cotangents = [np.reshape(adjoint_args[a:b], np.shape(leaf))
                       for a, b, leaf in zip(ends[:-1], ends[1:], leaves)]
    return (adjoint, np.array(time_cotangents[::-1]), *leaf_cotangents)


_odeint.defvjp(_forward, _backward)


def odeint(func, y0, t, args=(), **kwargs):
    """scipy.integrate.odeint(func, y0, t, args, **kwargs): y at each time in t for
    dy/dt = func(y, t, *args); differentiable (reverse mode, to any order) in y0, t and the
    arrays in args (which may be nests of them)."""
    leaves: list = []
    structure = flatten(tuple(args), leaves)
    return _odeint(func, structure, tuple(sorted(kwargs.items())), y0, t, *leaves)
