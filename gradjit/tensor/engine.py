"""Reverse-mode execution over the tape: each record's VJP rule from the primitive table runs
on tensors (recording again when create_graph=True, which gives higher-order gradients), or,
where nothing is recorded, on the saved numpy arrays themselves."""
from __future__ import annotations

import functools
import heapq
import operator

import numpy as np

from gradjit.autograd import anomaly_mode
from gradjit.autograd.anomaly_mode import check_gradients
from gradjit.ir import elementwise as E
from gradjit.ir.primitive import Partials, Primitive
from gradjit.tensor import dtypes, graph, saved_by
from gradjit.tensor import memory_format as MF
from gradjit.tensor.grad_mode import no_grad, set_grad_enabled
from gradjit.tensor.fused import Rule
from gradjit.tensor.graph import AccumulateGrad, Number, Record
from gradjit.tensor.saved import FREED, Saved
from gradjit.tensor.hot_path import unrecorded


def _reachable(roots) -> list[Record]:
    stack = [r for r in roots if type(r) is Record]
    seen = set(stack)  # marked when first pushed: each record is visited once
    while stack:
        for e in stack.pop().edges:
            if type(e) is Record and e not in seen:
                seen.add(e)
                stack.append(e)
    return sorted(seen, key=_SEQUENCE)


_SEQUENCE, _VALUE = operator.attrgetter("seq"), operator.attrgetter("value")
_present = functools.partial(operator.is_not, None)  # edge is not None, without a frame


def _needed(records, targets) -> set:
    """The records on a path to a target."""
    needed = set()
    for rec in records:  # ascending: a record's inputs come before it
        if any(e in targets or e in needed for e in rec.edges if e is not None):
            needed.add(rec)
    return needed


def execute(roots, seeds, targets=None, retain_graph=False, create_graph=False,
            deliver=None) -> dict:
    """Propagate `seeds` (cotangents of the root edges) back through the tape. Returns the
    total cotangent of each target edge reached (every leaf's AccumulateGrad when targets is
    None); non-leaf tensors that retain their grad get theirs on the way. `deliver(captured)`
    runs before the callbacks queued for the pass's end (backward() accumulates .grad there,
    which PyTorch's final callbacks see)."""
    needed = None if targets is None else _needed(_reachable(roots), targets)
    # The records holding a cotangent, latest first: a record's inputs are older than it, so
    # each has its every cotangent when popped, without a walk and sort of the tape first.
    pending: list = []
    buffers: dict = {}
    for edge, seed in zip(roots, seeds):
        _deliver(buffers, pending, edge, seed)
    captured = {}
    outer, graph._scopes.active = graph._scopes.active, None
    outer_pass, graph._pass.finishing = graph._pass.finishing, []
    plain = not create_graph and not anomaly_mode._state.enabled
    try:
        with set_grad_enabled(create_graph):
            held = _Held()
            while True:
                if held.node is not None and (not pending or pending[0][1].node is not held.node):
                    held.release(buffers, pending)  # the node's records have all run
                if not pending:
                    break
                rec = heapq.heappop(pending)[1]
                g = buffers.pop(rec)
                if rec.hooks:
                    g = graph.run_hooks(rec, _tensor(g))
                if targets is not None and rec in targets:
                    captured[rec] = g = _tensor(g)
                if rec.retained is not None:
                    g = _tensor(g)
                    _keep_retained(rec, g, create_graph)
                if needed is not None and rec not in needed:
                    continue
                node = rec.node
                last = node._records[-1]() is rec  # where g enters the node
                if node.pre_hooks and last:
                    g, = graph.run_prehooks(node, (_tensor(g),))
                if node.node_hooks:
                    held.open(node, _tensor(g) if last else None)
                arrays = _arrays(rec, g) if plain and not node.node_hooks else None
                if targets is not None:
                    wanted = [edge is not None and (edge in targets or edge in needed)
                              for edge in rec.edges]
                else:  # every edge into the tape: kept with the arrays
                    wanted = arrays[3] if arrays is not None else list(map(_present, rec.edges))
                if arrays is not None:  # numpy all the way: nothing to record or place
                    cotangents = _cotangents(rec, wanted, arrays[0], arrays[1], arrays[2])
                    if not retain_graph:
                        rec.freed = True
                    for w, edge, ct in zip(wanted, rec.edges, cotangents):
                        if w and ct is not None:
                            if type(ct) is not np.ndarray:
                                _deliver(buffers, pending, edge, ct)
                                continue
                            previous = buffers.get(edge)  # _deliver's array case, inline
                            if previous is not None:
                                buffers[edge] = E.add(previous, ct)
                                continue
                            buffers[edge] = ct
                            if type(edge) is Record:
                                heapq.heappush(pending, (-edge.seq, edge))
                    continue
                if rec.freed and any(type(v) is np.ndarray for v in rec.params.values()):
                    raise RuntimeError(FREED)  # arrays a rule keeps (masks) went too
                g = _tensor(g)
                inputs = _unpacked(rec)
                out = rec.unpack(rec.out)
                cotangents = _cotangents(rec, wanted, g, out, inputs)
                check_gradients(rec, cotangents)
                if not retain_graph:
                    rec.freed = True
                for w, edge, ct, saved in zip(wanted, rec.edges, cotangents, rec.inputs):
                    if w and ct is not None:
                        if ct._device is not saved.device:
                            ct = _placed(ct, saved)
                        if held.node is node and not (type(edge) is Record and
                                                      edge.node is node):
                            held.add(edge, ct)  # leaving the node: its hooks see it first
                        else:
                            _deliver(buffers, pending, edge, ct)
            for edge, g in buffers.items():
                if targets is None and isinstance(edge, AccumulateGrad) and not edge.sink or \
                        targets is not None and edge in targets:
                    captured[edge] = graph.run_hooks(edge, _tensor(g))
            if deliver is not None:
                deliver(captured)
            for callback in graph._pass.finishing:
                callback()
    finally:
        graph._scopes.active = outer
        graph._pass.finishing = outer_pass
    return captured


