"""Fused kernels as GPU kernels. Stores and scatters run in a grid-stride loop over the loop
domain (scatters by atomics, or by one thread in deterministic mode); a reduction runs one
thread per output element when it is short, else one block per output element with a tree
in shared memory. Either way each element is summed in an order fixed by the shape alone,
so results are reproducible; a chunked reduction's partials get a second pass (the combine
kernel fusion already made)."""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from gradjit.codegen.body import I8, I64, Lanes, emit_body, value_type
from gradjit.codegen.cpu import IDENTITIES, combine, identity, loop
from gradjit.codegen.kernel import Kernel
from gradjit.codegen.ptx.grid import GridKernel, Thread

BLOCK = 256
MAX_GRID = 4096  # grid-stride loops cover larger problems with this many blocks
SERIAL_MAX = 32  # reductions this short run one thread per output element
TREE_OUTPUTS = 8  # reductions per block-tree kernel (each takes block * 8 bytes of shared)


def _blocks(count: int, block: int) -> int:
    return int(min(max(-(-count // block), 1), MAX_GRID))


class Space:
    """The loop domain as virtual axes. Where an access names the chunk (a reduction's
    partials), the outermost loop splits into (chunk, row); rows past the domain's end in
    the last chunk are not part of it (`valid`)."""

    def __init__(self, k: Kernel):
        accesses = [i.attrs for i in k.body if i.op == "load"] + [o.access for o in k.outputs]
        self.split = any(a.chunk_stride for a in accesses)
        self.rows, self.first = k.chunk_rows, k.extents[0]
        self.extents = ((k.n_chunks, k.chunk_rows) + k.extents[1:]) if self.split else k.extents
        self.partial = self.split and k.n_chunks * k.chunk_rows != k.extents[0]
        self.size = int(np.prod(self.extents, dtype=np.int64))

    def strides(self, strides, chunk_stride=0) -> tuple[int, ...]:
        if not self.split:
            return tuple(strides)
        return (chunk_stride + self.rows * strides[0],) + tuple(strides)

    def unravel(self, b, i, axes) -> dict:
        """The indices along `axes` (outer to inner) of position i in their row-major order."""
        out = {}
        for axis in reversed(axes):
            n = I64(self.extents[axis])
            out[axis] = b.urem(i, n) if axis != axes[0] else i
            i = b.udiv(i, n)
        return out

    def valid(self, b, vi):
        if not self.partial:
            return None
        row = b.add(b.mul(vi[0], I64(self.rows)), vi[1])
        return b.icmp_unsigned("<", row, I64(self.first))


def _affine(b, space, vi, strides, offset, chunk_stride=0):
    index = I64(offset)
    for axis, s in enumerate(space.strides(strides, chunk_stride)):
        if s:
            index = b.add(index, b.mul(vi[axis], I64(s)))
    return index


def _element(t: Thread, space, access, dtype, vi, values) -> ir.Value:
    b = t.b
    index = _affine(b, space, vi, access.strides, access.offset, access.chunk_stride)
    if access.index is not None:
        idx = values[access.index]
        idx = b.sext(idx, I64) if idx.type != I64 else idx
        idx = b.select(b.icmp_signed("<", idx, I64(0)), b.add(idx, I64(access.axis_size)), idx)
        index = b.add(index, b.mul(idx, I64(access.axis_stride)))
    return b.gep(t.buffer(access.buffer), [index], source_etype=value_type(dtype, 1, True))


def load_value(b, ptr, dtype):
    value = b.load(ptr, typ=value_type(dtype, 1, memory=True))
    return b.icmp_unsigned("!=", value, I8(0)) if dtype.name == "bool" else value


def store_value(b, ptr, dtype, value):
    b.store(b.zext(value, I8) if dtype.name == "bool" else value, ptr)


def _index_value(b, value, dtype):
    """An iota's i64 value in its dtype."""
    if dtype.is_float:
        return b.sitofp(value, value_type(dtype, 1))
    if dtype.name == "bool":
        return b.icmp_unsigned("!=", value, I64(0))
    return value if dtype.name == "i64" else b.trunc(value, value_type(dtype, 1))


def evaluate(t: Thread, k: Kernel, space: Space, vi) -> list:
    """Every body value at virtual index `vi`."""
    def load(n, values):
        instr = k.body[n]
        return load_value(t.b, _element(t, space, instr.attrs, instr.dtype, vi, values),
                          instr.dtype)

    def index(n):
        instr = k.body[n]
        strides, offset = instr.attrs
        return _index_value(t.b, _affine(t.b, space, vi, strides, offset), instr.dtype)
    return emit_body(Lanes(t.b, 1), k.body, load, index)


def _write(t: Thread, k, space, out, vi, values):
    b, value = t.b, values[out.value]
    ptr = _element(t, space, out.access, out.dtype, vi, values)
    if out.kind == "store":
        store_value(b, ptr, out.dtype, value)
    elif out.dtype.name == "bool":
        b.atomic_rmw("or", ptr, b.zext(value, I8), "monotonic")
    else:
        b.atomic_rmw("fadd" if out.dtype.is_float else "add", ptr, value, "monotonic")


def _guarded(b, cond, emit, carried):
    """`emit(carried)` run only where `cond` holds (None: always); the carried values after."""
    if cond is None:
        return emit(carried)
    before = b.block
    with b.if_then(cond):
        updated = emit(carried)
        inside = b.block
    merged = []
    for old, new in zip(carried, updated):
        phi = b.phi(old.type)
        phi.add_incoming(new, inside)
        phi.add_incoming(old, before)
        merged.append(phi)
    return merged


def _pointwise(name, k: Kernel, space: Space, outputs, serial: bool) -> GridKernel:
    """Every domain index once, writing `outputs` (stores or scatters)."""
    def phase(t: Thread):
        b = t.b

        def point(i, carried):
            vi = space.unravel(b, i, list(range(len(space.extents))))

            def emit(carried):
                values = evaluate(t, k, space, vi)
                for out in outputs:
                    _write(t, k, space, out, vi, values)
                return []
            return _guarded(b, space.valid(b, vi), emit, [])
        loop(b, b.add(b.mul(t.ctaid, t.ntid), t.tid), I64(space.size), b.mul(t.ntid, t.nctaid),
             [], point)
    block = 1 if serial else BLOCK
    grid = 1 if serial else _blocks(space.size, block)
    return GridKernel(name, tuple(sorted(k.buffers())), grid, block,
                      lambda d: d.threads(phase, sync=False))


class _Reduction:
    """Outputs reduced over the same axes, and the stores riding along in the same pass."""

    def __init__(self, k: Kernel, space: Space, reduced, outputs, stores):
        self.k, self.space, self.outputs, self.stores = k, space, outputs, stores
        self.reduced = sorted(reduced)
        self.kept = [a for a in range(len(space.extents)) if a not in reduced]
        self.segments = int(np.prod([space.extents[a] for a in self.kept], dtype=np.int64))
        self.length = int(np.prod([space.extents[a] for a in self.reduced], dtype=np.int64))

    def accumulate(self, t: Thread, segment, start, step):
        """This thread's partial reductions of `segment` over positions start, start+step..."""
        b, space = t.b, self.space
        kept = space.unravel(b, segment, self.kept) if self.kept else {}

        def point(p, accs):
            vi = {**kept, **(space.unravel(b, p, self.reduced) if self.reduced else {})}

            def emit(accs):
                values = evaluate(t, self.k, space, vi)
                for out in self.stores:
                    _write(t, self.k, space, out, vi, values)
                return [combine(b, o.kind, o.dtype, acc, values[o.value])
                        for o, acc in zip(self.outputs, accs)]
            return _guarded(b, space.valid(b, vi), emit, accs)
        identities = [Lanes(b, 1).const(o.dtype, identity(o.kind, o.dtype)) for o in self.outputs]
        return loop(b, start, I64(self.length), step, identities, point)

    def result_ptr(self, t: Thread, out, segment):
        vi = {a: I64(0) for a in self.reduced}
        if self.kept:
            vi.update(self.space.unravel(t.b, segment, self.kept))
        return _element(t, self.space, out.access, out.dtype, vi, [])

    def per_thread(self, name) -> GridKernel:
        def phase(t: Thread):
            b = t.b

            def segment(s, carried):
                accs = self.accumulate(t, s, I64(0), I64(1))
                for out, acc in zip(self.outputs, accs):
                    store_value(b, self.result_ptr(t, out, s), out.dtype, acc)
                return []
            loop(b, b.add(b.mul(t.ctaid, t.ntid), t.tid), I64(self.segments),
                 b.mul(t.ntid, t.nctaid), [], segment)
        block = int(min(BLOCK, max(32, -(-self.segments // 32) * 32)))
        return GridKernel(name, tuple(sorted(self.k.buffers())), _blocks(self.segments, block),
                          block, lambda d: d.threads(phase, sync=False))

    def tree(self, name) -> GridKernel:
        """One block per segment: each thread reduces a strided share, then the block halves
        the partials in shared memory until slot 0 holds the result."""
        block = int(min(BLOCK, 1 << (self.length - 1).bit_length()))
        sizes = [value_type(o.dtype, 1, memory=True) for o in self.outputs]
        offsets = list(np.cumsum([0] + [block * 8] * len(sizes))[:-1])

        def slot(t, n, index):
            return t.b.gep(t.shared_at(int(offsets[n])), [index], source_etype=sizes[n])

        def gather(t: Thread):
            accs = self.accumulate(t, t.uniform[0], t.tid, t.ntid)
            for n, (out, acc) in enumerate(zip(self.outputs, accs)):
                store_value(t.b, slot(t, n, t.tid), out.dtype, acc)

        def halve(t: Thread):
            b, width = t.b, t.uniform[0]
            with b.if_then(b.icmp_unsigned("<", t.tid, width)):
                for n, out in enumerate(self.outputs):
                    mine, other = slot(t, n, t.tid), slot(t, n, b.add(t.tid, width))
                    store_value(b, mine, out.dtype, combine(b, out.kind, out.dtype,
                                                            load_value(b, mine, out.dtype),
                                                            load_value(b, other, out.dtype)))

        def finish(t: Thread):
            b = t.b
            with b.if_then(b.icmp_unsigned("==", t.tid, I64(0))):
                for n, out in enumerate(self.outputs):
                    store_value(b, self.result_ptr(t, out, t.uniform[0]), out.dtype,
                                load_value(b, slot(t, n, I64(0)), out.dtype))

        def structure(d):
            def segment(s):
                d.threads(gather, s)
                d.loop(0, block.bit_length() - 1, 1,
                       lambda j: d.threads(halve, d.b.lshr(I64(block // 2), j)))
                d.threads(finish, s)
            d.loop(d.ctaid, self.segments, d.nctaid, segment)
        return GridKernel(name, tuple(sorted(self.k.buffers())), int(min(max(self.segments, 1),
                                                                          MAX_GRID)),
                          block, structure, shared=block * 8 * len(sizes))

    def kernel(self, name) -> GridKernel:
        return self.per_thread(name) if self.length <= SERIAL_MAX else self.tree(name)


def lower_kernel(k: Kernel, deterministic: bool) -> list[GridKernel]:
    """The GPU kernels that together compute `k`'s outputs."""
    space = Space(k)
    stores = [o for o in k.outputs if o.kind == "store"]
    scatters = [o for o in k.outputs if o.kind == "scatter_add"]
    patterns: dict[frozenset, list] = {}
    for out in k.outputs:
        if out.kind in IDENTITIES:
            strides = space.strides(out.access.strides, out.access.chunk_stride)
            # an axis of length 0 is reduced too, so that its output gets the identity
            reduced = frozenset(a for a, (s, n) in enumerate(zip(strides, space.extents))
                                if s == 0 and n != 1)
            patterns.setdefault(reduced, []).append(out)
    reductions = [_Reduction(k, space, reduced, outs[i:i + TREE_OUTPUTS], [])
                  for reduced, outs in patterns.items()
                  for i in range(0, len(outs), TREE_OUTPUTS)]
    kernels = []
    if scatters:
        kernels.append(_pointwise(k.name, k, space, scatters, deterministic))
    if reductions:
        reductions[0].stores = stores
    elif stores:
        kernels.append(_pointwise(k.name, k, space, stores, False))
    kernels += [r.kernel(k.name if n == 0 and not kernels else f"{k.name}_r{n}")
                for n, r in enumerate(reductions)]
    return kernels
