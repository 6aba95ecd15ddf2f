"""The fused program seen from the IR: which ops went into which loop (or runtime step), and
what each loop reads and writes, named after the function's parameters and results."""
from __future__ import annotations

from gradjit.codegen.fuse import Fuser, Group
from gradjit.codegen.kernel import Kernel
from gradjit.codegen.schedule import _nodes_in_order
from gradjit.ir.core import Function, Op, Value
from gradjit.runtime.steps import Guard, Matmul
from gradjit.tracer.trace import source_line

# Ops whose result is memory that steps of their own write (not a view of their operand).
_WRITING_KINDS = {"reduction", "contraction"}
_WRITING_STRUCTURAL = {"pad", "concatenate", "scatter_add"}


class FusedView:
    """`program`: the fused program (as compile_function builds it); `places`: op -> the
    names of the steps computing it ('constant' for fills folded into the loops that use
    them, 'view of bN' for reshapes and the like that only change how memory is read)."""

    def __init__(self, fn: Function):
        self.fn = fn
        fuser = _LineageFuser(fn)
        self.program = fuser.run()
        self.steps = self.program.steps
        self.step_names = {id(s): _step_name(s, i) for i, s in enumerate(self.steps)}
        contents = _step_contents(fuser.prologue + fuser.steps, self.steps, fuser.origins)
        self.places = _places(fn, fuser.env, contents, self.steps, self.step_names)

    def describe(self, result_names: list[str], with_source: bool = False) -> str:
        """The program text, each loop or step preceded by what it reads, writes and does."""
        labels = _buffer_labels(self.program, self.fn, result_names)
        numbers = value_numbers(self.fn)
        by_place: dict[str, list[Op]] = {}
        for op, places in self.places.items():
            for place in places:
                by_place.setdefault(place, []).append(op)
        lines = [f"{len(self.program.kernels)} loops, "
                 f"{len(self.steps) - len(self.program.kernels)} other steps; buffers: "
                 + ", ".join(f"b{b} {label}" for b, label in labels.items())]
        for step in self.steps:
            name = self.step_names[id(step)]
            lines.append("")
            if isinstance(step, Kernel):
                lines.append(_summary(step, labels))
            ops = by_place.get(name, [])
            lines += _op_lines("ops:", ops, [""] * len(ops), numbers, with_source)
            lines += str(step).splitlines()
        views = [(op, place[4:]) for op, places in self.places.items() for place in places
                 if place.startswith("view of ")]
        for title, ops in [("constants, folded into the loops that use them:",
                            [(op, "") for op in by_place.pop("constant", [])]),
                           ("views, read in place by the loops:", views),
                           ("not computed:", [(op, "") for op in by_place.pop("not computed",
                                                                                [])])]:
            if ops:
                lines += [""] + _op_lines(title, *zip(*ops), numbers, with_source)
        return "\n".join(lines)


class _LineageFuser(Fuser):
    """Fusion that remembers where re-indexed expressions come from: a value read through a
    view op is recomputed, as a re-indexed copy, in the loops of the view's users."""

    def __init__(self, fn: Function):
        super().__init__(fn)
        self.origins: dict[int, set[int]] = {}

    def reindexed(self, node, result):
        self.origins.setdefault(id(result), set()).add(id(node))


def value_numbers(fn: Function) -> dict[Value, str]:
    """`%name` of each value as the IR text prints it: parameters by name, results numbered."""
    names: dict[Value, str] = {}
    for i, p in enumerate(fn.params):
        names[p] = f"%{p.name or f'arg{i}'}"
    counter = 0
    for op in fn.ops:
        if op.out is not None:
            names[op.out] = f"%{counter}"
            counter += 1
    return names


def _step_name(step, position: int) -> str:
    if isinstance(step, Kernel):
        return step.name
    return f"step {position} ({type(step).__name__.lower()})"


