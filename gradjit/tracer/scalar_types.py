"""numpy's scalar types called on traced values: `np.int64(x)`, `np.float64(x[0])` are
`x.astype(...)`, with the gradient of a float cast (numpy gives an array scalar for a 0-d
value, an array otherwise; a traced 0-d or n-d array stands for either).

Calling a scalar type does not dispatch: numpy reads a float with __float__ (a guarded value
with no gradient) or converts with __array__ (refused). So while any function is traced,
stand-ins take the types' names in numpy's namespace: subclasses of each type whose metaclass
makes them equal to it, hash as it and count its values as instances, so they serve wherever
the type does (dtype=, np.dtype, isinstance, issubdtype, dict keys). Only an identity test
(`t is np.float64` on a type numpy hands out) tells them apart, and pickle, which finds a
class by its name, is one: so the names are numpy's own again when no trace runs."""
from __future__ import annotations

import threading

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
        return other is cls.numpy_type or other is cls

    def __hash__(cls):
        return hash(cls.numpy_type)

    def __repr__(cls):
        return repr(cls.numpy_type)


def _stand_in(numpy_type):
    def __new__(cls, *args, **kwargs):
        if not args or not holds_traced(args[0]):
            return numpy_type(*args, **kwargs)
        return ops.astype(assemble(args[0]), np.dtype(numpy_type))
    return _StandIn(numpy_type.__name__, (numpy_type,),
                    {"__new__": __new__, "numpy_type": numpy_type,
                     "__module__": numpy_type.__module__,
                     "__doc__": numpy_type.__doc__})


_names: dict = {}  # numpy's name -> (its type, the stand-in), made at the first trace
_tracing = 0  # traces running, in every thread
_lock = threading.Lock()


def trace_started():
    global _tracing
    with _lock:
        if not _names:
            stand_ins = {t: _stand_in(t) for t in TYPES}
            _names.update((name, (value, stand_ins[value])) for name, value in vars(np).items()
                          if isinstance(value, type) and value in stand_ins)
        _tracing += 1
        if _tracing == 1:
            for name, (_, stand_in) in _names.items():
                setattr(np, name, stand_in)


def trace_ended():
    global _tracing
    with _lock:
        _tracing -= 1
        if _tracing == 0:
            for name, (numpy_type, _) in _names.items():
                setattr(np, name, numpy_type)
