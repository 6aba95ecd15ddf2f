"""The autograd tape: one record per primitive applied to tensors that require grad, grouped
under the grad_fn objects users see (`AddBackward0`), and the saved values backward reads."""
from __future__ import annotations

import itertools
import threading
import weakref

import numpy as np

from gradjit.tensor import saved_by
from gradjit.tensor.grad_mode import is_grad_enabled
from gradjit.tensor.saved import FREED, Saved, SavedTensor, pack_saved, saved_hooks, \
    saved_tensor

# The grad_fn name of a primitive applied outside any named tensor operation (inside the VJP
# rules that backward runs with create_graph=True, or by the array surface directly).
PRIMITIVE_NAMES = {
    "add": "AddBackward0", "sub": "SubBackward0", "mul": "MulBackward0", "div": "DivBackward0",
    "pow": "PowBackward1", "neg": "NegBackward0", "abs": "AbsBackward0", "exp": "ExpBackward0",
    "log": "LogBackward0", "log1p": "Log1PBackward0", "expm1": "Expm1Backward0",
    "sqrt": "SqrtBackward0", "rsqrt": "RsqrtBackward0", "sin": "SinBackward0",
    "cos": "CosBackward0", "tan": "TanBackward0", "tanh": "TanhBackward0",
    "sigmoid": "SigmoidBackward0", "erf": "ErfBackward0", "erfc": "ErfcBackward0",
    "atan2": "Atan2Backward0", "maximum": "MaximumBackward0", "minimum": "MinimumBackward0",
    "where": "WhereBackward0", "cast": "ToCopyBackward0", "broadcast_to": "ExpandBackward0",
    "reshape": "ViewBackward0", "transpose": "PermuteBackward0", "reduce_sum": "SumBackward1",
    "reduce_max": "AmaxBackward0", "reduce_min": "AminBackward0", "reduce_prod": "ProdBackward1",
    "matmul": "BmmBackward0",
    "slice": "SliceBackward0", "pad": "ConstantPadNdBackward0", "gather": "IndexBackward0",
    "scatter_add": "ScatterAddBackward0", "concatenate": "CatBackward0",
}


def primitive_name(prim) -> str:
    known = PRIMITIVE_NAMES.get(prim.name)
    return known or "".join(p.title() for p in prim.name.split("_")) + "Backward0"


_SAVED_OPERANDS = {"_saved_self": 0, "_saved_other": 1}
_SAVED_VIEWS = {*_SAVED_OPERANDS, "_saved_result"}


def _original(saved):
    """The tensor itself where `saved` is an operand (not the node's output) still alive,
    unmodified and not packed by a hook: PyTorch's saved variable then unpacks to that same
    object."""
    if type(saved) is not Saved or saved.input is None or saved.packed is not None:
        return None
    tensor = saved.input()
    return tensor if tensor is not None and tensor._counter is saved.counter and \
        tensor._counter.value == saved.version else None


