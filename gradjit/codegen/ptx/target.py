"""The two builds of a GPU module: NVPTX (PTX text for sm_70 and newer, PTX ISA 7.0) and the
host (object code for the grid emulator). NVPTX aborts the process on an intrinsic it cannot
select, so every module is checked against the intrinsics known to lower before LLVM sees it."""
from __future__ import annotations

import functools
import re

import llvmlite.binding as llvm

from gradjit.codegen.machine import host, llvm_lock

TRIPLE = "nvptx64-nvidia-cuda"
# The oldest GPU the PTX runs on (Volta) and the PTX ISA it is written in (CUDA 11.0 and
# newer drivers JIT it for any later GPU).
SM = "sm_70"
PTX_ISA = "7.0"

# Intrinsics that NVPTX selects for f32/f64 (and the conversions' integer types): what the
# body lowerings and the math library use. Anything else is refused before LLVM sees it
# (llvm.exp, llvm.log, llvm.sin... have no NVPTX lowering and would abort the process).
ALLOWED = re.compile(
    r"llvm\.(?:(?:fma|fabs|sqrt|trunc|floor|ceil|roundeven|copysign)\.f(?:32|64)"
    r"|fptosi\.sat\.i(?:32|64)\.f(?:32|64)"
    r"|nvvm\.read\.ptx\.sreg\.(?:tid|ntid|ctaid|nctaid)\.x|nvvm\.barrier0)")
_DECLARED = re.compile(r"^declare [^@]*@\"?([\w.$]+)\"?\(", re.MULTILINE)


class UnsupportedIntrinsic(RuntimeError):
    """An intrinsic the NVPTX backend cannot select reached the GPU code generator."""


def check_intrinsics(text: str) -> None:
    """Refuse a module that declares an intrinsic outside ALLOWED (and any other external
    function: GPU code has no library to call)."""
    bad = sorted(name for name in _DECLARED.findall(text) if not ALLOWED.fullmatch(name))
    if bad:
        raise UnsupportedIntrinsic(
            f"the GPU code would call {', '.join(bad)}, which the NVPTX backend cannot lower "
            "(LLVM would abort the process); this is a gradjit bug: lower it without that call")


@functools.cache
def nvptx_machine():
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    features = "+ptx" + PTX_ISA.replace(".", "")
    return llvm.Target.from_triple(TRIPLE).create_target_machine(cpu=SM, features=features,
                                                                 opt=3)


def _optimize(module, machine, speed: int):
    options = llvm.create_pipeline_tuning_options(speed_level=speed)
    builder = llvm.create_pass_builder(machine, options)
    builder.getModulePassManager().run(module, builder)


def emit_ptx(text: str) -> str:
    """PTX assembly of an LLVM module written for TRIPLE."""
    check_intrinsics(text)
    machine = nvptx_machine()
    with llvm_lock:
        module = llvm.parse_assembly(text)
        module.triple = TRIPLE
        module.data_layout = str(machine.target_data)
        module.verify()
        _optimize(module, machine, 3)
        return machine.emit_assembly(module)


def compile_host(text: str) -> bytes:
    """Object code of the same module for this CPU (the grid emulator's build), generated
    without optimization: emulated kernels run small test problems, where compile time
    dominates."""
    check_intrinsics(text)
    machine = host().quick
    with llvm_lock:
        module = llvm.parse_assembly(text)
        module.triple = llvm.get_process_triple()
        module.data_layout = str(machine.target_data)
        module.verify()
        _optimize(module, machine, 0)
        return machine.emit_object(module)
