"""Compile time against program length: a chain of n elementwise ops built as IR, then
printed, parsed, verified, optimized and compiled (no disk cache), and `grad` of an unrolled
loop traced and compiled end to end. Unrolled ODE solvers and RNNs are such chains.

`python -m benchmarks.program_length [max_ops]` prints a Markdown table."""
from __future__ import annotations

import os
import sys
import time

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
    start = time.perf_counter()
    fn = ir_chain(n)
    text = str(fn)
    times["build+print"] = time.perf_counter() - start
    start = time.perf_counter()
    fn = verify(parse(text))
    times["parse+verify"] = time.perf_counter() - start
    start = time.perf_counter()
    program = compile_function(optimize(fn), cache_dir=False)
    times["optimize+compile"] = time.perf_counter() - start
    x = np.linspace(-1, 1, 8)
    expected = x * (2 - 0.5 ** (n // 2))  # the chain's closed form
    np.testing.assert_allclose(program(x)[0], expected, rtol=1e-12)
    return times


def time_grad(loss) -> float:
    import gradjit
    start = time.perf_counter()
    gradjit.grad(loss)(np.ones(8, np.float32))
    return time.perf_counter() - start


def main(max_ops: int = LENGTHS[-1]) -> None:
    os.environ["GRADJIT_CACHE_DIR"] = "off"  # compile every time: that is what is measured
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
    main(int(sys.argv[1]) if len(sys.argv) > 1 else LENGTHS[-1])
