"""Matrix products as a tiled GPU kernel: a block computes a TILE x TILE tile of the output,
staging TILE x TILE tiles of both operands in shared memory, one output element a thread;
each element sums its products in order of k, so results are reproducible."""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from gradjit.codegen.body import I64, value_type
from gradjit.codegen.ptx.grid import GridKernel, Thread
from gradjit.codegen.ptx.lower import MAX_GRID, load_value, store_value

TILE = 16


class _Operand:
    """A strided operand's addressing: batch index and (row, column) -> element index."""

    def __init__(self, operand):
        self.buffer, self.offset = operand.buffer, operand.offset
        self.batch_shape, self.batch_strides = operand.shape[:-2], operand.strides[:-2]
        self.rows, self.cols = operand.shape[-2:]
        self.row_stride, self.col_stride = operand.strides[-2:]

    def batch_offset(self, b, batch):
        index = I64(self.offset)
        for n, s in reversed(list(zip(self.batch_shape, self.batch_strides))):
            index = b.add(index, b.mul(b.urem(batch, I64(n)), I64(s)))
            batch = b.udiv(batch, I64(n))
        return index

    def load(self, t: Thread, dtype, batch, row, col):
        """The element, or zero outside the matrix (the tile's padding)."""
        b = t.b
        if self.rows * self.cols == 0:
            return ir.Constant(value_type(dtype, 1), 0)
        inside = b.and_(b.icmp_unsigned("<", row, I64(self.rows)),
                        b.icmp_unsigned("<", col, I64(self.cols)))
        # Clamped so the address is in bounds whether or not the load is used.
        row = b.select(inside, row, I64(0))
        col = b.select(inside, col, I64(0))
        index = b.add(self.batch_offset(b, batch),
                      b.add(b.mul(row, I64(self.row_stride)), b.mul(col, I64(self.col_stride))))
        ptr = b.gep(t.buffer(self.buffer), [index], source_etype=value_type(dtype, 1, True))
        return b.select(inside, load_value(b, ptr, dtype), ir.Constant(value_type(dtype, 1), 0))


def lower_matmul(name, step, dtype) -> GridKernel:
    a, c = _Operand(step.a), _Operand(step.b)
    m, k, n = a.rows, a.cols, c.cols
    batch = int(np.prod(a.batch_shape, dtype=np.int64))
    tiles_m, tiles_n = -(-m // TILE), -(-n // TILE)
    tiles = batch * tiles_m * tiles_n
    scalar = value_type(dtype, 1)
    size = dtype.numpy.itemsize
    add = (lambda b, x, y: b.fadd(x, y)) if dtype.is_float else (lambda b, x, y: b.add(x, y))
    mul = (lambda b, x, y: b.fmul(x, y)) if dtype.is_float else (lambda b, x, y: b.mul(x, y))

    def place(t: Thread):
        """(batch, first row, first column) of the tile, and this thread's (row, column)."""
        b, tile = t.b, t.uniform[0]
        column_tile = b.urem(tile, I64(tiles_n))
        row_tile = b.urem(b.udiv(tile, I64(tiles_n)), I64(tiles_m))
        which = b.udiv(tile, I64(tiles_n * tiles_m))
        return (which, b.mul(row_tile, I64(TILE)), b.mul(column_tile, I64(TILE)),
                b.udiv(t.tid, I64(TILE)), b.urem(t.tid, I64(TILE)))

    def staged(t: Thread, matrix, row, col):
        index = t.b.add(t.b.mul(row, I64(TILE)), col)
        return t.b.gep(t.shared_at(matrix * TILE * TILE * size), [index], source_etype=scalar)

    def start(t: Thread):
        t.b.store(ir.Constant(scalar, 0), t.slot(0))

    def stage(t: Thread):
        b = t.b
        which, row0, col0, r, q = place(t)
        k0 = b.mul(t.uniform[1], I64(TILE))
        t.b.store(a.load(t, dtype, which, b.add(row0, r), b.add(k0, q)), staged(t, 0, r, q))
        t.b.store(c.load(t, dtype, which, b.add(k0, r), b.add(col0, q)), staged(t, 1, r, q))

    def multiply(t: Thread):
        b = t.b
        _, _, _, r, q = place(t)
        acc = b.load(t.slot(0), typ=scalar)
        for j in range(TILE):
            x = b.load(staged(t, 0, r, I64(j)), typ=scalar)
            y = b.load(staged(t, 1, I64(j), q), typ=scalar)
            acc = add(b, acc, mul(b, x, y))
        b.store(acc, t.slot(0))

    def finish(t: Thread):
        b = t.b
        which, row0, col0, r, q = place(t)
        row, col = b.add(row0, r), b.add(col0, q)
        inside = b.and_(b.icmp_unsigned("<", row, I64(m)), b.icmp_unsigned("<", col, I64(n)))
        with b.if_then(inside):
            index = b.add(b.mul(which, I64(m * n)), b.add(b.mul(row, I64(n)), col))
            ptr = b.gep(t.buffer(step.out), [index], source_etype=scalar)
            store_value(b, ptr, dtype, b.load(t.slot(0), typ=scalar))

    def structure(d):
        def tile(i):
            d.threads(start, i, sync=False)
            d.loop(0, -(-k // TILE), 1, lambda kt: (d.threads(stage, i, kt),
                                                    d.threads(multiply, i, kt)))
            d.threads(finish, i, sync=False)
        d.loop(d.ctaid, tiles, d.nctaid, tile)

    buffers = tuple(sorted({step.a.buffer, step.b.buffer, step.out}))
    return GridKernel(name, buffers, int(min(max(tiles, 1), MAX_GRID)), TILE * TILE, structure,
                      shared=2 * TILE * TILE * size, private=(scalar,))
