"""A trace's IR by stage ("traced", then "differentiated" unless jit, then "optimized"), each
later stage made when first read, and its program: on the CPU a program stored under the trace's
key (in memory or on disk) is run without differentiating or optimizing the trace again."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Callable

from gradjit.ir import Function
from gradjit.ir.primitive import PRIMITIVES
from gradjit.tracer.backend import DEFAULT_BACKEND, compile_program


class Stages(Mapping):
    """`passes` maps each stage after "traced", in order, to the function making it from the
    stage before; `recipe` says what they depend on beyond the traced IR (the inputs
    differentiated, say): with the traced IR's text it keys the program (None: no key)."""

    def __init__(self, traced: Function, passes: dict[str, Callable], recipe: str | None):
        self._made = {"traced": traced}
        self._passes, self.recipe = passes, recipe
        self._names = ("traced", *passes)

    def __getitem__(self, stage: str) -> Function:
        if stage not in self._names:
            raise KeyError(stage)
        for before, after in zip(self._names, self._names[1:self._names.index(stage) + 1]):
            if after not in self._made:
                self._made[after] = self._passes[after](self._made[before])
        return self._made[stage]

    def __contains__(self, stage) -> bool:  # without making the stage
        return stage in self._names

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def compile_stages(stages: Stages, backend: str | None, deterministic: bool):
    """The program of the optimized stage (backend.compile_program's). On the CPU it is looked
    up first under the trace's key, and kept there once compiled; a trace holding a primitive
    made outside the table (custom_vjp's, whose rules are the caller's code) has no such key."""
    traced = stages["traced"]
    if (backend or DEFAULT_BACKEND) != "cpu" or stages.recipe is None or not all(
            PRIMITIVES.get(op.prim.name) is op.prim for op in traced.ops):
        return compile_program(stages["optimized"], backend, deterministic)
    from gradjit.runtime import programs  # a trace's first compile loads the runtime
    key = programs.trace_key(str(traced), stages.recipe)
    found = programs.lookup_trace(key)
    if found is not None:
        return found
    fn = stages["optimized"]
    program = compile_program(fn, backend, deterministic)
    programs.remember_trace(key, program, fn)
    return program
