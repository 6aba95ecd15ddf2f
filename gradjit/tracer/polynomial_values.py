"""numpy.polynomial's value functions (polyval, legval, chebval, ..., polyvalfromroots) at
traced points.

numpy gives each coefficient the points' axes (tensor=True) only where `isinstance(x,
np.ndarray)`, which a traced value is not, so it would broadcast the coefficients against the
points instead. While a function is traced, stand-ins take that step and let numpy evaluate
with tensor=False; outside a trace they call numpy's own.
"""
from __future__ import annotations

import functools

import numpy as np
from numpy.polynomial import chebyshev, hermite, hermite_e, laguerre, legendre, polynomial

from gradjit import ops
from gradjit.tracer.constructors import lift_sequence
from gradjit.tracer.leaves import is_traced, unwrap
from gradjit.tracer.trace import current_trace

_VALUES = ((polynomial, "polyval"), (polynomial, "polyvalfromroots"), (chebyshev, "chebval"),
           (hermite, "hermval"), (hermite_e, "hermeval"), (laguerre, "lagval"),
           (legendre, "legval"))

_FROM_ROOTS = polynomial.polyvalfromroots


def _at_traced_points(original):
    @functools.wraps(original)
    def evaluate(x, c, tensor=True):
        if current_trace() is None:
            return original(x, c, tensor)
        x = lift_sequence(x)
        if not is_traced(x):
            return original(x, c, tensor)
        c = np.array(c, ndmin=1, copy=None)
        rank = len(ops.shape_of(unwrap(x)))
        if tensor:
            return original(x, c.reshape(c.shape + (1,) * rank), False)
        if original is _FROM_ROOTS and rank >= c.ndim:  # numpy's check
            raise ValueError("x.ndim must be < r.ndim when tensor == False")
        return original(x, c, False)
    return evaluate


def install():
    """Put the stand-ins in numpy.polynomial's modules (once), where the user's code and
    numpy's own functions (polyval2d, legval3d, the grids) read them."""
    for module, name in _VALUES:
        if not hasattr(getattr(module, name), "__wrapped__"):
            setattr(module, name, _at_traced_points(getattr(module, name)))
