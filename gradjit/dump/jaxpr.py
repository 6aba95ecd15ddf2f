"""make_jaxpr: a function's traced IR for example arguments, printed by the dump tool's trace
stage (JAX's jax.make_jaxpr, with gradjit's IR in place of a jaxpr)."""
from __future__ import annotations

import functools

from gradjit.dump.lowered import lower
from gradjit.dump.stages import Options, render
from gradjit.tracer.eager import ShapeDtypeStruct


class Program:
    """The traced program of one call: str() is its IR text; in_avals and out_avals the
    shapes and dtypes of its parameters and results."""

    def __init__(self, lowered):
        self.lowered = lowered
        traced = lowered.traced
        self.in_avals = [_struct(p) for p in traced.params]
        self.out_avals = [_struct(r) for r in traced.results]

    @property
    def jaxpr(self) -> Program:
        return self

    def pretty_print(self, with_source: bool = False) -> str:
        return render(self.lowered, "trace", options=Options(with_source=with_source))

    def __str__(self):
        return self.pretty_print()

    __repr__ = __str__


def _struct(value):
    return ShapeDtypeStruct(value.type.shape, value.type.dtype.numpy)


def make_jaxpr(fun, static_argnums=(), *, backend=None):
    """A function that takes fun's arguments and returns the Program traced for them (fun is
    traced and compiled as jit would)."""
    from gradjit.tracer import jit

    @functools.wraps(fun)
    def traced(*args, **kwargs):
        return Program(lower(jit(fun, static_argnums=static_argnums, backend=backend), *args,
                             **kwargs))
    return traced
