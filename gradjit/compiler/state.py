"""What a compiled function reads and writes besides its arguments: the parameters and buffers
of the Modules, the gradients, and the optimizers' state that it reaches through its closure,
the globals it names, its bound `self` and its arguments. While the step is traced they hold
traced values in place of their arrays; afterwards the compiled program's results are written
back into the same tensors, as the eager step would have left them."""
from __future__ import annotations

import collections
import types

import numpy as np

from gradjit.tensor.base import TensorBase
from gradjit.tensor.grad_mode import is_grad_enabled
from gradjit.tracer.pytree import Static

SAME = "unchanged"  # a state value the step did not replace (nothing to write back)


def is_module(x) -> bool:
    return callable(getattr(x, "named_parameters", None)) and hasattr(x, "_buffers")


def is_optimizer(x) -> bool:
    return hasattr(x, "param_groups") and isinstance(getattr(x, "state", None), dict)


def _roots(fn) -> tuple:
    """Modules, optimizers, tensors and other values that `fn` can reach without being passed
    them: its bound `self`, its closure and the globals it names, and those of the functions
    found there (a step that calls a helper which calls the model); and the Python numbers,
    strings and Nones bound directly to those closure cells and global names."""
    roots, constants, seen = [], [], set()

    def visit(f):
        if id(f) in seen:
            return
        seen.add(id(f))
        owner = getattr(f, "__self__", None)
        if owner is not None and not isinstance(owner, types.ModuleType):
            roots.append(owner)
        f = getattr(f, "__func__", f)
        found = []
        for cell in getattr(f, "__closure__", None) or ():
            try:
                found.append(cell.cell_contents)
            except ValueError:  # an empty cell: a name assigned later
                pass
        code = getattr(f, "__code__", None)
        if code is not None:
            scope = getattr(f, "__globals__", {})
            found.extend(scope[n] for n in sorted(_names(code)) if n in scope)
        # Numbers inside a list or dict are left out: a step that appends to a closure list
        # (a log) would otherwise change its own key on every call.
        constants.extend((type(x).__name__, repr(x)) for x in found
                         if x is None or type(x) in (bool, int, float, complex, str))
        for x in _flat(found):  # into lists, tuples and dicts (a dict of models, say)
            if isinstance(x, (types.FunctionType, types.MethodType)):
                visit(x)
            else:
                roots.append(x)
    if is_module(fn):
        roots.append(fn)
    visit(fn)
    return roots, tuple(constants)