class NodeHooks:
    """register_prehook and register_hook of a grad_fn (and of AccumulateGrad)."""

    pre_hooks = node_hooks = None  # {handle id: hook}, once one is registered

    def register_prehook(self, fn):
        """fn(grad_outputs) before this node runs; a tuple it returns replaces them."""
        if self.pre_hooks is None:
            self.pre_hooks = {}
        return _registered(self.pre_hooks, fn)

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) once this node ran; a tuple it returns replaces
        grad_inputs."""
        if self.node_hooks is None:
            self.node_hooks = {}
        return _registered(self.node_hooks, fn)


class Node(NodeHooks):
    """A grad_fn: the backward of one tensor operation (one or more primitive records)."""

    _classes: dict[tuple, type] = {}

    def __init__(self):
        self._records: list[weakref.ref] = []
        self._inputs = None  # weakrefs to the operation's operand edges (None: no gradient)
        self.metadata = {}

    @classmethod
    def named(cls, name: str, module: str | None = None) -> Node:
        """A node of class `name`; `module` is where PyTorch's repr says that class lives
        (a custom Function's node: torch.autograd.function)."""
        kind = cls._classes.get((name, module))
        if kind is None:
            kind = cls._classes[name, module] = type(name, (cls,), {"_module": module})
        return kind()

    _module = None
    _NAMESPACED = {"NotImplemented", "CopySlices"}  # PyTorch's nodes written in C++ alone

    def name(self) -> str:
        name = type(self).__name__
        return f"torch::autograd::{name}" if name in self._NAMESPACED else name

    def __repr__(self) -> str:
        kind = type(self).__name__
        shown = kind if self._module is None else f"{self._module}.{kind}"
        return f"<{shown} object at {hex(id(self))}>"

    def __getattr__(self, name):
        """PyTorch's saved-variable views: _saved_self/_saved_other are the operation's first
        and second operands as backward will read them, _saved_result its output."""
        records = [r() for r in self.__dict__.get("_records", ())]
        records = [r for r in records if r is not None]
        if name in _SAVED_VIEWS and any(r.freed for r in records):
            raise RuntimeError(FREED)
        raw = name.startswith("_raw_saved_")
        view = name.replace("_raw_saved_", "_saved_", 1)
        if records and view == "_saved_result":
            record, saved = records[-1], records[-1].out
        else:
            slot = _SAVED_OPERANDS.get(view)
            if not (records and slot is not None and slot < len(records[0].inputs)) or \
                    raw and type(records[0].inputs[slot]) is not Saved:
                raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
            record, saved = records[0], records[0].inputs[slot]
        if raw:
            return SavedTensor(saved, record)
        original = _original(saved)
        return record.unpack(saved) if original is None else original

    def _input_edges(self) -> list:
        """The edge of each operand, in the order of PyTorch's overload (see next_functions)."""
        if self._inputs is not None:
            return [ref() if ref is not None else None for ref in self._inputs]
        out = []
        for ref in self._records:
            record = ref()
            for edge in record.edges if record is not None else ():
                if not (isinstance(edge, Record) and edge.node is self):
                    out.append(edge)
        return out

    @property
    def next_functions(self) -> tuple:
        # One entry per operand of PyTorch's overload, in its order: a Python number wrapped
        # as a tensor shows as None, a number PyTorch takes as a Scalar not at all.
        return tuple((e.node if isinstance(e, Record) else e, 0) for e in self._input_edges())

    def __call__(self, *grads):
        """This backward alone applied to the gradient of its output: the gradient of each
        operand (None where it needs none), recorded when grad mode is on."""
        from gradjit.tensor.engine import execute
        if self._module is not None:  # a custom Function's node, which PyTorch does not call
            raise TypeError(f"'{type(self).__name__}' object is not callable")
        if len(grads) != 1:
            raise TypeError(f"expected 1 arguments, got {len(grads)} instead")
        records = [r() for r in self._records]
        edges = self._input_edges()
        captured = execute([records[-1]], list(grads), {e for e in edges if e is not None},
                           retain_graph=True, create_graph=is_grad_enabled())
        out = tuple(captured.get(e) if e is not None else None for e in edges)
        return out[0] if len(out) == 1 else out


class AccumulateGrad(NodeHooks):
    """The edge into a leaf that requires grad: backward adds the cotangent to `.grad`."""

    tangent_only = False  # make_dual's leaf that is on the tape only to carry a tangent
    sink = False  # a no_grad view's: it requires grad, but backward keeps nothing for it

    def __init__(self, variable):
        self.variable = variable
        self.metadata = {}
        self.hooks = self.post_hooks = None

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"

    next_functions = ()


class RemovableHandle:
    """torch.utils.hooks.RemovableHandle, what registering a hook returns: `remove()` (or
    leaving a `with` block) takes the hook off again, also from the tables in `extra_dict` that
    record its options."""

    next_id = 0  # process-wide, as PyTorch's (code that reads or resets it sees the same)

    def __init__(self, hooks_dict: dict, *, extra_dict=None):
        self._hooks, self.id = hooks_dict, RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self._extra = [extra_dict] if isinstance(extra_dict, dict) else list(extra_dict or ())

    def remove(self):
        self._hooks.pop(self.id, None)
        for table in self._extra:
            table.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def add_hook(edge, hook) -> RemovableHandle:
    if edge.hooks is None:
        edge.hooks = {}
    return _registered(edge.hooks, hook)


def _registered(hooks: dict, hook) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def run_prehooks(node, grads: tuple) -> tuple:
    """grads after node.register_prehook's hooks, in registration order."""
    for hook in list(node.pre_hooks.values()):
        out = hook(grads)
        if out is not None:
            grads = tuple(out)
    return grads


def run_node_hooks(node, grad_inputs: tuple, grad_outputs: tuple) -> tuple:
    """grad_inputs after node.register_hook's hooks, in registration order."""
    for hook in list(node.node_hooks.values()):
        out = hook(grad_inputs, grad_outputs)
        if out is not None:
            grad_inputs = tuple(out)
    return grad_inputs


def run_hooks(edge, g):
    """The gradient arriving at `edge` after its tensor's hooks, in registration order; a hook
    that returns a tensor replaces the gradient (one of the same size and dtype)."""
    for hook in list(edge.hooks.values()) if edge.hooks else ():
        out = hook(g)
        if out is not None:
            _check_hook_result(hook, g, out)
            g = out
    return g


def _check_hook_result(hook, g, out):
    if not hasattr(out, "_edge"):
        raise TypeError(f"expected Variable, but hook returned '{type(out).__name__}'")
    name = getattr(hook, "__name__", "<unknown>")
    if tuple(out.shape) != tuple(g.shape):
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if out.dtype is not g.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                           f"torch.{g.dtype.legacy}Tensor got torch.{out.dtype.legacy}Tensor)")


