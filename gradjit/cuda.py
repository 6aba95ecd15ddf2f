"""The CUDA device of eager tensors: whether one is available, and the grid emulator that stands
in for it (GRADJIT_CUDA_EMULATOR=1, or `with gradjit.cuda.use_emulator():`), which runs the
same kernels on this CPU, so device 'cuda' is usable and testable without a GPU."""
from __future__ import annotations

import contextlib
import os
import threading

# The driver the GPU target launches kernels through: available here means usable there.
from gradjit.runtime import cuda_driver

_lock = threading.Lock()
_emulators = 0  # open use_emulator() blocks: the switch is process-wide, as a device is


def emulated() -> bool:
    """Whether device 'cuda' is the grid emulator now."""
    return _emulators > 0 or os.environ.get("GRADJIT_CUDA_EMULATOR", "0") not in ("", "0")


@contextlib.contextmanager
def use_emulator():
    """Within this block device 'cuda' is the grid emulator: is_available() is True and every
    operation on a CUDA tensor runs on the 'cuda-emulator' target."""
    global _emulators
    with _lock:
        _emulators += 1
    try:
        yield
    finally:
        with _lock:
            _emulators -= 1


def target() -> str:
    """The compile target that operations on CUDA tensors run on."""
    return "cuda-emulator" if emulated() else "cuda"


def device_count() -> int:
    return 1 if emulated() else cuda_driver.device_count()


def is_available() -> bool:
    return device_count() > 0


def _require_device():
    # PyTorch's CPU-only builds fail these calls with this assertion
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")


def synchronize(device=None):
    """Kernels launched from eager code have finished when the call returns: nothing to wait
    for."""
    _require_device()


def current_device() -> int:
    _require_device()
    return 0


def get_device_name(device=None) -> str:
    _require_device()
    return "gradjit cuda-emulator" if emulated() else "CUDA device 0"


def memory_allocated(device=None) -> int:
    """0: gradjit does not count device allocations."""
    return 0


def empty_cache():
    """gradjit keeps no device memory cache."""


__all__ = ["current_device", "device_count", "emulated", "empty_cache", "get_device_name",
           "is_available", "memory_allocated", "synchronize", "target", "use_emulator"]


def __getattr__(name):
    """The legacy CUDA tensor types (`torch.cuda.FloatTensor`), loaded when first named."""
    from gradjit.tensor.legacy_types import CUDA_TYPES
    if name in CUDA_TYPES:
        return CUDA_TYPES[name]
    raise AttributeError(f"module 'gradjit.cuda' has no attribute '{name}'")
