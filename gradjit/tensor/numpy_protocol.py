"""numpy functions called on Tensors (`np.sin(t)`, `np.sum(t, axis=1)`): computed with
gradjit's numpy tables on the Tensors themselves, so they keep autograd and give Tensors back,
eagerly and inside grad/jit alike."""
from __future__ import annotations

import numpy as np

from gradjit.ops import numpy_api

# the Tensor method `number op tensor` runs, by the ufunc of op
_REFLECTED = {np.add: "__radd__", np.subtract: "__rsub__", np.multiply: "__rmul__",
              np.true_divide: "__rtruediv__", np.floor_divide: "__rfloordiv__",
              np.power: "__rpow__", np.remainder: "__rmod__", np.bitwise_and: "__rand__",
              np.bitwise_or: "__ror__", np.bitwise_xor: "__rxor__", np.less: "__gt__",
              np.less_equal: "__ge__", np.greater: "__lt__", np.greater_equal: "__le__",
              np.equal: "__eq__", np.not_equal: "__ne__"}


class NumpyProtocol:
    """`__array_ufunc__` and `__array_function__` for Tensors. A name gradjit does not know
    runs on eager Tensors as numpy would run it on their arrays (as for PyTorch's tensors);
    on traced Tensors it is an error naming the function."""

    __slots__ = ()

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        reflected = _REFLECTED.get(ufunc)
        if reflected and method == "__call__" and not kwargs and len(inputs) == 2 and \
                isinstance(inputs[0], np.generic) and inputs[0].dtype.kind in "iufc" and \
                inputs[1] is self:
            # `numpy scalar op tensor`: PyTorch reads the scalar as a Python number
            return getattr(self, reflected)(inputs[0].item())
        if method in numpy_api.METHODS and ufunc in numpy_api.UFUNCS or _any_traced(inputs):
            return numpy_api.apply_ufunc(ufunc, method, inputs, kwargs)
        return getattr(ufunc, method)(*_as_arrays(inputs), **_as_arrays(kwargs))

    def __array_function__(self, func, types, args, kwargs):
        if func in numpy_api.FUNCTIONS or _any_traced((args, kwargs)):
            return numpy_api.apply_function(func, args, kwargs)
        implementation = getattr(func, "_implementation", func)
        return implementation(*_as_arrays(args), **_as_arrays(kwargs))


def _any_traced(tree) -> bool:
    if isinstance(tree, (list, tuple)):
        return any(map(_any_traced, tree))
    if isinstance(tree, dict):
        return any(map(_any_traced, tree.values()))
    value = getattr(tree, "_value", tree)
    return getattr(type(value), "__gradjit_priority__", None) is not None and \
        not isinstance(value, np.ndarray) and not hasattr(value, "_edge")


def _as_arrays(tree):
    if isinstance(tree, (list, tuple)):
        return (list if isinstance(tree, list) else tuple)(map(_as_arrays, tree))
    if isinstance(tree, dict):
        return {k: _as_arrays(v) for k, v in tree.items()}
    return np.asarray(tree) if hasattr(tree, "_edge") else tree
