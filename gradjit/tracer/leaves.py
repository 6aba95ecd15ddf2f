"""The kinds of argument a transformed function takes (numpy arrays and scalars, Python
numbers, gradjit Tensors, traced values): their cache signature, their numpy data, their
traced stand-in, and how a result computed for them is given back in their type."""
from __future__ import annotations

import sys

import numpy as np

from gradjit.tracer.trace import Trace, Traced, plain_array


def tensor_type():
    """The eager Tensor class, if loaded (a Tensor argument means it is)."""
    module = sys.modules.get("gradjit.tensor")
    return getattr(module, "Tensor", None)


def is_tensor(x) -> bool:
    cls = tensor_type()
    return cls is not None and isinstance(x, cls)


def signature(x):
    """What the compiled program's validity depends on: type, shape and dtype."""
    if type(x) is np.ndarray:
        return (x.shape, x.dtype)
    if isinstance(x, (bool, int, float, complex)):
        return type(x)
    data = to_array(x)
    return (type(x), data.shape, data.dtype)


def to_array(x) -> np.ndarray:
    if type(x) is np.ndarray and x.dtype.kind in "biufc" and x.dtype.isnative:
        return x
    if is_tensor(x):
        return np.asarray(x._value)
    return plain_array(x)


def traced_input(trace: Trace, x, name: str):
    """The stand-in that the traced function receives for argument leaf `x`."""
    if isinstance(x, Traced):
        return trace.input(x.value, flavor=x.__gradjit_flavor__, weak=x.__gradjit_weak__,
                           name=name)
    if is_tensor(x):
        inner = x._value
        value = inner.value if isinstance(inner, Traced) else inner
        return wrap_tensor(trace.input(value, flavor="torch", name=name))
    weak = isinstance(x, (bool, int, float, complex))
    return trace.input(to_array(x), weak=weak, name=name)


def is_traced(x) -> bool:
    return isinstance(x, Traced) or (is_tensor(x) and isinstance(x._value, Traced))


def requires_grad(x) -> bool:
    """An eager Tensor on the autograd tape (a traced one's gradient is the trace's)."""
    return is_tensor(x) and x._edge is not None and not isinstance(x._value, Traced)


def unwrap(x):
    """A Tensor's inner value; anything else as it is."""
    return x._value if is_tensor(x) else x


def wrap_tensor(value):
    return tensor_type()._wrap(value)


def like(leaf, value):
    """`value` (an array, or a traced value when inlined) in the type of argument `leaf`."""
    if is_tensor(leaf):
        return wrap_tensor(value)
    if isinstance(value, Traced):
        return value
    if isinstance(leaf, (bool, int, float, complex)):
        return type(leaf)(value)
    if isinstance(leaf, np.generic):
        return leaf.dtype.type(value)
    return value


def as_output(value, flavor: str):
    """A result in the flavor it was computed in: numpy (0-d as numpy scalars), Tensor, or
    a Python number (gradjit.compile's traced Python numbers)."""
    if flavor == "torch":
        return wrap_tensor(value)
    if flavor == "python":
        return value.item()
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value
