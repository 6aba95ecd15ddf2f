"""torch.jit's Python surface (script, trace, save/load, the decorators), reachable as
gradjit.jit.script etc.: scripted and traced code runs eagerly, so results equal the
original's; modules print and save as TorchScript's do. No TorchScript IR (.graph, .code)."""
from __future__ import annotations

import contextlib
import inspect
import warnings

import gradjit
from gradjit.nn.modules.module import Module


# How deep the running code is inside scripted code (is_scripting) or a trace (is_tracing):
# TorchScript compiles the branches that test them to their scripted side.
_DEPTH = {"scripting": 0, "tracing": 0}


@contextlib.contextmanager
def _inside(mode):
    _DEPTH[mode] += 1
    try:
        yield
    finally:
        _DEPTH[mode] -= 1


def _deprecated(name, successor="`torch.compile` or `torch.export`"):
    """PyTorch 2.13's DeprecationWarning for each torch.jit entry point."""
    # stacklevel 1, as PyTorch's: the warning is attributed to the library, so Python's
    # default filters keep it out of a script's output
    warnings.warn(f"`torch.jit.{name}` is deprecated. Please switch to {successor}.",
                  DeprecationWarning, stacklevel=1)


class ScriptModule(Module):
    """What script and trace return for a Module: a copy sharing the original's parameters
    and buffers (as TorchScript's does), whose submodules are ScriptModules too."""

    _original_class = Module
    _label = "RecursiveScriptModule"

    @property
    def original_name(self):
        return self._original_class.__name__

    def _get_name(self):
        return self._label

    def extra_repr(self):
        return f"original_name={self.original_name}"

    def _plain(self):
        """The module as an instance of its original class (what save pickles)."""
        module = object.__new__(self._original_class)
        module.__dict__.update(self.__dict__)
        del module.__dict__["_script_original"]
        module._modules = type(self._modules)(
            (name, child._plain() if isinstance(child, ScriptModule) else child)
            for name, child in self._modules.items())
        return module

    def save(self, f, **kwargs):
        gradjit.save(self._plain(), f)

    def __call__(self, *args, **kwargs):
        with _inside("scripting"):
            return super().__call__(*args, **kwargs)

    # Indexing or iterating a scripted container gives the original submodules, as
    # PyTorch's does (attribute access gives the scripted ones).
    def __getitem__(self, idx):
        return self._script_original[idx]

    def __iter__(self):
        return iter(self._script_original)

    def __len__(self):
        return len(self._script_original)


class RecursiveScriptModule(ScriptModule):
    """torch.jit.script's result for a Module."""


class TracedModule(ScriptModule):
    """torch.jit.trace's result for a Module: printed under its original class's name."""

    def _get_name(self):
        return self.original_name

    def __call__(self, *args, **kwargs):
        return Module.__call__(self, *args, **kwargs)


class TopLevelTracedModule(TracedModule):
    pass


_SUBCLASSES = {}


def _wrap(module, kind, child_kind):
    """`module` as an instance of kind and of its own class, so that its forward and other
    methods (Sequential's iteration among them) run unchanged."""
    if isinstance(module, ScriptModule):
        return module
    cls = type(module)
    sub = _SUBCLASSES.get((kind, cls))
    if sub is None:
        sub = type(kind.__name__, (kind, cls),
                   {"_original_class": cls, "_label": kind._label,
                    "__module__": kind.__module__})
        _SUBCLASSES[kind, cls] = sub
    wrapped = object.__new__(sub)
    wrapped.__dict__.update(module.__dict__, _script_original=module)
    wrapped._modules = type(module._modules)(
        (name, None if child is None else _wrap(child, child_kind, child_kind))
        for name, child in module._modules.items())
    return wrapped


class ScriptFunction:
    """torch.jit.script's (or trace's) result for a function: calls it."""

    def __init__(self, fn, scripted=True):
        self._fn, self._scripted = fn, scripted
        self.__name__ = getattr(fn, "__name__", "fn")
        self.__doc__ = getattr(fn, "__doc__", None)

    def __call__(self, *args, **kwargs):
        if not self._scripted:
            return self._fn(*args, **kwargs)
        with _inside("scripting"):
            return self._fn(*args, **kwargs)

    def save(self, f, **kwargs):
        gradjit.save(self, f)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """torch.jit.script: Modules become RecursiveScriptModules, functions ScriptFunctions;
    classes come back unchanged."""
    _deprecated("script")
    if isinstance(obj, (ScriptModule, ScriptFunction)) or inspect.isclass(obj):
        return obj
    if isinstance(obj, Module):
        return _wrap(obj, RecursiveScriptModule, RecursiveScriptModule)
    return ScriptFunction(obj)


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """torch.jit.trace: runs `func` once on the example inputs, as tracing does, and returns
    it wrapped. The result follows Python control flow on later calls, where TorchScript's
    replays the path the example took."""
    _deprecated("trace")
    if isinstance(func, Module):  # PyTorch traces the module's method again to check it
        for _ in range(1 + bool(check_trace)):
            _deprecated("trace_method")
    args = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
    with _inside("tracing"):
        if example_kwarg_inputs is not None:
            func(**example_kwarg_inputs)
        elif example_inputs is not None:
            func(*args)
    if isinstance(func, Module):
        return _wrap(func, TopLevelTracedModule, TracedModule)
    return func if isinstance(func, ScriptFunction) else ScriptFunction(func, scripted=False)


def trace_module(mod, inputs, **kwargs):
    _deprecated("trace_method")
    with _inside("tracing"):
        for method, example in inputs.items():
            getattr(mod, method)(*(example if isinstance(example, tuple) else (example,)))
    return _wrap(mod, TopLevelTracedModule, TracedModule)


def save(m, f, _extra_files=None):
    """torch.jit.save: the module (or function) pickled with gradjit.save."""
    _deprecated("save", "`torch.export`")
    gradjit.save(m._plain() if isinstance(m, ScriptModule) else m, f)


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """torch.jit.load: what save wrote, scripted again."""
    _deprecated("load", "`torch.export`")
    obj = gradjit.load(f, map_location=map_location, weights_only=False)
    return obj if isinstance(obj, ScriptFunction) else script(obj)


def ignore(drop=False, **kwargs):
    """@torch.jit.ignore and @torch.jit.ignore(drop=True): the function unchanged."""
    return drop if callable(drop) else (lambda fn: fn)


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def is_scripting():
    """True inside the forward of a scripted module or a scripted function."""
    return _DEPTH["scripting"] > 0


def is_tracing():
    """True while trace runs its example inputs."""
    return _DEPTH["tracing"] > 0


def annotate(the_type, the_value):
    return the_value


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    return mod


def optimize_for_inference(mod, other_methods=None):
    return mod


class Future:
    """fork's result: the value, computed when forked."""

    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value


def fork(func, *args, **kwargs):
    return Future(func(*args, **kwargs))


def wait(future):
    return future.wait()


class Attribute:
    """torch.jit.Attribute(value, type): in Python, the value."""

    def __new__(cls, value, type=None):
        return value


class Final:
    """torch.jit.Final[T]: an annotation only."""

    def __class_getitem__(cls, item):
        return item


__all__ = ["Attribute", "Final", "Future", "RecursiveScriptModule", "ScriptFunction",
           "ScriptModule", "TopLevelTracedModule", "TracedModule", "annotate", "export",
           "fork", "freeze", "ignore", "interface", "is_scripting", "is_tracing", "load",
           "optimize_for_inference", "save", "script", "trace", "trace_module", "unused",
           "wait"]
