"""Where a traced, optimized function runs: native CPU code (the default) or the reference
interpreter, chosen by name; an unavailable backend is an error, never a silent fallback."""
from __future__ import annotations

import functools

from gradjit.ir import Function, interpret
from gradjit.ir.types import COMPILED, HOSTED

DEFAULT_BACKEND = "cpu"


def _interpreter(fn: Function, deterministic: bool):
    return functools.partial(interpret, fn)


def _cpu(fn: Function, deterministic: bool):
    from gradjit.runtime.programs import lookup
    key, found = lookup(fn)  # a cached program needs neither the code generator nor LLVM
    if found is not None:
        return found
    from gradjit.codegen.compile import compile_missing
    return compile_missing(fn, key)


def _gpu(target):
    def compile_for(fn: Function, deterministic: bool):
        from gradjit.codegen import compile_function
        return compile_function(fn, target=target, deterministic=deterministic)
    return compile_for


# 'cuda' runs on an NVIDIA GPU; 'cuda-emulator' runs the same GPU kernels on the CPU. Only
# they take `deterministic`: the interpreter and the CPU code are always bitwise reproducible.
BACKENDS = {"interpreter": _interpreter, "cpu": _cpu, "cuda": _gpu("cuda"),
            "cuda-emulator": _gpu("cuda-emulator")}


def compile_program(fn: Function, backend: str | None, deterministic: bool = False):
    """A callable `program(*arrays) -> list of arrays` raising GuardFailed off the traced path;
    `deterministic` makes a GPU backend's scatter-adds run in a fixed order."""
    name = backend or DEFAULT_BACKEND
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if name != "interpreter":
        _check_lowered_dtypes(fn, name)
    return BACKENDS[name](fn, deterministic)


class UnloweredDtype(TypeError):
    """A traced function computes values of a dtype the backend has no lowering for
    (gradjit.compile runs such a call eagerly instead)."""


def _check_lowered_dtypes(fn: Function, backend: str):
    values = [*fn.params, *(op.out for op in fn.ops if op.out is not None)]
    # HOSTED values (complex, the narrow and unsigned integers) are computed by host steps
    # between kernels (codegen/fuse.py)
    narrow = sorted({v.type.dtype.torch_name for v in values} -
                    {d.torch_name for d in (*COMPILED, *HOSTED)})
    if narrow:
        raise UnloweredDtype(f"the {backend} backend does not compile {', '.join(narrow)} values "
                        f"(it lowers {', '.join(d.torch_name for d in COMPILED)}): run the "
                        "function eagerly, cast to one of those, or pass backend='interpreter'")
