"""The host CPU as an LLVM target: its target machine, the optimization pipeline, and LLVM IR
text turned into object code. LLVM loads on the first compile: a program from the disk cache
never needs it."""
from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

# LLVM's global state (its options among it) is not safe for concurrent compiles, for
# this CPU or a GPU target
llvm_lock = threading.Lock()


@dataclass(frozen=True)
class Host:
    cpu: str
    features: str
    machine: object
    quick: object  # the same target with LLVM's fast instruction selection and allocation

    @property
    def vector_bytes(self) -> int:
        """The widest vector register the kernels use."""
        if "+avx512f" in self.features:
            return 64
        return 32 if "+avx2" in self.features else 16


@functools.cache
def host() -> Host:
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    cpu, features = llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
    target = llvm.Target.from_default_triple()
    machine, quick = (target.create_target_machine(cpu=cpu, features=features, opt=level,
                                                   reloc="pic", codemodel="jitdefault")
                      for level in (3, 0))
    return Host(cpu, features, machine, quick)


def compile_ir(text: str, quick: bool = False) -> bytes:
    """Verify, optimize and emit object code; `quick`: with code generation at LLVM's level 0
    (fast instruction selection and register allocation, no machine passes), a third to a
    quarter of the time for code that runs about half a microsecond slower a thousand
    elements.

    The kernels are emitted as vector code with their loop invariants hoisted, so what they
    need from LLVM is the math library inlined, instructions combined, the control flow
    cleaned up and redundant values removed. O3's other passes (vectorizers, unrolling, loop
    transformations) tripled the compile time of the benchmark workloads and made none of
    their kernels faster, measured side by side. Code generation runs without loop strength
    reduction: the kernels index their arrays off one induction variable, which x86 addressing
    modes take as they are, so it made none faster (W1, W2, W4, W4i, W11 side by side) while
    it took a sixth of LLVM's time (W4 31 -> 25 ms, W4i 50 -> 38). The switch is LLVM's process-wide
    option, so it is set for this compile alone and cleared for other users of llvmlite."""
    import llvmlite.binding as llvm
    target = host().quick if quick else host().machine
    with llvm_lock:
        module = llvm.parse_assembly(text)
        module.triple = llvm.get_process_triple()
        module.data_layout = str(target.target_data)
        module.verify()
        builder = llvm.create_pass_builder(target, llvm.create_pipeline_tuning_options(0))
        passes = llvm.ModulePassManager()
        passes.add_always_inliner_pass()
        passes.add_post_order_function_attributes_pass()  # nounwind: no unwind tables
        passes.add_instruction_combine_pass()
        passes.add_simplify_cfg_pass()
        passes.add_new_gvn_pass()
        passes.add_instruction_combine_pass()
        passes.add_dead_code_elimination_pass()
        passes.run(module, builder)
        llvm.set_option("", "--disable-lsr")
        try:
            return target.emit_object(module)
        finally:
            llvm.set_option("", "--disable-lsr=false")
