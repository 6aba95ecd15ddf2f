"""W7 and W8 in fresh processes: the first call (trace, compile and run) of every workload
with a cold and a warm disk cache, and the time to import each library.

`python -m benchmarks.startup first-call W1 gradjit` prints one first call's seconds."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

FIRST_CALL = ("W1", "W2", "W3", "W4", "W4i", "W5", "W6")
IMPORTS = {"numpy": "numpy", "gradjit": "gradjit", "jax": "jax", "torch": "torch"}


def _python(code_or_args, env=None) -> float:
    args = ["-c", code_or_args] if isinstance(code_or_args, str) else code_or_args
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})), cwd=_root(), timeout=600)
    if done.returncode:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr else "failed")
    return float(done.stdout.split()[-1])


def _root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def import_times(rounds: int, available) -> dict[str, float]:
    """Median seconds of `import X` in a fresh process, interleaved across libraries."""
    names = [n for n in IMPORTS if n in available]
    samples = {n: [] for n in names}
    for _ in range(rounds):
        for name in names:
            samples[name].append(_python(
                f"import time; t = time.perf_counter(); import {IMPORTS[name]}; "
                "print(time.perf_counter() - t)"))
    return {n: statistics.median(s) for n, s in samples.items()}


def first_call_times(rounds: int, peers) -> dict[tuple[str, str, str], float | str]:
    """(workload, peer, 'cold'|'disk cache') -> median seconds of the first call in a new
    process (or why the peer could not run it); the cold run gets an empty cache directory,
    the next process reuses it."""
    times = {}
    for wid in FIRST_CALL:
        for peer in peers:
            try:
                times.update(_peer_first_calls(wid, peer, rounds))
            except RuntimeError as error:  # a peer that cannot run a workload (JAX and W5's
                if peer == "gradjit":       # data-dependent loop) is reported, not fatal
                    raise
                reason = str(error).removeprefix("benchmarks.peers.Skip: ")
                times[(wid, peer, "cold")] = f"skipped: {reason}"
    return times


def _peer_first_calls(wid: str, peer: str, rounds: int) -> dict:
    cold, warm = [], []
    for _ in range(1 if peer == "torch.compile" else rounds):
        with tempfile.TemporaryDirectory() as cache:
            env = {"GRADJIT_CACHE_DIR": cache, "TORCHINDUCTOR_CACHE_DIR": cache}
            command = ["-m", "benchmarks.startup", "first-call", wid, peer]
            cold.append(_python(command, env))
            if peer != "jax jit(grad)":  # JAX keeps no disk cache unless told to
                warm.append(_python(command, env))
    times = {(wid, peer, "cold"): statistics.median(cold)}
    if warm:
        times[(wid, peer, "disk cache")] = statistics.median(warm)
    return times


def _first_call(wid: str, peer: str) -> float:
    from benchmarks import peers, workloads
    w = workloads.BY_ID[wid]
    args = w.inputs(1.0)
    if peer != "gradjit":
        __import__({"jax jit(grad)": "jax", "torch.compile": "torch"}[peer])  # not timed: W8
    start = time.perf_counter()
    if peer == "gradjit":
        w.gradjit(*args)
    else:
        peers.PEERS[peer](w, args)  # the builders trace, compile and run once
    return time.perf_counter() - start


if __name__ == "__main__":
    if sys.argv[1:2] != ["first-call"] or len(sys.argv) != 4:
        sys.exit("usage: python -m benchmarks.startup first-call WORKLOAD PEER")
    print(_first_call(sys.argv[2], sys.argv[3]))
