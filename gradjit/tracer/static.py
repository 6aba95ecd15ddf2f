"""jit's static arguments: the positions and names declared static, checked against the
function's signature, and the hashable values a cache key holds for them."""
from __future__ import annotations

import inspect

from gradjit.tracer import leaves as L
from gradjit.tracer.trace import Traced


def static_arguments(fn, argnums, argnames) -> tuple[frozenset, frozenset]:
    """jit's static positions and names, each completed from the other through fn's
    signature (as JAX's), so that a static parameter stays static however it is passed."""
    argnums = frozenset((argnums,) if isinstance(argnums, int) else argnums or ())
    argnames = frozenset((argnames,) if isinstance(argnames, str) else argnames or ())
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return argnums, argnames
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                        p.POSITIONAL_OR_KEYWORD)]
    named = [p.name for p in params if p.kind != p.POSITIONAL_ONLY]
    kinds = {p.kind for p in params}
    _check_static(fn, argnums, argnames, positional, named, kinds)
    return (argnums | {i for i, name in enumerate(positional) if name in argnames},
            argnames | {positional[i] for i in argnums
                        if -len(positional) <= i < len(positional)} & set(named))


def _check_static(fn, argnums, argnames, positional, named, kinds):
    """Static positions and names that fn cannot receive would silently never apply."""
    name = getattr(fn, "__qualname__", repr(fn))
    if inspect.Parameter.VAR_POSITIONAL not in kinds:
        wrong = sorted(i for i in argnums if not -len(positional) <= i < len(positional))
        if wrong:
            raise ValueError(f"static_argnums {wrong} name no parameter of {name}, which takes "
                             f"{len(positional)} positional arguments")
    if inspect.Parameter.VAR_KEYWORD not in kinds:
        wrong = sorted(argnames - set(named))
        if wrong:
            raise ValueError(f"static_argnames {wrong} name no parameter of {name}, whose "
                             f"parameters are {named}")


def static_value(value):
    """A static argument as a cache key holds it. A scalar that an outer transformation
    traced (JAX's grad leaves its other arguments concrete) is the Python value it holds,
    under a guard."""
    inner = L.unwrap(value)
    if isinstance(inner, Traced) and inner.ndim == 0:
        value = inner.item()
    try:
        hash(value)
    except TypeError as error:
        raise ValueError(f"Non-hashable static arguments are not supported. An error occurred "
                         f"while trying to hash an object of type {type(value)}, {value}. The "
                         f"error was:\nTypeError: {error}\n") from None
    return value
