"""`python -m benchmarks`: run the workloads against every installed peer in one process,
interleaved, and print a Markdown report (medians, ratios to gradjit and to the roofline,
startup times). `--write benchmarks/RESULTS.md` also saves it with the command line."""
from __future__ import annotations

import argparse
import os
import platform
import sys

# Threads of an OpenMP pool (torch, numba) spin after each parallel region, stealing the cores
# from whichever implementation runs next in the interleaved order: let them sleep instead.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402

from benchmarks import peers as P  # noqa: E402
from benchmarks import startup, timing  # noqa: E402
from benchmarks.workloads import WORKLOADS, as_list  # noqa: E402

TOLERANCE = {"rtol": 2e-3, "atol": 1e-5}  # float32 sums of millions of terms, any order


def _milliseconds(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def build_all(w, args):
    """name -> (run, fetch) for every implementation that runs here; name -> reason else."""
    built, skipped = {}, {}
    for name, builder in P.PEERS.items():
        if name == "gradjit into buffer" and w.per_call:
            continue
        if w.peers and name not in w.peers + P.OURS:
            continue
        try:
            built[name] = builder(w, args)
        except P.Skip as why:
            skipped[name] = str(why)
        except Exception as error:  # a peer that breaks on a workload is reported, not fatal
            skipped[name] = f"failed: {type(error).__name__}: {str(error)[:80]}"
    return built, skipped


def check(w, args, built) -> dict[str, str]:
    """'ok' where an implementation's gradient equals the numpy reference, else why not."""
    expected = as_list(w.numpy(*args))
    verdicts = {}
    for name, (run, fetch) in built.items():
        got = fetch(run())
        good = len(got) == len(expected) and all(
            g.shape == e.shape and np.allclose(g, e, **TOLERANCE) for g, e in zip(got, expected))
        verdicts[name] = "ok" if good else "MISMATCH"
    return verdicts


def run_workload(w, scale, rounds):
    args = w.inputs(scale)
    built, skipped = build_all(w, args)
    verdicts = check(w, args, built)
    medians = timing.interleaved({n: run for n, (run, _) in built.items()}, rounds, w.per_call)
    return medians, verdicts, skipped, (w.traffic(args), w.flops(args))


def workload_table(w, medians, verdicts, skipped, bound) -> list[str]:
    ours = medians.get("gradjit")
    lines = [f"### {w.id}: {w.title}", "", "| implementation | median | time / gradjit | "
             "time / roofline | result |", "| --- | ---: | ---: | ---: | --- |"]
    for name, t in sorted(medians.items(), key=lambda item: item[1]):
        vs_ours = f"{t / ours:.2f}x" if ours else "-"
        vs_bound = f"{t / bound:.2f}x" if bound else "-"
        lines.append(f"| {name} | {_milliseconds(t)} | {vs_ours} | {vs_bound} | "
                     f"{verdicts[name]} |")
    for name, why in skipped.items():
        lines.append(f"| {name} | skipped: {why} | | | |")
    info = w.gradjit.cache_info()
    lines.append(f"\n{'Roofline: ' + _milliseconds(bound) + '. ' if bound else ''}gradjit "
                 f"traced {info.traces} time(s) for {info.hits} cached calls.")
    return lines + [""]


def summary_row(w, medians, bound) -> str:
    peers = {n: t for n, t in medians.items() if n not in P.OURS}
    ours = medians.get("gradjit")
    if not peers or not ours:
        return f"| {w.id} | - | - | - | - | {w.target} |"
    best = min(peers, key=peers.get)
    into = medians.get("gradjit into buffer")
    extra = f"; into a buffer {into / bound:.2f}x roofline" if into and bound else ""
    roof = f"{ours / bound:.2f}x" if bound else "-"
    return (f"| {w.id} | {_milliseconds(ours)} | {best} | {ours / peers[best]:.2f}x | "
            f"{roof}{extra} | {w.target} |")


def startup_tables(rounds) -> list[str]:
    available = [n for n in startup.IMPORTS if _importable(n)]
    lines = ["### W8: `import` in a fresh process", "", "| library | median | time / gradjit |",
             "| --- | ---: | ---: |"]
    imports = startup.import_times(rounds, available)
    for name, t in imports.items():
        lines.append(f"| {name} | {_milliseconds(t)} | {t / imports['gradjit']:.2f}x |")
    peers = ["gradjit"] + [n for n, module in (("jax jit(grad)", "jax"),
                                               ("torch.compile", "torch")) if module in available]
    times = startup.first_call_times(rounds, peers)
    lines += ["", "### W7: first call (trace + compile + run) in a fresh process", "",
              "| workload | implementation | cache | median | time / gradjit |",
              "| --- | --- | --- | ---: | ---: |"]
    for (wid, peer, cache), t in times.items():
        if isinstance(t, str):
            lines.append(f"| {wid} | {peer} | {cache} | {t} | |")
            continue
        ours = times.get((wid, "gradjit", cache), times[(wid, "gradjit", "cold")])
        lines.append(f"| {wid} | {peer} | {cache} | {_milliseconds(t)} | {t / ours:.2f}x |")
    return lines + [""]


def _importable(name) -> bool:
    try:
        __import__(name)
        return True
    except Exception:  # not installed, or broken: either way not a peer here
        return False


def header(rates, scale, load) -> list[str]:
    versions = {m: sys.modules[m].__version__ for m in ("numpy", "torch", "jax", "numba")
                if m in sys.modules}
    return ["# gradjit benchmarks", "",
            f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"load average {load:.2f} at the start and {os.getloadavg()[0]:.2f} at the end "
            "(other work on the cores slows every implementation, BLAS calls most). Python "
            f"{platform.python_version()}; " + ", ".join(f"{m} {v}" for m, v in versions.items())
            + f". Scale {scale}.", "",
            f"Roofline: memory bandwidth {rates[0] / 1e9:.1f} GB/s (large copy), GEMM "
            f"{rates[1] / 1e9:.1f} GFLOP/s (float32 2048x2048 matmul). Times are medians of "
            "interleaved rounds, each sample after a pause that lets the previous library's "
            "thread pools fall asleep (OpenMP pools told to sleep, not spin); compare ratios, "
            "not absolute times.", "",
            "Every result is checked against the numpy gradient written by hand. `gradjit into "
            "buffer` is `f.into(out, *args)`, which writes the gradients into the caller's "
            "arrays; the numba loops write into arrays from `np.empty` (huge pages, as every "
            "other implementation's results get).", ""]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--only", help="comma-separated workload ids (W1,...,W8)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the full sizes")
    parser.add_argument("--write", help="also write the report to this Markdown file")
    options = parser.parse_args(argv)
    chosen = set(options.only.split(",")) if options.only else None
    load = os.getloadavg()[0]
    first = (timing.bandwidth(), timing.gemm_rate())
    results = []
    for w in WORKLOADS:
        if not chosen or w.id in chosen:
            results.append((w, run_workload(w, options.scale, options.rounds)))
            print(f"{w.id}: " + ", ".join(f"{n} {_milliseconds(t)}" for n, t in
                                         results[-1][1][0].items()), file=sys.stderr, flush=True)
    startup_lines = (startup_tables(max(3, options.rounds // 5))
                     if not chosen or chosen & {"W7", "W8"} else [])
    # The machine's best seen at either end of the run (other work on it only slows it).
    rates = tuple(max(a, b) for a, b in zip(first, (timing.bandwidth(), timing.gemm_rate())))
    report, body = header(rates, options.scale, load), []
    if results:
        report += ["| id | gradjit | best peer | gradjit / best peer | gradjit / roofline | "
                   "target |", "| --- | ---: | --- | ---: | ---: | --- |"]
    for w, (medians, verdicts, skipped, (traffic, flops)) in results:
        bound = timing.roofline(traffic, flops, rates)
        report.append(summary_row(w, medians, bound))
        body += workload_table(w, medians, verdicts, skipped, bound)
    text = "\n".join(report + [""] + body + startup_lines)
    print(text)
    if options.write:
        command = "python -m benchmarks " + " ".join(argv if argv is not None else sys.argv[1:])
        with open(options.write, "w") as f:
            f.write(f"{text}\nMade by `{command}` (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE "
                    "unset for that command).\n")

if __name__ == "__main__":
    main()
