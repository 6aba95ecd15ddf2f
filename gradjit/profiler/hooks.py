"""Operation timing for the profiler: while a profiler records, the public tensor operations
(Tensor methods, torch.*, nn.functional.*) are swapped for timing wrappers named as PyTorch's
aten operators; when none records, the originals are back and eager dispatch pays nothing."""
from __future__ import annotations

import functools
import inspect
import sys
import threading
import time
import types

from gradjit.misc.patching import Patches
from gradjit.profiler.events import FunctionEvent

# Tensor methods as PyTorch's dispatcher names them (others: aten::<method name>).
DUNDERS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
    "__rsub__": "rsub", "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul",
    "__imul__": "mul_", "__truediv__": "div", "__rtruediv__": "reciprocal",
    "__itruediv__": "div_", "__floordiv__": "floor_divide", "__mod__": "remainder",
    "__pow__": "pow", "__rpow__": "pow", "__matmul__": "matmul", "__rmatmul__": "matmul",
    "__neg__": "neg", "__abs__": "abs", "__invert__": "bitwise_not", "__and__": "__and__",
    "__or__": "__or__", "__xor__": "__xor__", "__eq__": "eq", "__ne__": "ne", "__lt__": "lt",
    "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__bool__": "is_nonzero",
    "__setitem__": "copy_", "__getitem__": "index",
}
_CASTS = {"float", "double", "half", "bfloat16", "int", "long", "short", "bool", "byte",
          "char", "cpu", "type_as"}
_RENAMED = {"cross_entropy": "cross_entropy_loss", "nll_loss": "nll_loss_nd",
            **{name: "to" for name in _CASTS}}
# Queries of metadata and conversions that PyTorch runs without its dispatcher: no event.
_UNTIMED = {"size", "dim", "ndimension", "numel", "nelement", "stride", "storage_offset",
            "element_size", "data_ptr", "type", "backward", "retain_grad", "requires_grad_",
            "tolist", "numpy", "get_device", "storage", "untyped_storage", "dim_order",
            "contiguous", "accept_numpy_names", "apply", "arith_where", "broadcast_shapes",
            "can_cast", "cat_arguments", "check_function", "hot_binary", "initial_seed",
            "manual_seed", "seed", "operand", "promote_types", "result_type", "write_out",
            "cond", "while_loop", "typename", "from_dlpack", "to_dlpack", "new_tensor_like"}
_UNTIMED_PREFIXES = ("_", "is_", "get_", "set_", "use_", "are_", "register_")


def aten_name(name: str) -> str:
    return "aten::" + DUNDERS.get(name, _RENAMED.get(name, name))


def _timed(name: str) -> bool:
    return name in DUNDERS or not name.startswith(_UNTIMED_PREFIXES) and name not in _UNTIMED


class _Recording(threading.local):
    open: list  # the events begun and not yet ended on this thread, innermost last

    def __init__(self):
        self.open = []


_sessions: list = []  # the recorders collecting now
_thread = _Recording()
_installed = Patches()  # the wrappers in place while a session records


def begin(name, args=(), user=False) -> FunctionEvent | None:
    """Open an event `name` (`user`: a record_function range) in the innermost recording
    session; None where none records."""
    if not _sessions:
        return None
    rec = _sessions[-1]
    parent = _thread.open[-1] if _thread.open else None
    if parent is not None and parent.name == name and not user:
        return None  # torch.mm calling Tensor.mm: one operator, as PyTorch counts it
    event = FunctionEvent(len(rec.events) + 1, name, threading.get_ident(), parent, user)
    if rec.record_shapes:
        event.input_shapes = [_shape(a) for a in args]
    if rec.with_stack:
        event.stack = _stack()
    rec.events.append(event)
    _thread.open.append(event)
    event.start_ns = time.perf_counter_ns()
    return event


def end(event, result=None) -> None:
    event.end_ns = time.perf_counter_ns()
    if _thread.open and _thread.open[-1] is event:
        _thread.open.pop()
    if result is not None and _sessions and _sessions[-1].profile_memory:
        event.cpu_memory_usage = _bytes(result)


def _shape(a):
    shape = getattr(a, "shape", None)
    return list(shape) if shape is not None and hasattr(a, "_edge") else []


def _bytes(result) -> int:
    """The memory an operation's results took: a view of another tensor takes none."""
    if hasattr(result, "_edge"):
        return 0 if result._base is not None else result.numel() * result.element_size()
    if isinstance(result, (tuple, list)):
        return sum(_bytes(r) for r in result)
    return 0


def _stack() -> list:
    """The caller's frames outside gradjit, innermost first, as PyTorch writes them."""
    frame, out = sys._getframe(2), []
    while frame is not None:
        path = frame.f_code.co_filename
        if "/gradjit/" not in path:
            out.append(f"{path}({frame.f_lineno}): {frame.f_code.co_name}")
        frame = frame.f_back
    return out


def _indexed(args) -> str:
    """PyTorch's operator for t[index]: select for an integer, slice for a slice."""
    kind = type(args[1]) if len(args) > 1 else None
    return "aten::select" if kind is int else "aten::slice" if kind is slice else "aten::index"


def _wrap(fn, name):
    @functools.wraps(fn)
    def op(*args, **kwargs):
        event = begin(_indexed(args) if name == "aten::index" else name, args)
        if event is None:
            return fn(*args, **kwargs)
        try:
            result = fn(*args, **kwargs)
        except BaseException:
            end(event)
            raise
        end(event, result)
        return result
    return op


def _backward_wrapper(run):
    """engine._cotangents timed as PyTorch names a node's evaluation in backward."""
    @functools.wraps(run)
    def evaluate(rec, *args):
        event = begin("autograd::engine::evaluate_function: " + rec.node.name())
        try:
            return run(rec, *args)
        finally:
            if event is not None:
                end(event)
    return evaluate


@functools.cache
def _targets() -> tuple:
    """(owner, attribute, wrapper maker) for every operation the profiler times (found once:
    the search takes 30 ms)."""
    return tuple(_search())


def _search():
    import gradjit
    from gradjit.nn import functional
    from gradjit.tensor import engine
    for owner, names in ((gradjit.Tensor, dir(gradjit.Tensor)), (gradjit, dir(gradjit)),
                         (functional, dir(functional))):
        for name in names:
            fn = inspect.getattr_static(owner, name, None)
            if _timed(name) and (type(fn) is types.FunctionType if owner is gradjit.Tensor else
                                 callable(fn) and not isinstance(fn, type)) and \
                    (owner is not gradjit or getattr(fn, "__module__", "") == "gradjit"):
                yield owner, name, functools.partial(_wrap, name=aten_name(name))
    yield engine, "_cotangents", _backward_wrapper


def install(recorder) -> None:
    """Start timing operations into `recorder` (the wrappers go in with the first session)."""
    if not _installed:
        _thread.open = []  # ranges a previous session left open are not parents
        for owner, name, make in _targets():
            _installed.set(owner, name, make(getattr(owner, name)))
    _sessions.append(recorder)


def uninstall(recorder) -> None:
    """Stop timing into `recorder`; the originals return with the last session's end."""
    if recorder in _sessions:
        _sessions.remove(recorder)
    if not _sessions:
        _installed.restore()
