"""A program compiled for a GPU as a Python callable: numpy arrays in, device buffers, kernel
launches and host-side checks in order, numpy arrays out. The device is the CUDA driver or
the grid emulator; both take the same calls (alloc, upload, launch, download, free)."""
from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import numpy as np

from gradjit.ir.structural import GuardFailed, check_index_range
from gradjit.runtime.steps import (NEGATIVE_POWER, CheckExponent, CheckIndex, Fail, Guard,
                                   LibraryCall)


@dataclass(frozen=True)
class Launch:
    """Launch kernel `symbol` on `grid` blocks of `block` threads with the buffers `args`."""

    symbol: str
    grid: int
    block: int
    args: tuple[int, ...]

    def buffers(self) -> set[int]:
        return set(self.args)

    def __str__(self) -> str:
        args = ", ".join(f"b{a}" for a in self.args)
        return f"launch @{self.symbol}<<<{self.grid}, {self.block}>>>({args})"


class GpuProgram:
    """Call it with numpy arrays; it returns a list of new arrays. Temporaries live in one
    device workspace kept with the program (laid out by the CPU's buffer plan); arguments
    and results get device memory for the call."""

    def __init__(self, name, params, result_types, buffers, steps, results, constants,
                 device, module, workspace: int):
        self.name, self.params, self.result_types = name, params, result_types
        self.buffers, self.steps, self.results = buffers, steps, results
        self.device, self.module, self.workspace_bytes = device, module, workspace
        self.text, self.ptx = "", ""
        self._lock = threading.Lock()  # one call at a time uses the workspace
        self._constants = {}
        self._workspace = None
        for b in buffers:
            if b.kind == "const":
                self._constants[b.id] = self._upload(constants[b.index])
        held = list(self._constants.values())
        weakref.finalize(self, _free_all, device, held)

    def __str__(self) -> str:
        return self.text

    def _upload(self, array) -> int:
        array = np.ascontiguousarray(array)
        pointer = self.device.alloc(array.nbytes)
        self.device.upload(pointer, array)
        return pointer

    def _arguments(self, args):
        if len(args) != len(self.params):
            raise TypeError(f"@{self.name} takes {len(self.params)} arguments, got {len(args)}")
        arrays = []
        for p, a in zip(self.params, args):
            a = np.asarray(a)
            if a.shape != p.shape or a.dtype != p.dtype:
                raise TypeError(f"@{self.name}: argument %{p.name} must be {p.type_text}, got "
                                f"{a.dtype}[{','.join(map(str, a.shape))}]")
            arrays.append(np.ascontiguousarray(a))
        return arrays

    def __call__(self, *args):
        arrays = self._arguments(args)
        outputs = [np.empty(shape, dtype) for shape, dtype in self.result_types]
        with self._lock:
            if self._workspace is None:
                self._workspace = self.device.alloc(self.workspace_bytes)
                weakref.finalize(self, _free_all, self.device, [self._workspace])
            pointers, owned = dict(self._constants), []
            try:
                for b in self.buffers:
                    if b.kind == "temp":
                        pointers[b.id] = self._workspace + b.offset
                    elif b.kind == "param":
                        pointers[b.id] = self._upload(arrays[b.index])
                        owned.append(pointers[b.id])
                    elif b.kind == "result":
                        pointers[b.id] = self.device.alloc(b.nbytes)
                        owned.append(pointers[b.id])
                for step in self.steps:
                    RUNNERS[type(step)](self, step, pointers)
                self.device.synchronize()
                for b in self.buffers:
                    if b.kind == "result":
                        self.device.download(pointers[b.id], outputs[b.index])
            finally:
                _free_all(self.device, owned)
        return outputs

    def host_view(self, operand, pointers) -> np.ndarray:
        """An operand's elements copied to the host (for checks the host makes)."""
        b = self.buffers[operand.buffer]
        if 0 in operand.shape:  # no element to read; the offset may lie past an empty buffer
            return np.empty(operand.shape, b.dtype.numpy)
        whole = np.empty(b.size, b.dtype.numpy)
        self.device.download(pointers[b.id], whole)
        size = whole.itemsize
        return np.ndarray(operand.shape, whole.dtype, whole, operand.offset * size,
                          tuple(s * size for s in operand.strides))


def _free_all(device, pointers):
    for p in pointers:
        device.free(p)


def _launch(program: GpuProgram, step: Launch, pointers):
    program.device.launch(program.module, step.symbol, step.grid, step.block,
                          [pointers[a] for a in step.args])


def _guard(program: GpuProgram, step: Guard, pointers):
    if bool(program.host_view(step.pred, pointers)) != step.expected:
        raise GuardFailed(step.site, step.expected)


def _library(program: GpuProgram, step: LibraryCall, pointers):
    """The host computes it: operands come down, the result goes up."""
    operands = [program.host_view(o, pointers) for o in step.operands]
    with np.errstate(all="ignore"):
        result = step.evaluate(*operands, **step.params)
    out = np.empty(step.shape, program.buffers[step.out].dtype.numpy)
    np.copyto(out, result, casting="unsafe")
    program.device.upload(pointers[step.out], out)


def _check_index(program: GpuProgram, step: CheckIndex, pointers):
    check_index_range(program.host_view(step.index, pointers), bound=step.bound,
                      low=step.low, error=step.error, words=step.words)


def _check_exponent(program: GpuProgram, step: CheckExponent, pointers):
    if program.host_view(step.exponent, pointers).min(initial=0) < 0:
        raise ValueError(NEGATIVE_POWER)


def _fail(program: GpuProgram, step: Fail, pointers):
    raise {"ValueError": ValueError}[step.error](step.message)


RUNNERS = {Launch: _launch, LibraryCall: _library, Guard: _guard, CheckIndex: _check_index,
           CheckExponent: _check_exponent, Fail: _fail}
