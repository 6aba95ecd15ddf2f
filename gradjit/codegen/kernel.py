"""The fused program: buffers, kernels (a loop domain holding a per-index body) and the
runtime steps between them (BLAS calls, guard and index checks); printable as text."""
from __future__ import annotations

from dataclasses import dataclass, field

from gradjit.ir.text import format_param
from gradjit.ir.types import DType
from gradjit.runtime.steps import Buffer


@dataclass(frozen=True)
class Access:
    """Where a kernel reads or writes at loop index (i0, .., in): element
    `offset + chunk * chunk_stride + sum(i_k * strides[k]) + wrap(index) * axis_stride`,
    where `index` (a body value, for gather/scatter) wraps negatives by `axis_size`."""

    buffer: int
    strides: tuple[int, ...]
    offset: int = 0
    chunk_stride: int = 0
    index: int | None = None
    axis_stride: int = 0
    axis_size: int = 0

    def __str__(self) -> str:
        text = f"b{self.buffer}[{','.join(map(str, self.strides))}]"
        if self.offset:
            text += f"+{self.offset}"
        if self.chunk_stride:
            text += f"+chunk*{self.chunk_stride}"
        if self.index is not None:
            text += f"+wrap(%{self.index},{self.axis_size})*{self.axis_stride}"
        return text


@dataclass(frozen=True)
class Instr:
    """One body value. op: 'load' (attrs: Access), 'const' (attrs: the value), 'index'
    (attrs: (strides, offset), an affine function of the loop index, for iota) or an
    elementwise primitive's name (attrs: its params as (key, value) pairs)."""

    op: str
    args: tuple[int, ...]
    attrs: object
    dtype: DType


REDUCE_KINDS = {"reduce_sum": "sum", "reduce_max": "max", "reduce_min": "min",
                "reduce_prod": "prod"}


@dataclass(frozen=True)
class Output:
    """A kernel result: kind 'store', 'scatter_add' (read-modify-write at an indexed
    address) or 'sum'/'max'/'min' (accumulate: the access has stride 0 on reduced axes)."""

    kind: str
    access: Access
    value: int
    dtype: DType


@dataclass(eq=False)
class Kernel:
    """A loop nest over `extents` (outermost first; the innermost is the vector loop).
    The outermost loop is cut into `n_chunks` chunks of `chunk_rows`, fixed by the shape
    alone, so any thread count computes the same partial results. `prefetch`: loads whose
    addresses each vector step asks the cache for, reading nothing (see prefetch.py)."""

    name: str
    extents: tuple[int, ...]
    body: list[Instr]
    outputs: list[Output]
    chunk_rows: int = 1
    n_chunks: int = 1
    prefetch: tuple[Instr, ...] = ()

    def buffers(self) -> set[int]:
        used = {i.attrs.buffer for i in self.body + list(self.prefetch) if i.op == "load"}
        return used | {o.access.buffer for o in self.outputs}

    def __str__(self) -> str:
        head = f"kernel @{self.name} domain=[{','.join(map(str, self.extents))}]"
        if self.n_chunks > 1:
            head += f" chunks={self.n_chunks}x{self.chunk_rows}"
        lines = [head + " {"]
        for n, instr in enumerate(self.body):
            lines.append(f"  %{n} = {_format_instr(instr)} : {instr.dtype}")
        for out in self.outputs:
            lines.append(f"  {out.kind} {out.access} <- %{out.value}")
        lines.extend(f"  prefetch {p.attrs} : {p.dtype}" for p in self.prefetch)
        return "\n".join(lines + ["}"])


def _format_instr(instr: Instr) -> str:
    args = ", ".join(f"%{a}" for a in instr.args)
    if instr.op == "load":
        return f"load {instr.attrs}"
    if instr.op == "const":
        return f"const {format_param(instr.attrs)}"
    if instr.op == "index":
        strides, offset = instr.attrs
        return f"index [{','.join(map(str, strides))}]+{offset}"
    params = ", ".join(f"{k}={format_param(v)}" for k, v in instr.attrs)
    return f"{instr.op}({args})" + (f" {{{params}}}" if params else "")


@dataclass(eq=False)
class Program:
    """What fusion hands to the LLVM emitter and the runtime."""

    name: str
    param_types: list
    buffers: list[Buffer]
    steps: list
    results: list[int]
    constants: list = field(default_factory=list)

    @property
    def kernels(self) -> list[Kernel]:
        """Every kernel, those of row groups (gradjit.codegen.rows) included."""
        return [k for s in self.steps for k in getattr(s, "kernels", [s]) if isinstance(k, Kernel)]

    def __str__(self) -> str:
        params = ", ".join(f"b{b.id}: {b.dtype}[{b.size}]" for b in self.buffers
                           if b.kind == "param")
        lines = [f"program @{self.name}({params}) {{"]
        for b in self.buffers:
            if b.kind != "param":
                where = f"+{b.offset}" if b.kind == "temp" else f" {b.index}"
                lines.append(f"  b{b.id}: {b.dtype}[{b.size}] {b.kind}{where}")
        for step in self.steps:
            lines.extend("  " + line for line in str(step).splitlines())
        lines.append("  return " + ", ".join(f"b{r}" for r in self.results))
        return "\n".join(lines + ["}"])
