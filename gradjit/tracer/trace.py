"""Tracing: a Trace records the primitives applied to its traced values into an IR function,
while each traced value also carries its concrete numpy value, so Python control flow on
values works and is recorded as guards."""
from __future__ import annotations

import copy
import functools
import linecache
import os
import sys
import threading
from dataclasses import dataclass

import numpy as np

from gradjit.ir import structural as S
from gradjit.ir.core import Builder, Function, Value
from gradjit.ir.passes.rewrite import uniform
from gradjit.ir.primitive import ShapeError, evaluate, is_python_scalar
from gradjit.ir.types import TensorType, type_of
from gradjit.tracer.array_methods import ArrayMethods
from gradjit.tracer.torch_surface import TRACING, attribute
from gradjit.tracer.views import write

_INTERNAL = tuple(os.path.dirname(m.__file__) + os.sep for m in (sys.modules["gradjit"], np))


class TraceError(RuntimeError):
    """A traced value was used in a way tracing cannot follow."""


def user_site(depth: int = 1) -> str | None:
    """`file:line` of the innermost caller outside gradjit and numpy: the user's source."""
    found = user_frame(depth + 1)
    return found[1] if found else None


def user_frame(depth: int = 1):
    """(frame, `file:line`) of the innermost caller outside gradjit and numpy, or None."""
    frame = sys._getframe(depth)
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame = frame.f_back
    if frame is None:
        return None
    return frame, f"{_short(frame.f_code.co_filename)}:{frame.f_lineno}"


def source_line(site: str | None) -> str:
    """The text of the source line a site names ('' if unknown)."""
    if not site or ":" not in site:
        return ""
    path, line = site.rsplit(":", 1)
    return linecache.getline(path, int(line)).strip() if line.isdigit() else ""


# errors whose message is their whole meaning: the user's line can be added to it
_LOCATABLE = (TypeError, ValueError, IndexError, RuntimeError, ArithmeticError)


def locate(error: Exception) -> Exception:
    """The error with the user's line (the innermost frame outside gradjit and numpy) added to
    its message, where gradjit or numpy raised it while tracing; others (an error the user's
    own line raised, one whose message already names a line) as they are."""
    if not isinstance(error, _LOCATABLE) or "\n  at " in str(error):
        return error
    site, tb, internal = None, error.__traceback__, False
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        internal = path.startswith(_INTERNAL)
        if not internal:
            site = f"{_short(path)}:{tb.tb_lineno}"
        tb = tb.tb_next
    if site is None or not internal:
        return error
    # the message is rewritten in place: the error keeps its class and its attributes (an
    # AxisError's axis, which the Tensor layer words as PyTorch does)
    message, original = f"{error}\n  at {site}: {source_line(site)}", error.args
    error.args = (message,) + original[1:]
    if str(error) != message:  # a class that words its message from other fields
        error.args = original
        error.add_note(f"  at {site}: {source_line(site)}")
    return error


def _short(path: str) -> str:
    return _relative(path, os.getcwd())


@functools.lru_cache(maxsize=1024)
def _relative(path: str, cwd: str) -> str:
    """`path` relative to `cwd` when it lies below it (each traced op asks for its site's)."""
    relative = os.path.relpath(path, cwd) if os.path.isabs(path) else path
    return path if relative.startswith("..") else relative


def plain_array(x) -> np.ndarray:
    """Data whose meaning numpy's plain arrays would lose is refused, not converted: a masked
    array's mask, np.matrix's operators, objects and strings."""
    if type(x) is np.ndarray and x.dtype.kind in "biufc" and x.dtype.isnative:
        return x
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError("gradjit does not take masked arrays (np.ma.MaskedArray): their mask "
                        "would be ignored; pass x.filled(value) or np.where(x.mask, fill, "
                        "x.data) as a plain array")
    if isinstance(x, np.matrix):
        raise TypeError("gradjit does not take np.matrix (its * is a matrix product); pass "
                        "np.asarray(m) and use @")
    array = np.asarray(x)
    if array.dtype.kind == "O" and isinstance(x, int):  # numpy keeps it as a Python object
        raise TypeError(f"the Python integer {x} fits neither int64 nor uint64, the widest "
                        "integers gradjit computes with; pass it as a float")
    if array.dtype.kind not in "biufc":
        raise TypeError(f"gradjit takes arrays of bool, integer, float and complex dtypes, not "
                        f"{array.dtype} (given a {type(x).__name__})")
    # the compiled code reads machine-order numbers; a byte-swapped array holds the same values
    return array if array.dtype.isnative else array.astype(array.dtype.newbyteorder("="))


