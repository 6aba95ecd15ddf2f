"""Compile time against program length: a chain of n elementwise ops built as IR, then
printed, parsed, verified, optimized and compiled (no disk cache), and `grad` of an unrolled
loop traced and compiled end to end. Unrolled ODE solvers and RNNs are such chains.

`python -m benchmarks.program_length [max_ops]` prints a Markdown table of CPU seconds (the
cores are shared: wall time measures the neighbours); `--stages` prints the CPU time per op of
each stage of the solver's `grad` instead."""
from __future__ import annotations

import importlib
import os
import sys
import time
from contextlib import contextmanager

import numpy as np

LENGTHS = (10, 100, 1_000, 10_000, 100_000)


def ir_chain(n: int):
    """x -> ((x*0.5 + x)*0.5 + x)...: n ops over f64[8]."""
    from gradjit.ir import Builder, TensorType
    from gradjit.ir import elementwise as E
    from gradjit.ir.types import float64
    with Builder("chain") as b:
        x = b.param(TensorType((8,), float64), "x")
        y = x
        for _ in range(n // 2):
            y = E.add(E.mul(y, 0.5), x)
    return b.build([y])


def unrolled_loop(n: int):
    """A loss whose loop runs n // 3 times: about n forward ops, as many again in grad."""
    def loss(x):
        for _ in range(n // 3):
            x = x * 0.5 + 0.25
        return (x * x).sum()
    return loss


def unrolled_solver(n: int):
    """Euler steps of a right-hand side with a sine and an exponential: about n forward ops
    (7 per step), a transcendental in every fourth."""
    def loss(x):
        for _ in range(n // 7):
            x = x + 0.01 * np.sin(x) * np.exp(-x * x)
        return (x * x).sum()
    return loss


def time_ir(n: int) -> dict:
    from gradjit.codegen import compile_function
    from gradjit.ir import parse, verify
    from gradjit.ir.passes import optimize
    times = {}
    start = time.process_time()
    fn = ir_chain(n)
    text = str(fn)
    times["build+print"] = time.process_time() - start
    start = time.process_time()
    fn = verify(parse(text))
    times["parse+verify"] = time.process_time() - start
    start = time.process_time()
    program = compile_function(optimize(fn), cache_dir=False)
    times["optimize+compile"] = time.process_time() - start
    x = np.linspace(-1, 1, 8)
    expected = x * (2 - 0.5 ** (n // 2))  # the chain's closed form
    np.testing.assert_allclose(program(x)[0], expected, rtol=1e-12)
    return times


def time_grad(loss) -> float:
    import gradjit
    start = time.process_time()
    gradjit.grad(loss)(np.ones(8, np.float32))
    return time.process_time() - start


# The stages of `grad`, each timed where its caller looks it up: (stage, module, attribute).
STAGES = (
    ("trace", "gradjit.tracer.api", "Transformed._trace"),
    ("autodiff", "gradjit.tracer.api", "differentiate"),
    ("optimize", "gradjit.tracer.api", "optimize"),
    ("verify", "gradjit.tracer.api", "verify"),
    ("verify", "gradjit.codegen.compile", "verify"),
    ("fusion", "gradjit.codegen.compile", "fuse"),
    ("fusion", "gradjit.codegen.compile", "store_in_place"),
    ("fusion", "gradjit.codegen.compile", "group_rows"),
    ("plan", "gradjit.codegen.compile", "plan_workspace"),
    ("LLVM IR", "gradjit.codegen.cpu", "emit_module"),
    ("LLVM IR", "gradjit.codegen.entry", "emit_entry"),
    ("LLVM IR", "llvmlite.ir.module", "Module.__repr__"),  # the module printed for LLVM
    ("LLVM", "gradjit.codegen.compile", "compile_ir"),
)


@contextmanager
def stage_timers(spent: dict):
    """Adds each stage's CPU seconds to spent[stage] while inside."""
    undo = []
    for stage, module, attribute in STAGES:
        *path, name = attribute.split(".")
        owner = importlib.import_module(module)
        for part in path:
            owner = getattr(owner, part)
        original = getattr(owner, name)

        def timed(*args, _stage=stage, _original=original, **kwargs):
            start = time.process_time()
            try:
                return _original(*args, **kwargs)
            finally:
                spent[_stage] = spent.get(_stage, 0.0) + time.process_time() - start
        setattr(owner, name, timed)
        undo.append((owner, name, original))
    try:
        yield spent
    finally:
        for owner, name, original in reversed(undo):
            setattr(owner, name, original)


def stages(max_ops: int) -> None:
    import gradjit
    names = list(dict.fromkeys(stage for stage, _, _ in STAGES))
    print("| solver ops | IR ops | " + " | ".join(f"{s} (us/op)" for s in names)
          + " | other (us/op) | total CPU |")
    print("|---:|---:|" + "---:|" * (len(names) + 2))
    for n in (n for n in LENGTHS if 1_000 <= n <= max_ops):
        f = gradjit.grad(unrolled_solver(n))
        with stage_timers({}) as spent:
            start = time.process_time()
            f(np.ones(8, np.float32))
            total = time.process_time() - start
        ops = len(f.cache.last.stages["optimized"].ops)
        cells = [f"{1e6 * spent[s] / n:.0f}" for s in names]
        other = total - sum(spent.values())
        print(f"| {n:,} | {ops:,} | " + " | ".join(cells) + f" | {1e6 * other / n:.0f} | "
              f"{total:.1f} s |", flush=True)


def main(max_ops: int = LENGTHS[-1]) -> None:
    print("| ops | build+print | parse+verify | optimize+compile | per op | grad of a loop "
          "| grad of a solver |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in (n for n in LENGTHS if n <= max_ops):
        t = time_ir(n)
        loop, solver = time_grad(unrolled_loop(n)), time_grad(unrolled_solver(n))
        total = sum(t.values())
        print(f"| {n:,} | {t['build+print']:.3f} s | {t['parse+verify']:.3f} s | "
              f"{t['optimize+compile']:.3f} s | {1e6 * total / n:.0f} us | {loop:.2f} s "
              f"| {solver:.2f} s |", flush=True)


if __name__ == "__main__":
    os.environ["GRADJIT_CACHE_DIR"] = "off"  # compile every time: that is what is measured
    numbers = [int(a) for a in sys.argv[1:] if a != "--stages"]
    (stages if "--stages" in sys.argv else main)(numbers[0] if numbers else LENGTHS[-1])
