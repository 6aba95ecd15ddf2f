"""numpy's API on gradjit values: the ufuncs and functions numpy dispatches to traced values
and Tensors (`__array_ufunc__`, `__array_function__`), each mapped onto gradjit.ops.

Each module of this package holds the names of one area in two tables, UFUNCS (ufunc ->
function of the inputs) and FUNCTIONS (numpy function -> function with numpy's signature);
this module joins them and answers numpy's dispatch.
"""
from __future__ import annotations

from gradjit.ops.numpy_api import basics, linalg

UFUNCS = {**basics.UFUNCS}
FUNCTIONS = {**basics.FUNCTIONS, **linalg.FUNCTIONS}


def numpy_name(func) -> str:
    """The name a user writes for a numpy callable: `np.linalg.eig`, `np.add.reduce`."""
    module = getattr(func, "__module__", None) or "numpy"
    prefix = "np" + module[len("numpy"):] if module.startswith("numpy") else module
    return f"{prefix}.{getattr(func, '__name__', repr(func))}"


def apply_ufunc(ufunc, method, inputs, kwargs):
    fn = UFUNCS.get(ufunc)
    if method != "__call__" or fn is None:
        name = f"np.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
        raise TypeError(f"{name} is not supported on traced values; supported ufuncs: "
                        + ", ".join(sorted(u.__name__ for u in UFUNCS)))
    if kwargs.get("out") is not None or kwargs.get("where", True) is not True:
        raise TypeError(f"np.{ufunc.__name__}: out= and where= are not supported when tracing")
    if kwargs.get("dtype") is not None:
        from gradjit import ops
        inputs = [ops.astype(x, kwargs["dtype"]) for x in inputs]
    return fn(*inputs)


def apply_function(func, args, kwargs):
    fn = FUNCTIONS.get(func)
    if fn is None:
        raise TypeError(f"{numpy_name(func)} is not supported on traced values; supported: "
                        + ", ".join(sorted(numpy_name(f) for f in FUNCTIONS)))
    return fn(*args, **kwargs)
