"""Interleaved timing (every implementation once per round, in a rotating order, so load
from other processes falls on all of them alike) and the machine's roofline: the memory
bandwidth and GEMM rate measured here."""
from __future__ import annotations

import gc
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np


def batch_size(run, per_call: bool) -> int:
    """Calls per sample: one for large work, enough to fill about 2 ms for tiny calls."""
    if not per_call:
        return 1
    start = time.perf_counter()
    for _ in range(100):
        run()
    each = (time.perf_counter() - start) / 100
    return max(1, min(20000, int(2e-3 / max(each, 1e-8))))


# Pause before each sample: the thread pools of the previous implementation (OpenBLAS's spin
# for about 0.1 s after a call, XLA's and numba's too) must be asleep, or they take the cores
# from the one being timed. Each library then runs as it would in a process of its own.
SETTLE = 0.15


def interleaved(runs: dict, rounds: int, per_call: bool) -> dict[str, float]:
    """The median seconds per call of each `runs[name]()`, sampled in interleaved rounds."""
    batches = {name: batch_size(run, per_call) for name, run in runs.items()}
    samples = {name: [] for name in runs}
    names = list(runs)
    gc.collect()
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            run, count = runs[name], batches[name]
            time.sleep(SETTLE)
            start = time.perf_counter()
            for _ in range(count):
                run()
            samples[name].append((time.perf_counter() - start) / count)
    return {name: statistics.median(s) for name, s in samples.items()}


def bandwidth(megabytes: int = 256, repeats: int = 7) -> float:
    """Bytes per second of a large copy (read + write), the better of one and two threads."""
    src = np.ones(megabytes << 18, np.float32)
    dst = np.empty_like(src)
    dst[:] = 0  # fault the pages in first
    halves = [(dst[:src.size // 2], src[:src.size // 2]), (dst[src.size // 2:],
                                                            src[src.size // 2:])]
    best = float("inf")
    with ThreadPoolExecutor(2) as pool:
        for _ in range(repeats):
            start = time.perf_counter()
            np.copyto(dst, src)
            best = min(best, time.perf_counter() - start)
            start = time.perf_counter()
            list(pool.map(lambda pair: np.copyto(*pair), halves))
            best = min(best, time.perf_counter() - start)
    return 2 * src.nbytes / best


def gemm_rate(n: int = 2048, repeats: int = 5) -> float:
    """float32 matmul flops per second (numpy's BLAS, all its threads)."""
    a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    c = np.empty_like(a)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        np.matmul(a, a, out=c)
        best = min(best, time.perf_counter() - start)
    return 2 * n ** 3 / best


def roofline(traffic: int, flops: int, rates) -> float:
    """The least time the work can take: its bytes at the bandwidth or its matmul flops at
    the GEMM rate, whichever is longer."""
    bytes_per_s, flops_per_s = rates
    return max(traffic / bytes_per_s, flops / flops_per_s)
