"""`python -m benchmarks.training`: one training step of a 3-layer MLP (batch 256,
784-512-512-10, cross-entropy; SGD with momentum and Adam) in gradjit eager, gradjit.compile,
torch eager and torch.compile, interleaved in one process, and the first (compiling) call of
each compiled step in a fresh process with the compile caches off. Prints Markdown."""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as python -m benchmarks: see there

import numpy as np  # noqa: E402

from benchmarks import timing  # noqa: E402

SIZES = (784, 512, 512, 10)
BATCH = 256
OPTIMIZERS = {"SGD": dict(lr=0.01, momentum=0.9), "Adam": dict(lr=1e-3)}


def data(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(BATCH, SIZES[0])).astype(np.float32),
            rng.integers(0, SIZES[-1], BATCH))


def weights(seed=0) -> list[np.ndarray]:
    """PyTorch's Linear initialization bounds, drawn by numpy (the same start for all)."""
    rng = np.random.default_rng(seed)
    out = []
    for n_in, n_out in zip(SIZES, SIZES[1:]):
        bound = 1 / np.sqrt(n_in)
        out += [rng.uniform(-bound, bound, (n_out, n_in)).astype(np.float32),
                rng.uniform(-bound, bound, n_out).astype(np.float32)]
    return out


def step_for(lib, optimizer, compiled):
    """A training step of `lib` (gradjit or torch) from weights(), compiled or not, with the
    batch as its arguments."""
    layers = []
    for n_in, n_out in zip(SIZES, SIZES[1:]):
        layers += [lib.nn.Linear(n_in, n_out), lib.nn.ReLU()]
    model = lib.nn.Sequential(*layers[:-1])
    with lib.no_grad():
        for p, w in zip(model.parameters(), weights()):
            p.copy_(lib.tensor(w))
    opt = getattr(lib.optim, optimizer)(model.parameters(), **OPTIMIZERS[optimizer])
    loss_fn = lib.nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return lib.compile(step) if compiled else step


IMPLEMENTATIONS = {"gradjit eager": ("gradjit", False), "gradjit.compile": ("gradjit", True),
                   "torch eager": ("torch", False), "torch.compile": ("torch", True)}


def build(name, optimizer):
    import importlib
    module, compiled = IMPLEMENTATIONS[name]
    lib = importlib.import_module(module)
    x, y = data()
    step = step_for(lib, optimizer, compiled)
    args = (lib.tensor(x), lib.tensor(y))
    return lambda: step(*args)


def losses(run, steps=3) -> list[float]:
    return [float(run().item()) for _ in range(steps)]


def first_call(name, optimizer) -> float:
    """Seconds of the first call (trace + compile + run) in a fresh process, caches off."""
    code = ("import time; from benchmarks.training import build; "
            f"run = build({name!r}, {optimizer!r}); t = time.perf_counter(); run(); "
            "print(time.perf_counter() - t)")
    env = dict(os.environ, GRADJIT_CACHE_DIR="off", TORCHINDUCTOR_FORCE_DISABLE_CACHES="1")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=600)
    if done.returncode:
        raise RuntimeError(done.stderr.strip().splitlines()[-1])
    return float(done.stdout.split()[-1])


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def report(rounds: int) -> list[str]:
    lines = []
    for optimizer in OPTIMIZERS:
        runs, notes = {}, []
        for name in IMPLEMENTATIONS:
            try:
                runs[name] = build(name, optimizer)
                first = losses(runs[name])  # also the warm-up (compiles in process)
            except Exception as error:  # e.g. torch.compile without a C compiler
                notes.append(f"| {name} | skipped: {type(error).__name__}: "
                             f"{str(error)[:100]} | | |")
                runs.pop(name, None)
                continue
            notes.append(f"| {name} | first 3 losses {', '.join(f'{v:.6f}' for v in first)} "
                         "| | |")
        medians = timing.interleaved(runs, rounds, per_call=False)
        ours = medians.get("gradjit.compile")
        lines += [f"### MLP training step, {optimizer} ({'-'.join(map(str, SIZES))}, batch "
                  f"{BATCH})", "", "| implementation | median step | time / gradjit.compile | "
                  "first call, fresh process |", "| --- | ---: | ---: | ---: |"]
        for name, t in sorted(medians.items(), key=lambda item: item[1]):
            compiled = IMPLEMENTATIONS[name][1]
            try:
                cold = _ms(first_call(name, optimizer)) if compiled else "-"
            except Exception as error:
                cold = f"failed: {str(error)[:60]}"
            ratio = f"{t / ours:.2f}x" if ours else "-"
            lines.append(f"| {name} | {_ms(t)} | {ratio} | {cold} |")
        lines += ["", "Each implementation's first losses from the same weights and batch:", "",
                  "| implementation | check | | |", "| --- | --- | --- | --- |", *notes, ""]
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.training", description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    options = parser.parse_args(argv)
    import torch
    head = [f"# Training step: gradjit vs PyTorch {torch.__version__}", "",
            f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"load average {os.getloadavg()[0]:.2f}. Medians of {options.rounds} interleaved "
            "steps after 3 warm-up steps; first calls timed in a fresh process with gradjit's "
            "disk cache and Inductor's caches off.", ""]
    print("\n".join(head + report(options.rounds)))


if __name__ == "__main__":
    main()
