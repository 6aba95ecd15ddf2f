"""Product tails: an elementwise kernel over a matrix product's output (tanh(x @ w1), or
(d @ w2.T) * (1 - h*h)) runs on each block of the product's rows as soon as BLAS has written
it, on the same thread, while the block is still in cache: no second pass, no second wait."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from gradjit.codegen.kernel import Kernel, Program
from gradjit.codegen.rows import KernelGroup
from gradjit.codegen.views import contiguous
from gradjit.runtime.blas import rows_per_block
from gradjit.runtime.steps import Matmul


@dataclass(eq=False)
class ProductTail:
    """`product`, then chunk k of `kernel` on block k of its rows."""

    product: Matmul
    kernel: Kernel

    @property
    def kernels(self) -> list[Kernel]:
        return [self.kernel]

    def buffers(self) -> set[int]:
        return self.product.buffers() | self.kernel.buffers()

    def __str__(self) -> str:
        return f"{self.product} then on each block of rows\n{self.kernel}"


def attach_tails(program: Program) -> Program:
    """`program` with each product split into blocks of rows followed by its tail: the first
    later kernel that reads its output, if that kernel reads and writes the output only at the
    element it is at, only stores, and moves ahead of the steps in between without reordering
    a write and a read of the same buffer. The tail's chunks become the product's blocks
    (a loop of stores computes the same values however it is cut)."""
    steps = list(program.steps)
    for position, step in enumerate(steps):
        found = _tail(steps, position) if isinstance(step, Matmul) else None
        if found is not None:
            at, rows = found
            kernel = steps.pop(at)  # after `position`: the loop goes on with the next step
            chunks = -(-kernel.extents[0] // rows)
            steps[position] = ProductTail(step, replace(kernel, chunk_rows=rows,
                                                        n_chunks=chunks))
    return Program(program.name, program.param_types, program.buffers, steps, program.results,
                   program.constants)


def _tail(steps, position) -> tuple[int, int] | None:
    """(where the tail kernel is, its outermost loop's rows a block), or None."""
    product = steps[position]
    shape = product.a.shape[:-1] + product.b.shape[-1:]
    rows = rows_per_block(shape, product.a.shape[-1])
    if product.partials is not None or math.prod(shape[:-2]) != 1 or rows >= shape[-2]:
        return None
    passed = []
    for at in range(position + 1, len(steps)):
        step = steps[at]
        if isinstance(step, Kernel) and product.out in step.buffers():
            inner = math.prod(step.extents[1:])
            moves = not any(_written(step) & s.buffers() or _written(s) & step.buffers()
                            for s in passed)
            if moves and _elementwise_on(step, product, math.prod(shape)) and \
                    rows * shape[-1] % inner == 0:
                return at, rows * shape[-1] // inner
            return None
        if not isinstance(step, (Matmul, Kernel, KernelGroup)) or product.out in step.buffers():
            return None
        passed.append(step)
    return None


def _elementwise_on(kernel: Kernel, product: Matmul, size: int) -> bool:
    """Whether `kernel` runs over the product's `size` output elements in their order, reads
    and writes them only at the element it is at, only stores, and writes neither operand."""
    flat = contiguous(kernel.extents).strides
    accesses = [i.attrs for i in kernel.body if i.op == "load"] + [
        o.access for o in kernel.outputs]
    return (math.prod(kernel.extents) == size and not kernel.prefetch
            and all(o.kind == "store" for o in kernel.outputs)
            and not _written(kernel) & {product.a.buffer, product.b.buffer}
            and all((a.strides, a.offset, a.chunk_stride, a.index) == (flat, 0, 0, None)
                    for a in accesses if a.buffer == product.out))


def _written(step) -> set[int]:
    if isinstance(step, Matmul):
        return {step.out} | ({step.partials} if step.partials is not None else set())
    kernels = step.kernels if isinstance(step, KernelGroup) else [step]
    return {o.access.buffer for k in kernels for o in k.outputs}
