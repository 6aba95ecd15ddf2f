"""What one call of a transformed function compiles to, stage by stage: `lower(f, *args)`
gives a Lowered that holds the IR of each stage and builds the later ones (kernels, LLVM IR,
PTX, formulas, Python source) on first use."""
from __future__ import annotations

import functools

import numpy as np

from gradjit import tracer as T
from gradjit.ir.core import Function
from gradjit.ir.passes import optimize
from gradjit.tracer.pytree import flatten, unflatten


def lower(f, *args, argnums=0, symbolic=False, backend=None, transform="grad",
          **kwargs) -> Lowered:
    """Compile `f` for these example arguments and return its stages. `f` is a function made
    by grad / value_and_grad / jit, or a plain function, whose `transform` (one of
    TRANSFORMS: its gradient with respect to `argnums` by default) is taken (`symbolic` and
    `backend` as for gradjit.grad)."""
    if not isinstance(f, T.Transformed):
        if not callable(f):
            raise TypeError(f"lower() takes a function, not {type(f).__name__}")
        if transform not in TRANSFORMS:
            raise ValueError(f"unknown transform {transform!r}; one of {', '.join(TRANSFORMS)}")
        if transform == "grad":
            f = T.grad(f, argnums=argnums, symbolic=symbolic, backend=backend)
        else:  # the transformation inlines into one jit program, whose stages are shown
            f = T.jit(_named(TRANSFORMS[transform](f, argnums), f, transform), symbolic=symbolic,
                    backend=backend)
    f(*args, **kwargs)
    return Lowered.from_entry(f, f.cache.last)


def _named(wrapper, f, transform):
    wrapper.__name__ = wrapper.__qualname__ = f"{transform}_{getattr(f, '__name__', 'f')}"
    return wrapper


def _ones_like(tree):
    leaves = []
    structure = flatten(tree, leaves)
    return unflatten(structure, iter(np.ones_like(x) for x in leaves))


def _jvp(f, argnums):
    return lambda *args: T.jvp(f, args, _ones_like(args))[1]


def _vjp(f, argnums):
    def pulled(*args):
        out, pull = T.vjp(f, *args)
        return pull(_ones_like(out))
    return pulled


def _jacobian(name):
    return lambda f, argnums: getattr(T, name)(f, argnums=argnums)


# What `gradjit dump --transform` can show, with the tangents (jvp) and cotangents (vjp) of
# ones; vmap maps every argument over its axis 0.
TRANSFORMS = {
    "grad": None,
    "jvp": _jvp,
    "vjp": _vjp,
    "jacrev": _jacobian("jacrev"),
    "jacfwd": _jacobian("jacfwd"),
    "hessian": _jacobian("hessian"),
    "vmap": lambda f, argnums: T.vmap(f),
}


class Lowered:
    """The stages of one compiled trace: `traced` (forward IR), `differentiated` (after
    autodiff; None for jit), `optimized` (what runs), and, built when first asked for,
    `fused` (kernels and steps), `llvm_ir`, `ptx`, `simplified` and `python_source`.
    `result_names` names the optimized function's results: value, aux0.., d_<parameter>.
    As JAX's, `as_text()` prints it (gradjit's IR where JAX's prints StableHLO) and
    `compile()` gives the callable program."""

    def __init__(self, name: str, traced: Function, differentiated: Function | None,
                 optimized: Function, result_names: list[str], symbolic: bool = False,
                 fn=None):
        self.name, self.traced, self.differentiated = name, traced, differentiated
        self.optimized, self.result_names, self.symbolic = optimized, result_names, symbolic
        self._fn = fn  # the transformed function, whose cache holds the compiled program

    @classmethod
    def from_entry(cls, f, entry) -> Lowered:
        stages = entry.stages
        traced, optimized = stages["traced"], stages["optimized"]
        if f.mode == "jit":
            names = [f"out{i}" for i in range(len(traced.results))]
        else:
            names = ["value"] + [f"aux{i}" for i in range(len(traced.results) - 1)]
            names += [f"d_{traced.params[i].name or f'arg{i}'}" for i in entry.unpack.wrt]
        return cls(getattr(f, "__name__", f.cache.name), traced, stages.get("differentiated"),
                   optimized, names, f.symbolic, f)

    def __repr__(self) -> str:
        return f"<Lowered {self.name}: {len(self.optimized.ops)} ops>"

    def as_text(self, dialect=None, *, debug_info=False) -> str:
        """The traced program, one op a line (the IR after differentiation for grad)."""
        return str(self.differentiated or self.traced)

    def compile(self) -> Compiled:
        return Compiled(self)

    @functools.cached_property
    def fused(self):
        """The fused program with each op's place in it (gradjit.dump.kernels.FusedView)."""
        from gradjit.dump.kernels import FusedView
        return FusedView(self.optimized)

    @functools.cached_property
    def llvm_ir(self) -> str:
        """The LLVM IR of the CPU kernels (compiled once; the in-memory cache keeps it)."""
        from gradjit.codegen import compile_function
        return compile_function(self.optimized, target="cpu").llvm_ir

    @functools.cached_property
    def ptx(self) -> dict[str, str]:
        """The PTX of each GPU kernel by name; needs llvmlite's NVPTX target, not a GPU."""
        try:
            from gradjit.codegen.ptx import ptx_of
        except ImportError as error:
            raise RuntimeError(f"the PTX target cannot be loaded here: {error}") from error
        return ptx_of(self.optimized)

    @functools.cached_property
    def unsimplified(self) -> Function:
        """The optimized IR without the symbolic simplification (what runs when symbolic is
        off)."""
        if not self.symbolic:
            return self.optimized
        return optimize(self.differentiated or self.traced)

    @functools.cached_property
    def simplified(self) -> Function:
        """`unsimplified` after simplify_elementwise (what runs when symbolic is on)."""
        from gradjit.ir.symbolic_simplify import simplify_elementwise
        if self.symbolic:
            return self.optimized
        return optimize(simplify_elementwise(self.optimized))

    def formula(self, index: int, latex: bool = False) -> str:
        """Result `index` as a formula of the parameters (gradjit.ir.symbolic.formula)."""
        from gradjit.ir.symbolic import formula
        return formula(self.optimized, index, latex)

    def python_source(self, with_source: bool = False) -> str:
        """The optimized IR as a standalone numpy function (gradjit.dump.python_source)."""
        from gradjit.dump.python_source import python_source
        return python_source(self.optimized, self.result_names, name=self.name,
                             with_source=with_source)


class Compiled:
    """A lowered program ready to run, as jax.stages.Compiled: called with arguments of the
    types it was lowered for, it runs the compiled program; as_text() prints what runs."""

    def __init__(self, lowered: Lowered):
        self._lowered = lowered

    def __call__(self, *args, **kwargs):
        return self._lowered._fn(*args, **kwargs)

    def as_text(self) -> str:
        return str(self._lowered.optimized)

    def __repr__(self) -> str:
        return f"<Compiled {self._lowered.name}: {len(self._lowered.optimized.ops)} ops>"
