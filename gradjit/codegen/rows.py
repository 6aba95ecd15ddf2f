"""Row groups: consecutive kernels over the same rows, each touching only the rows of what the
others write, run chunk by chunk (all of them on one chunk, then the next), so the data of a
chunk is still in cache when the next kernel reads it: a softmax reads its input from memory
once instead of once per pass."""
from __future__ import annotations

from dataclasses import dataclass, replace

from gradjit.codegen.kernel import REDUCE_KINDS, Kernel, Program
from gradjit.codegen.schedule import combine_kernel


@dataclass(eq=False)
class KernelGroup:
    """Kernels run together over each chunk of their common outermost loop, in order."""

    name: str
    kernels: list[Kernel]
    chunk_rows: int
    n_chunks: int

    def buffers(self) -> set[int]:
        return set().union(*(k.buffers() for k in self.kernels))

    def __str__(self) -> str:
        inner = "\n".join("  " + line for k in self.kernels for line in str(k).splitlines())
        return f"group @{self.name} chunks={self.n_chunks}x{self.chunk_rows} {{\n{inner}\n}}"


def group_rows(program: Program) -> Program:
    """`program` with its runs of row-compatible kernels replaced by KernelGroups."""
    steps, run = [], []
    for step in _lift_joinable(_sink_unchunkable(program.steps)) + [None]:
        if isinstance(step, Kernel) and run and _joins(run, step):
            run.append(step)
            continue
        steps.extend(_close(run))
        run = [step] if isinstance(step, Kernel) else []
        if step is not None and not run:
            steps.append(step)
    return _resize_partials(Program(program.name, program.param_types, program.buffers, steps,
                                    program.results, program.constants))


def _resize_partials(program: Program) -> Program:
    """A group's chunks are its own (see _close): a reduction over them keeps a partial per
    group chunk, so its partials buffer and the kernel that folds them follow that count."""
    counts = {}  # partials buffer -> (chunks, elements per chunk)
    for group in program.steps:
        for k in getattr(group, "kernels", ()):
            for out in k.outputs:
                if out.access.chunk_stride:
                    counts[out.access.buffer] = (group.n_chunks, out.access.chunk_stride)
    buffers = [b.replace(size=counts[b.id][0] * counts[b.id][1]) if b.id in counts else b
               for b in program.buffers]
    steps = [_refolded(s, counts) for s in program.steps]
    return Program(program.name, program.param_types, buffers, steps, program.results,
                   program.constants)


def _refolded(step, counts):
    if not isinstance(step, Kernel) or len(step.body) != 1 or step.body[0].op != "load" or \
            step.body[0].attrs.buffer not in counts:
        return step
    partial = step.body[0].attrs.buffer
    return combine_kernel(step.name, partial, step.outputs[0], *counts[partial])


def _sink_unchunkable(steps: list) -> list:
    """Each kernel that cannot run chunk by chunk (a sum over its outermost loop, a scatter)
    moves after the chunkable kernels that follow it and touch nothing it writes (and write
    nothing it reads), so that they can join the row group it would otherwise cut in two (a
    loss's sum between a softmax and its gradient)."""
    out = list(steps)
    for i in range(len(out) - 1, -1, -1):
        blocker = out[i]
        if not isinstance(blocker, Kernel) or _rechunkable(blocker):
            continue
        j = i
        while j + 1 < len(out) and isinstance(out[j + 1], Kernel) and _rechunkable(
                out[j + 1]) and _independent(blocker, out[j + 1]):
            out[j], out[j + 1] = out[j + 1], out[j]
            j += 1
    return out


def _lift_joinable(steps: list) -> list:
    """Each chunkable kernel that kernels it cannot join and does not depend on separate from
    one over its rows moves up to it (a gradient's last pass over the rows, behind the loss's
    sum and its scaling)."""
    out = list(steps)
    for i, k in enumerate(out):
        if not isinstance(k, Kernel) or not _rechunkable(k) or not k.extents:
            continue
        j = i
        while j > max(0, i - MAX_RUN) and isinstance(out[j - 1], Kernel) and not _mates(
                out[j - 1], k) and _independent(out[j - 1], k):
            j -= 1
        if j < i and isinstance(out[j - 1], Kernel) and _mates(out[j - 1], k):
            out.insert(j, out.pop(i))
    return out


