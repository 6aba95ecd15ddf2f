"""Product tails: what reads a matrix product's output one block of rows at a time runs on each
block as soon as BLAS has written it, on the same thread, while the block is still in cache:
an elementwise kernel (tanh(x @ w1), (d @ w2.T) * (1 - h*h)), then a product of those rows
(tanh(x @ w1) @ w2) or one summing over them (x.T @ dh). No second pass over the output, and
the pool waits once."""
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
    """`product`, then on block k of its rows: chunk k of `kernel`, then `next`'s rows of
    block k (a product whose left operand is `product`'s output) or its partial product k
    (one whose right operand it is, summing over its rows); either may be None."""

    product: Matmul
    kernel: Kernel | None
    next: Matmul | None

    @property
    def kernels(self) -> list[Kernel]:
        return [self.kernel] if self.kernel else []

    def buffers(self) -> set[int]:
        return set().union(*(s.buffers() for s in (self.product, self.kernel, self.next) if s))

    def __str__(self) -> str:
        lines = [f"{self.product} then on each block of rows"]
        lines += [str(self.kernel)] if self.kernel else []
        return "\n".join(lines + ([f"then {self.next}"] if self.next else []))


def attach_tails(program: Program) -> Program:
    """`program` with each product split into blocks of rows followed by its tail: of the
    later steps, the first that touches the output, if it is a kernel that reads and writes
    the output only at the element it is at and only stores (its chunks become the product's
    blocks: a loop of stores computes the same values however it is cut); then the next that
    touches it, if it is a product of all its rows, or one summing over them in slices that
    are the blocks. Each moves ahead of the steps in between without reordering a write and a
    read of the same buffer."""
    steps = list(program.steps)
    for position, product in enumerate(steps):
        shape = product.a.shape[:-1] + product.b.shape[-1:] if isinstance(product, Matmul) \
            else None
        if shape is None or product.partials is not None or math.prod(shape[:-2]) != 1:
            continue
        rows = rows_per_block(shape, product.a.shape[-1])
        blocks = -(-shape[-2] // rows)
        if blocks < 2:
            continue
        kernel = _take(steps, position, lambda k: _elementwise_tail(k, product, shape, rows))
        if kernel is not None:
            kernel = replace(kernel, chunk_rows=rows * shape[-1] // math.prod(kernel.extents[1:]),
                             n_chunks=blocks)
        chain = [product] + ([kernel] if kernel else [])
        written = set().union(*map(_written, chain))
        touched = set().union(*(s.buffers() for s in chain))
        follower = _take(steps, position, lambda m: _follows(m, product, shape, written, touched)
                         or _slices(m, product, program.buffers, blocks, written, touched))
        if kernel or follower:
            steps[position] = ProductTail(product, kernel, follower)
    return Program(program.name, program.param_types, program.buffers, steps, program.results,
                   program.constants)


def _take(steps, position, accepts):
    """Remove and return the first step after `position` that touches the output of the
    product there, if `accepts` it and it can move ahead of the steps in between."""
    out = steps[position].out
    passed = []
    for at in range(position + 1, len(steps)):
        step = steps[at]
        if out in step.buffers():
            moves = not any(_written(step) & s.buffers() or _written(s) & step.buffers()
                            for s in passed)
            return steps.pop(at) if moves and accepts(step) else None
        if not isinstance(step, (Matmul, Kernel, KernelGroup)):
            return None
        passed.append(step)
    return None


def _elementwise_tail(kernel, product: Matmul, shape, rows: int) -> bool:
    """Whether `kernel` runs over the product's output elements in their order, in whole
    blocks of rows, reads and writes them only at the element it is at, only stores, and
    writes neither operand."""
    if not isinstance(kernel, Kernel):
        return False
    flat = contiguous(kernel.extents).strides
    accesses = [i.attrs for i in kernel.body if i.op == "load"] + [
        o.access for o in kernel.outputs]
    return (math.prod(kernel.extents) == math.prod(shape) and not kernel.prefetch
            and rows * shape[-1] % math.prod(kernel.extents[1:]) == 0
            and all(o.kind == "store" for o in kernel.outputs)
            and not _written(kernel) & {product.a.buffer, product.b.buffer}
            and all((a.strides, a.offset, a.chunk_stride, a.index) == (flat, 0, 0, None)
                    for a in accesses if a.buffer == product.out))


def _follows(step, product: Matmul, shape, written: set[int], touched: set[int]) -> bool:
    """Whether `step` is a product whose left operand is all of the product's output in its
    layout, whose right operand the tail does not write, and whose output the tail does not
    touch: its block k of rows can follow block k of the output."""
    return (isinstance(step, Matmul) and step.partials is None and step.a.buffer == product.out
            and (step.a.shape[-2:], step.a.strides[-2:], step.a.offset) == (
                shape[-2:], contiguous(shape[-2:]).strides, 0)
            and math.prod(step.a.shape[:-2]) == 1 and step.b.buffer not in written
            and step.out not in touched)


def _slices(step, product: Matmul, buffers, blocks: int, written: set[int],
            touched: set[int]) -> bool:
    """Whether `step` is a product whose right operand is all of the product's output in its
    layout and whose depth slices are its blocks of rows (runtime.blas.depth_parts), reading
    nothing else the tail writes, and writing nothing the tail touches."""
    if not isinstance(step, Matmul) or step.partials is None or step.b.buffer != product.out:
        return False
    rows, columns = product.a.shape[-2], product.b.shape[-1]
    shape = step.a.shape[:-1] + step.b.shape[-1:]
    parts = buffers[step.partials].size // math.prod(shape)
    block = -(-rows // blocks)
    return (parts == blocks and all(rows * i // parts == min(rows, block * i)
                                    for i in range(parts + 1))
            and (step.b.shape[-2:], step.b.strides[-2:], step.b.offset) == (
                (rows, columns), contiguous((rows, columns)).strides, 0)
            and math.prod(step.a.shape[:-2]) == 1 and math.prod(step.b.shape[:-2]) == 1
            and step.a.buffer not in written and not {step.out, step.partials} & touched)


def _written(step) -> set[int]:
    if isinstance(step, Matmul):
        return {step.out} | ({step.partials} if step.partials is not None else set())
    kernels = step.kernels if isinstance(step, KernelGroup) else [step]
    return {o.access.buffer for k in kernels for o in k.outputs}
