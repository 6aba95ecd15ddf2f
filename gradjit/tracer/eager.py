"""JAX's controls of how and where a computation runs, for gradjit's numpy results: eval_shape
traces without running, disable_jit runs jit's functions as plain Python on numpy arrays, and
block_until_ready and device_put have nothing to wait for or to move."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from gradjit.tracer.trace import Trace, _stack


@dataclass(frozen=True)
class ShapeDtypeStruct:
    """An array's shape and dtype, without its data (jax.ShapeDtypeStruct)."""
    shape: tuple
    dtype: np.dtype

    def __init__(self, shape, dtype):
        object.__setattr__(self, "shape", tuple(int(n) for n in shape))
        object.__setattr__(self, "dtype", np.dtype(dtype))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def __repr__(self):
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name})"


def eval_shape(fun, *args, **kwargs):
    """The ShapeDtypeStructs of fun's results (a tree like them), found by tracing fun on
    zeros of the arguments' shapes and dtypes, computing no array: arrays, numbers and
    ShapeDtypeStructs (or any object with .shape and .dtype) are the leaves (a traced branch
    on values takes the zeros' path)."""
    from gradjit import tree_util
    with Trace("eval_shape") as trace:
        trace.stand_in_values = True
        def stand_in(x):
            if isinstance(x, (np.ndarray, np.generic, bool, int, float)):
                return trace.input(np.zeros_like(x), weak=type(x) in (bool, int, float))
            if hasattr(x, "shape") and hasattr(x, "dtype") and not hasattr(
                    type(x), "__gradjit_priority__"):  # any spec: JAX's duck typing
                return trace.input(np.zeros(x.shape, x.dtype))
            return x
        out = fun(*tree_util.tree_map(stand_in, args), **tree_util.tree_map(stand_in, kwargs))
        return tree_util.tree_map(lambda y: ShapeDtypeStruct(np.shape(y), np.result_type(y)),
                                  out)


@contextlib.contextmanager
def disable_jit(disable: bool = True):
    """Within this block (on this thread), functions made by jit run as the Python functions
    they wrap, on the numpy arrays they are given (print shows values; breakpoints stop)."""
    previous = _stack.jit_disabled
    _stack.jit_disabled = disable
    _stack.push(None)  # off the lean call path, which does not look at the flag
    try:
        yield
    finally:
        _stack.pop()
        _stack.jit_disabled = previous


def block_until_ready(x):
    """x: gradjit's results are numpy arrays, complete when a call returns."""
    return x


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """x: numpy arrays live in host memory, where the CPU backend computes (the CUDA backend
    copies arguments in and results out on each call)."""
    return x


def devices(backend=None):
    """The devices gradjit's backends run on: the CPU, and the GPU when CUDA is available."""
    from gradjit import cuda, device
    found = [device("cpu")] if backend in (None, "cpu") else []
    if backend in (None, "cuda", "gpu") and cuda.is_available():
        found.append(device("cuda", 0))
    return found
