"""Object code loaded into this process (MCJIT) and its kernels as ctypes functions."""
from __future__ import annotations

import ctypes
import threading

import llvmlite.binding as llvm

KERNEL = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p)
_lock = threading.Lock()


def _machine():
    """A new target machine each time: an execution engine owns (and frees) the one it gets."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
        reloc="pic", codemodel="jitdefault")


class NativeCode:
    """Keeps the loaded code alive as long as the functions taken from it."""

    def __init__(self, object_code: bytes, symbols):
        with _lock:
            self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), _machine())
            self.engine.add_object_file(llvm.ObjectFileRef.from_data(object_code))
            self.engine.finalize_object()
            addresses = {s: self.engine.get_function_address(s) for s in symbols}
        missing = [s for s, a in addresses.items() if not a]
        if missing:
            raise RuntimeError(f"the object code lacks the kernels {missing}")
        self.functions = {s: KERNEL(a) for s, a in addresses.items()}
