"""Code size grows linearly with program length: the kernel bodies and the LLVM instructions
emitted per program op stay flat from 1,000 to 4,000 ops. Counts, not times, so a slow or busy
machine cannot fail it; compile time follows them (benchmarks/program_length.py)."""
import numpy as np
import pytest

import gradjit
from gradjit.codegen.cpu import emit_module
from gradjit.codegen.fuse import fuse
from gradjit.codegen.inplace import store_in_place
from gradjit.codegen.machine import host
from gradjit.codegen.rows import KernelGroup, group_rows
from gradjit.fuzz.surfaces import long_program
from gradjit.ir.passes import optimize

LENGTHS = (1_000, 4_000)
# Growth allowed per op over a 4x longer program. Before fusion bounded how many kernels
# recompute a value, long_program grew 1.34x in instructions and 1.40x in kernel bodies.
SLACK = 1.15


def code_size(fn) -> tuple[int, int]:
    """(instructions in the fused kernels' bodies, LLVM instructions emitted for them)."""
    program = group_rows(store_in_place(fuse(fn)))
    groups = [s for s in program.steps if isinstance(s, KernelGroup)]
    module = emit_module(fn.name, program.kernels, host().vector_bytes, groups)
    body = sum(len(k.body) for k in program.kernels)
    return body, sum(len(block.instructions) for f in module.functions for block in f.blocks)


def random_chain(n: int):
    """Deep and wide: each op reads the previous value and one drawn from all before it."""
    return optimize(long_program(np.random.default_rng(0), n))


def euler_solver_gradient(n: int):
    """The gradient of n // 7 Euler steps with a sine and an exponential each, traced and
    optimized (the interpreter runs the call: LLVM compiles nothing here)."""
    def loss(x):
        for _ in range(n // 7):
            x = x + 0.01 * np.sin(x) * np.exp(-x * x)
        return (x * x).sum()
    return gradjit.grad(loss, backend="interpreter").ir(np.ones(8, np.float32))


@pytest.mark.parametrize("program", [random_chain, euler_solver_gradient])
def test_code_per_op_does_not_grow_with_length(program):
    short, long = (program(n) for n in LENGTHS)
    (body_short, llvm_short), (body_long, llvm_long) = code_size(short), code_size(long)
    ratio = len(long.ops) / len(short.ops)
    assert ratio > 3.5  # the programs really are 4x apart
    assert body_long / ratio <= SLACK * body_short
    assert llvm_long / ratio <= SLACK * llvm_short
