"""Scheduling: a group of fused outputs over one index space becomes a Kernel, with its
loops ordered (the most contiguous axis innermost), merged where every access allows, and
cut into chunks fixed by the shape; chunked reductions get partials and a combine kernel."""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gradjit.codegen.kernel import Access, Instr, Kernel, Output
from gradjit.codegen.views import View

# Loops shorter than this run on one thread; longer ones are cut into chunks of about
# CHUNK elements (at most MAX_CHUNKS), whatever the thread count.
PARALLEL_MIN = 1 << 15
CHUNK = 1 << 16
MAX_CHUNKS = 64


@dataclass(eq=False)
class Pending:
    """An output waiting for its kernel: `node` written through `view` (over `domain`) into
    `buffer` by `kind` ('store', 'sum', 'max', 'min' or 'scatter_add'; a scatter carries
    (index node, axis stride, axis size))."""

    kind: str
    domain: tuple
    node: object
    buffer: int
    view: View
    scatter: tuple | None = None

    def extra_reads(self, fuser) -> frozenset:
        return fuser.reads(self.scatter[0]) if self.scatter else frozenset()


def build_kernels(steps, new_buffer, name: str) -> list:
    """Replace every group of pending outputs in `steps` by its kernel(s)."""
    prefix = re.sub(r"\W", "_", name)
    out = []
    for step in steps:
        if hasattr(step, "outputs") and hasattr(step, "domain"):
            out.extend(_group_kernels(step, new_buffer, f"{prefix}_k{len(out)}"))
        else:
            out.append(step)
    return out