class _Pass(threading.local):
    finishing = None  # what the backward pass in progress runs when it ends


_pass = _Pass()


def after_backward(callback):
    """Run callback() once the backward pass in progress has delivered every gradient."""
    if _pass.finishing is None:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _pass.finishing.append(callback)


class Version:
    """How often a storage was modified in place; shared by all views of it. The count starts
    as the class's 0 (no __init__: every eager result makes one, and a Python constructor frame
    was a tenth of a small add)."""

    value = 0


class Number:
    """A Python number operand, kept as the array the primitive saw (a read-only broadcast of
    it to its neighbour's shape and dtype, which VJP rules expect) only when backward reads it:
    most records are never differentiated through."""

    __slots__ = ("value", "dtype", "shape", "view")

    def __init__(self, value, like):
        self.value, self.dtype, self.shape = value, like.dtype, like.shape
        self.view = None

    def array(self):
        # np.broadcast_to's argument checks cost more than this one strided view, made once
        # (read-only, so every backward through the record may share it)
        if self.view is None:
            self.view = np.ndarray(self.shape, self.dtype, np.asarray(self.value, self.dtype),
                                   strides=(0,) * len(self.shape))
            self.view.flags.writeable = False
        return self.view


_sequence = itertools.count()

# Nodes whose array operands gradjit builds from the shape alone: PyTorch's save no tensor.
_SHAPE_ONLY = frozenset({"FlipBackward0", "RollBackward0", "TrilBackward0", "TriuBackward0",
                         "Rot90Backward0"})


class Record:
    """One primitive application on the tape: out = prim(*inputs) {params}."""

    __slots__ = ("prim", "params", "inputs", "out", "edges", "node", "seq", "freed", "retained",
                 "hooks", "gradient", "real", "arrays", "__weakref__")

    def __init__(self, prim, params, args, edges, result, node, pack_later=False):
        self.prim, self.params, self.edges, self.node = prim, params, tuple(edges), node
        pack_out = False
        if saved_hooks.stack and not pack_later:  # the hooks see what PyTorch's node saves
            hooked, pack_out = saved_by.hooked(node.name(), self.edges)
            kept = list(args)
            for i in saved_by.saving_order(node.name(), len(args)):
                if hasattr(args[i], "_edge"):
                    kept[i] = Saved(args[i], hooked=hooked[i])
            self.inputs = tuple(kept)
        else:  # (packed at the end of its operation: see pack_saved)
            self.inputs = tuple([Saved(a, hooked=False) if hasattr(a, "_edge") else a
                                 for a in args])
        self.out = Saved(result, node, hooked=False)
        if any(getattr(a, "_inference", False) for a in args):
            saved_by.refuse_inference(node.name(), self.edges, args)
        self.out.edge = None  # the output's edge is this record, set when unpacked
        self.seq = next(_sequence)
        self.freed = False
        self.retained = None  # weakref to a non-leaf tensor whose .grad is kept
        self.hooks = None  # {handle id: hook} of Tensor.register_hook on this output
        self.gradient = None  # has_gradient's answer, once asked
        self.real = False  # True: known at creation that no operand or result is complex
        self.arrays = None  # what backward's numpy path reads (engine._gathered), once asked
        node._records.append(weakref.ref(self))
        if pack_out:  # once recorded: the pack hook sees the result with its grad_fn, as torch's
            self.out.pack(saved_tensor(self.out, self))

    def unpack(self, saved):
        """A tensor for a saved value; using it after it went stale poisons the result."""
        kind = type(saved)
        if self.freed and (kind is np.ndarray and type(self.node).__name__ not in _SHAPE_ONLY
                           or kind is Number and len(self.node._records) == 1):
            # PyTorch saves index operands, and the number of a lone x * 3 (a wrapped tensor),
            # but not the constants an operation built of several primitives uses (mean's count)
            from gradjit.tensor.tensor import Tensor
            t = Tensor._wrap(saved.array() if kind is Number else saved)
            t._poison = FREED
            return t
        if kind is not Saved:
            return saved.array() if kind is Number else saved
        t = saved.cls._wrap(saved.value if saved.packed is None else saved.current(),
                            saved.counter)
        t._edge = saved.edge if saved is not self.out else self
        if saved.device is not t._device:
            t._device = saved.device
        t._saved = (saved, self)
        return t

    def protect(self, counter):
        """Before an in-place write into `counter`'s storage: operands of this record that live
        there keep their old value (PyTorch saves the original self of an in-place op)."""
        for saved in self.inputs:
            if isinstance(saved, Saved) and saved.counter is counter:
                self.arrays = None  # (it held the value replaced here)
                if saved.packed is None:  # a packed one is read back through its unpack hook
                    saved.value = saved.value.copy()
                saved.counter, saved.version = Version(), 0


