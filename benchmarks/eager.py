"""`python -m benchmarks.eager`: gradjit's eager Tensors against PyTorch eager (CPU) on the
per-operation overhead: a 10-element add, a 1000x1000 add, backward() of a 20-op graph on
small tensors, the two-layer-net tutorial's training loop and an nn.Module MLP's. Both
libraries run in one process, interleaved (as `python -m benchmarks` does); prints Markdown
with medians and the ratio gradjit / torch."""
from __future__ import annotations

import argparse
import importlib
import os
import platform
from dataclasses import dataclass
from typing import Callable

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as python -m benchmarks: see there

import numpy as np  # noqa: E402

from benchmarks import timing  # noqa: E402

LIBRARIES = {"gradjit": "gradjit", "torch eager": "torch"}


def _arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def add_small(lib):
    a, b = (lib.tensor(v) for v in _arrays(10, 10))
    return lambda: a + b


def add_large(lib):
    a, b = (lib.tensor(v) for v in _arrays((1000, 1000), (1000, 1000)))
    return lambda: a + b


def backward_chain(lib):
    """backward() of a graph of 20 operations on 10-element tensors (built once, kept with
    retain_graph, so only the backward pass is timed); the result is x's gradient."""
    x, w, b = (lib.tensor(v) for v in _arrays(10, 10, 10))
    x.requires_grad_()
    y = x
    for _ in range(5):
        y = (y * w).sin() + b
        y = y * 0.5
    loss = y.sum()

    def run():
        x.grad = None
        loss.backward(retain_graph=True)
        return x.grad
    return run


N, D_IN, H, D_OUT, STEPS = 64, 1000, 100, 10, 500


def tutorial_loop(lib):
    """PyTorch's "Tensors and autograd" two-layer-net example as the tutorial writes it:
    mm, clamp, mm, squared error, backward, manual SGD under no_grad, grads zeroed. Every
    call starts from the same weights; the result is the last loss."""
    x0, y0, w10, w20 = _arrays((N, D_IN), (N, D_OUT), (D_IN, H), (H, D_OUT))
    x, y = lib.tensor(x0), lib.tensor(y0)
    learning_rate = 1e-6

    def run():
        w1 = lib.tensor(w10, requires_grad=True)
        w2 = lib.tensor(w20, requires_grad=True)
        for _ in range(STEPS):
            y_pred = x.mm(w1).clamp(min=0).mm(w2)
            loss = (y_pred - y).pow(2).sum()
            loss.backward()
            with lib.no_grad():
                w1 -= learning_rate * w1.grad
                w2 -= learning_rate * w2.grad
                w1.grad.zero_()
                w2.grad.zero_()
        return loss
    return run


MLP_SIZES, MLP_STEPS = (784, 128, 10), 200


def mlp_loop(lib):
    """The classifier tutorials train: nn.Linear, ReLU, nn.Linear on batches of 64 with
    CrossEntropyLoss and optim.SGD (zero_grad, backward, step). Every call starts from the
    same weights; the result is the last loss."""
    d_in, hidden, classes = MLP_SIZES
    x0, w10, b10, w20, b20 = _arrays((64, d_in), (hidden, d_in), hidden, (classes, hidden),
                                     classes)
    x = lib.tensor(x0)
    y = lib.tensor(np.random.default_rng(1).integers(0, classes, 64))
    model = lib.nn.Sequential(lib.nn.Linear(d_in, hidden), lib.nn.ReLU(),
                              lib.nn.Linear(hidden, classes))
    loss_fn = lib.nn.CrossEntropyLoss()

    def run():
        with lib.no_grad():
            for p, v in zip(model.parameters(), (w10, b10, w20, b20)):
                p.copy_(lib.tensor(v * 0.05))
        optimizer = lib.optim.SGD(model.parameters(), lr=0.01)
        for _ in range(MLP_STEPS):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
        return loss
    return run


@dataclass
class Eager:
    id: str
    title: str
    build: Callable  # library module -> the timed call (its result is compared)
    per_call: bool
    target: str


WORKLOADS = [
    Eager("E1", "a + b, 10 f32", add_small, True, "<= 1.5x torch"),
    Eager("E2", "a + b, 1000x1000 f32", add_large, True, "<= 1.5x torch"),
    Eager("E3", "backward() of a 20-op graph, 10 f32", backward_chain, True, "<= 1.5x torch"),
    Eager("E4", f"two-layer-net tutorial loop, N={N} D_in={D_IN} H={H} D_out={D_OUT}, "
          f"{STEPS} steps", tutorial_loop, False, "<= 1.0x torch"),
    Eager("E5", f"MLP {'-'.join(map(str, MLP_SIZES))} (nn.Linear, ReLU), batch 64, "
          f"CrossEntropyLoss, SGD, {MLP_STEPS} steps", mlp_loop, False, "<= 1.5x torch"),
]


def _same(results) -> str:
    values = [np.asarray(r.detach().numpy(), np.float64) for r in results.values()]
    return "same" if all(np.allclose(v, values[0], rtol=1e-4, atol=1e-5) for v in values) \
        else "DIFFERENT"


def _time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def report(rounds: int, chosen=None) -> list[str]:
    libs = {name: importlib.import_module(module) for name, module in LIBRARIES.items()}
    lines = ["| id | workload | gradjit | torch eager | gradjit / torch | results | target |",
             "| --- | --- | ---: | ---: | ---: | --- | --- |"]
    for w in WORKLOADS:
        if chosen and w.id not in chosen:
            continue
        runs = {name: w.build(lib) for name, lib in libs.items()}
        verdict = _same({name: run() for name, run in runs.items()})
        medians = timing.interleaved(runs, rounds, w.per_call)
        ours, theirs = medians["gradjit"], medians["torch eager"]
        lines.append(f"| {w.id} | {w.title} | {_time(ours)} | {_time(theirs)} | "
                     f"{ours / theirs:.2f}x | {verdict} | {w.target} |")
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.eager", description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--only", help="comma-separated workload ids (E1,...,E5)")
    options = parser.parse_args(argv)
    import torch
    head = [f"Eager Tensors: gradjit vs PyTorch {torch.__version__} (CPU). Machine: "
            f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load "
            f"average {os.getloadavg()[0]:.2f} at the start. Python "
            f"{platform.python_version()}, numpy {np.__version__}. Medians of "
            f"{options.rounds} interleaved rounds; E1-E3 time many calls per sample.", ""]
    chosen = set(options.only.split(",")) if options.only else None
    print("\n".join(head + report(options.rounds, chosen)))


if __name__ == "__main__":
    main()
