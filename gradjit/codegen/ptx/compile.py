"""The GPU targets: an IR function becomes the fused program of the CPU backend, whose kernels
and matrix products are lowered to GPU kernels, built as PTX for a CUDA device ('cuda') or
for this CPU under the grid emulator ('cuda-emulator')."""
from __future__ import annotations

import hashlib
import threading
import time

from gradjit.codegen.fuse import fuse
from gradjit.codegen.kernel import Kernel
from gradjit.codegen.ptx.grid import emit_module
from gradjit.codegen.ptx.lower import lower_kernel
from gradjit.codegen.ptx.matmul import lower_matmul
from gradjit.codegen.ptx.target import compile_host, emit_ptx
from gradjit.ir.core import Function
from gradjit.ir.verify import verify
from gradjit.runtime import cache, cuda_driver
from gradjit.runtime.cuda_program import GpuProgram, Launch
from gradjit.runtime.emulator import Emulator
from gradjit.runtime.plan import plan_workspace
from gradjit.runtime.program import Param
from gradjit.runtime.steps import Matmul

_memory: dict[str, GpuProgram] = cache.LeastRecentlyUsed()
_memory_lock = threading.Lock()


def lower_program(program, deterministic: bool) -> tuple[list, list]:
    """(runtime steps, GPU kernels): each kernel and matrix product of the fused program
    becomes one or more launches; host-side checks stay as they are."""
    steps, kernels = [], []
    for step in program.steps:
        if isinstance(step, Kernel):
            lowered = lower_kernel(step, deterministic)
        elif isinstance(step, Matmul):
            dtype = program.buffers[step.out].dtype
            lowered = [lower_matmul(f"{_prefix(program)}_matmul{len(kernels)}", step, dtype)]
        else:
            steps.append(step)
            continue
        kernels += lowered
        steps += [Launch(k.name, k.grid, k.block, k.buffers) for k in lowered]
    return steps, kernels


def _prefix(program) -> str:
    return "".join(c if c.isalnum() else "_" for c in program.name)


def _host_code(name, kernels):
    return compile_host(str(emit_module(name, kernels, nvptx=False))), ""


def _ptx_code(name, kernels):
    ptx = emit_ptx(str(emit_module(name, kernels, nvptx=True)))
    return ptx, ptx


# target -> (the device, or an error saying why there is none; the code it loads and the PTX)
TARGETS = {"cuda": (cuda_driver.default_device, _ptx_code),
           "cuda-emulator": (Emulator, _host_code)}


def compile_gpu(fn: Function, target: str = "cuda", *, deterministic: bool = False):
    """Compile `fn` for `target` ('cuda', or 'cuda-emulator' to run the same kernels on this
    CPU). With `deterministic`, scatter-adds run in one thread in a fixed order instead of
    by atomics, so every result is bitwise reproducible (reductions always are)."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; choose 'cpu' or one of "
                         f"{', '.join(map(repr, TARGETS))}")
    open_device, build = TARGETS[target]
    verify(fn)
    key = hashlib.sha256(f"{fn}\n{target}\n{deterministic}".encode()).hexdigest()
    with _memory_lock:
        found = _memory.get(key)
    if found is not None:
        return found
    start = time.perf_counter()
    device = open_device()
    program = fuse(fn, loop_products=False)
    workspace = plan_workspace(program.buffers, program.steps)
    steps, kernels = lower_program(program, deterministic)
    code, ptx = build(fn.name, kernels) if kernels else (None, "")
    module = device.load(code, [k.name for k in kernels]) if kernels else None
    params = [Param(p.name or f"arg{i}", p.type.shape, p.type.dtype.numpy, str(p.type))
              for i, p in enumerate(fn.params)]
    result_types = [(r.type.shape, r.type.dtype.numpy) for r in fn.results]
    compiled = GpuProgram(fn.name, params, result_types, program.buffers, steps,
                          program.results, program.constants, device, module, workspace)
    compiled.text, compiled.ptx, compiled.kernels = str(program), ptx, kernels
    compiled.compile_seconds = time.perf_counter() - start
    with _memory_lock:
        _memory[key] = compiled
    return compiled


def ptx_of(fn: Function, *, deterministic: bool = False) -> dict[str, str]:
    """The PTX of each GPU kernel of `fn`, by kernel name (needs no GPU)."""
    verify(fn)
    _, kernels = lower_program(fuse(fn, loop_products=False), deterministic)
    return {k.name: emit_ptx(str(emit_module(k.name, [k], nvptx=True))) for k in kernels}
