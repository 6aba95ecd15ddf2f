"""IR functions as Graphviz graphs (ops grouped into their loops for the kernels stage), and
SVG rendering through Graphviz's `dot` program when it is installed."""
from __future__ import annotations

import json
import shutil
import subprocess

from gradjit.dump.kernels import value_numbers
from gradjit.ir.core import Function
from gradjit.tracer.trace import source_line

INSTALL_HINT = ("Graphviz's `dot` program is needed to render SVG and was not found on PATH; "
                "install Graphviz (Debian/Ubuntu: apt-get install graphviz, macOS: brew install "
                "graphviz, conda: conda install graphviz), or use --format dot and render the "
                "file elsewhere")


def to_dot(fn: Function, result_names: list[str], *, clusters: dict | None = None,
           with_source: bool = False) -> str:
    """The function as a digraph: parameters, one node per op (fills as plain numbers),
    results. `clusters` maps a loop's name to the ops it computes (the first loop that
    computes an op holds it); `with_source` adds each op's source line."""
    numbers = value_numbers(fn)
    lines = [f"digraph {_quote(fn.name)} {{", "  rankdir=TB;",
             '  node [fontname="monospace", fontsize=10];']
    node_of = {}
    for p in fn.params:
        node_of[p] = _quote(numbers[p])
        lines.append(f"  {node_of[p]} [shape=ellipse, label={_quote(f'{numbers[p]}: {p.type}')}];")
    placed = {}
    for name, ops in (clusters or {}).items():
        for op in ops:
            placed.setdefault(id(op), name)
    body: dict[str | None, list[str]] = {}
    for i, op in enumerate(fn.ops):
        node = f"op{i}"
        if op.out is not None:
            node_of[op.out] = node
        line = f"{node} {_attributes(op, numbers, with_source)};"
        body.setdefault(placed.get(id(op)), []).append(line)
        lines += [f"  {node_of[v]} -> {node};" for v in op.inputs]
    lines += ["  " + line for line in body.pop(None, [])]
    for n, (name, members) in enumerate(body.items()):
        lines += [f"  subgraph cluster_{n} {{", f"    label={_quote(name)};", "    style=rounded;",
                  *("    " + line for line in members), "  }"]
    for i, (value, name) in enumerate(zip(fn.results, result_names)):
        lines += [f"  result{i} [shape=doubleoctagon, label={_quote(name)}];",
                  f"  {node_of[value]} -> result{i};"]
    return "\n".join(lines + ["}"]) + "\n"


def _attributes(op, numbers, with_source) -> str:
    if op.prim.name == "full":
        return f"[shape=plain, label={_quote(repr(op.params['value']))}]"
    head = f"{numbers[op.out]} = {op.prim.name}" if op.out is not None else op.prim.name
    label = head + (f"\n{op.out.type}" if op.out is not None else "")
    if with_source and op.site:
        label += f"\n{op.site}: {source_line(op.site)}"
    tooltip = f", tooltip={_quote(op.site)}" if op.site else ""
    return f"[shape=box, label={_quote(label)}{tooltip}]"


def _quote(text: str) -> str:
    # Graphviz's quoted strings take JSON's escapes for ", \ and newlines.
    return json.dumps(text, ensure_ascii=False)


def render_svg(dot_text: str) -> str:
    """SVG drawn by Graphviz; RuntimeError with install instructions when `dot` is missing."""
    program = shutil.which("dot")
    if program is None:
        raise RuntimeError(INSTALL_HINT)
    done = subprocess.run([program, "-Tsvg"], input=dot_text, capture_output=True, text=True,
                          timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"dot failed: {done.stderr.strip()}")
    return done.stdout