def as_array(x):
    """x, where a traced Python number becomes the 0-d array numpy or PyTorch makes of it,
    which promotes as an array, not as a number."""
    if not getattr(x, "__gradjit_weak__", False):
        return x
    out = copy.copy(x)
    out.__gradjit_weak__ = False
    return out


@dataclass(frozen=True)
class GuardInfo:
    site: str | None
    what: str  # e.g. "bool(...) is True" or "float(...) == 0.5"


class _Stack(threading.local):
    def __init__(self):
        # The traces being recorded, innermost last; a None marks a debug_nans block, which
        # keeps calls off the lean path so that `inspect` sees their outputs.
        self.traces: list[Trace | None] = []
        self.inspect = None  # (entry, arguments, outputs) -> None after each call
        self.jit_disabled = False  # disable_jit: jit calls its Python function directly

    def push(self, trace: Trace | None):
        self.traces.append(trace)
        if not TRACING:
            for hook in WHILE_TRACING:
                hook(True)
        TRACING.append(None)

    def pop(self):
        TRACING.pop()
        self.traces.pop()
        if not TRACING:
            for hook in WHILE_TRACING:
                hook(False)


# Called with True when a first trace starts anywhere in the process, False when the last
# one ends (tracer/constructors.py puts numpy functions that see into sequences in place).
WHILE_TRACING: list = []


_stack = _Stack()


def current_trace() -> Trace | None:
    return _stack.traces[-1] if _stack.traces else None


def varies(x) -> bool:
    """Whether traced x differs from example to example of an enclosing vmap: it depends on a
    mapped input of its trace, or on a captured outer value that does."""
    if not isinstance(x, Traced):
        return False
    trace = x.owner
    found = set(trace.mapped) | {id(v) for v, outer in trace.captured if varies(outer)}
    if not found:
        return False
    for op in trace.builder.ops:
        if op.out is not None and any(id(v) in found for v in op.inputs):
            found.add(id(op.out))
    return id(x.ir) in found


