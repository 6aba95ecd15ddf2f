"""compile_function: an IR function becomes a callable CompiledProgram (fusion, buffer plan,
LLVM emission, object code), cached in memory and on disk by the canonical IR text."""
from __future__ import annotations

import hashlib
import time

import numpy as np

from gradjit.codegen.fuse import fuse
from gradjit.codegen.inplace import store_in_place
from gradjit.codegen.kernel import Kernel
from gradjit.codegen.machine import compile_ir, host
from gradjit.codegen.prefetch import prefetch_rows
from gradjit.codegen.rows import KernelGroup, group_rows
from gradjit.codegen.tails import ProductTail, attach_tails
from gradjit.ir.core import Function
from gradjit.ir.verify import verify
from gradjit.runtime import cache, programs
from gradjit.runtime.collector import collector_paused
from gradjit.runtime.plan import plan_workspace
from gradjit.runtime.program import CompiledProgram
from gradjit.runtime.steps import KernelCall, enterable

# Programs whose kernels run over at most this many elements in all are generated quickly
# (compile_ir's `quick`): their run is the call's overhead whatever the code (W6, 16 elements:
# 0.5 us a call either way), while code generation took 5 -> 1.5 ms of W6's and 11 -> 2 of W5's
# LLVM time. Each element costs about 0.45 ns more (W1's sin, exp and tanh: 1024 elements
# 1.27 -> 1.75 us a call), so larger programs keep the optimizing code generator.
QUICK_ELEMENTS = 64


def compile_function(fn: Function, target: str = "cpu", *, cache_dir=None,
                     **gpu_options) -> CompiledProgram:
    """Compile `fn` for `target` ('cpu', or a GPU target: 'cuda', 'cuda-emulator', which
    take `gpu_options`, see gradjit.codegen.ptx.compile_gpu). `cache_dir`: where object code
    is kept between processes (a path; False or 'off' for nowhere; default:
    $GRADJIT_CACHE_DIR, else the XDG cache directory)."""
    if target != "cpu":
        from gradjit.codegen.ptx import compile_gpu  # GPU code generation only when asked
        return compile_gpu(fn, target, **gpu_options)
    verify(fn)
    key, found = programs.lookup(fn, cache_dir)
    return found if found is not None else compile_missing(fn, key, cache_dir)


def compile_missing(fn: Function, key: str, cache_dir=None) -> CompiledProgram:
    """The program of `fn`, which programs.lookup found in neither cache under `key`."""
    with collector_paused():
        return programs.remember(key, _compile(fn, key, cache_dir))


def _compile(fn: Function, key: str, cache_dir) -> CompiledProgram:
    """Fuse and plan `fn`; its object code from a disk entry written for the same fused
    program (one whose plan could not be stored), else from LLVM, stored with the plan."""
    start = time.perf_counter()
    program = attach_tails(prefetch_rows(group_rows(store_in_place(fuse(fn)))))
    workspace = plan_workspace(program.buffers, program.steps)
    text = str(program)
    directory = cache.cache_dir(cache_dir)
    entry = cache.load(directory, key) if directory else None
    from_disk = (entry is not None and entry[0].get("program") == _digest(text)
                 and isinstance(entry[0].get("llvm_ir"), str))  # programs.Packed text
    steps = [_runtime_step(s) for s in program.steps]
    plan = (program.buffers, steps, program.results, program.constants, workspace, text)
    planned = False
    if from_disk:
        meta, object_code = entry
        llvm_ir = programs.Packed(meta["llvm_ir"])
    else:
        # The LLVM IR emitters load only on a cache miss: a warm start skips importing them.
        from gradjit.codegen.cpu import emit_module
        from gradjit.codegen.entry import emit_entry
        groups = [s for s in program.steps if isinstance(s, KernelGroup)]
        module = emit_module(fn.name, program.kernels, host().vector_bytes, groups)
        if enterable(steps):
            emit_entry(module, programs.entry_symbol(fn.name), steps,
                       _array_slots(program.buffers), len(program.buffers),
                       [p.type.shape for p in fn.params])
        llvm_ir = str(module)
        elements = sum(s.elements for s in steps if isinstance(s, KernelCall))
        object_code = compile_ir(llvm_ir, quick=elements <= QUICK_ELEMENTS)
        if directory:
            meta = {"program": _digest(text), "llvm_ir": programs.Packed.of(llvm_ir).packed}
            encoded = programs.encode(*plan)
            if encoded is not None:
                meta["plan"] = encoded
            planned = cache.store(directory, key, meta, object_code) and encoded is not None
    compiled = programs.build(programs.signature(fn), *plan, object_code, llvm_ir)
    compiled.kernels, compiled.cache_key, compiled.planned = program.kernels, key, planned
    compiled.compile_seconds, compiled.from_disk = time.perf_counter() - start, from_disk
    return compiled


def _array_slots(buffers) -> list[int]:
    """The buffers an entry point's array arguments fill: the parameters, then the results."""
    ordered = sorted((b for b in buffers if b.kind in ("param", "result")),
                     key=lambda b: (b.kind == "result", b.index))
    return [b.id for b in ordered]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _runtime_step(step):
    if isinstance(step, ProductTail):
        return step.product.replace(tail=step.kernel and _runtime_step(step.kernel),
                                    next=step.next)
    if isinstance(step, (Kernel, KernelGroup)):
        elements = sum(int(np.prod(k.extents, dtype=np.int64))
                       for k in getattr(step, "kernels", [step]))
        return KernelCall(step.name, step.n_chunks, elements, frozenset(step.buffers()))
    return step
