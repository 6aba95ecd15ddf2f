"""The grid emulator: a device in host memory whose kernels are the host build of the GPU
kernels (the same per-thread phases, run for every block of the grid and, phase by phase,
every thread of the block). Used to run and test the PTX target's code without a GPU."""
from __future__ import annotations

import ctypes

import numpy as np

from gradjit.runtime.native import NativeCode

HEADER = 2  # the argument block starts with the grid and block sizes
ALIGN = 256  # cudaMalloc's alignment


class Emulator:
    """Device memory is numpy storage; a launch calls the kernel's host driver over every
    block of the grid, in order, on the calling thread."""

    name = "grid emulator"

    def __init__(self):
        self._memory: dict[int, np.ndarray] = {}

    def alloc(self, nbytes: int) -> int:
        storage = np.zeros(int(nbytes) + ALIGN, np.uint8)
        pointer = -(-storage.ctypes.data // ALIGN) * ALIGN
        self._memory[pointer] = storage
        return pointer

    def free(self, pointer: int) -> None:
        if self._memory.pop(pointer, None) is None:
            raise ValueError(f"free of {pointer:#x}, which is not an emulated allocation")

    def upload(self, pointer: int, array: np.ndarray) -> None:
        ctypes.memmove(pointer, np.ascontiguousarray(array).ctypes.data, array.nbytes)

    def download(self, pointer: int, array: np.ndarray) -> None:
        ctypes.memmove(array.ctypes.data, pointer, array.nbytes)

    def load(self, object_code: bytes, symbols) -> NativeCode:
        return NativeCode(object_code, symbols)

    def launch(self, module: NativeCode, symbol: str, grid: int, block: int, pointers):
        if grid < 1 or not 1 <= block <= 1024:
            raise ValueError(f"launch of {symbol} with grid {grid} and block {block}: CUDA "
                             "needs at least one block of 1 to 1024 threads")
        args = (ctypes.c_uint64 * (HEADER + len(pointers)))(grid, block, *pointers)
        module.functions[symbol](0, grid, args)

    def synchronize(self) -> None:
        """Launches run to completion on the calling thread."""
