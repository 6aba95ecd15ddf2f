"""`python -m gradjit.fuzz --minutes N`: check random programs until the time is up, shrink each
failure to a small program, save it, and print how many programs ran and what failed. Batches
take turns: random programs, mutated IR text through the parser, disk-cache round trips and
damaged entries, and one long program (thousands of ops)."""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from gradjit.fuzz import surfaces
from gradjit.fuzz.check import check_program, describe
from gradjit.fuzz.programs import arguments, programs

BATCH = 25  # examples per hypothesis run: the time limit is checked between runs
KINDS = ("programs", "text", "cache", "long")
LONG_OPS = (1000, 2000)  # a long program's length (LLVM takes about a minute at 2000)


class Fuzzer:
    def __init__(self, out: Path, targets, gradients: bool):
        self.out, self.targets, self.gradients = out, targets, gradients
        self.programs = 0
        self.failures = collections.Counter()  # check -> programs (after shrinking) failing it
        self.saved = 0
        self.last = None  # the latest failing example: hypothesis replays the shrunk one last

    def check(self, fn, args):
        (self.out / "current.txt").write_text(describe(fn, args, []))  # survives a crash
        self.report(fn, args, check_program(fn, args, targets=self.targets,
                                            gradients=self.gradients))

    def report(self, fn, args, failures):
        """Count one input; keep its failures (hypothesis shrinks them and replays last)."""
        self.programs += 1
        if failures:
            self.last = (fn, args, failures)
            raise AssertionError("; ".join(map(str, failures)))

    def batch(self, number: int):
        kind = KINDS[number % len(KINDS)]
        if kind == "long":
            return self.long(number)
        settings_ = settings(max_examples=BATCH, deadline=None, database=None,
                             print_blob=False, suppress_health_check=list(HealthCheck))
        if kind == "programs":
            @given(programs(), st.data())
            def run(fn, data):
                self.check(fn, data.draw(arguments(fn)))
        elif kind == "text":
            @given(programs(max_ops=4), st.lists(st.tuples(
                st.integers(0, 10 ** 6), st.integers(0, 3), st.sampled_from(surfaces.NOISE)),
                min_size=1, max_size=4))
            def run(fn, edits):
                text = surfaces.mutate(str(fn), edits)
                self.report(fn, [], [type(f)(f.check, f"{f.message}\ntext: {text!r}")
                                     for f in surfaces.check_text(text)])
        else:
            @given(programs(max_ops=5, guards=False), programs(max_ops=3, guards=False),
                   st.sampled_from(surfaces.DAMAGE), st.data())
            def run(fn, other, damage, data):
                args = data.draw(arguments(fn))
                self.report(fn, args, surfaces.check_disk_cache(fn, other, args, damage))
        self.run(seed(number)(settings_(run)))

    def long(self, number: int):
        n_ops = number % (LONG_OPS[1] - LONG_OPS[0]) + LONG_OPS[0]
        fn, args, failures = surfaces.check_long_program(number, n_ops)
        self.programs += 1
        if failures:
            self.save(fn, args, failures)

    def run(self, run):
        self.last = None
        try:
            run()
        except Exception:  # hypothesis re-raises the shrunk failure: keep it, go on
            if self.last is None:
                raise
            self.save(*self.last)

    def save(self, fn, args, failures):
        for f in {f.check for f in failures}:
            self.failures[f] += 1
        self.saved += 1
        path = self.out / f"failure-{self.saved:03d}.txt"
        path.write_text(describe(fn, args, failures) + "\n")
        print(f"  failure {self.saved}: {failures[0]} ({path})", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gradjit.fuzz", description=__doc__)
    parser.add_argument("--minutes", type=float, default=1.0, help="how long to run")
    parser.add_argument("--out", type=Path, default=Path("fuzz-out"),
                        help="where failures and the program being checked are written")
    parser.add_argument("--targets", default="cpu,cuda-emulator",
                        help="compiled targets to compare (cpu, cuda-emulator, cuda)")
    parser.add_argument("--no-gradients", action="store_true", help="check values only")
    parser.add_argument("--seed", type=int, default=int(time.time()),
                        help="first hypothesis seed (each batch adds one)")
    options = parser.parse_args(argv)
    if options.minutes <= 0:
        parser.error("--minutes must be positive")
    options.out.mkdir(parents=True, exist_ok=True)
    targets = tuple(t for t in options.targets.split(",") if t)
    fuzzer = Fuzzer(options.out, targets, not options.no_gradients)
    start = time.monotonic()
    deadline = start + 60 * options.minutes
    number = options.seed
    print(f"fuzzing {', '.join(targets)} for {options.minutes:g} min from seed {number}; "
          f"output in {options.out}", flush=True)
    while time.monotonic() < deadline:
        fuzzer.batch(number)
        number += 1
    seconds = time.monotonic() - start
    os.unlink(options.out / "current.txt")
    summary = {"programs": fuzzer.programs, "seconds": round(seconds, 1),
               "programs_per_second": round(fuzzer.programs / seconds, 2),
               "failures": fuzzer.saved, "failing_checks": dict(fuzzer.failures),
               "targets": list(targets), "seeds": [options.seed, number - 1]}
    (options.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary), flush=True)
    return 1 if fuzzer.saved else 0


if __name__ == "__main__":
    sys.exit(main())
