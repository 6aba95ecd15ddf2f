"""Fusion: an IR function becomes a Program of kernels and runtime steps.

Every value is an expression over its index space whose leaves are strided loads,
constants and iotas. View ops rewrite the leaves' views, elementwise ops extend the
expression, and only reductions, results and ops that need memory (matmul, guards,
indices) materialize one. A value used by several consumers is recomputed in each
(so a gradient loop recomputes its forward intermediates rather than reading them
back), except when a broadcast would repeat its computation, and by a bounded number
of kernels (share.py). Outputs over the same index space share one loop nest: the loss
and its gradient in one pass.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from gradjit.codegen import views
from gradjit.codegen.index_range import value_range
from gradjit.codegen.kernel import REDUCE_KINDS, Program
from gradjit.codegen.schedule import Pending, build_kernels, fold_dag
from gradjit.codegen.share import Sharing
from gradjit.codegen.views import View, contiguous
from gradjit.ir.core import Function
from gradjit.ir.primitive import PRIMITIVES
from gradjit.ir.types import bool_, int32, int64
from gradjit.runtime.blas import depth_parts
from gradjit.runtime.steps import (NEGATIVE_POWER, Buffer, CheckExponent, CheckIndex, Fail,
                                   Guard, LibraryCall, Matmul, Operand)


# An expression deeper than this is stored and read back: every walk over an expression
# (here, in scheduling and in code generation) then stays within a bounded depth whatever
# the program's length, and one kernel's body stays small enough for LLVM to compile quickly.
MAX_DEPTH = 256
# A value read by several ops is stored once its expression holds more computations than this:
# each kernel that reads it would otherwise compute all of them again.
MAX_SHARED_SIZE = 64
# A product of at most this many multiply-adds is one fused loop summing over its inner axis:
# cheaper than a BLAS call from the host, and a program of kernels alone is one native call.
# The loop reads b down its columns: unless b is a vector, only while a matrix of b (SMALL_B
# elements) stays in the first-level cache ((1,256) @ (256,128) took 103 us so, 10 in BLAS).
SMALL_PRODUCT = 1 << 15
SMALL_B = 1 << 12


class Node:
    """An interned expression over an index space of `shape`. kind: 'load' (attrs:
    (buffer, view)), 'const' (attrs: value), 'index' (attrs: view, the iota), 'apply'
    (attrs: (primitive name, params)) or 'gather' (attrs: (buffer, base view, axis
    stride, axis size); args: the index expression)."""

    __slots__ = ("kind", "args", "attrs", "shape", "dtype", "depth")

    def __init__(self, kind, args, attrs, shape, dtype):
        self.kind, self.args, self.attrs, self.shape, self.dtype = kind, args, attrs, shape, dtype
        self.depth = 1 + max((a.depth for a in args), default=-1)

    @property
    def computes(self) -> bool:
        return self.kind in ("apply", "gather")


class Group:
    """Pending outputs over one index space, to become one kernel."""

    def __init__(self, domain, serial):
        self.domain, self.serial, self.outputs = domain, serial, []


class Fuser:
    def __init__(self, fn: Function, loop_products: bool = True):
        self.fn, self.loop_products = fn, loop_products
        self.interned: dict = {}
        self.buffers: list[Buffer] = []
        self.constants: list[np.ndarray] = []
        self.steps: list = []
        self.prologue: list = []  # index checks on arguments and constants, run first
        self.last_writer: dict[int, int] = {}
        self.reads_memo: dict[int, frozenset] = {}
        self.stored: dict[int, Node] = {}  # computed node -> the load of its materialized copy
        self.reshaped: dict[int, Node] = {}  # a reshaped computed node -> the node it reshapes
        self.checked: dict[int, tuple] = {}  # buffer -> the range of its elements (buffer_range)
        self.env: dict = {}
        self.sharing = Sharing(self)

    # ---- expressions ----

    def node(self, kind, args, attrs, shape, dtype) -> Node:
        # repr tells the constants 0.0 and -0.0 apart, which == (and so a dict) does not
        key = (kind, tuple(id(a) for a in args), repr(attrs) if kind == "const" else attrs,
               shape, dtype.name)
        found = self.interned.get(key)
        if found is None:
            found = self.interned[key] = Node(kind, tuple(args), attrs, shape, dtype)
        return found

    def buffer_range(self, buffer: int) -> tuple[int, int] | None:
        """(least, most) of an integer buffer's elements where known now: a checked index's
        range, a constant's values."""
        if buffer not in self.checked and self.buffers[buffer].kind == "const":
            data = self.constants[self.buffers[buffer].index]
            self.checked[buffer] = (int(data.min()), int(data.max())) if \
                data.size and data.dtype.kind in "iu" else None
        return self.checked.get(buffer)

    def load(self, buffer: Buffer, view: View) -> Node:
        return self.node("load", (), (buffer.id, view), view.shape, buffer.dtype)

    def new_buffer(self, dtype, size, kind="temp", index=0) -> Buffer:
        buffer = Buffer(len(self.buffers), dtype, int(size), kind, index)
        self.buffers.append(buffer)
        return buffer

    def reindex(self, node: Node, remap, shape) -> Node | None:
        """`node` seen through a view change: `remap` maps each leaf's view to the new one
        (None when strides cannot express it)."""
        def combine(n, args):
            if n.kind == "const":
                return self.node("const", (), n.attrs, shape, n.dtype)
            if n.kind == "index":
                view = remap(n.attrs)
                return view and self.node("index", (), view, shape, n.dtype)
            if n.kind == "load":
                view = remap(n.attrs[1])
                return view and self.node("load", (), (n.attrs[0], view), shape, n.dtype)
            attrs = n.attrs
            if n.kind == "gather":
                base = remap(attrs[1])
                attrs = base and (attrs[0], base) + attrs[2:]
            if attrs is None or any(a is None for a in args):
                return None
            return self.node(n.kind, args, attrs, shape, n.dtype)

        def combine_and_note(n, args):
            result = combine(n, args)
            if result is not None and result is not n:
                self.reindexed(n, result)
            return result
        return fold_dag(node, {}, combine_and_note)

    def reindexed(self, node: Node, result: Node) -> None:
        """Called for each expression that a view change rewrote: the dump tool's fuser
        records lineage here; fusion itself needs nothing."""

    def reads(self, node: Node) -> frozenset:
        """The buffers an expression loads from."""
        def combine(n, args):
            found = frozenset().union(*args)
            return found | {n.attrs[0]} if n.kind in ("load", "gather") else found
        return fold_dag(node, self.reads_memo, combine)

    # ---- materialization ----

    def materialize(self, node: Node, force=False) -> Node:
        """A load of `node` from memory; a copy when `force`d or when it is computed."""
        if node.kind == "load" and not force:
            return node
        if id(node) in self.stored and not force:
            return self.stored[id(node)]
        buffer = self.new_buffer(node.dtype, int(np.prod(node.shape, dtype=np.int64)))
        # A reshape holds the same elements in the same order: they are stored over the shape
        # they were computed in, where the loop over it can take them (the error of a loss,
        # reshaped to [1, n, m] for a matmul, stored by the loop that sums its square).
        source = self.reshaped.get(id(node))
        computed = node if source is None else source
        self.pend(Pending("store", computed.shape, computed, buffer.id,
                          contiguous(computed.shape)))
        if (known := value_range(computed, self.buffer_range)) is not None:
            self.checked[buffer.id] = known  # its positions, when it is an index
        loaded = self.load(buffer, contiguous(node.shape))
        if not force:
            self.stored[id(node)] = loaded
            if source is not None:
                self.stored[id(source)] = self.load(buffer, contiguous(source.shape))
        return loaded

    def operand(self, node: Node) -> Operand:
        node = self.materialize(node)
        buffer, view = node.attrs
        return Operand(buffer, view.shape, view.strides, view.offset)

    def pend(self, pending: Pending):
        """Put an output into the earliest kernel over its index space that runs after
        everything it reads, or into a new one."""
        after = max((self.last_writer.get(b, -1) for b in self.reads(pending.node)
                     | pending.extra_reads(self) | {pending.buffer}), default=-1)
        serial = pending.kind == "scatter_add"
        position = next((i for i in range(after + 1, len(self.steps))
                         if isinstance(self.steps[i], Group) and not serial
                         and not self.steps[i].serial
                         and self.steps[i].domain == pending.domain), None)
        if position is None:
            position = len(self.steps)
            self.steps.append(Group(pending.domain, serial))
        self.sharing.admit(pending, position)
        self.steps[position].outputs.append(pending)
        self.last_writer[pending.buffer] = max(self.last_writer.get(pending.buffer, -1),
                                               position)

    def step(self, step, writes=()):
        self.steps.append(step)
        for b in writes:
            self.last_writer[b] = len(self.steps) - 1

    # ---- the function ----

    def run(self) -> Program:
        fn = self.fn
        for i, p in enumerate(fn.params):
            buffer = self.new_buffer(p.type.dtype, p.type.size, "param", i)
            self.env[p] = self.load(buffer, contiguous(p.type.shape))
        live = _live_ops(fn)
        uses = Counter(v for op in fn.ops if id(op) in live for v in op.inputs)
        for op in fn.ops:
            if id(op) in live:
                # A value already in memory is read back rather than computed again.
                args = [self.stored.get(id(self.env[v]), self.env[v]) for v in op.inputs]
                # a library primitive made outside the table (custom_vjp) is a host call too,
                # and so is every op on values of types.HOSTED (complex, narrow integers):
                # kernels lower only the COMPILED types
                rule = RULES.get(op.prim.name, _library) if op.prim.kind == "library" else \
                    _library if _touches_host_types(op) else RULES[op.prim.name]
                node = rule(self, op, *args)
                if node is not None and (node.depth > MAX_DEPTH or uses[op.out] > 1
                                         and _computations_exceed(node, MAX_SHARED_SIZE)):
                    node = self.materialize(node)
                if op.out is not None:
                    self.env[op.out] = node
        results = [self.result_buffer(self.env[r], i) for i, r in enumerate(fn.results)]
        steps = build_kernels(self.prologue + self.steps, self.new_buffer, fn.name)
        return Program(fn.name, [p.type for p in fn.params], self.buffers, steps, results,
                       self.constants)

    def result_buffer(self, node: Node, index: int) -> int:
        """Results get memory of their own; a temporary that holds exactly the result
        becomes it instead of being copied."""
        if node.kind == "load":
            buffer = self.buffers[node.attrs[0]]
            view = node.attrs[1]
            if (buffer.kind == "temp" and view.offset == 0 and buffer.size == view.size
                    and views.is_contiguous(view)):
                buffer.kind, buffer.index = "result", index
                return buffer.id
        buffer = self.new_buffer(node.dtype, int(np.prod(node.shape, dtype=np.int64)),
                                 "result", index)
        if node.dtype.on_host:  # a parameter or a view of one: copied on the host
            self.step(LibraryCall("copy", np.asarray, {}, (self.operand(node),), buffer.id,
                                  node.shape), writes=[buffer.id])
        else:
            self.pend(Pending("store", node.shape, node, buffer.id, contiguous(node.shape)))
        return buffer.id


