"""`python -m benchmarks.spread W1 W4i --rounds 40`: the distribution of gradjit's and one
peer's times, alternating call by call, as wall time and as this process's CPU time (which other
processes on the shared cores disturb far less), and of their ratio round by round."""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as python -m benchmarks sets it

from benchmarks import peers as P  # noqa: E402
from benchmarks.timing import SETTLE  # noqa: E402
from benchmarks.workloads import BY_ID  # noqa: E402

QUANTILES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)


def sample(run) -> tuple[float, float]:
    """(wall, CPU) seconds of one call, after the pause that lets thread pools sleep."""
    time.sleep(SETTLE)
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def quantiles(values) -> str:
    ordered = sorted(values)
    return " ".join(f"{ordered[round(q * (len(ordered) - 1))] * 1e3:7.2f}" for q in QUANTILES)


def spread(wid: str, peer: str, rounds: int, scale: float = 1.0) -> list[str]:
    """The report's lines for workload `wid`: quantiles per implementation and of the ratio."""
    w = BY_ID[wid]
    args = w.inputs(scale)
    runs = {"gradjit": P.PEERS["gradjit"](w, args)[0], peer: P.PEERS[peer](w, args)[0]}
    times = {name: [] for name in runs}
    for r in range(rounds):
        for name in (list(runs) if r % 2 else list(runs)[::-1]):
            times[name].append(sample(runs[name]))
    lines = [f"{wid}, {rounds} rounds, load {os.getloadavg()[0]:.1f}; quantiles "
             f"{', '.join(f'{q:g}' for q in QUANTILES)} in ms"]
    for name, samples in times.items():
        lines.append(f"  {name:14s} wall {quantiles(s[0] for s in samples)}")
        lines.append(f"  {'':14s} CPU  {quantiles(s[1] for s in samples)}")
    ratios = [ours[0] / theirs[0] for ours, theirs in zip(times["gradjit"], times[peer])]
    lines.append(f"  gradjit / {peer}, wall, round by round: "
                 + " ".join(f"{q:.2f}" for q in statistics.quantiles(ratios, n=4))
                 + " (quartiles)")
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.spread", description=__doc__)
    parser.add_argument("workloads", nargs="+")
    parser.add_argument("--peer", default="torch.compile")
    parser.add_argument("--rounds", type=int, default=40)
    options = parser.parse_args(argv)
    for wid in options.workloads:
        print("\n".join(spread(wid, options.peer, options.rounds)), flush=True)


if __name__ == "__main__":
    main()
