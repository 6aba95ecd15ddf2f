"""Compiled CPU programs by cache key: the key of an IR function, the in-memory cache, and the
runtime plan (buffers, steps, constants, workspace) stored as JSON beside the object code, so a
program found on disk is rebuilt without fusion, the code generator or LLVM; and the key of a
trace, under which its program is found without differentiating or optimizing it again."""
from __future__ import annotations

import base64
import functools
import hashlib
import importlib.util
import os
import re
import threading
from pathlib import Path

import numpy as np

from gradjit.ir.types import ALL_DTYPES
from gradjit.runtime import cache
from gradjit.runtime.native import ENTRY_ABI, NativeCode
from gradjit.runtime.program import CompiledProgram, Param
from gradjit.runtime.steps import (Buffer, CheckExponent, CheckIndex, Fail, Guard, KernelCall,
                                   Matmul, Operand, enterable)

memory: dict[str, CompiledProgram] = cache.LeastRecentlyUsed()
memory_lock = threading.Lock()

# The runtime steps a plan holds: plain data (a LibraryCall holds a numpy function).
PLAIN_STEPS = {cls.__name__: cls for cls in (KernelCall, Guard, CheckIndex, CheckExponent,
                                              Fail, Matmul)}
PLAN_CONSTANT_BYTES = 1 << 16  # larger constants are left to fusion, which rebuilds them
_DTYPES = {d.name: d for d in ALL_DTYPES}

# The fields of /proc/cpuinfo's first entry that CPUID decides, as far as code generation goes
CPUINFO = (b"vendor_id", b"cpu family", b"model", b"stepping", b"flags")


