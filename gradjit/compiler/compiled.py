"""gradjit.compile: a function written in eager PyTorch style (a model's forward, or a whole
training step with backward() and optimizer.step()) traced into one program by jit's tracer,
cache and backends, with the Modules', gradients' and optimizers' state threaded through it
as inputs and outputs and written back in place after each call."""
from __future__ import annotations

import copy
import functools
import threading

import numpy as np

from gradjit.compiler.state import SAME, State, copy_into
from gradjit.ops.numpy_api import NotSupported
from gradjit.tensor import random
from gradjit.tensor.grad_mode import is_grad_enabled
from gradjit.tracer.api import Transformed
from gradjit.tracer.array_methods import TracerArrayConversionError
from gradjit.tracer.backend import UnloweredDtype
from gradjit.tracer.cache import Explanation
from gradjit.tracer.pytree import Static, flatten, unflatten
from gradjit.tracer import leaves as L
from gradjit.tracer.torch_surface import NotTraceable
from gradjit.tracer.trace import TraceError, Traced, current_trace, source_line

# torch.compile's backends that mean "compile" here; "eager" runs the function as it is.
_COMPILING = {None, "inductor", "aot_eager", "cpu", "cuda", "cuda-emulator", "interpreter"}
_GRADJIT = {"cpu", "cuda", "cuda-emulator", "interpreter"}


class GraphBreak(RuntimeError):
    """The traced call left what one program can express (with fullgraph=True, raised)."""


class _Flag(threading.local):
    depth = 0


_flag = _Flag()


def is_compiling() -> bool:
    """Whether the code running is being traced by gradjit.compile (torch.compiler's)."""
    return _flag.depth > 0


class Compiled:
    """What gradjit.compile returns for a function: call it as the function."""

    def __init__(self, fn, fullgraph=False, backend=None, disable=False):
        functools.update_wrapper(self, fn)
        self.fn, self.fullgraph, self.disable = fn, fullgraph, disable
        self.eager_calls, self.notes, self._eager_keys = 0, [], set()
        # call key -> the first call's int arguments, and the positions of those that have
        # differed since (traced from then on); keys whose traced numbers were read (pinned)
        self._first_ints, self._varying, self._pinned = {}, {}, set()
        self._updates = {}  # call key -> whether its trace updates Tensor arguments in place
        name = getattr(fn, "__qualname__", type(fn).__name__)

        def step(values, grads, states, static, facts, args, kwargs):
            return self._traced(values, grads, states, facts, args, kwargs)
        step.__qualname__ = name
        self.program = Transformed(step, "jit", backend=backend if backend in _GRADJIT else None)
        self.program.taped = lambda result: result[0]  # the effects join no autograd graph
        self._state = None

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __repr__(self) -> str:
        return f"<gradjit.compile of {self.program.cache.name}>"

    def __call__(self, *args, **kwargs):
        if self.disable or current_trace() is not None:  # inside another trace: inline
            return self.fn(*args, **kwargs)
        state = State(self.fn, args, kwargs)
        values, grads, states, static = state.inputs()
        leaves = []
        structure = flatten((args, kwargs), leaves)
        facts = Static(_argument_facts(leaves, state.tensors))
        key = (structure, tuple(map(L.signature, leaves)), static.value, facts.value)
        if key in self._eager_keys:
            self.eager_calls += 1
            return self.fn(*args, **kwargs)
        numbers = self._specialized(key, leaves)
        self._state = state
        arguments = [t for t in leaves if L.is_tensor(t)]
        if self._updates.get(key, True) and is_grad_enabled() and \
                any(map(L.requires_grad, (*values, *arguments))):
            # The call joins the tape, which saves its arguments for the pullback: it must
            # see them as they were before the update that is written back below.
            given = _copies(structure, numbers)
        else:
            given = unflatten(structure, iter(numbers))
        try:
            out, *effects, updates, returned = self.program(values, grads, states, static,
                                                            facts, *given)
        except (GraphBreak, TraceError, NotSupported, TracerArrayConversionError,
                NotTraceable, UnloweredDtype, NotImplementedError) as error:
            if key not in self._pinned and any(map(_is_number, numbers)):
                # a traced number's value was needed: torch.compile specializes on it
                self._pinned.add(key)
                return self(*args, **kwargs)
            reason = str(error).splitlines()[0]
            if self.fullgraph:
                raise GraphBreak(f"{self.program.cache.name} cannot be compiled as one program "
                                 f"(fullgraph=True): {reason}") from None
            self.notes.append(f"ran eagerly: {reason}")
            self._eager_keys.add(key)
            self.eager_calls += 1
            return self.fn(*args, **kwargs)
        finally:
            self._state = None
        state.write_back(*effects)
        self._updates[key] = any(new is not SAME for new in updates)
        for t, new in zip(arguments, updates):
            if new is not SAME:
                copy_into(t, new)
        return _as_returned(out, returned, arguments)

    def _specialized(self, key, leaves) -> list:
        """The call's argument leaves with the Python numbers that are not traced wrapped as
        Static (part of the cache key), as torch.compile treats them: bools, and ints until a
        call of the same signature passes another value at their place, are static; floats
        are traced; every number is static once a trace has needed one's value (pinned)."""
        ints = [x for x in leaves if type(x) is int]
        first = self._first_ints.setdefault(key, ints)
        varying = self._varying.setdefault(key, set())
        varying.update(j for j, (a, b) in enumerate(zip(first, ints)) if a != b)
        pinned, position, specialized = key in self._pinned, 0, []
        for x in leaves:
            if type(x) is int:
                static = pinned or position not in varying
                position += 1
            else:
                static = type(x) is bool or pinned and _is_number(x)
            specialized.append(Static(x) if static else x)
        return specialized

    def _traced(self, values, grads, states, facts, args, kwargs):
        # Traced again at backward time (the call's pullback, see autograd/compiled.py) the
        # state is found afresh: the same tensors, in the same order.
        state = self._state or State(self.fn, args, kwargs)
        kept = state.swap(values, grads, states)
        _flag.depth += 1
        current_trace().on_guard = _refuse_values
        seed = _generator_state()
        arguments = [t for t in _leaves((args, kwargs)) if L.is_tensor(t)]
        given = [t._value for t in arguments]
        try:
            try:
                out = self.fn(*args, **kwargs)
                drew = not _same_generator_state(seed, _generator_state())
            except random.TracedRandomDraw:  # a draw from a traced tensor (bernoulli_, ...)
                drew = True
            if drew:
                raise GraphBreak("random numbers were drawn (dropout, rand, randn, ...): a "
                                 "trace would replay the same numbers on every call")
            effects = state.results()
            updates = _argument_updates(arguments, given, facts, any(
                v is not SAME for v in effects[0]))
            out = _typed_as_eager(out)
            return (out, *effects, updates, _returned(out, arguments))
        finally:
            _flag.depth -= 1
            state.restore(kept)
            _set_generator_state(seed)  # the eager run draws what an uncompiled one would

    def explain(self) -> Explanation:
        """The compiled traces, and each signature that ran eagerly with the reason."""
        lines = [f"{self.program.cache.name}: {self.eager_calls} call(s) ran eagerly"]
        lines += [f"  {note}" for note in self.notes]
        return Explanation("\n".join(lines) + "\n" + self.program.explain())

    __gradjit_explain__ = explain


