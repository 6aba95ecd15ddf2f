"""The thread pool that runs a kernel's chunks on several cores (ctypes releases the GIL
during native calls). Chunks are fixed by the kernel, so results do not depend on the
thread count."""
from __future__ import annotations

import os
import queue
import threading

_state = {"threads": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
          else (os.cpu_count() or 1), "pool": None}
_pool_lock = threading.Lock()


def set_num_threads(n: int) -> None:
    """Use up to `n` threads for large kernels (1: run everything on the calling thread)."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"the thread count is a positive integer, not {n!r}")
    _state["threads"] = n


def get_num_threads() -> int:
    return _state["threads"]


class _Pool:
    def __init__(self):
        self.queues: list[queue.SimpleQueue] = []

    def grow(self, workers: int):
        while len(self.queues) < workers:
            q = queue.SimpleQueue()
            threading.Thread(target=self._work, args=(q,), daemon=True,
                             name=f"gradjit-{len(self.queues)}").start()
            self.queues.append(q)

    @staticmethod
    def _work(q):
        while True:
            fn, lo, hi, table, done = q.get()
            try:
                fn(lo, hi, table)
            finally:
                done.release()


def run_chunks(fn, n_chunks: int, table) -> None:
    """Call fn(lo, hi, table) over [0, n_chunks), split into contiguous ranges of chunks,
    one per thread; the calling thread takes the first."""
    threads = min(_state["threads"], n_chunks)
    if threads <= 1:
        fn(0, n_chunks, table)
        return
    with _pool_lock:
        if _state["pool"] is None:
            _state["pool"] = _Pool()
        pool = _state["pool"]
        pool.grow(threads - 1)
    bounds = [n_chunks * t // threads for t in range(threads + 1)]
    done = threading.Semaphore(0)
    for t in range(1, threads):
        pool.queues[t - 1].put((fn, bounds[t], bounds[t + 1], table, done))
    fn(bounds[0], bounds[1], table)
    for _ in range(threads - 1):
        done.acquire()
