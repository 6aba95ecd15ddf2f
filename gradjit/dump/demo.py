"""`gradjit demo`: the gradients of the autograd tutorial's function and of an MLP loss,
compiled, each stage printed, timed and checked against central differences."""
from __future__ import annotations

import time

import numpy as np

import gradjit
from gradjit.dump.stages import ir_text
from gradjit.runtime.steps import Matmul


def tutorial(x):
    y = x + 2
    z = y * y * 3
    return z.mean()


def mlp_loss(w1, b1, w2, x, y):
    hidden = np.tanh(x @ w1 + b1)
    return np.mean((hidden @ w2 - y) ** 2)


def run_demo() -> int:
    """Print the demo; 0 when every gradient matches central differences, else 1."""
    print("gradjit demo: gradients compiled to native loops, stage by stage\n")
    x = np.ones((2, 2), np.float32)
    print("1. The autograd tutorial: out = mean(3 * (x + 2)**2) at x = ones(2, 2), float32")
    ok = _example(tutorial, (x,), 0, stages=True, rtol=1e-3)
    rng = np.random.default_rng(0)
    args = (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(4, 2)),
            rng.normal(size=(5, 3)), rng.normal(size=(5, 2)))
    print("\n2. An MLP loss: mean((tanh(x @ w1 + b1) @ w2 - y)**2), gradients for w1, b1, w2")
    ok &= _example(mlp_loss, args, (0, 1, 2), stages=False, rtol=1e-6)
    print("\nEvery stage of any function: gradjit dump FILE.py:FUNCTION --arg 'f32[2,2]' "
          "--stage all")
    return 0 if ok else 1


def _example(fn, args, argnums, stages: bool, rtol: float) -> bool:
    f = gradjit.grad(fn, argnums=argnums)
    start = time.perf_counter()
    grads = f(*args)
    first = time.perf_counter() - start
    cached = _cached_call_seconds(f, args)
    lowered = f.lower(*args)
    if stages:
        _section("traced IR (the forward function)", ir_text(lowered.traced))
        _section("gradient IR (the forward ops as above, then the ones autodiff added)",
                 _added_ops(lowered))
        _section("optimized IR (what runs)", ir_text(lowered.optimized))
        _section("fused loops", "\n".join(str(k) for k in lowered.fused.program.kernels))
    else:
        program = lowered.fused.program
        products = sum(isinstance(s, Matmul) for s in program.steps)
        print(f"   optimized IR: {len(lowered.optimized.ops)} ops -> "
              f"{len(program.kernels)} fused loops and {products} matrix products")
    names = lowered.result_names
    formulas = [f"{names[i]} = {lowered.formula(i)}" for i in range(1, len(names))]
    _section("symbolic gradient", "\n".join(formulas))
    grads = grads if isinstance(grads, tuple) else (grads,)
    if stages:
        print(f"   gradient: {grads[0].tolist()}")
    from_disk = getattr(f.cache.last.program, "from_disk", False)
    print(f"   first call {first * 1e3:.1f} ms (trace, autodiff, optimize, compile"
          f"{'; object code from the disk cache' if from_disk else ''}), "
          f"cached call {cached * 1e6:.1f} us")
    return _check(fn, args, argnums if isinstance(argnums, tuple) else (argnums,), grads, rtol)


def _added_ops(lowered) -> str:
    lines = ir_text(lowered.differentiated).splitlines()
    forward = len(lowered.traced.ops)
    return "\n".join([lines[0], f"  ... %0 to %{forward - 1} ...", *lines[1 + forward:]])


def _section(title: str, text: str):
    print(f"-- {title} --")
    print("\n".join("   " + line for line in text.splitlines()))


def _cached_call_seconds(f, args, repeats: int = 200) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _check(fn, args, argnums, grads, rtol: float) -> bool:
    """Compare with central differences of `fn` run by numpy in float64."""
    args64 = [np.asarray(a, np.float64) for a in args]
    worst = 0.0
    for n, grad in zip(argnums, grads):
        expected = _central_differences(fn, args64, n)
        scale = np.maximum(np.abs(expected), 1.0)
        worst = max(worst, float(np.max(np.abs(grad - expected) / scale)))
    ok = worst <= rtol
    print(f"   central differences agree to {worst:.1e} (tolerance {rtol:.0e}): "
          f"{'OK' if ok else 'MISMATCH'}")
    return ok


def _central_differences(fn, args, n, step=1e-6) -> np.ndarray:
    x = args[n]
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += step
        down[i] -= step
        before, after = list(args), list(args)
        before[n], after[n] = down, up
        out[i] = (fn(*after) - fn(*before)) / (2 * step)
    return out