def _touches_host_types(op) -> bool:
    return any(v.type.dtype.on_host for v in (*op.inputs, op.out) if v is not None)


def _computations_exceed(node: Node, limit: int) -> bool:
    """Whether `node`'s expression holds more than `limit` distinct computations (a walk that
    stops there: its cost is bounded by the limit, not by the expression)."""
    seen, stack, count = set(), [node], 0
    while stack:
        n = stack.pop()
        if id(n) in seen or not n.computes:
            continue
        seen.add(id(n))
        count += 1
        if count > limit:
            return True
        stack.extend(n.args)
    return False


def _live_ops(fn: Function) -> set[int]:
    """Ops that contribute to a result, or may raise (guards, index checks): dead code
    costs loops."""
    needed = set(fn.results)
    live = set()
    for op in reversed(fn.ops):
        if op.out is None or op.out in needed or op.prim.name in ("gather", "scatter_add",
                                                                     "check_index"):
            live.add(id(op))
            needed.update(op.inputs)
    return live


# ---- one rule per primitive ----

def _elementwise(f: Fuser, op, *args):
    return f.node("apply", args, (op.prim.name, tuple(op.params.items())), op.out.type.shape,
                  op.out.type.dtype)


def _pow(f: Fuser, op, base, exponent):
    """numpy rejects negative integer exponents: the program checks them before any kernel
    computes the power (a constant exponent is checked here)."""
    if op.out.type.dtype.is_int:
        if exponent.kind != "const":
            exponent = f.materialize(exponent)
            f.step(CheckExponent(f.operand(exponent)), writes=[exponent.attrs[0]])
        elif exponent.attrs < 0:
            f.step(Fail("ValueError", NEGATIVE_POWER))
    return _elementwise(f, op, base, exponent)


