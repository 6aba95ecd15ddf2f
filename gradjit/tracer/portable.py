"""Pickling transformed functions: one travels as the user's function (or, when decorated at
module level, as its importable name) plus options, with its cached traces as IR text, so the
receiving process compiles them (or finds them in its compile caches) without tracing again.
Compiled machine code never travels."""
from __future__ import annotations

import importlib
import inspect
import linecache
import math
import sys
import types

import numpy as np

from gradjit.ir import PRIMITIVES, parse
from gradjit.ir.text import print_function
from gradjit.tracer.backend import compile_program
from gradjit.tracer.cache import Entry
from gradjit.tracer.pytree import LEAF


def reduce(transformed):
    """The pickle recipe of a Transformed (its __reduce__)."""
    traces = export_traces(transformed) if transformed.ship_traces else []
    name = _importable_name(transformed)
    if name is not None:  # `@grad def f` at module level: the module attribute is the object
        return _restore_named, (*name, traces)
    return _restore, (transformed.fn, transformed.mode, transformed.options, traces,
                      source_of(transformed.fn))


def source_of(fn):
    """The file name, first line number and source lines of a Python function: picklers that
    send a function by value (cloudpickle) may drop its file name, and errors raised on the
    receiving side name the user's line from these."""
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType):
        return None
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    return code.co_filename, first, lines


def _with_filename(code, filename):
    consts = tuple(_with_filename(c, filename) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def give_source(fn, source) -> None:
    """Point a function received without its file name back at the sender's source lines."""
    if source is None or not isinstance(getattr(fn, "__code__", None), types.CodeType):
        return
    filename, first, lines = source
    if fn.__code__.co_filename != filename:
        if filename not in linecache.cache:  # the function's lines, at their line numbers
            lines = ["\n"] * (first - 1) + lines
            linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)
        fn.__code__ = _with_filename(fn.__code__, filename)


def export_traces(transformed) -> list:
    """(signature key, [(optimized IR text, guards, result builder), ...]) per signature.
    A trace holding a primitive made outside the table (custom_vjp's) stays behind: its text
    could not be parsed elsewhere, so the receiver traces that signature again."""
    with transformed._tracing:
        return [(key, [(print_function(e.function), e.guards, e.unpack) for e in entries
                       if all(PRIMITIVES.get(op.prim.name) is op.prim
                              for op in e.function.ops)])
                for key, entries in transformed.cache.by_key.items()]


def load_traces(transformed, traces):
    """Add pickled traces to the cache of `transformed` (signatures it lacks), compiling each."""
    cache = transformed.cache
    with transformed._tracing:
        for key, entries in traces:
            if key in cache.by_key:
                continue
            loaded = []
            for text, guards, unpack in entries:
                fn = parse(text)
                program = compile_program(fn, transformed.backend, transformed.deterministic)
                loaded.append(Entry(program, guards, unpack, {"optimized": fn}))
            cache.by_key[key] = loaded
            layout = _fast_layout(key)
            if layout is not None:
                cache.fast[layout] = loaded


def _restore(fn, mode, options, traces, source=None):
    from gradjit.tracer.api import Transformed  # api imports this module
    give_source(fn, source)
    transformed = Transformed(fn, mode, **options)
    load_traces(transformed, traces)
    return transformed


def _restore_named(module, qualname, traces):
    transformed = _resolve(importlib.import_module(module), qualname)
    load_traces(transformed, traces)
    return transformed


def _importable_name(transformed):
    """(module, qualname) when importing that name gives the same transformation of the same
    function (a function decorated where it is defined, whose own name is then taken by the
    transformation); never for __main__, which differs between processes."""
    module = getattr(transformed.fn, "__module__", None)
    qualname = getattr(transformed.fn, "__qualname__", "")
    if module in (None, "__main__") or "<" in qualname or module not in sys.modules:
        return None
    found = _resolve(sys.modules[module], qualname)
    same = (getattr(found, "fn", None) is transformed.fn and found.mode == transformed.mode
            and found.options == transformed.options)
    return (module, qualname) if same else None


def _resolve(module, qualname):
    value = module
    for part in qualname.split("."):
        value = getattr(value, part, None)
    return value


def _fast_layout(key):
    """The lean call's key (shape, dtype, C strides per argument) for a signature of plain
    positional arrays, as Transformed registers it on the call that traces."""
    structure, signatures = key
    args, kwargs = structure[1]
    if kwargs[1] or any(s != LEAF for s in args[1]):
        return None
    layout = []
    for sig in signatures:
        if not (isinstance(sig, tuple) and len(sig) == 2):
            return None
        shape, dtype = sig
        strides = tuple(dtype.itemsize * math.prod(shape[i + 1:]) for i in range(len(shape)))
        layout.append((shape, dtype, strides))
    return tuple(layout) if all(isinstance(d, np.dtype) for _, d, _ in layout) else None