def _is_number(x) -> bool:
    return type(x) in (bool, int, float, complex)


def _copies(structure, leaves):
    """(args, kwargs) with a copy of each Tensor argument that does not require grad."""
    return unflatten(structure, iter(t.detach().clone() if L.is_tensor(t) and not
                                     t.requires_grad else t for t in leaves))


def _argument_facts(leaves, state_tensors) -> tuple:
    """What decides whether a trace may update its Tensor arguments in place: whether any of
    them shares memory with another argument or with the state (each has its own stand-in in
    the trace, so an update through one would not reach the others), and which require grad
    (an in-place update of those is an autograd matter that the eager call settles)."""
    arguments = [t for t in leaves if L.is_tensor(t)]
    bases = [id(_base(t._value)) for t in arguments]
    state = {id(_base(t._value)) for t in state_tensors}
    aliased = len(set(bases)) < len(bases) or any(b in state for b in bases)
    return aliased, tuple(t.requires_grad for t in arguments)


def _argument_updates(arguments, given, facts, state_updated) -> tuple:
    """Each Tensor argument's new value after the traced call, SAME where it was left as it
    was; a GraphBreak (the call then runs eagerly) where the update is not one a compiled call
    can write back into the caller's tensor, or where an argument that shares memory with the
    state would be read stale after the state's update."""
    aliased, requires_grad = facts
    updates = tuple(SAME if t._value is v else t for t, v in zip(arguments, given))
    changed = [i for i, u in enumerate(updates) if u is not SAME]
    if aliased and (changed or state_updated):
        raise GraphBreak("a Tensor argument updated in place shares memory with another "
                         "argument or with a parameter, buffer or optimizer state")
    if not changed:
        return updates
    if is_grad_enabled() and any(requires_grad[i] for i in changed):
        raise GraphBreak("a Tensor argument that requires grad is updated in place")
    if any(_layout(arguments[i]._value) != _layout(given[i]) for i in changed):
        raise GraphBreak("a Tensor argument is resized or recast by an in-place update (out=)")
    return tuple(SAME if u is SAME else type(u)._wrap(u._value) for u in updates)