class _Held:
    """The cotangents a node with register_hook hooks sends to its operands, held until its
    every record has run (they are contiguous on the tape), then given to the hooks as
    grad_inputs: per operand in next_functions order, an operand met again getting None."""

    node = None

    def open(self, node, grad_output):
        if self.node is not node:
            self.node, self.grads, self.outputs = node, {}, ()
        if grad_output is not None:
            self.outputs = (grad_output,)

    def add(self, edge, ct):
        previous = self.grads.get(edge)
        self.grads[edge] = ct if previous is None else previous + ct

    def release(self, buffers, pending):
        edges, seen = self.node._input_edges(), set()
        grads = []
        for e in edges:
            grads.append(self.grads.pop(e, None) if e is not None and e not in seen else None)
            seen.add(e)
        out = graph.run_node_hooks(self.node, tuple(grads), self.outputs)
        deliveries = [*zip(edges, out), *self.grads.items()]  # (and any edge not listed)
        self.node = None
        for edge, ct in deliveries:
            if edge is not None and ct is not None:
                _deliver(buffers, pending, edge, ct)


def _arrays(rec, g):
    """(g, out, inputs, which edges lead into the tape), g and the saved values as numpy
    arrays, where the record's VJP rule (a primitive's) can run on them as the tensor path
    would: g and every saved value plain CPU arrays, current (a stale or freed one takes the
    tensor path, which raises only where the rule reads it) and not behind
    saved_tensors_hooks. None otherwise."""
    if rec.freed:
        return None
    if type(g) is not np.ndarray:
        if g._device is not _CPU or g._saved is not None or g._poison is not None or \
                type(g._value) is not np.ndarray:
            return None
        g = g._value
    known = rec.arrays
    if known is None:
        known = rec.arrays = _gathered(rec)
    if known is False or list(map(_VALUE, known[2])) != known[3]:  # a saved value went stale
        return None
    return g, known[0], known[1], known[4]


def _unpacked(rec):
    """The operands backward reads; where saved_tensors_hooks packed them, unpacked in the
    order PyTorch's node unpacks them."""
    saved = rec.inputs
    if not any(type(s) is Saved and s.packed is not None for s in saved):
        return [rec.unpack(s) for s in saved]
    inputs = [None] * len(saved)
    for i in saved_by.saving_order(rec.node.name(), len(saved)):
        inputs[i] = rec.unpack(saved[i])
    return inputs


def _gathered(rec):
    """(out, inputs, the saved values' version counters, their versions when saved, which
    edges are not None) of a record whose rule can run on arrays, else False: what only its
    creation decides, gathered on its first backward and kept for the next (retain_graph)
    until Record.protect replaces a saved value."""
    if type(rec.prim) not in _ON_ARRAYS:
        return False
    arrays, counters, versions = [], [], []
    for saved in (rec.out, *rec.inputs):  # the output first: always a Saved
        kind = type(saved)
        if kind is Saved:
            if saved.packed is not None or saved.device is not _CPU or \
                    type(saved.value) is not np.ndarray:
                return False
            arrays.append(saved.value)
            counters.append(saved.counter)
            versions.append(saved.version)
        else:
            arrays.append(saved.array() if kind is Number else saved)
    return arrays[0], arrays[1:], counters, versions, tuple(map(_present, rec.edges))


