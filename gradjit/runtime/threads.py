"""The thread pool that runs a kernel's chunks on several cores (ctypes releases the GIL
during native calls). Chunks are fixed by the kernel, so results do not depend on the
thread count."""
from __future__ import annotations

import _thread
import ctypes
import itertools
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


def _current_cpu():
    """A function giving the core the calling thread runs on (glibc's sched_getcpu), or None
    where there is none to call or no way to place threads."""
    try:
        getcpu = ctypes.CDLL(None).sched_getcpu
    except (OSError, AttributeError):
        return None
    getcpu.argtypes, getcpu.restype = [], ctypes.c_int
    return getcpu if hasattr(os, "sched_setaffinity") and getcpu() >= 0 else None


class _Pool:
    def __init__(self):
        self.queues: list[queue.SimpleQueue] = []
        self.thread_ids: list[int] = []
        self.current_cpu = _current_cpu()
        self.placed_away_from = None

    def grow(self, workers: int):
        while len(self.queues) < workers:
            q = queue.SimpleQueue()
            # Not threading.Thread, whose start() waits until the new thread has run (0.1 ms
            # on idle cores, up to 26 ms on busy ones, in a process's first call): the calling
            # thread starts on the chunks at once, and the worker joins in when it runs.
            _thread.start_new_thread(self._work, (q,))
            self.queues.append(q)

    def _work(self, q):
        self.thread_ids.append(threading.get_native_id())
        while True:
            q.get()()

    def keep_off_callers_core(self):
        """Let the workers run on every core but the caller's. Linux wakes a sleeping thread
        on its waker's core when the others are idle: after a pause of 50 ms or more, W3's
        worker shared the caller's core for the whole product (both ran at half speed, 20 ms
        against 12 back to back) until the balancer moved it. Set again when the caller
        moves."""
        if self.current_cpu is None:
            return
        cpu = self.current_cpu()
        if cpu == self.placed_away_from:
            return
        others = os.sched_getaffinity(0) - {cpu}
        try:
            for thread_id in self.thread_ids if others else ():
                os.sched_setaffinity(thread_id, others)
        except OSError:  # a worker's placement is only a hint: run wherever the OS puts it
            self.current_cpu = None
            return
        self.placed_away_from = cpu


def run_chunks(fn, n_chunks: int, table) -> None:
    """Call fn(lo, hi, table) over ranges of chunks covering [0, n_chunks) on up to the
    thread count of threads, the calling thread among them. Each thread takes the next range
    when it is done with one, so a thread that the OS preempts (the cores are shared) holds
    up only the range it is on, not a fixed share of the work; the call returns once every
    range is done, without waiting for a worker that never got a core to take one (it finds
    none left when it wakes)."""
    threads = min(_state["threads"], n_chunks)
    if threads <= 1:
        fn(0, n_chunks, table)
        return
    with _pool_lock:
        if _state["pool"] is None:
            _state["pool"] = _Pool()
        pool = _state["pool"]
        pool.grow(threads - 1)
        pool.keep_off_callers_core()
    # Chunks are taken a few at a time: each take crosses back into Python for the GIL.
    take = max(1, n_chunks // (4 * threads))
    starts = itertools.count(0, take)  # next() on it is atomic under the GIL
    left, lock, finished = [n_chunks], threading.Lock(), threading.Event()

    def work():
        for lo in starts:
            if lo >= n_chunks:
                return
            hi = min(lo + take, n_chunks)
            try:
                fn(lo, hi, table)
            finally:
                with lock:
                    left[0] -= hi - lo
                    if not left[0]:
                        finished.set()

    for t in range(threads - 1):
        pool.queues[t].put(work)
    work()
    finished.wait()
