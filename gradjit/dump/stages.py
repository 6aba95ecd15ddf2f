"""The dump stages, one table entry each: how a Lowered prints at that stage (and draws, for
the IR stages), and `dump`, which gives the text of one stage or of all of them."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from gradjit.dump.lowered import Lowered, lower
from gradjit.ir.core import Function
from gradjit.tracer.trace import source_line

_LOC = re.compile(r' loc\((".*")\)$')


@dataclass(frozen=True)
class Options:
    with_source: bool = False  # each op's source line
    latex: bool = False  # formulas in LaTeX


@dataclass(frozen=True)
class Stage:
    title: str
    extension: str
    text: Callable[[Lowered, Options], str]
    graph: Callable[[Lowered, Options], str] | None = None  # Graphviz text, for IR stages


def ir_text(fn: Function, with_source: bool = False) -> str:
    """The IR's text form; source locations only `with_source`, each followed by a comment
    with the source line (comments are skipped by the parser, so the text still parses)."""
    lines = []
    for line in str(fn).splitlines():
        found = _LOC.search(line)
        if found and with_source:
            site = found.group(1)[1:-1]
            line = f"{line}  # {source_line(site)}".rstrip()
        elif found:
            line = line[:found.start()]
        lines.append(line)
    return "\n".join(lines)


def _differentiated(low: Lowered) -> Function:
    if low.differentiated is None:
        raise ValueError(f"{low.name} is compiled with jit: it has no gradient stage (trace, "
                         "optimized and the later stages apply)")
    return low.differentiated


def _ir_stage(title, function, names):
    def text(low, options):
        return ir_text(function(low), options.with_source)

    def graph(low, options):
        from gradjit.dump.graph import to_dot
        return to_dot(function(low), names(low), with_source=options.with_source)
    return Stage(title, "ir", text, graph)


def _kernels_graph(low: Lowered, options: Options) -> str:
    from gradjit.dump.graph import to_dot
    clusters: dict[str, list] = {}
    for op, places in low.fused.places.items():
        for place in places:
            clusters.setdefault(place, []).append(op)
    loops = {name: ops for name, ops in clusters.items()
             if name != "constant" and not name.startswith("view of")}
    return to_dot(low.optimized, low.result_names, clusters=loops,
                  with_source=options.with_source)


def _ptx(low: Lowered, options: Options) -> str:
    return "\n".join(f"// ---- kernel {name} ----\n{text}" for name, text in low.ptx.items())


def _symbolic(low: Lowered, options: Options) -> str:
    lines = []
    for index, name in enumerate(low.result_names):
        formula = low.formula(index, options.latex).splitlines()
        lines += [f"{name} = {formula[-1]}" if len(formula) == 1 else f"{name}:"]
        lines += ["    " + line for line in formula if len(formula) > 1]
    before, after = low.unsimplified, low.simplified
    state = "on" if low.symbolic else "off: grad(f, symbolic=True) turns it on"
    lines += ["", f"sympy simplification of the elementwise regions ({state}): "
                  f"{len(before.ops)} ops -> {len(after.ops)} ops"]
    if ir_text(before) != ir_text(after):
        lines += [ir_text(after, options.with_source)]
    return "\n".join(lines)


def _gradient_names(low: Lowered) -> list[str]:
    return low.result_names[:len(low.traced.results)]


STAGES = {
    "trace": _ir_stage("the traced forward IR", lambda low: low.traced, _gradient_names),
    "grad": _ir_stage("the gradient IR after autodiff", _differentiated,
                      lambda low: low.result_names),
    "optimized": _ir_stage("the optimized IR (what runs)", lambda low: low.optimized,
                           lambda low: low.result_names),
    "kernels": Stage("the fused loops: which ops each computes, what it reads and writes",
                     "txt",
                     lambda low, o: low.fused.describe(low.result_names, o.with_source),
                     _kernels_graph),
    "llvm": Stage("the LLVM IR of the CPU kernels", "ll", lambda low, o: low.llvm_ir),
    "ptx": Stage("the PTX of the GPU kernels", "ptx", _ptx),
    "symbolic": Stage("each result as a formula of the inputs", "txt", _symbolic),
    "python": Stage("the optimized IR as a standalone numpy function", "py",
                    lambda low, o: low.python_source(o.with_source)),
}
FORMATS = ("text", "dot", "svg")


def stage_names(stage: str | list[str], lowered: Lowered | None = None,
                fmt: str = "text") -> list[str]:
    """The stages `stage` names ('all', a name, or a comma-separated list); 'all' leaves out
    the gradient stage of a jit function and, for graphs, the stages that are not IR."""
    names = stage.split(",") if isinstance(stage, str) else list(stage)
    if names == ["all"]:
        names = [n for n in STAGES if fmt == "text" or STAGES[n].graph is not None]
        if lowered is not None and lowered.differentiated is None:
            names.remove("grad")
        return names
    for name in names:
        if name not in STAGES:
            raise ValueError(f"unknown stage {name!r}; choose from {', '.join(STAGES)} or all")
        if fmt != "text" and STAGES[name].graph is None:
            graphs = ", ".join(n for n, s in STAGES.items() if s.graph is not None)
            raise ValueError(f"the {name} stage has no graph form; --format {fmt} takes "
                             f"{graphs}")
    return names


def render(lowered: Lowered, name: str, fmt: str = "text", options: Options = Options()) -> str:
    """One stage of `lowered` as text, Graphviz text or SVG."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    stage = STAGES[name]
    if fmt == "text":
        return stage.text(lowered, options)
    graph = stage.graph(lowered, options)
    if fmt == "dot":
        return graph
    from gradjit.dump.graph import render_svg
    return render_svg(graph)


def dump(f, *args, stage="all", argnums=0, format="text", with_source=False, latex=False,
         symbolic=False, transform="grad", **kwargs) -> str:
    """What `f` compiles to for these example arguments, at `stage` ('trace', 'grad',
    'optimized', 'kernels', 'llvm', 'ptx', 'symbolic', 'python', a comma-separated list, or
    'all'). `f` is made by grad / value_and_grad / jit, or is a plain function, whose gradient
    with respect to `argnums` is dumped, or another `transform` of it ('jvp', 'vjp', 'jacrev',
    'jacfwd', 'hessian', 'vmap'). `format`: 'text', 'dot' (Graphviz) or 'svg'."""
    lowered = lower(f, *args, argnums=argnums, symbolic=symbolic, transform=transform, **kwargs)
    names = stage_names(stage, lowered, format)
    options = Options(with_source, latex)
    if len(names) == 1:
        return render(lowered, names[0], format, options)
    if format == "svg":
        raise ValueError("several stages as SVG are not one SVG document: dump one stage, or "
                         "write one file per stage (gradjit dump --output DIR)")
    sections = [f"==== {name}: {STAGES[name].title} ====\n"
                + render(lowered, name, format, options).rstrip("\n") for name in names]
    return "\n\n".join(sections) + "\n"