@functools.cache
def identity() -> str:
    """This CPU, as far as the code generated for it depends on it (the disk cache's key).
    LLVM's host CPU name and features derive from CPUID, as the kernel's description of the
    first processor does (its feature flags are those the kernel enabled, as LLVM's are), so
    where there is one, that description serves without loading LLVM; elsewhere LLVM's own."""
    first = b""
    try:
        with open("/proc/cpuinfo", "rb") as file:
            while b"\n\n" not in first and (chunk := file.read(4096)):
                first += chunk
    except OSError:
        pass
    fields = dict(line.split(b":", 1) for line in first.split(b"\n\n")[0].splitlines()
                  if b":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    if all(fields.get(name) for name in CPUINFO):
        return "\n".join(fields[name].decode(errors="replace") for name in CPUINFO)
    from gradjit.codegen.machine import host
    return f"{host().cpu}\n{host().features}"


@functools.cache
def fingerprint() -> str:
    """The compiler's identity: llvmlite's and numpy's versions (llvmlite's read, not imported:
    a program from the disk cache never loads LLVM; numpy folds constants) and the modules that
    decide the IR a trace becomes and its machine code, each by its size and modification time,
    as Python decides whether a module's cached bytecode is stale (so an edited compiler never
    reads stale code; reading and hashing the sources cost a millisecond of every fresh
    process's first call)."""
    llvmlite = Path(importlib.util.find_spec("llvmlite").origin).parent
    digest = hashlib.sha256((llvmlite / "_version.py").read_bytes() + np.__version__.encode())
    runtime = os.path.dirname(__file__)
    package = os.path.dirname(runtime)
    for folder in (os.path.join(package, "ir"), os.path.join(package, "ir", "passes"),
                   os.path.join(package, "codegen"), runtime):
        with os.scandir(folder) as found:
            files = sorted((f.name, f.stat()) for f in found if f.name.endswith(".py"))
        for name, info in files:
            digest.update(f"{name} {info.st_size} {info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def cache_key(fn, target: str) -> str:
    text = "\n".join([str(fn), target, identity(), fingerprint()])
    return hashlib.sha256(text.encode()).hexdigest()


def trace_key(traced_text: str, recipe: str) -> str:
    """The CPU key of a traced function's program: its IR text and how it is transformed
    (differentiated with respect to which inputs, simplified or not); the compiler's sources
    and this CPU key it as they key a program."""
    text = "\n".join(["trace", traced_text, recipe, identity(), fingerprint()])
    return hashlib.sha256(text.encode()).hexdigest()


def lookup(fn, cache_dir=None) -> tuple[str, CompiledProgram | None]:
    """(the CPU cache key of `fn`, its program from memory or from a disk entry that carries
    a plan, else None)."""
    key = cache_key(fn, "cpu")
    with memory_lock:
        found = memory.get(key)
    if found is not None:
        return key, found
    directory = cache.cache_dir(cache_dir)
    entry = cache.load(directory, key) if directory else None
    if entry is None or not isinstance(entry[0].get("plan"), dict):
        return key, None
    found = _rebuild(key, entry, signature(fn))
    return key, None if found is None else remember(key, found)


def _rebuild(key: str, entry, sign: dict) -> CompiledProgram | None:
    """The program of disk entry `key` (meta, object code) that carries a plan, else None."""
    meta, object_code = entry
    try:
        plan = decode(meta["plan"])
    except (KeyError, TypeError, ValueError):  # a plan this version does not read: compile
        return None
    if not isinstance(meta.get("llvm_ir"), str):
        return None
    found = build(sign, *plan, object_code, Packed(meta["llvm_ir"]))
    found.from_disk = found.planned = True
    found.cache_key = key
    return found


def lookup_trace(key: str, cache_dir=None) -> CompiledProgram | None:
    """The program stored for a trace under trace_key `key`: from memory, else through the
    disk entry naming its program's key and signature; None when either entry is missing,
    damaged or without a plan (then the trace is transformed and compiled as usual)."""
    with memory_lock:
        found = memory.get(key)
    if found is not None:
        return found
    directory = cache.cache_dir(cache_dir)
    alias = cache.load(directory, key, code=False) if directory else None
    if alias is None or not isinstance(alias[0].get("program"), str):
        return None
    program_key, sign = alias[0]["program"], alias[0].get("signature")
    with memory_lock:
        found = memory.get(program_key)
    if found is None:
        entry = cache.load(directory, program_key)
        if entry is None or not isinstance(entry[0].get("plan"), dict):
            return None
        try:
            found = _rebuild(program_key, entry, sign)
        except (KeyError, TypeError, ValueError):  # a signature this version does not read
            return None
        if found is None:
            return None
        remember(program_key, found)
    return remember(key, found)


def remember_trace(key: str, program: CompiledProgram, fn, cache_dir=None) -> None:
    """Keep `program` (compiled from IR function `fn`) under trace_key `key`: in memory, and
    on disk when its own entry carries a plan, as the name of that entry and the signature."""
    remember(key, program)
    directory = cache.cache_dir(cache_dir)
    if directory and program.planned:
        cache.store(directory, key, {"program": program.cache_key, "signature": signature(fn)},
                    b"")


def remember(key: str, program: CompiledProgram) -> CompiledProgram:
    with memory_lock:
        memory[key] = program
    return program


def signature(fn) -> dict:
    """What a caller sees of IR function `fn`, as JSON data: its name, its parameters (name,
    shape, dtype, type text) and its results (shape, dtype)."""
    return {"name": fn.name,
            "params": [[p.name or f"arg{i}", list(p.type.shape), p.type.dtype.name,
                        str(p.type)] for i, p in enumerate(fn.params)],
            "results": [[list(r.type.shape), r.type.dtype.name] for r in fn.results]}


def build(sign: dict, buffers, steps, results, constants, workspace, text, object_code,
          llvm_ir) -> CompiledProgram:
    """The CompiledProgram of a function of signature `sign` from its runtime plan and object
    code."""
    symbol = entry_symbol(sign["name"]) if enterable(steps) else None
    kernels = [s.symbol for s in steps if isinstance(s, KernelCall)] + [
        s.tail.symbol for s in steps if isinstance(s, Matmul) and s.tail is not None]
    native = NativeCode(object_code, kernels, [symbol] if symbol else [])
    params = [Param(name, tuple(shape), _DTYPES[dtype].numpy, text)
              for name, shape, dtype, text in sign["params"]]
    result_types = [(tuple(shape), _DTYPES[dtype].numpy) for shape, dtype in sign["results"]]
    compiled = CompiledProgram(sign["name"], params, result_types, buffers, steps, results,
                               constants, native, workspace, symbol if ENTRY_ABI else None)
    compiled.text, compiled.llvm_ir = text, llvm_ir
    return compiled


class Packed:
    """Text as a disk entry stores it: zlib-compressed, in base64, unpacked when first read.
    An entry holds its program's LLVM IR for inspection only: as plain text (143 KB for W1's
    kernel, 13 KB packed), checking and decoding W1's two entries took 1.0 ms of CPU of its
    warm first call, packed 0.55."""

    def __init__(self, packed: str):
        self.packed = packed

    @classmethod
    def of(cls, text: str) -> Packed:
        import zlib  # a compile's, not a warm start's
        return cls(base64.b64encode(zlib.compress(text.encode(), 1)).decode())

    def text(self) -> str:
        import zlib
        return zlib.decompress(base64.b64decode(self.packed)).decode()


def entry_symbol(name: str) -> str:
    """The name of the native entry point of function `name`'s program (when its steps are
    enterable)."""
    return re.sub(r"\W+", "_", name) + "_entry"  # the tracer's pattern: compiled already


def encode(buffers, steps, results, constants, workspace, text) -> dict | None:
    """The plan as JSON data, or None when a step or a constant is not plain data."""
    if any(type(s).__name__ not in PLAIN_STEPS for s in steps) or \
            sum(c.nbytes for c in constants) > PLAN_CONSTANT_BYTES or \
            any(c.dtype.metadata is not None or c.dtype.kind not in "biufc" for c in constants):
        return None
    return {"buffers": [[b.id, b.dtype.name, b.size, b.kind, b.index, b.offset]
                        for b in buffers],
            "steps": [[type(s).__name__] + [_encode(v) for v in s._values()] for s in steps],
            "results": list(results), "workspace": workspace, "text": text,
            "constants": [[c.dtype.str, list(c.shape), base64.b64encode(c.tobytes()).decode()]
                          for c in constants]}


def decode(plan: dict) -> tuple:
    """(buffers, steps, results, constants, workspace, text) of an encoded plan."""
    buffers = [Buffer(i, _DTYPES[dtype], size, kind, index, offset)
               for i, dtype, size, kind, index, offset in plan["buffers"]]
    steps = [PLAIN_STEPS[name](*map(_decode, values)) for name, *values in plan["steps"]]
    constants = [np.frombuffer(base64.b64decode(data), np.dtype(dtype)).reshape(shape).copy()
                 for dtype, shape, data in plan["constants"]]
    return (buffers, steps, list(plan["results"]), constants, int(plan["workspace"]),
            str(plan["text"]))


def _encode(value):
    if isinstance(value, Operand):
        return {"operand": [value.buffer, list(value.shape), list(value.strides), value.offset]}
    if isinstance(value, frozenset):
        return {"set": sorted(value)}
    if type(value).__name__ in PLAIN_STEPS:  # a product's tail
        return {"step": [type(value).__name__] + [_encode(v) for v in value._values()]}
    return value


def _decode(value):
    if isinstance(value, dict) and "operand" in value:
        buffer, shape, strides, offset = value["operand"]
        return Operand(buffer, tuple(shape), tuple(strides), offset)
    if isinstance(value, dict) and "step" in value:
        name, *values = value["step"]
        return PLAIN_STEPS[name](*map(_decode, values))
    if isinstance(value, dict):
        return frozenset(value["set"])
    return value
