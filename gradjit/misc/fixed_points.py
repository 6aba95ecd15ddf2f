"""autograd.misc.fixed_points.fixed_point: iterate f(a) from x0 until `distance` between
steps falls to `tol`; its gradient in `a` is implicit (a second fixed-point iteration of the
transposed step), so no iteration is differentiated."""
from __future__ import annotations

import numpy as np

from gradjit.tracer.custom import custom_vjp
from gradjit.tracer.trace import Traced
from gradjit.tracer.transforms import vjp


def _iterate(step, x, distance, tol):
    x, previous = step(x), x
    while distance(x, previous) > tol:
        x, previous = step(x), x
    return x


def _solve(f, distance, tol, a, x0):
    return _iterate(f(a), x0, distance, tol)


_fixed_point = custom_vjp(_solve, nondiff_argnums=(0, 1, 2))


def _forward(f, distance, tol, a, x0):
    x_star = _fixed_point(f, distance, tol, a, x0)
    return x_star, (a, x_star)


def _backward(f, distance, tol, residuals, g):
    """With x* = f(a)(x*), a's cotangent is u's through f(a)(x*), u the fixed point of
    u = g + u's cotangent through x."""
    a, x_star = residuals
    pull_x = vjp(lambda x: f(a)(x), x_star)[1]
    u = _iterate(lambda u: g + pull_x(u)[0], g, distance, tol)
    pull_a = vjp(lambda a: f(a)(x_star), a)[1]
    return pull_a(u)[0], np.zeros_like(x_star)


_fixed_point.defvjp(_forward, _backward)


def _array(value):
    return value if isinstance(value, Traced) else np.asarray(value, np.float64)


def fixed_point(f, a, x0, distance, tol):
    """The x with f(a)(x) = x (to `tol`), reached from x0; differentiable in a."""
    return _fixed_point(f, distance, tol, _array(a), _array(x0))
