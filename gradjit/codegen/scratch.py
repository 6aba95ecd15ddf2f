"""Row groups' memory traffic cut to what they must read and write: a temporary that only one
group touches, a row at a time, lives in a per-chunk scratch that stays in cache; a result
that a group writes once streams to memory without being read into the cache first."""
from __future__ import annotations

from dataclasses import replace

from gradjit.codegen.kernel import Program
from gradjit.codegen.rows import CHUNK_BYTES, KernelGroup, accesses, within_row


def contract_temporaries(program: Program, streaming: bool = True) -> Program:
    """`program` with each group's own temporaries turned into scratch (KernelGroup.scratch)
    and, where `streaming` (the target has non-temporal stores), each result written once
    by a group streamed (Kernel.streamed)."""
    buffers = list(program.buffers)
    steps = []
    for position, step in enumerate(program.steps):
        if isinstance(step, KernelGroup):
            others = set().union(*(s.buffers() for n, s in enumerate(program.steps)
                                   if n != position))
            scratch = _scratch(step, buffers, others)
            for b, row_bytes in scratch.items():
                size = step.chunk_rows * row_bytes // buffers[b].dtype.numpy.itemsize
                buffers[b] = replace(buffers[b], size=size)
            kernels = _streamed(step.kernels, buffers) if streaming else step.kernels
            step = replace(step, kernels=kernels, scratch=scratch)
        steps.append(step)
    return Program(program.name, program.param_types, buffers, steps, program.results,
                   program.constants)


def _scratch(group: KernelGroup, buffers, others) -> dict[int, int]:
    """Temporaries of `group` alone, each reached by every access a row at a time: buffer ->
    bytes per row; none where a chunk of them would not fit in CHUNK_BYTES (the stack)."""
    rows = {}
    for k in group.kernels:
        for access, size in accesses(k):
            fits = buffers[access.buffer].kind == "temp" and within_row(k, access)
            rows.setdefault(access.buffer, set()).add(access.strides[0] * size if fits else None)
    held = {b: strides.pop() for b, strides in rows.items()
            if b not in others and len(strides) == 1 and None not in strides}
    return held if group.chunk_rows * sum(held.values()) <= CHUNK_BYTES else {}


# Results at least this large stream: they leave the cache before anyone reads them anyway.
STREAM_MIN_BYTES = 1 << 24


def _streamed(kernels, buffers) -> list:
    """Each large result stored by one kernel of the group and touched by no other: its only
    write, over whole rows (contiguous), in a kernel whose every access is contiguous (so its
    loop can start at an aligned element)."""
    users = {}
    for k in kernels:
        for b in k.buffers():
            users[b] = users.get(b, 0) + 1
    out = []
    for k in kernels:
        contiguous = all(a.index is None and a.strides[-1] in (0, 1) for a, _ in accesses(k))
        streamed = frozenset(o.access.buffer for o in k.outputs
                             if contiguous and o.kind == "store" and o.access.strides[-1] == 1
                             and buffers[o.access.buffer].kind == "result"
                             and buffers[o.access.buffer].nbytes >= STREAM_MIN_BYTES
                             and users[o.access.buffer] == 1
                             and not any(i.op == "load" and i.attrs.buffer == o.access.buffer
                                         for i in k.body))
        out.append(replace(k, streamed=streamed) if streamed else k)
    return out
