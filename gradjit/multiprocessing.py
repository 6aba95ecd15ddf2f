"""torch.multiprocessing: Python's multiprocessing, where tensors moved to shared memory
(Tensor.share_memory_, Module.share_memory) reach other processes by reference, and spawn()
starting `nprocs` copies of a function as PyTorch's does."""
from __future__ import annotations

import multiprocessing as _mp
import multiprocessing.connection as _connection
import signal as _signal
import sys as _sys
import traceback as _traceback
from multiprocessing import *  # noqa: F401,F403

_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = ["file_descriptor"]


def get_all_sharing_strategies():
    return set(_STRATEGIES)


def get_sharing_strategy():
    return _strategy[0]


def set_sharing_strategy(new_strategy):
    """Recorded: shared blocks are named POSIX shared memory under either strategy."""
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}")
    _strategy[0] = new_strategy


class ProcessException(Exception):
    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid


class ProcessRaisedException(ProcessException):
    """A process ended by an exception (its traceback is in the message)."""


class ProcessExitedException(ProcessException):
    """A process ended with a non-zero exit code or by a signal."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name


def _run(fn, i, args, errors):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        errors.put(_traceback.format_exc())
        _sys.exit(1)


class ProcessContext:
    def __init__(self, processes, error_queues):
        self.processes, self.error_queues = processes, error_queues

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None):
        """True once every process has ended well; raises for the first that failed (the
        others are terminated); False while some still run."""
        running = [p.sentinel for p in self.processes if p.exitcode is None]
        if running:
            _connection.wait(running, timeout=timeout)
        for i, p in enumerate(self.processes):
            if p.exitcode is not None and p.exitcode != 0:
                self._stop_all()
                if not self.error_queues[i].empty():
                    raise ProcessRaisedException(
                        f"\n\n-- Process {i} terminated with the following error:\n"
                        f"{self.error_queues[i].get()}", i, p.pid)
                if p.exitcode < 0:
                    name = _signal.Signals(-p.exitcode).name
                    raise ProcessExitedException(
                        f"process {i} terminated with signal {name}", i, p.pid, p.exitcode,
                        name)
                raise ProcessExitedException(
                    f"process {i} terminated with exit code {p.exitcode}", i, p.pid, p.exitcode)
        return all(p.exitcode == 0 for p in self.processes)

    def _stop_all(self):
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    context = _mp.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        errors = context.SimpleQueue()
        process = context.Process(target=_run, args=(fn, i, args, errors), daemon=daemon)
        process.start()
        processes.append(process)
        queues.append(errors)
    started = ProcessContext(processes, queues)
    if not join:
        return started
    while not started.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """fn(i, *args) in `nprocs` new processes, i = 0 .. nprocs - 1; with `join`, waits for
    all and raises if one fails, else returns their ProcessContext."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
