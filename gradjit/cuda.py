"""CUDA availability: whether an NVIDIA driver and a GPU are present."""
from __future__ import annotations

# The driver the GPU target launches kernels through: available here means usable there.
from gradjit.runtime.cuda_driver import device_count


def is_available() -> bool:
    return device_count() > 0


__all__ = ["device_count", "is_available"]
