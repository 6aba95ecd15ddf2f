"""Results computed in place: a temporary that a kernel reads only to store its result at the
same element (a softmax's stored exp, turned into its gradient) is that result's memory from
the start, so the program writes one full-size array where it wrote two."""
from __future__ import annotations

from dataclasses import replace

from gradjit.codegen.kernel import Kernel, Program


def store_into_results(program: Program) -> Program:
    """`program` with each such temporary replaced by the result it becomes."""
    steps = program.steps
    for position, kernel in enumerate(steps):
        if not isinstance(kernel, Kernel):
            continue
        for out in kernel.outputs:
            temp = _temp_read_in_place(program, kernel, out)
            if temp is not None and _only_before(steps, position, temp, out.access):
                _rename(steps[:position + 1], temp, out.access.buffer)
    return program


def _same_place(a, b) -> bool:
    return (a.strides, a.offset, a.chunk_stride, a.index, b.index) == (
        b.strides, b.offset, b.chunk_stride, None, None)


def _temp_read_in_place(program, kernel, out):
    """The temporary `kernel` loads at the element where it stores the result `out`."""
    result = program.buffers[out.access.buffer]
    if out.kind != "store" or result.kind != "result":
        return None
    for instr in kernel.body:
        source = program.buffers[instr.attrs.buffer] if instr.op == "load" else None
        if (source is not None and source.kind == "temp" and source.dtype == result.dtype
                and source.size == result.size and _same_place(instr.attrs, out.access)):
            return source.id
    return None


def _only_before(steps, position, temp, access) -> bool:
    """Whether the temporary is touched only by kernels up to `position`, over its domain and
    at the result's elements (stored, not accumulated), and the result by no step before."""
    domain = steps[position].extents
    for k, step in enumerate(steps):
        touched = step.buffers()
        if k < position and access.buffer in touched:
            return False
        if temp not in touched:
            continue
        if k > position or not isinstance(step, Kernel) or step.extents != domain:
            return False
        loads = [i.attrs for i in step.body if i.op == "load" and i.attrs.buffer == temp]
        stores = [o for o in step.outputs if o.access.buffer == temp]
        if any(o.kind != "store" for o in stores) or not all(
                _same_place(a, access) for a in loads + [o.access for o in stores]):
            return False
    return True


def _rename(steps, old: int, new: int) -> None:
    def moved(access):
        return replace(access, buffer=new) if access.buffer == old else access
    for step in steps:
        if isinstance(step, Kernel):
            step.body = [replace(i, attrs=moved(i.attrs)) if i.op == "load" else i
                         for i in step.body]
            step.outputs = [replace(o, access=moved(o.access)) for o in step.outputs]
