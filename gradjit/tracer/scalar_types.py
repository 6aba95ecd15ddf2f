"""gradjit.numpy's scalar types (HIPS autograd's `np.int64(x)`, JAX's `jnp.float32(x)`): called
on traced values they are `x.astype(...)`, with the gradient of a float cast (numpy gives an
array scalar for a 0-d value, an array otherwise; a traced 0-d or n-d array stands for either).

Calling numpy's own type does not dispatch (numpy reads a float with __float__, a guarded value
with no gradient), so gradjit.numpy offers stand-ins: subclasses of each type whose metaclass
makes them equal to it, hash as it and count its values as instances, so they serve wherever
the type does (dtype=, np.dtype, isinstance, issubdtype, dict keys). numpy's namespace itself
is never changed."""
from __future__ import annotations

import numpy as np

from gradjit import ops
from gradjit.tracer.constructors import assemble, holds_traced

TYPES = (np.float16, np.float32, np.float64, np.complex64, np.complex128, np.int8, np.int16,
         np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


class _StandIn(type):
    """The metaclass of the stand-ins: each is its numpy type in comparisons and checks."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls.numpy_type)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, cls.numpy_type)

    def __eq__(cls, other):
        return getattr(other, "numpy_type", other) is cls.numpy_type

    def __hash__(cls):
        return hash(cls.numpy_type)

    def __repr__(cls):
        return repr(cls.numpy_type)


def _stand_in(numpy_type):
    name = numpy_type.__name__

    def __new__(cls, *args, **kwargs):
        if not args or not holds_traced(args[0]):
            return numpy_type(*args, **kwargs)
        return ops.astype(assemble(args[0]), np.dtype(numpy_type))
    return _StandIn(name, (numpy_type,),
                    {"__new__": __new__, "numpy_type": numpy_type,
                     "__module__": "gradjit.numpy", "__qualname__": name,
                     "__doc__": numpy_type.__doc__})


_ONE_PER_TYPE = {t: _stand_in(t) for t in TYPES}
# numpy's names for the types (float64, double, int_, ...) -> their stand-ins
STAND_INS = {name: _ONE_PER_TYPE[value] for name, value in vars(np).items()
             if isinstance(value, type) and value in _ONE_PER_TYPE}