def _full(f: Fuser, op):
    t = op.out.type
    return f.node("const", (), _scalar(op.params["value"], t.dtype), t.shape, t.dtype)


def _scalar(value, dt):
    return dt.numpy.type(value).item()


def _constant(f: Fuser, op):
    t = op.out.type
    data = np.asarray(op.params["value"], t.dtype.numpy).reshape(t.shape)
    if data.size == 1:
        return f.node("const", (), data.reshape(-1)[0].item(), t.shape, t.dtype)
    buffer = f.new_buffer(t.dtype, data.size, "const", len(f.constants))
    f.constants.append(np.ascontiguousarray(data))
    return f.load(buffer, contiguous(t.shape))


def _iota(f: Fuser, op):
    t = op.out.type
    axis = op.params["axis"]
    strides = tuple(int(i == axis) for i in range(t.rank))
    return f.node("index", (), View(t.shape, strides), t.shape, t.dtype)


def _view_rule(make_view, grows=False):
    """A view op: rewrite the leaves' views; materialize first when the views cannot
    express it, or when broadcasting would repeat a computation."""
    def rule(f: Fuser, op, x):
        shape = op.out.type.shape
        remap = lambda v: make_view(v, **op.params)
        if grows and x.computes and op.out.type.size > op.inputs[0].type.size:
            x = f.materialize(x)
        out = f.reindex(x, remap, shape) or f.reindex(f.materialize(x, force=True), remap,
                                                      shape)
        if op.prim.name == "reshape" and x.computes and out.computes:
            f.reshaped[id(out)] = x
        return out
    return rule


