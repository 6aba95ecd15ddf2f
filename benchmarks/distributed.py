"""`python -m benchmarks.distributed`: the gradient of logistic regression over 20M x 16 f32
rows in one process and on a 2-worker local Dask cluster (gradjit.distributed), and the
per-call overhead of the cluster path (the same call on one small chunk). Prints Markdown."""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np

import gradjit


def logistic(w, x, y):
    logits = x @ w
    return np.mean(np.logaddexp(0.0, logits) - y * logits)


def median_seconds(run, rounds):
    run()  # traces and compiles (on every worker for the cluster)
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), run()


def measure(rows, features, chunk_rows, workers, rounds):
    import dask.array as da
    from distributed import Client, LocalCluster

    import gradjit.distributed as gd
    w = np.random.default_rng(1).normal(size=features).astype(np.float32)
    step = gd.value_and_grad(logistic, reduce="mean", sharded=(1, 2))
    results = {}
    with LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as c:
        with Client(c) as client:
            # The rows are made on the workers, as data loaded there would be; the one-process
            # run gets the same rows.
            xd = da.random.default_rng(0).standard_normal(
                (rows, features), chunks=(chunk_rows, features), dtype=np.float32)
            yd = (xd[:, 0] > 0).astype(np.float32)
            xd, yd = client.persist([xd, yd])
            # (received arrays can sit unaligned in a network frame: copy them)
            x, y = (np.require(a, requirements="CA") for a in client.compute([xd, yd], sync=True))
            local = gradjit.value_and_grad(logistic)
            results["one process"] = median_seconds(lambda: local(w, x, y), rounds)
            small = [a[:1000].rechunk(1000).persist() for a in (xd, yd)]
            name = f"{workers}-worker cluster"
            results[name] = median_seconds(lambda: step(w, xd, yd), rounds)
            results["cluster overhead (1 chunk of 1000 rows)"] = median_seconds(
                lambda: step(w, *small), rounds)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=20_000_000)
    parser.add_argument("--features", type=int, default=16)
    parser.add_argument("--chunk-rows", type=lambda s: int(s.replace("_", "")),
                        default=2_500_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    results = measure(args.rows, args.features, args.chunk_rows, args.workers, args.rounds)
    base, (value, grad) = results["one process"]
    print(f"Gradient of logistic regression, {args.rows:,} x {args.features} f32 rows in "
          f"chunks of {args.chunk_rows:,}; {platform.machine()}, {os.cpu_count()} cores, load "
          f"average {load:.2f} at the start and {os.getloadavg()[0]:.2f} at the end; medians "
          f"of {args.rounds}.\n")
    print("| run | median | / one process | loss |\n| --- | ---: | ---: | ---: |")
    for name, (seconds, (v, g)) in results.items():
        print(f"| {name} | {seconds * 1e3:.2f} ms | {seconds / base:.2f}x | {float(v):.6f} |")
        if "overhead" not in name:
            np.testing.assert_allclose(g, grad, rtol=1e-3, atol=1e-5)  # f32 sums, any order


if __name__ == "__main__":
    main()
