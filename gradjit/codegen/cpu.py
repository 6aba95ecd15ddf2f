"""The CPU loop driver: each kernel becomes `void name(i64 chunk_lo, i64 chunk_hi, ptr table)`
running its chunks' loop nests, the innermost loop in explicit vectors plus a scalar tail.

The per-index body comes from `body.emit_body`, given loads and index values at a loop
index; a GPU target wraps that same body in a grid-stride loop instead of this nest.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from gradjit.codegen.body import (I8, I32, I64, Lanes, call_intrinsic, emit_body, extremum,
                                  value_type)
from gradjit.codegen.mathlib import outline_after

PTR = ir.PointerType()
IDENTITIES = {
    "sum": {"f": 0.0, "i": 0, "b": False},  # numpy and PyTorch: a sum of -0.0s is +0.0
    "max": {"f": -np.inf, "i": None, "b": False},
    "min": {"f": np.inf, "i": None, "b": True},
    "prod": {"f": 1.0, "i": 1, "b": True},
}


def identity(kind, dtype):
    found = IDENTITIES[kind][dtype.numpy.kind]
    if found is None:
        info = np.iinfo(dtype.numpy)
        return info.min if kind == "max" else info.max
    return found


def combine(b, kind, dtype, acc, value):
    if kind == "sum":
        if dtype.name == "bool":
            return b.or_(acc, value)
        return (b.fadd if dtype.is_float else b.add)(acc, value)
    if kind == "prod":
        if dtype.name == "bool":
            return b.and_(acc, value)
        return (b.fmul if dtype.is_float else b.mul)(acc, value)
    return extremum(b, acc, value, dtype, kind == "max")


def loop(b: ir.IRBuilder, start, stop, step, carried, body):
    """for i in range(start, stop, step) with loop-carried values; `body(i, carried)` returns
    the next carried values. Returns the carried values after the loop."""
    pre = b.block
    header = b.append_basic_block("loop")
    inside = b.append_basic_block("body")
    done = b.append_basic_block("done")
    b.branch(header)
    b.position_at_end(header)
    i = b.phi(I64)
    i.add_incoming(start, pre)
    phis = []
    for value in carried:
        phi = b.phi(value.type)
        phi.add_incoming(value, pre)
        phis.append(phi)
    b.cbranch(b.icmp_signed("<", i, stop), inside, done)
    b.position_at_end(inside)
    updated = body(i, phis)
    latch = b.block
    i.add_incoming(b.add(i, step if isinstance(step, ir.Value) else I64(step)), latch)
    for phi, value in zip(phis, updated):
        phi.add_incoming(value, latch)
    b.branch(header)
    b.position_at_end(done)
    return phis


# Independent accumulators of a reduction's vector loop: a max or sum waits on the previous
# vector's result, so with one accumulator the loop runs at that latency, not at throughput.
# Two hide it (sums and maxes over rows in L2 ran as fast as with four); four copies of a body
# with an exp and two reductions ran out of registers (W4's gradient 8% slower).
ACCUMULATORS = 2

# Vectors a float32 sum's accumulator takes before its block's sum joins a float64 one: each
# element then meets ~BLOCK float32 roundings plus one in float64, as numpy's pairwise sum
# (blocks of 16 per accumulator, then log2 n levels), where a plain vector loop
# accumulated n/lanes in float32 (1M copies of 0.1 summed to 100001.69 for 100000.0).
BLOCK = 32


def tracks_nan(out, lanes: int) -> bool:
    """Whether a reduction's vector lanes keep a float max/min NaN-blind (one compare and
    select a vector: a vmaxps), its NaNs apart as the largest magnitude bits seen (a NaN's lie
    above infinity's) in integer lanes. numpy's NaN-first maximum as compare, compare, or and
    select went through mask registers: a row max over 32 MB took 1.4 ms, a sum 0.8 ms."""
    return lanes > 1 and out.kind in ("max", "min") and out.dtype.is_float


def _bits_type(dtype, lanes: int) -> ir.VectorType:
    return ir.VectorType(ir.IntType(8 * dtype.numpy.itemsize), lanes)


def _magnitude_bits(b, value, dtype):
    """The bits of |value| (float lanes) as integer lanes of the same width."""
    ty = _bits_type(dtype, value.type.count)
    return b.and_(b.bitcast(value, ty), ir.Constant(ty, (1 << (ty.element.width - 1)) - 1))


def _invariant(instr) -> bool:
    return instr.op == "load" and instr.attrs.index is None and instr.attrs.strides[-1] == 0


class KernelEmitter:
    def __init__(self, module, kernel, vector_bytes):
        self.k = kernel
        self.fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [I64, I64, PTR]),
                              kernel.name)
        self.fn.attributes.add("nounwind")
        self.b = ir.IRBuilder(self.fn.append_basic_block("entry"))
        serial = any(o.kind == "scatter_add" for o in kernel.outputs)
        # a loop-invariant load is one scalar a row, splatted: it does not narrow the vectors
        widest = max([i.dtype.numpy.itemsize for i in kernel.body if not _invariant(i)] + [4])
        self.width = 1 if serial else max(1, vector_bytes // widest)

    def emit(self):
        b, k = self.b, self.k
        lo, hi, table = self.fn.args
        self.ptrs = {buf: b.load(b.gep(table, [I64(buf)], source_etype=PTR), typ=PTR)
                     for buf in sorted(k.buffers())}
        rows, n0 = I64(k.chunk_rows), I64(k.extents[0])

        def chunk(c, carried):
            begin = b.mul(c, rows)
            end = b.select(b.icmp_signed("<", b.add(begin, rows), n0), b.add(begin, rows), n0)
            self.chunk = c
            for out in k.outputs:
                if out.kind in IDENTITIES:
                    self.emit_init(out, begin, end)
            if int(np.prod(k.extents, dtype=np.int64)):
                self.emit_nest(0, [], begin, end)
            return []
        loop(b, lo, hi, 1, [], chunk)
        b.ret_void()

    # ---- addressing ----

    def base(self, strides, offset, chunk_stride, outer):
        """Element index at inner index 0 for the current outer loop indices."""
        b = self.b
        index = I64(offset)
        if chunk_stride:
            index = b.add(index, b.mul(self.chunk, I64(chunk_stride)))
        for i, s in zip(outer, strides[:-1]):
            if s:
                index = b.add(index, b.mul(i, I64(s)))
        return index

    def element_ptr(self, access, dtype, index):
        mem = value_type(dtype, 1, memory=True)
        return self.b.gep(self.ptrs[access.buffer], [index], source_etype=mem)

    def load_scalar(self, access, dtype, index):
        value = self.b.load(self.element_ptr(access, dtype, index),
                            typ=value_type(dtype, 1, memory=True))
        return self.b.icmp_unsigned("!=", value, I8(0)) if dtype.name == "bool" else value

    def store_scalar(self, access, dtype, index, value):
        if dtype.name == "bool":
            value = self.b.zext(value, I8)
        self.b.store(value, self.element_ptr(access, dtype, index))

    def lane_indices(self, base, j, stride, lanes):
        """Element index of every lane (scalars), for lanes j, j+1, ..."""
        b = self.b
        first = b.add(base, b.mul(j, I64(stride))) if stride else base
        return [b.add(first, I64(lane * stride)) if lane and stride else first
                for lane in range(lanes)]

    def wrapped(self, idx, size):
        idx = self.b.sext(idx, I64) if idx.type != I64 else idx
        negative = self.b.icmp_signed("<", idx, I64(0))
        return self.b.select(negative, self.b.add(idx, I64(size)), idx)

    # ---- the loop nest ----

    def emit_nest(self, depth, outer, begin, end):
        k = self.k
        start, stop = (begin, end) if depth == 0 else (I64(0), I64(k.extents[depth]))
        if depth == len(k.extents) - 1:
            self.emit_inner(outer, start, stop)
            return
        loop(self.b, start, stop, 1, [],
             lambda i, carried: self.emit_nest(depth + 1, outer + [i], begin, end) or [])

    def emit_inner(self, outer, start, stop):
        b, k = self.b, self.k
        bases = {}
        for n, instr in enumerate(k.body):
            if instr.op == "load":
                a = instr.attrs
                bases[n] = self.base(a.strides, a.offset, a.chunk_stride, outer)
            elif instr.op == "index":
                bases[n] = self.base(instr.attrs[0], instr.attrs[1], 0, outer)
        out_bases = [self.base(o.access.strides, o.access.offset, o.access.chunk_stride, outer)
                     for o in k.outputs]
        self.ahead = [self.base(p.attrs.strides, p.attrs.offset, 0, outer) for p in k.prefetch]
        hoisted = {n: self.load_scalar(i.attrs, i.dtype, bases[n]) for n, i in enumerate(k.body)
                   if i.op == "load" and i.attrs.index is None and i.attrs.strides[-1] == 0}
        reducing = [n for n, o in enumerate(k.outputs)
                    if o.kind in IDENTITIES and o.access.strides[-1] == 0]
        accs = [Lanes(b, 1).const(k.outputs[n].dtype, identity(k.outputs[n].kind,
                                                              k.outputs[n].dtype))
                for n in reducing]
        split, masked = start, False
        if self.width > 1 and k.extents[-1] >= self.width:
            lanes = Lanes(b, self.width)

            def steps(count, j, carried):
                """`count` vectors from j on, each with its own accumulators."""
                per = sum(self.widths(reducing, lanes))
                for u in range(count):
                    ju = b.add(j, I64(u * self.width)) if u else j
                    carried[u * per:(u + 1) * per] = self.step(
                        lanes, ju, bases, out_bases, hoisted, reducing,
                        carried[u * per:(u + 1) * per])
                return carried
            wide, vector_accs, split = self.vector_loops(lanes, start, stop, reducing, steps)
            masked = self.remainders() and self.maskable()
            if masked:  # the last lanes: one vector step with the lanes past `stop` off
                mask = b.icmp_signed("<", ir.Constant(ir.VectorType(I64, self.width),
                                                      list(range(self.width))),
                                     lanes.splat(b.sub(stop, split)))
                vector_accs = self.step(lanes, split, bases, out_bases, hoisted, reducing,
                                        vector_accs, mask)
            wide = self.absorbed(reducing, wide, vector_accs, lanes)
            accs = [self.narrowed(k.outputs[n], self.horizontal(k.outputs[n], one))
                    for n, one in zip(reducing, self.split(reducing, wide, lanes))]
        if not masked and (split is start or self.remainders()):
            accs = loop(b, split, stop, 1, accs,
                        lambda j, carried: self.step(Lanes(b, 1), j, bases, out_bases, hoisted,
                                                     reducing, carried))
        for n, acc in zip(reducing, accs):
            out = k.outputs[n]
            old = self.load_scalar(out.access, out.dtype, out_bases[n])
            self.store_scalar(out.access, out.dtype, out_bases[n],
                              combine(b, out.kind, out.dtype, old, acc))

    def vector_loops(self, lanes, start, stop, reducing, steps):
        """The whole vectors of [start, stop): with register accumulators, ACCUMULATORS
        vectors an iteration, each into accumulators of its own (a max or a sum then waits on
        one vector's latency in every ACCUMULATORS), the rest one by one. A float32 sum runs
        in blocks of BLOCK vectors an accumulator, each block's sum added to one in float64
        (see BLOCK). Returns the float64 (wide) accumulators of the whole blocks, those of the
        rest, and where the whole vectors end."""
        b = self.b
        count = b.sub(stop, start)
        whole = b.add(start, b.and_(count, I64(-self.width)))
        if not reducing:
            return [], loop(b, start, whole, self.width, [],
                            lambda j, c: steps(1, j, [])), whole
        identities = self.starts(lanes, reducing)
        wide = self.absorbed(reducing, None, identities, lanes)
        unrolled = b.add(start, b.and_(count, I64(-self.width * ACCUMULATORS)))
        if any(self.blocked(self.k.outputs[n]) for n in reducing):
            def block(j, carried):  # the last block may be short
                end = b.add(j, I64(self.block()))
                end = b.select(b.icmp_signed("<", end, unrolled), end, unrolled)
                return self.absorbed(reducing, carried, self.unrolled(
                    lanes, j, end, reducing, steps), lanes)
            wide = loop(b, start, unrolled, self.block(), wide, block)
            accs = identities
        else:
            accs = self.unrolled(lanes, start, unrolled, reducing, steps)
        return wide, loop(b, unrolled, whole, self.width, accs,
                          lambda j, c: steps(1, j, list(c))), whole

    def unrolled(self, lanes, start, stop, reducing, steps):
        """[start, stop), a multiple of ACCUMULATORS vectors, into fresh accumulators:
        ACCUMULATORS sets of them folded into one in a fixed order."""
        identities = self.starts(lanes, reducing)
        accs = loop(self.b, start, stop, self.width * ACCUMULATORS, identities * ACCUMULATORS,
                    lambda j, c: steps(ACCUMULATORS, j, list(c)))
        per = len(identities)
        sets = [accs[u * per:(u + 1) * per] for u in range(ACCUMULATORS)]
        while len(sets) > 1:
            sets = [self.merged_all(reducing, one, two, lanes)
                    for one, two in zip(sets[::2], sets[1::2])]
        return sets[0]

    def merged_all(self, reducing, one, two, lanes) -> list:
        return [v for n, x, y in zip(reducing, self.split(reducing, one, lanes),
                                     self.split(reducing, two, lanes))
                for v in self.merged(self.k.outputs[n], x, y)]

    def block(self) -> int:
        return self.width * ACCUMULATORS * BLOCK

    def blocked(self, out) -> bool:
        """Whether `out` sums float32 in blocks: an inner loop shorter than a block (a row of
        a softmax) keeps its plain vector loop, whose accumulators see no more than a block."""
        k = self.k
        longest = k.extents[-1] if len(k.extents) > 1 else k.chunk_rows
        return out.kind == "sum" and out.dtype.name == "f32" and longest >= self.block()

    def absorbed(self, reducing, wide, accs, lanes) -> list:
        """`accs` merged into the wide accumulators `wide` (None: `accs` widened alone); a
        float32 sum's lanes widen to float64."""
        widened = [self.b.fpext(v, ir.VectorType(ir.DoubleType(), lanes.lanes))
                   if self.blocked(self.k.outputs[n]) else v
                   for n, one in zip(reducing, self.split(reducing, accs, lanes)) for v in one]
        return widened if wide is None else self.merged_all(reducing, wide, widened, lanes)

    def narrowed(self, out, acc):
        return self.b.fptrunc(acc, ir.FloatType()) if self.blocked(out) else acc

    def maskable(self) -> bool:
        """Whether the tail can run as one vector step with lanes switched off: every access
        is contiguous or loop-invariant (the lanes' addresses are those of a masked load)."""
        loads = [i.attrs for i in self.k.body if i.op == "load"]
        return all(a.index is None and a.strides[-1] in (0, 1) for a in loads) and all(
            o.access.index is None and (o.kind == "store" and o.access.strides[-1] == 1 or
                                        o.kind in IDENTITIES and o.access.strides[-1] == 0)
            for o in self.k.outputs)

    def remainders(self) -> bool:
        """Whether an inner loop's trip count can leave lanes after its whole vectors: the
        inner extent, or for a one-loop kernel each chunk's rows and the last chunk's."""
        k = self.k
        counts = (k.extents[-1],) if len(k.extents) > 1 else (k.chunk_rows, k.extents[0])
        return any(n % self.width for n in counts)

    def horizontal(self, out, accs):
        """Fold the lanes of `out`'s vector accumulators in a fixed order (reproducible): the
        upper half into the lower down to 8 lanes, then neighbours pairwise, as numpy's sum
        folds its 8 accumulators; a NaN-tracking max settles once, on the last lane."""
        b, width = self.b, self.width

        def pick(acc, lanes):
            return b.shuffle_vector(acc, acc, ir.Constant(ir.VectorType(I32, len(lanes)), lanes))
        while width > 1:
            half = width // 2
            if width > 8:
                low, high = list(range(half)), list(range(half, width))
            else:
                low, high = list(range(0, width, 2)), list(range(1, width, 2))
            accs = self.merged(out, [pick(a, low) for a in accs], [pick(a, high) for a in accs])
            width = half
        return self.settled(out, [b.extract_element(a, I32(0)) for a in accs])

    def step(self, lanes, j, bases, out_bases, hoisted, reducing, accs, mask=None):
        """One (vector of) loop index: the body, then every output. Lanes off in `mask`
        read and write no memory and add the identity to the accumulators."""
        if mask is None and lanes.lanes > 1:
            for p, base in zip(self.k.prefetch, self.ahead):
                # read, keep in all levels (3), data cache (1); past an array's end it is a
                # no-op, not a fault
                call_intrinsic(self.b, "prefetch", [
                    self.element_ptr(p.attrs, p.dtype, self.b.add(base, j)), I32(0), I32(3),
                    I32(1)], ir.VoidType(), [PTR])
        values = emit_body(lanes, self.k.body, lambda n, values: self.load(
            lanes, j, n, bases[n], hoisted, values, mask), lambda n: self.index(
            lanes, j, n, bases[n]))
        held = dict(zip(reducing, self.split(reducing, accs, lanes)))
        for n, out in enumerate(self.k.outputs):
            value = values[out.value]
            if n in reducing:
                if mask is not None:
                    value = self.b.select(mask, value, lanes.const(
                        out.dtype, identity(out.kind, out.dtype)))
                held[n] = self.merged(out, held[n], self.taken(out, value))
            else:
                self.write(lanes, j, out, out_bases[n], value, values, mask)
        return [v for n in reducing for v in held[n]]

    # ---- accumulators: one value per reduction, two for a NaN-tracking one ----

    def starts(self, lanes, reducing) -> list:
        """The accumulators' first values, in order: the identity (and no NaN seen)."""
        values = []
        for n in reducing:
            out = self.k.outputs[n]
            values.append(lanes.const(out.dtype, identity(out.kind, out.dtype)))
            if tracks_nan(out, lanes.lanes):
                values.append(ir.Constant(_bits_type(out.dtype, lanes.lanes), 0))
        return values

    def widths(self, reducing, lanes) -> list[int]:
        return [2 if tracks_nan(self.k.outputs[n], lanes.lanes) else 1 for n in reducing]

    def split(self, reducing, flat, lanes) -> list[list]:
        """The flat accumulator values as one list per reduction."""
        parts, at = [], 0
        for width in self.widths(reducing, lanes):
            parts.append(list(flat[at:at + width]))
            at += width
        return parts

    def taken(self, out, value) -> list:
        """A value as accumulators of `out` hold it."""
        if not isinstance(value.type, ir.VectorType) or not tracks_nan(out, value.type.count):
            return [value]
        return [value, _magnitude_bits(self.b, value, out.dtype)]

    def merged(self, out, one, two) -> list:
        """Accumulators `one` combined with `two` (ties keep two's, as numpy's maximum)."""
        b = self.b
        if len(one) == 1:
            return [combine(b, out.kind, out.dtype, one[0], two[0])]
        wins = b.fcmp_ordered(">" if out.kind == "max" else "<", one[0], two[0])
        more = b.icmp_unsigned(">", one[1], two[1])
        return [b.select(wins, one[0], two[0]), b.select(more, one[1], two[1])]

    def settled(self, out, accs):
        """One value from `out`'s accumulators: the extremum, or the NaN if one was seen."""
        if len(accs) == 1:
            return accs[0]
        b, bits = self.b, accs[1]
        infinity = int(np.array(np.inf, out.dtype.numpy).view(f"u{out.dtype.numpy.itemsize}"))
        seen = b.icmp_unsigned(">", bits, ir.Constant(bits.type, infinity))
        return b.select(seen, b.bitcast(bits, accs[0].type), accs[0])

    def index(self, lanes, j, n, base):
        """The iota value: an affine function of the loop index, converted to its dtype."""
        b, instr = self.b, self.k.body[n]
        stride = instr.attrs[0][-1]
        scalar = b.add(base, b.mul(j, I64(stride)))
        value = lanes.splat(scalar)
        if lanes.lanes > 1:
            value = b.add(value, ir.Constant(value.type, [lane * stride
                                                           for lane in range(lanes.lanes)]))
        target = value_type(instr.dtype, lanes.lanes)
        if instr.dtype.is_float:
            return b.sitofp(value, target)
        if instr.dtype.name == "bool":
            return b.icmp_unsigned("!=", value, ir.Constant(value.type, None))
        return value if instr.dtype.name == "i64" else b.trunc(value, target)

    def load(self, lanes, j, n, base, hoisted, values, mask=None):
        b, instr = self.b, self.k.body[n]
        access, dtype = instr.attrs, instr.dtype
        if n in hoisted:
            return lanes.splat(hoisted[n])
        stride = access.strides[-1]
        if access.index is None and stride == 1 and lanes.lanes > 1:
            ptr = self.element_ptr(access, dtype, b.add(base, j))
            vec_type = value_type(dtype, lanes.lanes, memory=True)
            if mask is None:
                vec = b.load(ptr, typ=vec_type, align=dtype.numpy.itemsize)
            else:
                vec = call_intrinsic(b, "masked.load", [
                    ptr, I32(dtype.numpy.itemsize), mask, ir.Constant(vec_type, None)],
                    vec_type, [vec_type, PTR])
            if dtype.name == "bool":
                return b.icmp_unsigned("!=", vec, ir.Constant(vec.type, [0] * lanes.lanes))
            return vec
        indices = self.lane_indices(base, j, stride, lanes.lanes)
        if access.index is not None:
            idx = values[access.index]
            for lane in range(lanes.lanes):
                one = idx if lanes.lanes == 1 else b.extract_element(idx, I32(lane))
                step = b.mul(self.wrapped(one, access.axis_size), I64(access.axis_stride))
                indices[lane] = b.add(indices[lane], step)
        scalars = [self.load_scalar(access, dtype, i) for i in indices]
        if lanes.lanes == 1:
            return scalars[0]
        vec = ir.Constant(value_type(dtype, lanes.lanes), ir.Undefined)
        for lane, s in enumerate(scalars):
            vec = b.insert_element(vec, s, I32(lane))
        return vec

    def write(self, lanes, j, out, base, value, values, mask=None):
        b, access = self.b, out.access
        stride = access.strides[-1]
        if out.kind == "store" and stride == 1 and lanes.lanes > 1:
            ptr = self.element_ptr(access, out.dtype, b.add(base, j))
            if out.dtype.name == "bool":
                value = b.zext(value, value_type(out.dtype, lanes.lanes, memory=True))
            if mask is None:
                b.store(value, ptr, align=out.dtype.numpy.itemsize)
            else:
                call_intrinsic(b, "masked.store", [value, ptr, I32(out.dtype.numpy.itemsize),
                                                   mask], ir.VoidType(), [value.type, PTR])
            return
        indices = self.lane_indices(base, j, stride, lanes.lanes)
        if access.index is not None:
            step = b.mul(self.wrapped(values[access.index], access.axis_size),
                         I64(access.axis_stride))
            indices = [b.add(indices[0], step)]
        for lane, i in enumerate(indices):
            one = value if lanes.lanes == 1 else b.extract_element(value, I32(lane))
            if out.kind != "store":
                kind = "sum" if out.kind == "scatter_add" else out.kind
                one = combine(b, kind, out.dtype, self.load_scalar(access, out.dtype, i), one)
            self.store_scalar(access, out.dtype, i, one)

    def emit_init(self, out, begin, end):
        """Set the slots this chunk accumulates into to the reduction's identity."""
        b, k = self.b, self.k
        strides = out.access.strides
        start = Lanes(b, 1).const(out.dtype, identity(out.kind, out.dtype))

        def nest(depth, index):
            if depth == len(k.extents):
                self.store_scalar(out.access, out.dtype, index, start)
                return
            s = strides[depth]
            if s == 0:
                nest(depth + 1, index)
                return
            lo, hi = (begin, end) if depth == 0 else (I64(0), I64(k.extents[depth]))
            loop(b, lo, hi, 1, [],
                 lambda i, carried: nest(depth + 1, b.add(index, b.mul(i, I64(s)))) or [])
        nest(0, self.base((0,), out.access.offset, out.access.chunk_stride, []))


def emit_module(name: str, kernels, vector_bytes: int, groups=()) -> ir.Module:
    """One LLVM module holding every kernel of a program, and a driver per row group."""
    module = ir.Module(name=name)
    outline_after(module)
    for kernel in kernels:
        KernelEmitter(module, kernel, vector_bytes).emit()
    for group in groups:
        emit_group(module, group)
    return module


def emit_group(module: ir.Module, group) -> None:
    """`void name(i64 chunk_lo, i64 chunk_hi, ptr table)`: each chunk through every kernel of
    the group in turn, so the chunk's data stays in cache from one kernel to the next."""
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [I64, I64, PTR]), group.name)
    fn.attributes.add("nounwind")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    lo, hi, table = fn.args

    for kernel in group.kernels:  # called from here alone: inlined, no second copy
        module.globals[kernel.name].linkage = "internal"

    def chunk(c, carried):
        for kernel in group.kernels:
            b.call(module.globals[kernel.name], [c, b.add(c, I64(1)), table])
        return []
    loop(b, lo, hi, 1, [], chunk)
    b.ret_void()
