"""Primitives on eager CUDA tensors: each runs as a one-op IR function compiled for the target of
device 'cuda' (GPU or grid emulator), cached by primitive, params and operand types. Storage
stays in host numpy arrays, so every operation copies its operands to the device and its result
back; keeping buffers resident on the device is future work."""
from __future__ import annotations

import threading

import numpy as np

from gradjit import cuda
from gradjit.ir.core import Builder, canonical_params
from gradjit.ir.primitive import evaluate, is_python_scalar, scalar_template
from gradjit.ir.structural import broadcast_to
from gradjit.ir.types import TensorType, type_of
from gradjit.runtime.cache import LeastRecentlyUsed

# Evaluated by numpy on the host storage: views (on a GPU they change a tensor's metadata and
# launch no kernel; here they must share storage with their base, as views do) and guards
# (no result, a host-side check).
ON_HOST = frozenset({"broadcast_to", "reshape", "transpose", "slice", "guard"})

# (target, primitive name, params, operand types) -> compiled program
_programs = LeastRecentlyUsed()
_lock = threading.Lock()


def run(prim, args, params):
    """`prim` on host arrays and Python numbers, computed on device 'cuda': a new array."""
    if prim.name in ON_HOST:
        return evaluate(prim, args, params)
    arrays = [a if is_python_scalar(a) else np.asarray(a) for a in args]
    like = scalar_template(arrays)
    operands = [np.full((), a, like.dtype) if is_python_scalar(a) else a for a in arrays]
    kinds = tuple(None if is_python_scalar(a) else type_of(a) for a in arrays)
    params = canonical_params(prim, params)
    key = (cuda.target(), prim.name, tuple(params.values()), kinds)
    with _lock:
        program = _programs.get(key)
    if program is None:
        program = _compile(prim, params, kinds, type_of(like), key[0])
        with _lock:
            _programs[key] = program
    return program(*operands)[0]


def _compile(prim, params, kinds, like: TensorType, target: str):
    """The one-op function: arrays are arguments of their type; a number is a 0-d argument
    broadcast to the operand it stands next to, so its value does not key the cache."""
    from gradjit.codegen import compile_function  # LLVM is loaded by the first CUDA operation
    with Builder(prim.name) as b:
        inputs = []
        for n, kind in enumerate(kinds):
            if kind is None:
                scalar = b.param(TensorType((), like.dtype), f"s{n}")
                inputs.append(b.emit(broadcast_to, [scalar], {"shape": like.shape}))
            else:
                inputs.append(b.param(kind, f"x{n}"))
        out = b.emit(prim, inputs, params)
    return compile_function(b.build([out]), target=target)
