"""Values computed in place: a temporary that a kernel reads only to store a value at the same
element (a softmax's stored exp turned into its gradient, a product's output turned into its
tanh) is that value's memory from the start, so the program writes one full-size array where
it wrote two."""
from __future__ import annotations

from dataclasses import replace

from gradjit.codegen.kernel import Kernel, Program
from gradjit.runtime.steps import Matmul


def store_in_place(program: Program) -> Program:
    """`program` with each such temporary replaced by the result or temporary it becomes."""
    steps = program.steps
    for position, kernel in enumerate(steps):
        if not isinstance(kernel, Kernel):
            continue
        for out in kernel.outputs:
            for temp in _temps_read_in_place(program, kernel, out):
                if _only_before(steps, position, temp, out.access):
                    _rename(steps, position, temp, out.access.buffer)
                    break
    return program


def _same_place(a, b) -> bool:
    return (a.strides, a.offset, a.chunk_stride, a.index, b.index) == (
        b.strides, b.offset, b.chunk_stride, None, None)


def _temps_read_in_place(program, kernel, out):
    """The temporaries `kernel` loads at the element where it stores `out` (a result or a
    temporary), in the order it loads them."""
    target = program.buffers[out.access.buffer]
    if out.kind != "store" or target.kind not in ("result", "temp") or any(
            stride == 0 and extent > 1 for stride, extent in zip(out.access.strides,
                                                                 kernel.extents)):
        return  # an element stored at several loop indices would be read after its store
    for instr in kernel.body:
        source = program.buffers[instr.attrs.buffer] if instr.op == "load" else None
        if (source is not None and source.kind == "temp" and source is not target
                and source.dtype == target.dtype and source.size == target.size
                and _same_place(instr.attrs, out.access)):
            yield source.id


def _only_before(steps, position, temp, access) -> bool:
    """Whether the temporary is touched only up to `position`, by kernels over its domain at
    the target's elements (stored, not accumulated, and before `position`) or by matrix
    products (which read it or write all of it), and the target by no step before."""
    domain = steps[position].extents
    for k, step in enumerate(steps):
        touched = step.buffers()
        if k < position and access.buffer in touched:
            return False
        if temp not in touched:
            continue
        if k < position and isinstance(step, Matmul):
            continue
        if k > position or not isinstance(step, Kernel) or step.extents != domain:
            return False
        loads = [i.attrs for i in step.body if i.op == "load" and i.attrs.buffer == temp]
        stores = [o for o in step.outputs if o.access.buffer == temp]
        if k == position and stores:  # it would store two values at one element
            return False
        if any(o.kind != "store" for o in stores) or not all(
                _same_place(a, access) for a in loads + [o.access for o in stores]):
            return False
    return True


def _rename(steps, position: int, old: int, new: int) -> None:
    """Buffer `old` becomes `new` in the steps up to `position`."""
    def moved(access):
        return replace(access, buffer=new) if access.buffer == old else access
    for k, step in enumerate(steps[:position + 1]):
        if isinstance(step, Kernel):
            step.body = [replace(i, attrs=moved(i.attrs)) if i.op == "load" else i
                         for i in step.body]
            step.outputs = [replace(o, access=moved(o.access)) for o in step.outputs]
        elif isinstance(step, Matmul) and old in step.buffers():
            a, b = (o.replace(buffer=new) if o.buffer == old else o for o in (step.a, step.b))
            steps[k] = step.replace(a=a, b=b, out=new if step.out == old else step.out)