class _Refusal:
    """The rule of a result whose derivative is refused: reaching it in backward is the error."""

    differentiable = True

    def __init__(self, message, error):
        self.message, self.refusal = message, error

    def vjp(self, g, out, *operands):
        raise self.refusal(self.message)


def refuse_gradient(result, node, message, operands=(), error=RuntimeError):
    """result (detached) with grad_fn `node` over `operands`, whose backward raises
    error(message), as PyTorch's NotImplemented and once_differentiable nodes do."""
    result = result.detach()
    result._edge = Record(_Refusal(message, error), {}, list(operands),
                          [a._grad_edge() for a in operands], result, node)
    return result


def not_implemented(result, aten, operands):
    """result with PyTorch's NotImplemented grad_fn over `operands` where one requires grad
    (aten::`aten` has no derivative: its backward raises), else result as it is."""
    if not is_grad_enabled() or not any(t.requires_grad for t in operands):
        return result
    return refuse_gradient(result, Node.named("NotImplemented"),
                           f"derivative for aten::{aten} is not implemented", operands)


tangent_carriers = 0  # how many leaves were made tangent_only (none: every edge has gradient)


def carry_tangent(edge):
    """Mark a fresh leaf's edge as there only to carry a forward-mode tangent."""
    global tangent_carriers
    edge.tangent_only = True
    tangent_carriers += 1


def has_gradient(edge) -> bool:
    """Whether the tensor with this edge requires grad as PyTorch sees it: its history
    reaches a leaf that requires grad of its own, not only leaves that carry tangents (those
    are on the tape for forward mode alone)."""
    if edge is None:
        return False
    if not tangent_carriers:
        return True
    if isinstance(edge, AccumulateGrad):
        return not edge.tangent_only
    if edge.gradient is None:
        seen, stack, found = set(), [edge], False
        while stack and not found:
            e = stack.pop()
            if isinstance(e, AccumulateGrad):
                found = not e.tangent_only
            elif isinstance(e, Record) and e not in seen:
                seen.add(e)
                if e.gradient is None:
                    stack.extend(x for x in e.edges if x is not None)
                else:
                    found = e.gradient
        edge.gradient = found
    return edge.gradient


class _Scopes(threading.local):
    active = None


_scopes = _Scopes()


class TorchWords:
    """Errors raised inside that have PyTorch's wording for Tensors (`in_torch_words`: the
    shared array layer raises numpy's) are raised in it."""

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        if hasattr(kind, "in_torch_words"):
            raise error.in_torch_words() from None


torch_words = TorchWords()


class Scope(TorchWords):
    """A tensor operation in progress: its primitive records share one grad_fn."""

    declares = True  # the operation that opened the scope names its operands

    def __init__(self, name):
        self.name, self.node, self.records = name, None, []

    def node_for(self, prim) -> Node:
        if self.name is None:
            return Node.named(primitive_name(prim))
        if self.node is None:
            self.node = Node.named(self.name)
        return self.node

    def __enter__(self):
        self.outer = _scopes.active
        _scopes.active = self
        return self

    def __exit__(self, kind, error, tb):
        _scopes.active = self.outer
        if kind is None and saved_hooks.stack and self.records:
            pack_saved(self.records)
        super().__exit__(kind, error, tb)


class _Nested:
    def __init__(self, scope, named):
        self.scope = scope
        self.declares = named  # this operation named the outer one, so its operands are its

    def __enter__(self):
        return self.scope

    def __exit__(self, *exc):
        return None


def op(name: str | None, fresh: bool = False):
    """The scope of a tensor operation named `name` (its grad_fn's name). Inside another
    operation it joins that one (the outer name wins, or names a nameless outer scope),
    unless `fresh`."""
    outer = _scopes.active
    if outer is not None and not fresh:
        named = outer.name is None
        if named:
            outer.name = name
        return _Nested(outer, named)
    return Scope(name)


def declare_inputs(scope, operands):
    """Name the operands of the operation `scope` records (the first declaration wins, so an
    in-place form reports its out-of-place operation's operands)."""
    declare_edges(scope, [getattr(a, "_edge", None) for a in operands])


def declare_edges(scope, edges):
    """declare_inputs with the operands' edges given (None: an operand without history)."""
    node = scope.node
    if node is not None and node._inputs is None:
        node._inputs = tuple(None if e is None else weakref.ref(e) for e in edges)


def record(prim, params, args, edges, result) -> Record:
    scope = _scopes.active
    if scope is None:
        return Record(prim, params, args, edges, result, Node.named(primitive_name(prim)))
    rec = Record(prim, params, args, edges, result, scope.node_for(prim),
                 pack_later=bool(saved_hooks.stack))
    scope.records.append(rec)
    return rec