def _mates(a: Kernel, b: Kernel) -> bool:
    return bool(a.extents) and a.extents[0] == b.extents[0] and _rechunkable(a)


def _independent(a: Kernel, b: Kernel) -> bool:
    def reads(k):
        return {i.attrs.buffer for i in k.body if i.op == "load"}

    def writes(k):
        return {o.access.buffer for o in k.outputs}
    return not writes(a) & (reads(b) | writes(b)) and not writes(b) & reads(a)


def _close(run: list[Kernel]) -> list:
    chunked = [k for k in run if k.n_chunks > 1]
    if len(run) < 2 or not chunked:
        return run
    rows = max(1, min([k.chunk_rows for k in chunked] + [CHUNK_BYTES // _row_bytes(run)]))
    count = -(-run[0].extents[0] // rows)
    kernels = [replace(k, chunk_rows=rows, n_chunks=count) for k in run]
    return [KernelGroup(f"{run[0].name}_rows", kernels, rows, count)]


# The bytes a group's chunk may touch: what one kernel leaves must still be in the core's own
# cache (L2: 512 KB to 2 MB) when the next reads it. A softmax gradient over rows of 1000
# floats ran 10% faster in chunks of 32 rows than of 128, and 4% faster than of 16 (fewer
# chunks, less per-chunk work).
CHUNK_BYTES = 1 << 18


def _accesses(k: Kernel) -> list:
    """(access, itemsize) of every load and output of `k`."""
    return [(i.attrs, i.dtype.numpy.itemsize) for i in k.body if i.op == "load"] + [
        (o.access, o.dtype.numpy.itemsize) for o in k.outputs]


def _row_bytes(run: list[Kernel]) -> int:
    """Bytes that one index of the outermost loop reaches in the buffers of `run`."""
    widest = {}
    for k in run:
        for access, size in _accesses(k):
            step = abs(access.strides[0]) * size
            widest[access.buffer] = max(widest.get(access.buffer, 0), step)
    return max(1, sum(widest.values()))


# A chunk's data stays in cache across a few kernels, not hundreds; a bounded run also keeps
# the check of each joining kernel against the whole run from growing with the program.
MAX_RUN = 32


def _joins(run: list[Kernel], k: Kernel) -> bool:
    """Whether `k` can run chunk by chunk after the kernels of `run`."""
    first = run[0]
    if len(run) >= MAX_RUN or len(k.extents) < 1 or k.extents[0] != first.extents[0] or \
            first.extents[0] < 2:
        return False
    if any(not _rechunkable(j) for j in run + [k] if j.n_chunks == 1):
        return False
    return _row_local(run + [k])


def _rechunkable(k: Kernel) -> bool:
    """An unchunked kernel may be cut into chunks unless chunks would share a slot (a sum
    over the outermost loop) or its order matters (a scatter)."""
    return all(o.kind == "store" or o.kind in REDUCE_KINDS.values() and o.access.strides[0]
               for o in k.outputs)


def _row_local(kernels: list[Kernel]) -> bool:
    """Every buffer that one kernel writes and another touches is laid out by row: each
    access reaches, at outermost index r, only elements [r*s, (r+1)*s) for one row size s."""
    accesses, writers = {}, {}
    for n, k in enumerate(kernels):
        for access in [i.attrs for i in k.body if i.op == "load"]:
            accesses.setdefault(access.buffer, []).append((n, k, access))
        for out in k.outputs:
            accesses.setdefault(out.access.buffer, []).append((n, k, out.access))
            writers.setdefault(out.access.buffer, set()).add(n)
    for buffer, users in accesses.items():
        if buffer not in writers or len({n for n, _, _ in users}) < 2:
            continue
        rows = {a.strides[0] for _, _, a in users}
        if len(rows) != 1 or not all(_within_row(k, a) for _, k, a in users):
            return False
    return True


def _within_row(k: Kernel, access) -> bool:
    row = access.strides[0]
    if access.index is not None or access.chunk_stride or row <= 0:
        return False
    spans = [s * (n - 1) for s, n in zip(access.strides[1:], k.extents[1:])]
    low = access.offset + sum(min(0, s) for s in spans)
    high = access.offset + sum(max(0, s) for s in spans)
    return low >= 0 and high < row
