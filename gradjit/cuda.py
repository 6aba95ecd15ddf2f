"""CUDA availability: whether an NVIDIA driver and a GPU are present."""
from __future__ import annotations

import ctypes
import functools


@functools.cache
def _driver():
    """The CUDA driver library, initialized, or None where there is none."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    return lib if lib.cuInit(0) == 0 else None


def device_count() -> int:
    lib = _driver()
    if lib is None:
        return 0
    count = ctypes.c_int(0)
    return count.value if lib.cuDeviceGetCount(ctypes.byref(count)) == 0 else 0


def is_available() -> bool:
    return device_count() > 0