def _names(code) -> set:
    """The global names a code object and the functions defined in it use."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


class State:
    """The state tensors (in a fixed order), the parameters whose .grad the step may set, and
    the optimizers with their per-parameter state."""

    def __init__(self, fn, args, kwargs):
        self.tensors, self.params, self.modules, self.optimizers = [], [], [], []
        # Python numbers and strings the step reads from its closure or globals are traced as
        # constants: their values join the cache key, so rebinding one traces again (PyTorch
        # guards on them) instead of replaying the old value.
        reached, self.constants = _roots(fn)
        seen = set()

        def add(t):
            if id(t) not in seen and isinstance(t._value, np.ndarray):
                seen.add(id(t))
                self.tensors.append(t)
                if t.requires_grad and t.is_leaf:
                    self.params.append(t)
        for root in reached + list(_flat((args, kwargs))):
            if is_module(root) and root not in self.modules:
                self.modules.extend(m for m in root.modules() if m not in self.modules)
                for t in root.parameters():
                    add(t)
                for t in root.buffers():
                    add(t)
            elif is_optimizer(root) and root not in self.optimizers:
                self.optimizers.append(root)
            elif isinstance(root, TensorBase) and not any(root is a for a in _flat((args, kwargs))):
                add(root)
        for opt in self.optimizers:
            for group in opt.param_groups:
                for p in group["params"]:
                    add(p)
                    for v in opt.state.get(p, {}).values():
                        if isinstance(v, TensorBase):
                            seen.add(id(v))  # passed with the optimizer's state instead

    def inputs(self) -> tuple:
        """The state as the traced step's arguments: values, gradients, optimizer state, and
        (static, part of the cache key) hyperparameters, training flags and grad mode."""
        grads = tuple(p._grad for p in self.params)
        states = tuple(tuple(dict(opt.state.get(p, {})) for p in _params(opt))
                       for opt in self.optimizers)
        options = tuple(tuple(tuple((k, _hashable(v)) for k, v in sorted(g.items())
                                    if k != "params") for g in opt.param_groups)
                        for opt in self.optimizers)
        flags = (tuple(m.training for m in self.modules), is_grad_enabled())
        return tuple(self.tensors), grads, states, Static((options, flags, self.constants))

    def swap(self, values, grads, states):
        """Put the traced inputs in place; returns what restore() puts back."""
        kept = ([(t._value, t._counter.value, t._edge, t._view_version) for t in self.tensors],
                [p._grad for p in self.params], [opt.state for opt in self.optimizers])
        # The traced inputs' values: an in-place update replaces a tensor's value, not the
        # tensor, so effects are told by value.
        self.before = ([v._value for v in values], [_inner(g) for g in grads],
                       [[{k: _inner(v) for k, v in s.items()} for s in per_param]
                        for per_param in states])
        for t, v in zip(self.tensors, values):
            t._value = v._value
        for p, g in zip(self.params, grads):
            p._grad = g
        for opt, per_param in zip(self.optimizers, states):
            fresh = collections.defaultdict(dict)
            for p, s in zip(_params(opt), per_param):
                if s:
                    fresh[p] = dict(s)
            opt.state = fresh
        return kept

    def restore(self, kept):
        values, grads, states = kept
        for t, (value, version, edge, view_version) in zip(self.tensors, values):
            t._value, t._counter.value, t._edge, t._view_version = \
                value, version, edge, view_version
        for p, g in zip(self.params, grads):
            p._grad = g
        for opt, s in zip(self.optimizers, states):
            opt.state = s

    def results(self) -> tuple:
        """The traced step's effects, as outputs: SAME for what it left as it was."""
        values, grads, states = self.before
        new_values = tuple(SAME if t._value is v else type(t)._wrap(t._value)
                           for t, v in zip(self.tensors, values))
        new_grads = tuple(SAME if _inner(p._grad) is g else p._grad
                          for p, g in zip(self.params, grads))
        new_states = tuple(
            tuple({k: SAME if k in old and _inner(v) is old[k] else v
                   for k, v in opt.state.get(p, {}).items()}
                  for p, old in zip(_params(opt), per_param))
            for opt, per_param in zip(self.optimizers, states))
        return new_values, new_grads, new_states

    def write_back(self, values, grads, states):
        """The compiled step's effects on the real tensors, in place where they exist (as the
        eager step updates parameters, .grad and optimizer state in place)."""
        for t, v in zip(self.tensors, values):
            if v is not SAME:
                copy_into(t, v)
        for p, g in zip(self.params, grads):
            if g is SAME:
                continue
            if g is None or p._grad is None or p._grad.shape != g.shape:
                p._grad = g
            else:
                copy_into(p._grad, g)
        for opt, per_param in zip(self.optimizers, states):
            for p, new in zip(_params(opt), per_param):
                if not new and p not in opt.state:
                    continue
                old = opt.state[p]
                for k, v in new.items():
                    if v is SAME:
                        continue
                    target = old.get(k)
                    if isinstance(target, TensorBase) and isinstance(v, TensorBase) and \
                            target.shape == v.shape and target.dtype == v.dtype:
                        copy_into(target, v)
                    else:
                        old[k] = v


def copy_into(t, new):
    np.copyto(t._value, _inner(new))  # a 0-d result may come back as a numpy scalar
    t._counter.value += 1


def _inner(x):
    return x._value if isinstance(x, TensorBase) else x


def _params(opt) -> list:
    return [p for group in opt.param_groups for p in group["params"]]


def _flat(tree):
    if isinstance(tree, (tuple, list)):
        for x in tree:
            yield from _flat(x)
    elif isinstance(tree, dict):
        for x in tree.values():
            yield from _flat(x)
    else:
        yield tree


def _hashable(value):
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value
