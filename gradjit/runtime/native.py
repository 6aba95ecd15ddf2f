"""Object code loaded into this process (by gradjit's loader, else LLVM's MCJIT): its kernels
as ctypes functions and its entry points as Python builtins."""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from gradjit.runtime import loader
from gradjit.runtime.objfile import Refused

KERNEL = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p)
_lock = threading.Lock()
METH_FASTCALL = 0x80


class _MethodDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("meth", ctypes.c_void_p), ("flags", ctypes.c_int),
                ("doc", ctypes.c_char_p)]


# Every entry point's method definition, kept for the life of the process: a builtin reads
# its definition when it is freed, and a cycle holding both (a cached program) may be cleared
# in any order (interpreter exit frees them together), so no owner may free one first.
_DEFINITIONS: list = []

_new_builtin = ctypes.pythonapi.PyCFunction_NewEx
_new_builtin.restype = ctypes.py_object
_new_builtin.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.py_object]
INCREF = ctypes.cast(ctypes.pythonapi.Py_IncRef, ctypes.c_void_p).value


# Byte offsets of the fields of a numpy array object that entry points read: its type, data
# pointer, number of dimensions (int), shape pointer, dtype and flags (int).
ARRAY_FIELDS = {"type": 8, "data": 16, "ndim": 24, "shape": 32, "descr": 56, "flags": 64}
C_CONTIGUOUS = 1  # numpy's NPY_ARRAY_C_CONTIGUOUS flag


def _array_fields_hold() -> bool:
    """Whether numpy arrays keep those fields where entry points read them (checked on live
    arrays, views and strided ones included)."""
    pointer, integer = ctypes.c_void_p.from_address, ctypes.c_int.from_address
    probes = [np.empty(n, np.float32) for n in (1, 100, 100000)] + [np.ones(7)[2:],
                                                                   np.ones((3, 4))[:, ::2]]

    def at(a, field):
        return id(a) + ARRAY_FIELDS[field]
    return all(pointer(at(a, "type")).value == id(np.ndarray)
               and pointer(at(a, "data")).value == a.ctypes.data
               and integer(at(a, "ndim")).value == a.ndim
               and tuple((ctypes.c_int64 * a.ndim).from_address(
                   pointer(at(a, "shape")).value)) == a.shape
               and pointer(at(a, "descr")).value == id(a.dtype)
               and bool(integer(at(a, "flags")).value & C_CONTIGUOUS) == a.flags.c_contiguous
               for a in probes)


ENTRY_ABI = _array_fields_hold()


def _machine(llvm):
    """A new target machine each time: an execution engine owns (and frees) the one it gets."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
        reloc="pic", codemodel="jitdefault")


class MCJIT:
    """LLVM's loader, for object code gradjit's own refuses (another architecture's; the grid
    emulator's unoptimized builds, which carry unwind tables), which only a fresh compile
    makes since the disk cache keeps none, or whose pages the system will not protect."""

    def __init__(self, object_code: bytes):
        import llvmlite.binding as llvm
        with _lock:
            self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), _machine(llvm))
            self.engine.add_object_file(llvm.ObjectFileRef.from_data(object_code))
            self.engine.finalize_object()

    def address(self, name: str) -> int:
        with _lock:
            return self.engine.get_function_address(name)


class NativeCode:
    """Keeps the loaded code alive as long as the functions taken from it."""

    def __init__(self, object_code: bytes, symbols, entries=()):
        try:
            self.engine = loader.Image(object_code)
        except (Refused, OSError):
            self.engine = MCJIT(object_code)
        addresses = {s: self.engine.address(s) for s in list(symbols) + list(entries)}
        missing = [s for s, a in addresses.items() if not a]
        if missing:
            raise RuntimeError(f"the object code lacks the kernels {missing}")
        self.functions = {s: KERNEL(addresses[s]) for s in symbols}
        self.entries = {s: addresses[s] for s in entries}

    def builtin(self, symbol: str, bound):
        """Entry point `symbol` as a Python builtin taking arrays, bound to `bound` (the
        entry's first argument, which the builtin keeps alive)."""
        if not ENTRY_ABI:
            raise RuntimeError("this numpy keeps array data elsewhere: no native entry points")
        definition = _MethodDef(symbol.encode(), self.entries[symbol], METH_FASTCALL, None)
        with _lock:
            _DEFINITIONS.append(definition)
        return _new_builtin(ctypes.addressof(definition), bound, None)
