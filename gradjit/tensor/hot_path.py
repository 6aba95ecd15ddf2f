"""The eager hot path: tensor operations whose operands already agree (float32/float64 numpy
arrays of one dtype and shape, Python numbers beside them) applied as their primitives
directly, skipping the array surface's promotion and broadcasting, which would change
nothing there. Everything else takes the general path."""
from __future__ import annotations

import math

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import quietly
from gradjit.tensor import dtypes, graph
from gradjit.tensor.grad_mode import is_grad_enabled


def direct(prim, name, args, operands):
    """The operation `name` as `prim(*args)`: one primitive, or a composition of them
    (`clip_numbers`), where the operands agree: tensors over numpy arrays of one
    float32/float64 dtype and one shape, Python numbers beside them, outside any other tensor
    operation. None otherwise (the general path runs)."""
    if graph._scopes.active is not None:
        return None
    dt = shape = None
    for a in args:
        if hasattr(a, "_edge"):
            value = a._value
            if type(value) is not np.ndarray:
                return None
            if dt is None:
                dt, shape = value.dtype, value.shape
            elif value.dtype is not dt or value.shape != shape:
                return None
        elif type(a) is not float and (type(a) is not int or not -2 ** 63 <= a < 2 ** 64):
            return None  # an int beyond 64 bits: the general path refuses it
    if not plain_float(dt):
        return None
    return _scoped(prim, name, args, operands if operands is not None else
                   [a for a in args if hasattr(a, "_edge")])


def direct_product(name, a, b):
    """The matrix product of two matrices `a @ b` as the matmul primitive itself where both
    hold numpy arrays of one float32/float64 dtype (the array surface's promotion and batch
    axes would change nothing there); None otherwise. The caller checked the shapes."""
    if graph._scopes.active is not None:
        return None
    x, y = a._value, b._value
    if type(x) is not np.ndarray or type(y) is not np.ndarray or x.dtype is not y.dtype or \
            not plain_float(x.dtype):
        return None
    return _scoped(S.matmul, name, (a, b), (a, b))


def _scoped(prim, name, args, operands):
    scope = graph.Scope(name)
    with scope:
        out = prim(*args)
    graph.declare_inputs(scope, operands)
    return out


_PLAIN = (np.dtype(np.float32), np.dtype(np.float64))


def plain_float(dt) -> bool:
    """float32 or float64 itself (bfloat16's storage is float32 with metadata: not this)."""
    return dt is _PLAIN[0] or dt is _PLAIN[1]


def clip_numbers(lo, hi):
    """ops.clip's primitives with number bounds, for a float tensor (`direct`)."""
    def clip(x):
        x = E.where(E.eq(x, x), x, math.nan)
        if lo is not None:
            x = E.where(E.lt(x, lo), lo, x)
        if hi is not None:
            x = E.where(E.gt(x, hi), hi, x)
        return x
    return clip


# The in-place operations numpy can write into their target itself (a ufunc's out=).
_IN_PLACE = {"add": E.add, "sub": E.sub, "mul": E.mul, "div": E.div}


def write_into(name, target, args, kwargs) -> bool:
    """`target.<name>_(*args)` computed by numpy straight into target's storage, without the
    out-of-place result and its copy, where nothing is recorded (grad mode off, or no
    history on either side) and the operands agree (a tensor of target's float32/float64
    dtype and shape, or a Python number). False where the general path must run."""
    prim = _IN_PLACE.get(name)
    if prim is None or kwargs or len(args) != 1 or graph._scopes.active is not None or \
            not _plain_storage(target) or not target._value.flags.writeable:
        return False
    x, other = target._value, args[0]
    if hasattr(other, "_edge"):
        if not _plain_storage(other) or other._value.dtype is not x.dtype or \
                other._value.shape != x.shape:
            return False
        y, history = other._value, other._edge is not None or other._base is not None
    elif type(other) is float or type(other) is int:
        y, history = x.dtype.type(other), False
    else:
        return False
    if is_grad_enabled() and (history or target._edge is not None or target._base is not None):
        return False
    quietly(prim.evaluate, x, y, out=x)
    target._counter.value += 1
    target._view_version = target._counter.value
    return True


def _plain_storage(t) -> bool:
    """A CPU tensor over a float32/float64 numpy array, not a value unpacked for backward."""
    value = t._value
    return type(value) is np.ndarray and plain_float(value.dtype) and \
        t._device is dtypes.CPU and t._saved is None and t._poison is None
