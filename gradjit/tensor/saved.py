"""Tensors kept for backward: their values and versions, and what saved_tensors_hooks pack of
them, once per tensor PyTorch's node saves, at the end of the operation."""
from __future__ import annotations

import re
import threading
import weakref

from gradjit.tensor import saved_by

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.")


class _SavedHooks(threading.local):
    stack = ()  # (pack_hook, unpack_hook) pairs of saved_tensors_hooks, innermost last
    disabled = None  # the message of an enclosing disable_saved_tensors_hooks


saved_hooks = _SavedHooks()


def outside_recording(hook, x):
    """hook(x) as a user function of its own, not part of the operation being recorded and
    recording nothing (a pack hook's own operations would save tensors again)."""
    from gradjit.tensor.grad_mode import no_grad
    from gradjit.tensor.graph import _scopes
    outer, _scopes.active = _scopes.active, None
    try:
        with no_grad():
            return hook(x)
    finally:
        _scopes.active = outer


class Saved:
    """A tensor operand kept for backward: its value, autograd edge and version then; under
    saved_tensors_hooks, what the pack hook made of it, which the unpack hook turns back
    into the tensor backward reads."""

    __slots__ = ("value", "edge", "counter", "version", "cls", "device", "origin", "input",
                 "packed")

    def __init__(self, tensor, origin=None, hooked=True):
        self.value, self.edge, self.cls = tensor._value, tensor._edge, type(tensor)
        self.counter, self.version, self.device = tensor._counter, tensor._counter.value, \
            tensor._device
        self.origin = origin  # the Node of which this is output 0, else None
        # an input: PyTorch names the grad_fn the tensor has when backward finds it modified
        self.input = weakref.ref(tensor) if origin is None else None
        self.packed = None
        if saved_hooks.stack and hooked:
            self.pack(tensor)

    def pack(self, tensor, packed=None, hooks=None):
        """Keep the innermost pack hook's result of `tensor` (or `packed`, that result made for
        another Saved of the same tensor; or `hooks`' pack of it) in place of its array."""
        pack, unpack = hooks or saved_hooks.stack[-1]
        self.packed = (unpack, outside_recording(pack, tensor) if packed is None else packed)
        self.value = None
        if tensor._counter.value != self.version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided "
                "as input to pack hook cannot be modified by in-place operations as this "
                "can lead to unexpected side-effects. Please open an issue if you need to "
                "perform in-place operations on the input to a pack hook.")

    def current(self):
        """The value backward reads: the saved one, or the unpack hook's tensor's."""
        if self.packed is None:
            return self.value
        unpack, packed = self.packed
        out = outside_recording(unpack, packed)
        if not hasattr(out, "_edge"):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(out).__name__}")
        return out._value

    def problem(self, record) -> str | None:
        if record is not None and record.freed:
            return FREED
        if self.counter.value != self.version:
            from gradjit.autograd.anomaly_mode import is_anomaly_enabled
            t = self.cls._wrap(self.value if self.packed is None else self.current())
            shape = list(t.shape)
            # PyTorch names the forward operation: ExpBackward0's output is "output 0 of Exp"
            node = self.origin
            if node is None and self.input() is not None:
                node = self.input().grad_fn
            made_by = re.sub(r"Backward\d*$", "", node.name()) if node else None
            origin = f", which is output 0 of {made_by}," if made_by else ""
            return (f"one of the variables needed for gradient computation has been modified by "
                    f"an inplace operation: [torch.{t.dtype.legacy}Tensor {shape}]{origin} is at "
                    f"version {self.counter.value}; expected version {self.version} instead. "
                    + _VERSION_HINTS[is_anomaly_enabled()])
        return None


# PyTorch's hint after a saved tensor's version changed, without and with anomaly mode.
_VERSION_HINTS = {
    False: "Hint: enable anomaly detection to find the operation that failed to compute its "
           "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).",
    True: "Hint: the backtrace further above shows the operation that failed to compute its "
          "gradient. The variable in question was changed in there or anywhere later. Good "
          "luck!"}


def pack_saved(records):
    """Under saved_tensors_hooks, at the end of an operation, pack what PyTorch's node of it
    saves (saved_by's table): the operands of a node made of one primitive as they are (x * x
    saves x twice), and of one made of several its operands from outside it and its results,
    each tensor once; never the values passed between its primitives (PyTorch's one kernel
    has none: acos packed 13 tensors where PyTorch packs self)."""
    nodes = {}
    for rec in records:
        nodes.setdefault(rec.node, []).append(rec)
    for node, recs in nodes.items():
        if len(recs) == 1:
            rec = recs[0]
            inputs, out = saved_by.hooked(node.name(), rec.edges)
            for saved, wanted in zip(rec.inputs, inputs):
                if wanted and type(saved) is Saved:
                    saved.pack(saved_tensor(saved, rec))
            if out:
                rec.out.pack(saved_tensor(rec.out, rec))
            continue
        inner = {id(r) for r in recs}
        consumed = {id(s.edge) for r in recs for s in r.inputs
                    if type(s) is Saved and id(s.edge) in inner}
        operands, results = saved_by.saves(node.name())
        chosen = [(s, r) for r in recs for s in r.inputs if operands and type(s) is Saved and
                  id(s.edge) not in inner] + \
            [(r.out, r) for r in recs if results and id(r) not in consumed]
        packed = {}  # one pack hook call per tensor, shared by its Saved values
        for saved, rec in chosen:
            key = (id(saved.value), id(saved.edge))
            saved.pack(saved_tensor(saved, rec), packed.get(key))
            packed[key] = saved.packed[1]


def saved_tensor(saved, rec):
    """The tensor a Saved value of `rec` holds, for the pack hook: the operand itself, or the
    result as backward would see it."""
    tensor = None if saved is rec.out else saved.input()
    if tensor is None:
        tensor = saved.cls._wrap(saved.value, saved.counter)
        tensor._edge = rec if saved is rec.out else saved.edge
    return tensor


class SavedTensor:
    """grad_fn._raw_saved_*: one tensor a node keeps, on which register_hooks sets a pack and
    unpack hook of its own."""

    __slots__ = ("_saved", "_record")

    def __init__(self, saved, record):
        self._saved, self._record = saved, record

    def register_hooks(self, pack_hook, unpack_hook):
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError("register_hooks(): incompatible function arguments. The following "
                            "argument types are supported:\n    1. (self: torch._C._autograd."
                            "SavedTensor, arg0: collections.abc.Callable, arg1: collections.abc."
                            "Callable) -> None")
        if self._record.freed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward.")
        if self._saved.packed is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at a "
                               "time.")
        self._saved.pack(saved_tensor(self._saved, self._record), hooks=(pack_hook, unpack_hook))
        self._record.arrays = None  # backward's cached arrays held the value packed away