def _layout(value) -> tuple:
    return tuple(value.shape), str(value.dtype)


def _returned(out, arguments) -> tuple:
    """(result leaf, argument) index pairs of the Tensor arguments returned as they are (as
    `return x.add_(1)` does): the call returns the caller's tensors there, as eager does."""
    positions = {id(t): j for j, t in enumerate(arguments)}
    return tuple((i, positions[id(x)]) for i, x in enumerate(_leaves(out)) if id(x) in positions)


def _as_returned(out, returned, arguments):
    if not returned:
        return out
    leaves = []
    structure = flatten(out, leaves)
    for i, j in returned:
        leaves[i] = arguments[j]
    return unflatten(structure, iter(leaves))


def _typed_as_eager(out):
    """`out` with each traced leaf marked to come back as the eager call returns it: a Tensor
    as a Tensor, a Python number as a Python number, even where computed from Python numbers
    alone (which jit, numpy's way, returns as numpy values)."""
    leaves = []
    structure = flatten(out, leaves)
    return unflatten(structure, iter(map(_typed_leaf, leaves)))


def _typed_leaf(x):
    inner = L.unwrap(x)
    flavor = "torch" if L.is_tensor(x) else "python"
    if not isinstance(inner, Traced) or inner.__gradjit_flavor__ == flavor or \
            not (L.is_tensor(x) or inner.__gradjit_weak__):
        return x
    marked = copy.copy(inner)
    marked.__gradjit_flavor__ = flavor
    return L.wrap_tensor(marked) if L.is_tensor(x) else marked


def _base(array):
    """The array that owns `array`'s memory (views of one array share it)."""
    while isinstance(getattr(array, "base", None), np.ndarray):
        array = array.base
    return array


def _leaves(tree) -> list:
    leaves = []
    flatten(tree, leaves)
    return leaves


def _refuse_values(guard):
    """A value read into Python (item(), float(), int()) is a guard the next call would fail:
    a trace would hold only for that value, so the call runs eagerly instead."""
    if guard.what.startswith("item()"):
        raise GraphBreak(f"a tensor's value is read into Python (item(), float(), int()) "
                         f"at {guard.site}: {source_line(guard.site)}")


def _generator_state():
    generator = random.default_generator
    return generator._bits.state, generator._cached_normal


def _same_generator_state(a, b) -> bool:
    (bits_a, normal_a), (bits_b, normal_b) = a, b
    return normal_a == normal_b and bits_a["state"]["pos"] == bits_b["state"]["pos"] and \
        np.array_equal(bits_a["state"]["key"], bits_b["state"]["key"])


def _set_generator_state(state):
    generator = random.default_generator
    generator._bits.state, generator._cached_normal = state


def _compiled_module_class():
    from gradjit.nn import Module

    class OptimizedModule(Module):
        """A Module whose calls run its original module's call compiled; parameters, buffers
        and state_dict are the original's (under `_orig_mod.`, as PyTorch names them)."""

        def __init__(self, mod, compiled):
            super().__init__()
            self._orig_mod = mod
            object.__setattr__(self, "_compiled", compiled)

        def forward(self, *args, **kwargs):
            return self._compiled(*args, **kwargs)

        def __gradjit_explain__(self):
            return self._compiled.explain()

    return OptimizedModule


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    """torch.compile: `model` (a function or a Module) traced into one compiled program per
    input signature. A call that cannot be traced runs eagerly (gradjit.explain says why), or
    raises GraphBreak with fullgraph=True. `backend`: 'inductor' (the default) or one of
    gradjit's ('cpu', 'cuda', 'cuda-emulator', 'interpreter') compiles; 'eager' does not.
    `dynamic`, `mode` and `options` are accepted for compatibility: gradjit specializes on
    shapes and has one optimization mode."""
    if backend not in _COMPILING and backend != "eager":
        raise ValueError(f"gradjit.compile: unknown backend {backend!r}; use 'inductor', "
                         f"'eager' or one of {', '.join(sorted(_GRADJIT))}")
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, disable=disable)
    if not callable(model):
        raise TypeError(f"gradjit.compile takes a function or a Module, not "
                        f"{type(model).__name__}")
    disable = disable or backend == "eager"
    if hasattr(model, "_modules") and callable(getattr(model, "named_parameters", None)):
        return _compiled_module_class()(model, Compiled(model, fullgraph, backend, disable))
    return Compiled(model, fullgraph, backend, disable)