_CPU = dtypes.CPU
_ON_ARRAYS = (Primitive, Rule)  # rules written with primitives (not a custom Function's)


def _tensor(g):
    """A cotangent as the tensor hooks, .grad and autograd.grad's results hold."""
    if type(g) is not np.ndarray:
        return g
    from gradjit.tensor.tensor import Tensor
    return Tensor._wrap(g)


def _cotangents(rec, wanted, g, out, inputs):
    """The record's VJP rule on g. The rules follow JAX's convention for complex values;
    PyTorch's gradient is its conjugate (df/dx + i df/dy for a real loss), and the rules are
    linear in g: conj(rule(conj(g))) gives it, in PyTorch's convention all the way."""
    vjp = rec.prim.vjp
    complex_ = not rec.real and (_is_complex(out) or any(map(_is_complex, inputs)))
    if complex_:
        g = E.conj(g) if _is_complex(g) else g
    cotangents = vjp.some(wanted, g, out, *inputs, **rec.params) \
        if type(vjp) is Partials else vjp(g, out, *inputs, **rec.params)
    if not complex_:
        return cotangents
    return tuple(E.conj(c) if c is not None and _is_complex(c) else c for c in cotangents)


def _is_complex(x) -> bool:
    """Whether an operand of a rule (a tensor, a numpy array or a number) is complex: read
    off the array a tensor holds, since this runs for every record of every backward."""
    value = getattr(x, "_value", x)
    if type(value) is np.ndarray:
        return value.dtype.kind == "c"
    return isinstance(value, complex) or getattr(getattr(x, "dtype", None), "is_complex", False)


def _placed(ct, saved):
    """A cotangent on its input's device: `.to(device)` records a cast, whose VJP casts the
    cotangent where the output lives, so the way back crosses the devices again here."""
    return ct.to(saved.device) if ct._device != saved.device else ct


def _deliver(buffers, pending, edge, ct):
    """Add ct to edge's cotangent; a record's first one puts it on the `pending` heap."""
    if type(ct) is not np.ndarray and getattr(ct, "_poison", None) is not None:
        raise RuntimeError(ct._poison)
    previous = buffers.get(edge)
    if previous is not None:
        buffers[edge] = E.add(previous, ct)
        return
    buffers[edge] = ct
    if type(edge) is Record:
        heapq.heappush(pending, (-edge.seq, edge))


def _keep_retained(rec, g, create_graph):
    tensor = rec.retained()
    if tensor is not None and tensor._edge is rec:
        accumulate(tensor, g, create_graph)


def _first_grad(g, tensor):
    """A copy of g, detached, laid out as PyTorch's AccumulateGrad lays out a first .grad
    (MF.grad_layout): matmul's VJP gives nn.Linear's weight a transposed cotangent, and an
    optimizer step over arrays of two layouts ran 2-3x slower."""
    like, value = tensor._value, g._value
    if type(like) is np.ndarray and type(value) is np.ndarray and value.shape == like.shape:
        out = unrecorded(g, np.ndarray.copy if like.flags.c_contiguous else  # (C order)
                         functools.partial(MF.laid_out, order=MF.grad_layout(like)),
                         any_dtype=True)
        if out is not None:
            return out
    return g.detach().clone()


def accumulate(tensor, g, create_graph):
    """Add a cotangent into `tensor.grad`, as PyTorch's AccumulateGrad does: a fresh tensor
    the first time, in place afterwards (out of place when building a graph)."""
    edge = tensor._edge
    if getattr(edge, "pre_hooks", None):
        g, = graph.run_prehooks(edge, (g,))
    if tensor._grad_dtype and g.dtype is not tensor._grad_dtype:
        g = g.to(tensor._grad_dtype)
    if tensor._grad is None:
        tensor._grad = g if create_graph else _first_grad(g, tensor)
    elif tensor._grad._sparse_layout and not g._sparse_layout:  # the sum is strided: a new tensor
        tensor._grad = g + tensor._grad.detach()
    elif create_graph:
        tensor._grad = tensor._grad + g
    else:
        with no_grad():
            tensor._grad.add_(g)
    if getattr(edge, "post_hooks", None):
        with set_grad_enabled(create_graph):  # as the rest of backward runs
            for hook in list(edge.post_hooks.values()):
                hook(tensor)
    if getattr(edge, "node_hooks", None):
        graph.run_node_hooks(edge, (), (g,))
