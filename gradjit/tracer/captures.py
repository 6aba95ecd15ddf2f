"""Arrays a traced function reads from outside its arguments (globals, closures, attributes):
the compiled program holds their trace-time values. Each is recorded with the variable that
held it, its source line and a digest of its contents, so that explain lists it and
check_captures / debug_captures find one that changed since."""
from __future__ import annotations

import contextlib
import hashlib
import types
import weakref
from dataclasses import dataclass

import numpy as np

from gradjit.ir.types import type_of
from gradjit.tracer.trace import _stack, source_line, user_frame


class CapturedArrayChanged(ValueError):
    """An array a compiled function captured at trace time holds other values now."""


@dataclass(eq=False)
class Capture:
    name: str  # the variable (or obj.attribute) that held the array
    site: str | None
    type: object  # its TensorType at trace time
    ref: weakref.ref
    digest: bytes

    def changed(self) -> bool:
        array = self.ref()
        # An array that is gone cannot change; the program keeps computing with its old value.
        return array is not None and (type_of(array) != self.type or _digest(array)
                                      != self.digest)

    def describe(self) -> str:
        return f"{self.name}: {self.type} at {self.site}  # {source_line(self.site)}"


def _digest(array: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(array).view(np.uint8), digest_size=16).digest()


def record(captures: list, seen: dict, array: np.ndarray):
    """Append a Capture for the variable of the user's frame (local, enclosing, global, or a
    local's attribute) that holds `array`, an operand of the op being traced, or the memory it
    views (numpy's dispatch hands on W[None] for W). An array no variable holds is a temporary
    the traced code made itself, which nothing else can change: it is not listed."""
    if id(array) in seen:  # an operand met before (a loop): its variable is known
        return
    seen[id(array)] = array  # kept, so that its id is not reused while the trace runs
    found = user_frame(3)
    if found is None:
        return
    frame, site = found
    named = _variable(frame, array)
    if named is None:
        return
    name, held = named
    if held is not array and id(held) in seen:  # a variable whose views were met before
        return
    seen[id(held)] = held
    captures.append(Capture(name, site, type_of(held), weakref.ref(held), _digest(held)))


def _variable(frame, array):
    """(name, the array it holds) for the variable holding `array` or memory it views."""
    candidates = [*frame.f_locals.items(), *frame.f_globals.items()]
    candidates += [(f"{name}.{attribute}", held) for name, value in candidates
                   for attribute, held in _attributes(value)]
    arrays = [(n, v) for n, v in candidates
              if type(v) is np.ndarray and v.dtype.kind in "biuf"]
    for test in (lambda v: v is array, lambda v: np.may_share_memory(v, array),
                 lambda v: _broadcast_copy(v, array)):
        found = next(((n, v) for n, v in arrays if test(v)), None)
        if found is not None:
            return found
    return None


def _broadcast_copy(v: np.ndarray, array: np.ndarray) -> bool:
    """Whether `array` is `v` broadcast and cast (promotion copies W before it is an operand)."""
    try:
        shape = np.broadcast_shapes(v.shape, array.shape)
    except ValueError:
        return False
    if shape != array.shape or v.size == 0:
        return False
    with np.errstate(all="ignore"):
        return bool(np.array_equal(np.broadcast_to(v.astype(array.dtype), shape), array,
                                   equal_nan=array.dtype.kind == "f"))


def _attributes(value):
    """An object's attributes (self.weight), not a module's, class's or function's."""
    if isinstance(value, (types.ModuleType, type, types.FunctionType)):
        return ()
    try:  # not getattr: a class's __getattr__ may compute, or raise, whatever it likes
        attributes = object.__getattribute__(value, "__dict__")
    except Exception:  # noqa: BLE001 (no __dict__, or a descriptor that refuses)
        return ()
    return list(attributes.items()) if isinstance(attributes, dict) else ()


def check_entry(name: str, entry):
    """Raise CapturedArrayChanged for the first capture of `entry` whose array changed."""
    for capture in entry.captures:
        if capture.changed():
            raise CapturedArrayChanged(
                f"{name}: the array {capture.name} ({capture.type}) captured at {capture.site} "
                f"changed since it was traced: {source_line(capture.site)!r}. The compiled code "
                "still computes with its old values, because captured arrays are trace-time "
                "constants: pass the array as an argument instead (or wrap the function anew "
                "after changing it)")


def captures_current(transformed) -> bool:
    """Whether every array the traces of `transformed` captured is still alive and holds its
    trace-time contents: one that is gone was replaced (a global or attribute assigned anew),
    so a trace reused for a fresh function object would compute with a value the user no
    longer has."""
    return all(capture.ref() is not None and not capture.changed()
               for entries in list(transformed.cache.by_key.values())
               for entry in entries for capture in entry.captures)


def check_captures(fn):
    """Raise CapturedArrayChanged if an array that any cached trace of `fn` (made by grad,
    value_and_grad or jit) captured from outside its arguments has changed since."""
    from gradjit.tracer.api import Transformed
    if not isinstance(fn, Transformed):
        raise TypeError(f"check_captures() takes a function made by grad/value_and_grad/jit, "
                        f"not {type(fn).__name__}")
    for entries in list(fn.cache.by_key.values()):
        for entry in entries:
            check_entry(fn.cache.name, entry)


@contextlib.contextmanager
def debug_captures(enabled: bool = True):
    """Within this block (on this thread), each call of a compiled function first checks that
    the arrays its trace captured are unchanged, raising CapturedArrayChanged otherwise (the
    results it computed are not returned). Composes with debug_nans; also a decorator."""
    previous = _stack.inspect

    def inspect(entry, arrays, outputs):
        check_entry(entry.stages["traced"].name, entry)
        if previous is not None:
            previous(entry, arrays, outputs)

    _stack.inspect = inspect if enabled else previous
    _stack.push(None)  # off the lean call path, which skips the inspection
    try:
        yield
    finally:
        _stack.pop()
        _stack.inspect = previous