def _reduce(f: Fuser, op, x):
    axes, out = op.params["axes"], op.out.type
    if not axes:
        return x
    kind = REDUCE_KINDS[op.prim.name]
    buffer = f.new_buffer(out.dtype, out.size)
    if kind in ("max", "min") and any(x.shape[a] == 0 for a in axes):
        f.step(Fail("ValueError", f"zero-size array to reduction operation {kind}imum which "
                                  "has no identity"), writes=[buffer.id])
    else:
        kept = contiguous(tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
        access = View(x.shape, tuple(0 if i in axes else s for i, s in enumerate(kept.strides)))
        f.pend(Pending(kind, x.shape, x, buffer.id, access))
    return f.load(buffer, contiguous(out.shape))


def _matmul(f: Fuser, op, a, b):
    out = op.out.type
    depth, columns = op.inputs[0].type.shape[-1], out.shape[-1]
    small = 0 < out.size * depth <= SMALL_PRODUCT and (columns == 1 or depth * columns <= SMALL_B)
    if small and f.loop_products:
        return _summed_product(f, out, f.materialize(a), f.materialize(b))
    buffer = f.new_buffer(out.dtype, out.size)
    parts = depth_parts(out.shape, depth) if f.loop_products else 1  # a GPU's own products
    partials = f.new_buffer(out.dtype, parts * out.size).id if parts > 1 else None
    f.step(Matmul(f.operand(a), f.operand(b), buffer.id, partials), writes=[buffer.id])
    return f.load(buffer, contiguous(out.shape))


def _summed_product(f: Fuser, out, a: Node, b: Node) -> Node:
    """a @ b as one loop over [..., m, n, k] that sums a[..., i, l] * b[..., l, j] over l."""
    (a_id, av), (b_id, bv) = a.attrs, b.attrs
    *batch, m, n = out.shape
    space = (*batch, m, n, av.shape[-1])
    lead = len(batch)
    rows = View(space, av.strides[:lead] + (av.strides[-2], 0, av.strides[-1]), av.offset)
    columns = View(space, bv.strides[:lead] + (0, bv.strides[-1], bv.strides[-2]), bv.offset)
    product = f.node("apply", (f.node("load", (), (a_id, rows), space, out.dtype),
                               f.node("load", (), (b_id, columns), space, out.dtype)),
                     ("mul", ()), space, out.dtype)
    buffer = f.new_buffer(out.dtype, out.size)
    access = View(space, contiguous(out.shape).strides + (0,))
    f.pend(Pending("sum", space, product, buffer.id, access))
    return f.load(buffer, contiguous(out.shape))


def _library(f: Fuser, op, *args):
    out = op.out.type
    buffer = f.new_buffer(out.dtype, out.size)
    operands = tuple(f.operand(a) for a in args)
    f.step(LibraryCall(op.prim.name, op.prim.evaluate, dict(op.params), operands, buffer.id,
                       out.shape), writes=[buffer.id])
    return f.load(buffer, contiguous(out.shape))


def _pad(f: Fuser, op, x):
    low, high, interior, value = (op.params[k] for k in ("low", "high", "interior", "value"))
    out = op.out.type
    if not any(low + high + interior):
        return x
    buffer = f.new_buffer(out.dtype, out.size)
    whole = contiguous(out.shape)
    fill = f.node("const", (), _scalar(value, out.dtype), out.shape, out.dtype)
    f.pend(Pending("store", out.shape, fill, buffer.id, whole))
    if np.prod(x.shape):
        inner = View(x.shape, tuple(s * (i + 1) for s, i in zip(whole.strides, interior)),
                     sum(lo * s for lo, s in zip(low, whole.strides)))
        f.pend(Pending("store", x.shape, x, buffer.id, inner))
    return f.load(buffer, whole)


def _checked_index(f: Fuser, idx: Node, bound: int, low: int | None = None,
                   error="IndexError", words=None) -> Node:
    """The index operand, materialized and checked before any kernel reads through it: an
    argument's or a constant's at the program's start, where the check splits no loops
    (unless a guard or a failure comes first: a trace's path is decided before its index
    checks apply). By default every index in [-bound, bound) passes (numpy's wrap)."""
    low = -bound if low is None else low
    known = value_range(idx, f.buffer_range)
    if known and low <= known[0] and known[1] < bound:  # proven: nothing to check
        return idx if idx.kind in ("index", "load") else f.materialize(idx)
    idx = f.materialize(idx)
    buffer, view = idx.attrs
    if view == contiguous(view.shape) and f.buffers[buffer].size == np.prod(view.shape):
        f.checked[buffer] = (low, bound - 1)  # every element of the buffer, not a part
    words = words or f"index {{index}} is out of bounds for axis with size {bound}"
    check = CheckIndex(f.operand(idx), bound, low, error, words)
    if f.buffers[idx.attrs[0]].kind in ("param", "const") and not any(
            isinstance(s, (Guard, Fail)) for s in f.steps):
        if str(check) not in map(str, f.prologue):
            f.prologue.append(check)
    else:
        f.step(check, writes=[idx.attrs[0]])
    return idx


def _spread_index(f: Fuser, idx: Node, axis: int, shape) -> Node:
    """The index array (loaded, or a ramp) seen over the result's index space (its axes sit
    at `axis`)."""
    view = idx.attrs if idx.kind == "index" else idx.attrs[1]
    k = len(view.shape)
    spread = View(tuple(shape), (0,) * axis + view.strides + (0,) * (len(shape) - axis - k),
                  view.offset)
    if idx.kind == "index":
        return f.node("index", (), spread, tuple(shape), idx.dtype)
    return f.node("load", (), (idx.attrs[0], spread), tuple(shape), idx.dtype)


def _element_index(f: Fuser, indices, axis, view: View, shape):
    """Checked index arrays on axes axis, axis+1, .. of `view`, seen over `shape`, as one
    address: (index node, its stride, the size it wraps by). One array keeps its own stride
    and wrap; several become the offset sum(wrap(i) * stride) of their axes."""
    sizes, strides = view.shape[axis:axis + len(indices)], view.strides[axis:]
    spread = [_spread_index(f, _checked_index(f, i, n), axis, shape)
              for i, n in zip(indices, sizes)]
    if len(spread) == 1:
        return spread[0], strides[0], sizes[0]

    def apply(name, *args, params=()):
        dt = int64 if name != "lt" else bool_
        return f.node("apply", args, (name, params), tuple(shape), dt)

    def const(value):
        return f.node("const", (), value, tuple(shape), int64)
    total = None
    for i, n, stride in zip(spread, sizes, strides):
        if i.dtype != int64:
            i = apply("cast", i, params=(("dtype", "i64"),))
        wrapped = apply("where", apply("lt", i, const(0)), apply("add", i, const(n)), i)
        term = apply("mul", wrapped, const(stride))
        total = term if total is None else apply("add", total, term)
    return total, 1, 1  # non-negative: the wrap by 1 never applies


def _gather(f: Fuser, op, x, *indices):
    axis, out = op.params["axis"], op.out.type
    x = f.materialize(x)
    buffer, view = x.attrs
    idx, stride, size = _element_index(f, indices, axis, view, out.shape)
    base = views.select_axes(view, axis, len(indices), len(op.inputs[1].type.shape))
    base = View(out.shape, base.strides, base.offset)
    return f.node("gather", (idx,), (buffer, base, stride, size), out.shape, out.dtype)


def _scatter_add(f: Fuser, op, x, *operands):
    *indices, updates = operands
    axis, out = op.params["axis"], op.out.type
    if _one_per_row(indices, axis, out.shape) and np.prod(updates.shape):
        return _add_one_hot(f, x, indices[1], updates, axis, out)
    buffer = f.new_buffer(out.dtype, out.size)
    whole = contiguous(out.shape)
    f.pend(Pending("store", out.shape, x, buffer.id, whole))
    if np.prod(updates.shape):
        idx, stride, size = _element_index(f, indices, axis, whole, updates.shape)
        base = views.select_axes(whole, axis, len(indices), len(op.inputs[1].type.shape))
        base = View(updates.shape, base.strides, 0)
        f.pend(Pending("scatter_add", updates.shape, updates, buffer.id, base,
                       (idx, stride, size)))
    elif np.prod(indices[0].shape):
        for i, n in zip(indices, out.shape[axis:]):
            _checked_index(f, i, n)
    return f.load(buffer, whole)


def _one_per_row(indices, axis, shape) -> bool:
    """Whether the index arrays are (arange(n), labels) over the axes axis, axis+1 of
    `shape`: one element a row (cross-entropy's z[arange(B), labels]), so no two updates meet
    and the scatter is an elementwise select."""
    if len(indices) != 2 or indices[0].kind != "index" or len(indices[0].shape) != 1:
        return False
    view = indices[0].attrs
    return view.strides == (1,) and view.offset == 0 and view.shape == (shape[axis],)


def _add_one_hot(f: Fuser, x, labels, updates, axis, out):
    """x + updates where the column is the row's label: the gradient of a picked logit stays
    in the loop that writes the rest of x's rows, instead of a serial scatter after it."""
    shape, dt, n = out.shape, out.dtype, out.shape[axis + 1]
    # int32 columns keep the loop's vectors as wide as its float32 lanes
    it = int32 if n < 1 << 31 else int64

    def apply(name, *args, params=(), dtype=it):
        return f.node("apply", args, (name, params), shape, dtype)

    def const(value):
        return f.node("const", (), value, shape, it)
    label = _spread_index(f, _checked_index(f, labels, n), axis, shape)
    if label.dtype != it:
        label = apply("cast", label, params=(("dtype", it.name),))
    label = apply("where", apply("lt", label, const(0), dtype=bool_),
                  apply("add", label, const(n)), label)
    column = f.node("index", (), View(shape, tuple(int(d == axis + 1) for d in range(len(shape)))),
                    shape, it)
    if updates.computes:  # each row's update is read by all its columns
        updates = f.materialize(updates)
    rows = (*updates.shape[:axis + 1], 1, *updates.shape[axis + 1:])

    def remap(view):
        row_view = views.reshape(view, rows)
        return row_view and views.broadcast(row_view, shape)
    spread = f.reindex(updates, remap, shape) or f.reindex(
        f.materialize(updates, force=True), remap, shape)
    return apply("where", apply("eq", column, label, dtype=bool_),
                 apply("add", x, spread, dtype=dt), x, dtype=dt)


def _concatenate(f: Fuser, op, *xs):
    axis, out = op.params["axis"], op.out.type
    buffer = f.new_buffer(out.dtype, out.size)
    whole = contiguous(out.shape)
    offset = 0
    for x in xs:
        if np.prod(x.shape):
            part = View(x.shape, whole.strides, offset * whole.strides[axis])
            f.pend(Pending("store", x.shape, x, buffer.id, part))
        offset += x.shape[axis]
    return f.load(buffer, whole)


def _check_index(f: Fuser, op, idx):
    p = op.params
    return _checked_index(f, idx, p["bound"], p["low"], p["error"], p["words"])


def _guard(f: Fuser, op, pred):
    f.step(Guard(f.operand(pred), op.params["expected"], op.params["site"]))


RULES = {
    "full": _full, "constant": _constant, "iota": _iota,
    "broadcast_to": _view_rule(lambda v, shape: views.broadcast(v, shape), grows=True),
    "reshape": _view_rule(lambda v, shape: views.reshape(v, shape)),
    "transpose": _view_rule(lambda v, perm: views.transpose(v, perm)),
    "slice": _view_rule(lambda v, start, stop, step: views.slice_view(v, start, stop, step)),
    "reduce_sum": _reduce, "reduce_max": _reduce, "reduce_min": _reduce,
    "reduce_prod": _reduce,
    "matmul": _matmul, "pad": _pad, "gather": _gather, "scatter_add": _scatter_add,
    "concatenate": _concatenate, "guard": _guard, "pow": _pow, "check_index": _check_index,
}
# Every elementwise primitive fuses the same way (its scalar code is in body.LOWERINGS);
# every library primitive is a host call between kernels.
RULES.update({name: {"elementwise": _elementwise, "library": _library}[prim.kind]
              for name, prim in PRIMITIVES.items()
              if prim.kind in ("elementwise", "library") and name not in RULES})


def fuse(fn: Function, loop_products: bool = True) -> Program:
    """Group `fn`'s ops into kernels and runtime steps; small matrix products become loops
    unless `loop_products` is False (a GPU target launches its own product kernels)."""
    return Fuser(fn, loop_products).run()