class Trace:
    """One function being traced: its builder, its inputs, captured outer values, guards."""

    def __init__(self, name: str):
        self.builder = Builder(name)
        self.captured: list[tuple[Value, Traced]] = []
        self._capture_of: dict[int, Traced] = {}
        self.guards: list[GuardInfo] = []
        # Arrays read from outside the arguments (gradjit.tracer.captures.Capture), and the
        # arrays already looked at, by id.
        self.captures: list = []
        self._captured_ids: dict[int, np.ndarray] = {}
        self.site: str | None = None  # the site ops get while an inlined function replays
        self.active = False
        # Called with each new GuardInfo before it is kept; it may raise to stop tracing
        # (gradjit.compile stops at a value read into Python, before the code using it runs).
        self.on_guard = None
        # ids of the inputs that differ from example to example of an enclosing vmap
        self.mapped: set[int] = set()
        # whether the inputs' values are stand-ins (eval_shape's zeros), so that no shape
        # may follow from them
        self.stand_in_values = False

    def __enter__(self):
        self.active = True
        _stack.push(self)
        return self

    def __exit__(self, *exc):
        _stack.pop()
        self.active = False

    def input(self, value, *, flavor="numpy", weak=False, name=None) -> Traced:
        value = np.asarray(value)
        param = self.builder.param(type_of(value), name)
        return Traced(self, param, value, flavor, weak, const=False)

    def function(self, results) -> Function:
        """The traced function: explicit inputs, then captured outer values, as parameters."""
        values = [self.lift(r) for r in results]
        fn = self.builder.build(values)
        fn.params = fn.params + [p for p, _ in self.captured]
        return fn

    def site_now(self) -> str | None:
        return self.site or user_site(3)

    # ---- recording ----

    def bind(self, prim, args, params):
        # An op of no operands other than a source (a host function of nothing, such as a
        # random draw) may give a new value at each run: not a constant of the trace.
        const = bool(args) or prim.kind == "source"
        concrete, operands, flavor, weak = [], [], None, True
        for a in args:
            if not isinstance(a, Traced) and isinstance(getattr(a, "_value", None), Traced):
                a = a._value  # a Tensor around a traced value, next to a bare traced value
            if isinstance(a, Traced):
                a = self.own(a)
                concrete.append(a._cell)  # its value, when one is asked for
                operands.append(a.ir)
                # a traced Python number takes the type of the array it meets, as it would
                if flavor is None or weak and not a.__gradjit_weak__:
                    flavor = a.__gradjit_flavor__
                weak, const = weak and a.__gradjit_weak__, const and a.const
            elif is_python_scalar(a):
                concrete.append(a)
                operands.append(a)
            else:
                concrete.append(plain_array(a))
                operands.append(self.lift(concrete[-1]))
                weak = False
                if type(a) is np.ndarray:
                    from gradjit.tracer.captures import record  # (it imports this module)
                    record(self.captures, self._captured_ids, a)
        site = self.site_now()
        try:
            out = self.builder.emit(prim, operands, params, site)
        except ShapeError as error:
            raise ShapeError(f"{error}\n  at {site}: {source_line(site)}") from None
        if out is None:  # an effect (a guard) checks its operand now
            evaluate(prim, [_concrete(c) for c in concrete], params)
            return None
        # The numpy value is computed only if Python asks for it (a bool, a number, a
        # constant index): most traces never need the values of full-size intermediates.
        traced = Traced(self, out, None, flavor or "numpy", weak, const)
        traced._cell.thunk = (prim, concrete, params)
        return traced

    def own(self, x: Traced) -> Traced:
        """`x` as a value of this trace: an outer trace's value is captured as a parameter."""
        if x.owner is self:
            return x
        if not x.owner.active:
            raise TraceError("a traced value escaped the function it was traced in (stored "
                             "in a global or a closure?); pass it as an argument instead")
        known = self._capture_of.get(id(x))
        if known is None:
            if x.const:
                known = Traced(self, self.lift(x.value), x.value, x.__gradjit_flavor__,
                               x.__gradjit_weak__, const=True)
            else:
                param = Value(x.ir.type, f"captured{len(self.captured)}")
                self.captured.append((param, x))
                known = Traced(self, param, x.value, x.__gradjit_flavor__, x.__gradjit_weak__,
                               const=False)
            self._capture_of[id(x)] = known
        return known

    def lift(self, x) -> Value:
        """A Value for a traced value of this trace or for a constant array."""
        if isinstance(x, Traced):
            return self.own(x).ir
        array = np.asarray(x)
        flat = array.reshape(-1)
        if flat.size != 1 and (flat.size == 0 or uniform(flat)):
            return self.builder.full(flat[0].item() if flat.size else 0, type_of(array))
        if array.ndim == 1 and array.dtype.kind == "i" and _is_ramp(array):  # np.arange(n)
            return self.builder.emit(S.iota, (), {"shape": array.shape, "axis": 0,
                                                  "dtype": type_of(array).dtype.name})
        return self.builder.constant(array)

    def guard(self, pred: Traced, expected: bool, what: str):
        """Record that the traced path needs `pred` (a bool[] traced value) == expected."""
        if pred.const:
            return
        site = self.site_now()
        self.builder.emit(S.guard, [self.own(pred).ir], {"expected": expected, "site": site},
                          site)
        info = GuardInfo(site, what)
        if self.on_guard is not None:
            self.on_guard(info)
        self.guards.append(info)


def _is_ramp(array: np.ndarray) -> bool:
    return array[0] == 0 and bool(np.all(np.diff(array) == 1))


