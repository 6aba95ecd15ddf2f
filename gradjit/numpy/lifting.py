"""numpy's functions as HIPS autograd's numpy wrapper offers them: while a function is traced,
a Python list or tuple holding traced values (`np.mean([x, x + 2])`) becomes one traced array
before numpy sees it, since numpy dispatches on arrays, not on what lists hold; and the arrays
numpy's constructors make are traced constants, which have JAX's `.at` (`jnp.zeros(n).at`)."""
from __future__ import annotations

import functools

import numpy as np

from gradjit.tracer.constructors import lift_sequence, numpy_own
from gradjit.tracer.trace import Traced, current_trace

# the functions that make a new array from a shape and a fill (not array/asarray: an array
# they are given stays numpy, so that its reads are recorded as captures)
_CONSTRUCTORS = frozenset({"arange", "empty", "empty_like", "eye", "full", "full_like",
                           "identity", "linspace", "ones", "ones_like", "zeros", "zeros_like"})

_lifted: dict = {}


def attribute(module, name: str):
    """`module.name`, its functions wrapped to lift lists of traced values (one wrapper per
    function, so `gradjit.numpy.mean is gradjit.numpy.mean`)."""
    value = numpy_own(getattr(module, name))
    if isinstance(value, (type, np.ufunc)) or not callable(value):
        return value
    key = (module.__name__, name)
    if key not in _lifted:
        _lifted[key] = _lifting(value, name in _CONSTRUCTORS)
    return _lifted[key]


def _lifting(fn, constructor):
    @functools.wraps(fn)
    def lifted(*args, **kwargs):
        trace = current_trace()
        if trace is None:
            return fn(*args, **kwargs)
        args = [lift_sequence(a) for a in args]
        kwargs = {k: lift_sequence(v) for k, v in kwargs.items()}
        out = fn(*args, **kwargs)
        if constructor and type(out) is np.ndarray and out.dtype.kind in "biuf":
            return Traced(trace, trace.lift(out), out, "numpy", False, const=True)
        return out
    return lifted