def _nodes_in_order(roots) -> list:
    """The expression DAG under `roots`, operands before users (iteratively: chains of
    thousands of ops must not hit the recursion limit)."""
    order, seen, stack = [], set(), [(r, False) for r in reversed(roots)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((a, False) for a in reversed(node.args) if id(a) not in seen)
    return order


def fold_dag(root, memo: dict, combine):
    """combine(node, [the folds of its operands]) for `root`, operands first, memoized by
    node id in `memo`; iterative, so an expression of any depth folds."""
    stack = [root]
    while stack:
        node = stack[-1]
        if id(node) in memo:
            stack.pop()
            continue
        missing = [a for a in node.args if id(a) not in memo]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        memo[id(node)] = combine(node, [memo[id(a)] for a in node.args])
    return memo[id(root)]


def layout(shape, accesses, first=()):
    """Loop extents (outer to inner) and a map from per-axis strides to per-loop strides.
    `accesses` lists (strides, weight): the innermost loop is the axis that the most
    bytes walk with stride 1, the axes in `first` are the outermost; adjacent loops merge
    when every access allows it."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    if not dims:
        return (1,), lambda strides: (0,)
    score = {d: sum(w for s, w in accesses if abs(s[d]) == 1) for d in dims}
    inner = max(dims, key=lambda d: (score[d], d))
    order = sorted((d for d in dims if d != inner), key=lambda d: d not in first) + [inner]
    groups = [[order[0]]]
    for d in order[1:]:
        prev = groups[-1][-1]
        if all(s[prev] == s[d] * shape[d] for s, _ in accesses):
            groups[-1].append(d)
        else:
            groups.append([d])
    extents = tuple(int(np.prod([shape[d] for d in g], dtype=np.int64)) for g in groups)
    return extents, lambda strides: tuple(strides[g[-1]] for g in groups)


# A float32 sum over the outermost of several loops adds row after row into its slots in
# memory: its chunks are at most SUM_ROWS rows, their partials summed in registers by the
# combine kernel (blocked, see cpu.BLOCK), so each element meets ~SUM_ROWS float32 roundings
# (a column sum of (400000, 3) was off by 1e-4).
SUM_ROWS = 64


def _chunking(extents, serial, sums_rows=False):
    total = int(np.prod(extents, dtype=np.int64))
    if serial or extents[0] < 2:
        return max(extents[0], 1), 1
    if sums_rows and len(extents) > 1 and extents[0] > SUM_ROWS:
        return SUM_ROWS, -(-extents[0] // SUM_ROWS)
    if total < PARALLEL_MIN:
        return extents[0], 1
    rows = -(-extents[0] // min(MAX_CHUNKS, -(-total // CHUNK), extents[0]))
    if len(extents) == 1:
        rows = -(-rows // 64) * 64
    return rows, -(-extents[0] // rows)


def _group_kernels(group, new_buffer, name):
    roots = [p.node for p in group.outputs] + [p.scatter[0] for p in group.outputs
                                               if p.scatter]
    nodes = _nodes_in_order(roots)
    # A reduction over the innermost loop accumulates in registers, so only stores weigh in
    # the choice of that loop: a row sum walks its rows' elements, not its outputs.
    accesses = [(p.view.strides, 2 * p.node.dtype.numpy.itemsize if p.kind == "store" else 0)
                for p in group.outputs]
    for n in nodes:
        view = {"load": lambda: n.attrs[1], "index": lambda: n.attrs,
                "gather": lambda: n.attrs[1]}.get(n.kind, lambda: None)()
        if view is not None:
            accesses.append((view.strides, n.dtype.numpy.itemsize))
    if not group.domain:
        accesses = [((), w) for _, w in accesses]
    # A float32 sum's reduced axes go outermost, where its chunks bound the rows that
    # one slot adds up in memory (see SUM_ROWS).
    summed = [p.view.strides for p in group.outputs if _sums_float32(p)]
    extents, to_loops = layout(group.domain, accesses, {
        d for d in range(len(group.domain)) if any(s[d] == 0 for s in summed)})
    body, index_of = [], {}
    for n in nodes:
        index_of[id(n)] = len(body)
        body.append(_instr(n, to_loops, index_of))
    sums_rows = any(_sums_float32(p) and to_loops(p.view.strides)[0] == 0
                    for p in group.outputs)
    rows, n_chunks = _chunking(extents, group.serial, sums_rows)
    outputs, combines = [], []
    for p in group.outputs:
        access = Access(p.buffer, to_loops(p.view.strides), p.view.offset)
        if p.scatter:
            idx, axis_stride, axis_size = p.scatter
            access = Access(p.buffer, access.strides, access.offset, 0, index_of[id(idx)],
                            axis_stride, axis_size)
        elif p.kind != "store" and n_chunks > 1 and access.strides[0] == 0:
            access, combine = _partials(p, access, n_chunks, new_buffer, name, len(combines))
            combines.append(combine)
        outputs.append(Output(p.kind, access, index_of[id(p.node)], p.node.dtype))
    kernel = Kernel(name, extents, body, outputs, rows, n_chunks)
    return [kernel] + combines


def _sums_float32(p: Pending) -> bool:
    return p.kind == "sum" and p.node.dtype.name == "f32" and p.scatter is None


def _partials(p: Pending, access: Access, n_chunks, new_buffer, name, number):
    """Each chunk of a reduction over the chunked loop accumulates into its own slot;
    a combine kernel then folds the slots in chunk order."""
    size = int(np.prod([d for d, s in zip(p.domain, p.view.strides) if s], dtype=np.int64))
    partial = new_buffer(p.node.dtype, n_chunks * size)
    access = Access(partial.id, access.strides, 0, size)
    out = Output(p.kind, Access(p.buffer, ()), 0, p.node.dtype)
    return access, combine_kernel(f"{name}_combine{number}", partial.id, out, n_chunks, size)


def combine_kernel(name, partial: int, out: Output, n_chunks: int, size: int) -> Kernel:
    """The kernel folding `n_chunks` partial results of `size` elements each, in buffer
    `partial`, in chunk order into `out`'s buffer: the chunks are its inner loop, so that a
    sum of many partials adds them in registers (blocked), not one by one in memory."""
    if size == 1:
        extents, loads, stores = (n_chunks,), (1,), (0,)
    else:
        extents, loads, stores = (size, n_chunks), (1, size), (1, 0)
    body = [Instr("load", (), Access(partial, loads), out.dtype)]
    result = Output(out.kind, Access(out.access.buffer, stores), 0, out.dtype)
    return Kernel(name, extents, body, [result], extents[0], 1)


def _instr(node, to_loops, index_of) -> Instr:
    args = tuple(index_of[id(a)] for a in node.args)
    if node.kind == "load":
        buffer, view = node.attrs
        return Instr("load", (), Access(buffer, to_loops(view.strides), view.offset), node.dtype)
    if node.kind == "gather":
        buffer, base, axis_stride, axis_size = node.attrs
        access = Access(buffer, to_loops(base.strides), base.offset, 0, args[0], axis_stride,
                        axis_size)
        return Instr("load", (), access, node.dtype)
    if node.kind == "index":
        return Instr("index", (), (to_loops(node.attrs.strides), node.attrs.offset), node.dtype)
    if node.kind == "const":
        return Instr("const", (), node.attrs, node.dtype)
    prim, params = node.attrs
    return Instr(prim, args, params, node.dtype)
