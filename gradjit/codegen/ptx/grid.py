"""A GPU kernel as per-thread phases and the block program that runs them.

The phases are the kernel's code, emitted once per build and identical in both. On NVPTX
every thread of a block runs each phase and then waits at a barrier; on the host (the grid
emulator) a loop over the block's threads runs each phase in turn, which gives exactly the
barrier's guarantee: no thread starts a phase before every thread has finished the last.
Values a thread keeps across a barrier live in its private slots; blocks share `shared`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from llvmlite import ir

from gradjit.codegen.body import I32, I64
from gradjit.codegen.cpu import PTR, loop

# A host driver's argument block: [grid size, block size, buffer pointers...] (8 bytes each).
HOST_HEADER = 2


@dataclass(eq=False)
class GridKernel:
    """One kernel launch: `structure(driver)` emits the block program; `buffers` are the
    program's buffer ids in parameter order. The launch shape is fixed at compile time from
    the problem size; the code is correct for any grid size (grid-stride loops), and for
    the block size it names (reductions walk a tree of `block` leaves)."""

    name: str
    buffers: tuple[int, ...]
    grid: int
    block: int
    structure: Callable
    shared: int = 0
    private: tuple = ()


def private_type(kernel: GridKernel) -> ir.Type:
    """A thread's private values as a struct (one byte when it keeps none: allocas need a
    size)."""
    return ir.LiteralStructType(kernel.private or (ir.IntType(8),))


class Thread:
    """What a phase sees: its builder, the buffers' pointers, shared and private memory, its
    indices (i64), and the uniform values its driver passed."""

    def __init__(self, builder: ir.IRBuilder, fn: ir.Function, kernel: GridKernel):
        self.b = builder
        table, self.shared, self.private = fn.args[:3]
        self.tid, self.ntid, self.ctaid, self.nctaid = fn.args[3:7]
        self.uniform = fn.args[7:]
        self._table, self._slots = table, {buf: n for n, buf in enumerate(kernel.buffers)}
        self._private_type = private_type(kernel)

    def buffer(self, buffer_id: int) -> ir.Value:
        slot = self.b.gep(self._table, [I64(self._slots[buffer_id])], source_etype=PTR)
        return self.b.load(slot, typ=PTR)

    def slot(self, n: int) -> ir.Value:
        """Pointer to this thread's private value n."""
        return self.b.gep(self.private, [I32(0), I32(n)], source_etype=self._private_type)

    def shared_at(self, byte_offset: int) -> ir.Value:
        return self.b.gep(self.shared, [I64(byte_offset)], source_etype=ir.IntType(8))


class Driver:
    """Emits the block program. `ctaid`, `nctaid` are i64; `threads(phase, *uniform)` runs a
    phase on every thread of the block, then a barrier unless `sync` is False; `loop` is a
    uniform loop (the same trip count in every thread of a block)."""

    def __init__(self, module: ir.Module, kernel: GridKernel, nvptx: bool):
        self.module, self.kernel, self.nvptx = module, kernel, nvptx
        self.phases = 0
        self.private_type = private_type(kernel)
        if nvptx:
            params = [PTR] * len(kernel.buffers)
            self.fn = ir.Function(module, ir.FunctionType(ir.VoidType(), params), kernel.name)
            self.fn.calling_convention = "ptx_kernel"
            self.b = ir.IRBuilder(self.fn.append_basic_block("entry"))
            self.table = self.b.alloca(ir.ArrayType(PTR, max(len(params), 1)))
            for n, arg in enumerate(self.fn.args):
                self.b.store(arg, self.b.gep(self.table, [I32(0), I32(n)]))
            self.tid, self.ntid, self.ctaid, self.nctaid = (
                self.b.zext(self._sreg(name), I64) for name in ("tid", "ntid", "ctaid", "nctaid"))
            self.shared = self._shared_memory()
            self.private = self.b.alloca(self.private_type)
            kernel.structure(self)
        else:
            self.fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [I64, I64, PTR]),
                                  kernel.name)
            self.b = ir.IRBuilder(self.fn.append_basic_block("entry"))
            lo, hi, args = self.fn.args
            self.nctaid, self.ntid = (self.b.load(self.b.gep(args, [I64(n)], source_etype=I64),
                                                  typ=I64) for n in (0, 1))
            self.table = self.b.gep(args, [I64(HOST_HEADER)], source_etype=I64)
            self.shared = self.b.alloca(ir.IntType(8), max(kernel.shared, 1))
            self.shared.align = 16
            self.private = self.b.alloca(self.private_type, self.ntid)
            loop(self.b, lo, hi, 1, [], lambda ctaid, carried: self._block(ctaid) or [])
        self.b.ret_void()

    def _block(self, ctaid):
        self.ctaid = ctaid
        self.kernel.structure(self)

    def _sreg(self, name):
        full = f"llvm.nvvm.read.ptx.sreg.{name}.x"
        fn = self.module.globals.get(full) or ir.Function(self.module,
                                                          ir.FunctionType(I32, []), full)
        return self.b.call(fn, [])

    def _shared_memory(self):
        array = ir.ArrayType(ir.IntType(8), max(self.kernel.shared, 1))
        memory = ir.GlobalVariable(self.module, array, f"{self.kernel.name}_shared",
                                   addrspace=3)
        memory.linkage, memory.align = "internal", 16
        memory.initializer = ir.Constant(array, ir.Undefined)
        return self.b.addrspacecast(memory, PTR)

    def loop(self, start, stop, step, body):
        loop(self.b, _i64(start), _i64(stop), _i64(step), [],
             lambda i, carried: body(i) or [])

    def threads(self, emit: Callable[[Thread], None], *uniform, sync=True):
        phase = self._phase(emit, len(uniform))
        args = lambda tid, private: [self.table, self.shared, private, tid, self.ntid,
                                     self.ctaid, self.nctaid, *map(_i64, uniform)]
        if self.nvptx:
            self.b.call(phase, args(self.tid, self.private))
            if sync:
                barrier = self.module.globals.get("llvm.nvvm.barrier0") or ir.Function(
                    self.module, ir.FunctionType(ir.VoidType(), []), "llvm.nvvm.barrier0")
                self.b.call(barrier, [])
        else:
            def run(tid, carried):
                self.b.call(phase, args(tid, self.b.gep(self.private, [tid],
                                                        source_etype=self.private_type)))
                return []
            loop(self.b, I64(0), self.ntid, 1, [], run)

    def _phase(self, emit, n_uniform) -> ir.Function:
        fn = ir.Function(self.module, ir.FunctionType(
            ir.VoidType(), [PTR, PTR, PTR] + [I64] * (4 + n_uniform)),
            f"{self.kernel.name}_phase{self.phases}")
        self.phases += 1
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")
        fn.attributes.add("nounwind")
        builder = ir.IRBuilder(fn.append_basic_block("entry"))
        emit(Thread(builder, fn, self.kernel))
        builder.ret_void()
        return fn


def _i64(value):
    return value if isinstance(value, ir.Value) else I64(value)


def emit_module(name: str, kernels, nvptx: bool) -> ir.Module:
    """One module holding `kernels`: NVPTX entry points, or host drivers for the emulator."""
    module = ir.Module(name=name)
    for kernel in kernels:
        Driver(module, kernel, nvptx)
    return module
