"""PyTorch's surface on traced numpy values: names only Tensor has act on a Tensor around the
value, and torch's function namespaces see Tensors around traced arguments (torch's semantics)."""
from __future__ import annotations

import functools
import inspect
import types

import numpy as np

# One item per entry of every thread's trace stack: while it is empty, torch's functions need
# not look at their arguments (no traced value can reach them) and the lean call path may run.
# Reading a thread-local stack instead cost 8% of a cached call; while a thread traces, calls on
# other threads take the general path, which looks at their own stacks.
TRACING: list = []


@functools.cache
def torch_only_names() -> frozenset[str]:
    """Public attributes of Tensor that numpy's ndarray lacks: numpy's own names keep numpy's
    meaning on a traced value."""
    from gradjit.tensor.tensor import Tensor
    return frozenset(n for n in dir(Tensor) if not n.startswith("_")) - frozenset(dir(np.ndarray))


_TAPE = "a traced function's gradients come from gradjit.grad, not from the eager tape"
_STORAGE = "a traced value has no memory of its own until the compiled function runs"
_VALUES = "its values are known only when the function runs (item() reads one, guarded)"
# Names a traced value cannot offer, and why: Tensor's (numpy's are listed by np.ndarray).
REFUSED = {
    **dict.fromkeys(("backward", "register_hook", "register_post_accumulate_grad_hook",
                     "retain_grad"), _TAPE),
    **dict.fromkeys(("data_ptr", "storage", "untyped_storage", "storage_offset", "apply_",
                     "map_", "map2_"), _STORAGE),
    "numpy": "it is not known until the function runs; numpy's functions take it as it is",
    "nonzero_static": "its positions are read from the data, known only when it runs",
}
_NDARRAY_REFUSED = {"dump": _VALUES, "dumps": _VALUES}


def user_line() -> str:
    """The user's line running now, as errors name it."""
    from gradjit.tracer.trace import source_line, user_site
    site = user_site(2)
    return f"\n  at {site}: {source_line(site)}"


class NotTraceable(TypeError, AttributeError):
    """What cannot work on a traced value: a TypeError as the tracer's other refusals, and an
    AttributeError, so that hasattr and getattr with a default see such a name as absent."""


def refuse(what: str, why: str):
    """An error naming the user's line: `what` cannot be used on a traced value, `why`."""
    raise NotTraceable(f"{what} cannot be used on a value traced by gradjit.grad/jit: {why}"
                       f"{user_line()}")


def attribute(traced, name):
    """An attribute ndarray's surface on `traced` lacks: Tensor's `name` acting on a Tensor
    around it, or an error saying why it is not offered."""
    if name in torch_only_names():
        if name in REFUSED:
            refuse(f"Tensor.{name}", REFUSED[name])
        return tensor_attribute(traced, name)
    if not name.startswith("_") and hasattr(np.ndarray, name):
        known = traced.__gradjit_constant__()
        if known is not None:  # a constant (np.zeros the function fills) is its numpy value
            return getattr(known, name)
        refuse(f"ndarray.{name}", _NDARRAY_REFUSED.get(name, _STORAGE))
    raise AttributeError(f"'Traced' object has no attribute {name!r}")


def tensor_attribute(traced, name):
    """`name` of a Tensor around `traced`, a method taking traced operands as Tensors too
    (`a.matmul(b)`); an in-place method rebinds `traced` to its result, as numpy's in-place
    methods do, and returns it."""
    from gradjit.tensor.tensor import Tensor
    wrapped = Tensor._wrap(traced)
    found = getattr(wrapped, name)
    if not callable(found):
        return found

    @functools.wraps(found)
    def method(*args, **kwargs):
        args, kwargs = traced_as_tensors(args, kwargs)
        if not name.endswith("_"):
            return found(*args, **kwargs)
        found(*args, **kwargs)
        traced._become(wrapped._value)
        return traced
    return method


def _entry(fn):
    @functools.wraps(fn)
    def torch_function(*args, **kwargs):
        if TRACING:
            args, kwargs = traced_as_tensors(args, kwargs)
        return fn(*args, **kwargs)
    return torch_function


def traced_as_tensors(args, kwargs):
    """args and kwargs with each traced value, alone or in a list (torch.cat's, einsum's
    operands), as a Tensor around it: what torch's functions see while TRACING."""
    return [_as_tensor(a) for a in args], {k: _as_tensor(v) for k, v in kwargs.items()}


def _as_tensor(x):
    from gradjit.tensor.factories import is_traced
    from gradjit.tensor.tensor import Tensor
    if is_traced(x):
        return Tensor._wrap(x)
    if type(x) in (list, tuple) and any(map(is_traced, x)):
        return type(x)(map(_as_tensor, x))
    return x


def converting(fn):
    """fn, which converts its traced arguments itself (traced_as_tensors on its path for
    TRACING): install leaves it unwrapped, so that its eager calls pay for no wrapper. The mark
    names fn, as a decorator around it (autocast's), which sees the arguments first, copies it."""
    fn.converts_traced = fn
    return fn


def _takes_any_object(fn) -> bool:
    """Constructors from data (tensor, as_tensor, asarray) take traced values as they are, and
    questions about an object (is_tensor) answer for the object given."""
    try:
        first = next(iter(inspect.signature(fn).parameters), None)
    except (TypeError, ValueError):
        return False
    return first in ("data", "obj")


def install(namespaces, packages):
    """Wrap, in each namespace (a module, or a class for its methods and __init__), the
    functions defined under `packages` (one wrapper per function, shared by the namespaces
    that export it; a `converting` function stays itself)."""
    wrappers = {}
    for space in namespaces:
        for name, fn in list(vars(space).items()):
            if name.startswith("_") and name != "__init__" or not inspect.isfunction(fn) or \
                    not fn.__module__.startswith(packages) or _takes_any_object(fn):
                continue
            if id(fn) not in wrappers:
                wrappers[id(fn)] = fn if getattr(fn, "converts_traced", None) is fn else _entry(fn)
                if isinstance(space, types.ModuleType):  # pickled by the name it is found at
                    wrappers[id(fn)].__module__, wrappers[id(fn)].__qualname__ = \
                        space.__name__, name
            setattr(space, name, wrappers[id(fn)])


def subclasses(cls) -> list[type]:
    """cls and every class derived from it."""
    return [cls] + [d for c in cls.__subclasses__() for d in subclasses(c)]