class _Lazy:
    """A traced value's numpy value, or how to compute it: (primitive, operands, params),
    the operands being numbers, arrays or other _Lazy cells. A traced value rebound by an
    in-place method takes a new cell, so values computed from it before keep the old one."""

    __slots__ = ("value", "thunk")

    def __init__(self, value, thunk=None):
        self.value, self.thunk = value, thunk


def _concrete(x):
    return _force(x) if isinstance(x, _Lazy) else x.value if isinstance(x, Traced) else x


def _force(root: _Lazy) -> np.ndarray:
    """Evaluate `root` and the unevaluated values it depends on, operands first (with a
    stack: a chain of thousands of ops must not hit the recursion limit)."""
    stack = [root]
    while stack:
        cell = stack[-1]
        if cell.thunk is None:
            stack.pop()
            continue
        prim, args, params = cell.thunk
        pending = [a for a in args if isinstance(a, _Lazy) and a.thunk is not None]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        cell.value = evaluate(prim, [a.value if isinstance(a, _Lazy) else a for a in args],
                              params)
        cell.thunk = None  # drops the operands: intermediates nobody holds are freed
    return root.value


class Traced(ArrayMethods):
    """A traced array: its IR value in a trace and its concrete numpy value.

    Operations record IR and compute the concrete result; converting to a Python value
    (bool, float, int, item, indexing with it) returns the concrete answer and records a guard.
    `weak` marks a traced Python number, which promotes like one; `const` marks a value that
    depends on no input (its value may be used at trace time, e.g. as an index)."""

    __gradjit_priority__ = 20
    # `owner`, not `trace`: x.trace() is numpy's trace method of the array
    # `_alias`: the views of this array, or the base this array is a view of (tracer/views.py)
    __slots__ = ("owner", "ir", "_cell", "__gradjit_flavor__", "__gradjit_weak__", "const",
                 "_alias", "__weakref__")

    def __init__(self, trace, ir, value, flavor, weak, const):
        self.owner, self.ir, self._cell, self._alias = trace, ir, _Lazy(value), None
        self.__gradjit_flavor__, self.__gradjit_weak__, self.const = flavor, weak, const

    @property
    def value(self) -> np.ndarray:
        """The concrete numpy value, computed (with the values it needs) when first asked."""
        return _force(self._cell)

    def __copy__(self):
        """numpy's copy: the same value, owning its elements (no longer a view)."""
        duplicate = Traced(self.owner, self.ir, None, self.__gradjit_flavor__,
                           self.__gradjit_weak__, self.const)
        duplicate._cell = self._cell
        return duplicate

    def __deepcopy__(self, memo):
        # the trace and the IR are shared: copying them would fork the trace being recorded
        return self.__copy__()

    def _become(self, updated):
        """Rebind this value to `updated` (numpy's in-place methods), its value still lazy, and
        the array it is a view of, and that array's other views, with it."""
        write(self, updated)

    def _rebind(self, updated):
        """Rebind this value alone to `updated`. A numpy array (a write of constants only)
        becomes a constant of this trace."""
        if not isinstance(updated, Traced):
            array = np.asarray(updated)
            updated = Traced(self.owner, self.owner.lift(array), array,
                             self.__gradjit_flavor__, False, const=True)
        self.owner, self.ir, self.const = updated.owner, updated.ir, updated.const
        self._cell = updated._cell

    @property
    def ir_type(self) -> TensorType:
        return self.ir.type

    def __getattr__(self, name):
        # Only names ArrayMethods lacks get here: torch's Tensor methods and properties
        return attribute(self, name)

    @classmethod
    def __gradjit_bind__(cls, prim, args, params):
        trace = current_trace()
        if trace is None:
            raise TraceError(f"{prim.name}: a traced value was used after its function "
                             "returned (stored in a global or a closure?)")
        return trace.bind(prim, args, params)

    def __gradjit_constant__(self):
        return self.value if self.const else None

    def _record(self) -> Trace:
        trace = current_trace()
        if trace is None:
            raise TraceError("a traced value was used after its function returned")
        return trace

    def _guard(self, pred, expected, what):
        self._record().guard(pred, expected, what)