def _step_contents(groups, steps, origins) -> list[tuple[object, set]]:
    """(step, ids of the expression nodes it computes, with those they were re-indexed from)
    for every step of the program: the scheduler made each group of pending outputs into one
    kernel and its combine kernels."""
    contents, position = [], 0
    for group in groups:
        if not isinstance(group, Group):
            contents.append((steps[position], set()))
            position += 1
            continue
        roots = [p.node for p in group.outputs] + [p.scatter[0] for p in group.outputs
                                                   if p.scatter]
        kernel = steps[position]
        contents.append((kernel, _with_origins({id(n) for n in _nodes_in_order(roots)},
                                               origins)))
        position += 1
        while (position < len(steps) and isinstance(steps[position], Kernel)
               and steps[position].name.startswith(kernel.name + "_combine")):
            contents.append((steps[position], set()))
            position += 1
    return contents


def _with_origins(ids: set[int], origins) -> set[int]:
    found, stack = set(ids), list(ids)
    while stack:
        for origin in origins.get(stack.pop(), ()):
            if origin not in found:
                found.add(origin)
                stack.append(origin)
    return found


def _written_by(steps, step_names) -> dict[int, list[str]]:
    writers: dict[int, list[str]] = {}
    for step in steps:
        if isinstance(step, Kernel):
            written = {o.access.buffer for o in step.outputs}
        elif isinstance(step, Matmul):
            written = {step.out}
        else:
            written = set()
        for b in written:
            writers.setdefault(b, []).append(step_names[id(step)])
    return writers


def _places(fn, env, contents, steps, step_names) -> dict[Op, list[str]]:
    writers = _written_by(steps, step_names)
    guards = iter(step_names[id(s)] for s in steps if isinstance(s, Guard))
    places: dict[Op, list[str]] = {}
    for op in fn.ops:
        node = env.get(op.out)
        if op.out is None:
            places[op] = [next(guards, "checked before the loops")]
        elif node is None:
            continue  # unused: fusion skips it
        elif node.kind == "const":
            places[op] = ["constant"]
        elif node.kind == "load":
            buffer = node.attrs[0]
            # A reduction over no axes, or a pad by nothing, is its operand: a view.
            made = op.prim.kind in _WRITING_KINDS or op.prim.name in _WRITING_STRUCTURAL
            places[op] = writers[buffer] if made and buffer in writers else [
                f"view of b{buffer}"]
        else:
            places[op] = [step_names[id(s)] for s, ids in contents if id(node) in ids] or [
                "not computed"]
    return places


def _buffer_labels(program, fn, result_names) -> dict[int, str]:
    labels = {}
    for b in program.buffers:
        if b.kind == "param":
            p = fn.params[b.index]
            labels[b.id] = f"= {p.name or f'arg{b.index}'}"
        elif b.kind == "result":
            labels[b.id] = f"= {result_names[b.index]}"
        else:
            labels[b.id] = f"({b.kind}, {b.dtype}[{b.size}])"
    return labels


def _summary(kernel: Kernel, labels) -> str:
    reads = sorted({i.attrs.buffer for i in kernel.body if i.op == "load"})
    writes = [("" if o.kind == "store" else f"{o.kind} into ")
              + f"b{o.access.buffer} {labels[o.access.buffer]}" for o in kernel.outputs]
    return (f"# loop over [{','.join(map(str, kernel.extents))}]: reads "
            + (", ".join(f"b{b} {labels[b]}" for b in reads) or "nothing")
            + "; writes " + ", ".join(writes))


def _op_lines(title, ops, notes, numbers, with_source) -> list[str]:
    """`title` and the ops (`%3 mul`, each followed by its note), on one line, or one line
    each with the op's source line."""
    if not ops:
        return []
    names = [(f"{numbers[op.out]} {op.prim.name}" if op.out is not None else op.prim.name)
             + note for op, note in zip(ops, notes)]
    if not with_source:
        return [f"# {title} " + ", ".join(names)]
    lines = [f"# {title}"]
    for name, op in zip(names, ops):
        site = f"  {op.site}: {source_line(op.site)}" if op.site else ""
        lines.append(f"#   {name}{site}")
    return lines
