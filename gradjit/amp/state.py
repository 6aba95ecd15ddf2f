"""Autocast's per-thread state (enabled flag and lower-precision dtype per device type, nesting,
the cast cache) and PyTorch's torch.* functions that read and set it."""
from __future__ import annotations

import threading
import warnings

from gradjit.tensor import dtypes

DEVICE_TYPES = ("cpu", "cuda")


class _State(threading.local):
    nesting = 0
    cache_enabled = True
    active = False  # cpu autocast is on and no autocast op is running: the wrappers' one check

    def __init__(self):
        self.enabled = dict.fromkeys(DEVICE_TYPES, False)
        self.dtype = {"cpu": dtypes.bfloat16, "cuda": dtypes.float16}
        self.cache = {}  # id(float32 leaf) -> (leaf, its lower-precision copy)


state = _State()


def _checked(device_type):
    """A device type as torch.device parses it (its error for an unknown one)."""
    return dtypes.device(device_type).type


def is_autocast_enabled(device_type="cuda") -> bool:
    return state.enabled[_checked(device_type)]


def set_autocast_enabled(device_type, enabled=None) -> None:
    """set_autocast_enabled(device_type, enabled), or the older set_autocast_enabled(enabled),
    which means CUDA."""
    position = 2
    if enabled is None:
        device_type, enabled, position = "cuda", device_type, 1
    if not isinstance(enabled, bool):
        raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position {position}) must "
                        f"be bool, not {type(enabled).__name__}")
    state.enabled[_checked(device_type)] = enabled
    state.active = state.enabled["cpu"]


def get_autocast_dtype(device_type) -> dtypes.dtype:
    return state.dtype[_checked(device_type)]


def set_autocast_dtype(device_type, dtype) -> None:
    state.dtype[_checked(device_type)] = dtypes.to_dtype(dtype)


def is_autocast_cache_enabled() -> bool:
    return state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    state.cache_enabled = enabled


def clear_autocast_cache() -> None:
    state.cache.clear()


def autocast_increment_nesting() -> int:
    state.nesting += 1
    return state.nesting


def autocast_decrement_nesting() -> int:
    state.nesting -= 1
    return state.nesting


def _deprecated(name, replacement, call):
    def function(*args):
        warnings.warn(f"torch.{name} is deprecated. Please use torch.{replacement} instead.",
                      DeprecationWarning, stacklevel=2)
        return call(*args)
    function.__name__ = name.partition("(")[0]
    return function


# PyTorch's per-device names of before device_type was an argument, with their warnings
is_autocast_cpu_enabled = _deprecated("is_autocast_cpu_enabled()",
                                      "is_autocast_enabled('cpu')",
                                      lambda: is_autocast_enabled("cpu"))
set_autocast_cpu_enabled = _deprecated("set_autocast_cpu_enabled(enabled)",
                                       "set_autocast_enabled('cpu', enabled)",
                                       lambda enabled: set_autocast_enabled("cpu", enabled))
get_autocast_cpu_dtype = _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')",
                                     lambda: get_autocast_dtype("cpu"))
set_autocast_cpu_dtype = _deprecated("set_autocast_cpu_dtype(dtype)",
                                     "set_autocast_dtype('cpu', dtype)",
                                     lambda dtype: set_autocast_dtype("cpu", dtype))
get_autocast_gpu_dtype = _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')",
                                     lambda: get_autocast_dtype("cuda"))

__all__ = ["autocast_decrement_nesting", "autocast_increment_nesting", "clear_autocast_cache",
           "get_autocast_cpu_dtype", "get_autocast_dtype", "get_autocast_gpu_dtype",
           "is_autocast_cache_enabled", "is_autocast_cpu_enabled", "is_autocast_enabled",
           "set_autocast_cache_enabled", "set_autocast_cpu_dtype", "set_autocast_cpu_enabled",
           "set_autocast_dtype", "set_autocast_enabled"]
