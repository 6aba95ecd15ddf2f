"""The specialization cache: compiled traces per input signature, their guards, counts of
traces, hits and misses, a bound on re-traces that warns with the guard to blame, a bound on
signatures that evicts the least recently called, and the text of `explain`."""
from __future__ import annotations

import warnings
from collections import Counter, namedtuple
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Callable

from gradjit.ir import Function, GuardFailed
from gradjit.tracer.trace import GuardInfo, source_line

CacheInfo = namedtuple("CacheInfo", "traces hits misses")
MAX_SIGNATURES = 256  # input signatures (shapes, dtypes, static values) kept per function


class RetraceWarning(UserWarning):
    """A function keeps being re-traced because a guard keeps failing."""


@dataclass(eq=False)
class Entry:
    program: Callable  # (*arrays) -> list of arrays; raises GuardFailed off its path
    guards: list[GuardInfo]
    unpack: Callable  # (program outputs, call leaves) -> the call's result
    # IR by stage: "traced", "differentiated" (grad only), "optimized" (a Mapping: a program
    # from the disk cache makes its later stages only when they are read)
    stages: Mapping
    captures: list = field(default_factory=list)  # arrays read from outside the arguments
    hits: int = field(default=0)

    @property
    def function(self) -> Function:
        """The optimized IR the program runs."""
        return self.stages["optimized"]

    def __post_init__(self):
        # lean(arrays): the call's result from C-contiguous arrays of its signature (the lean
        # call); a result that is one output as it is needs no unpack call.
        fast_call = getattr(self.program, "fast_call", None)
        discard = getattr(self.unpack, "discard", ())
        pick = getattr(self.unpack, "pick", None)
        if fast_call and pick is not None:
            self.lean = fast_call(discard, pick)
        else:
            run = fast_call(discard) if fast_call else lambda arrays: self.program(*arrays)
            unpack = self.unpack
            self.lean = lambda arrays: unpack(run(arrays), arrays)
        # A program with a native entry checks its arguments there: its lean call is safe on
        # any arguments (ArgumentsDiffer, a GuardFailed, when they are not its arrays).
        self.checked = self.lean if getattr(self.program, "checks_arguments", False) else None


class Cache:
    def __init__(self, name: str, max_traces: int):
        self.name, self.max_traces = name, max_traces
        self.by_key: dict = {}
        # (shape, dtype, strides) per argument -> entries, for C-contiguous array arguments
        self.fast: dict = {}
        self.traces = self.misses = 0
        self.evicted_hits = 0  # hits of the traces eviction dropped
        self.failures: dict = {}  # key -> Counter of failing guard sites
        self.warned: set = set()
        self.last: Entry | None = None  # the entry the latest call ran
        # The entry of plain array arguments the latest lean call ran, if its program checks
        # its arguments: tried first, before any cache key is built.
        self.checked: Entry | None = None
        self.seen: dict = {}  # key -> its traces' hits when eviction last looked at it

    def entries(self, key) -> list[Entry]:
        return self.by_key.get(key, ())

    @property
    def hits(self) -> int:
        """Calls that ran a cached trace: counted once per call, on the trace it ran."""
        return self.evicted_hits + sum(e.hits for entries in self.by_key.values()
                                       for e in entries)

    def hit(self, entry: Entry):
        entry.hits += 1
        self.last = entry

    def add(self, key, entry: Entry, failed: GuardFailed | None):
        """Count a miss and its trace; keep the entry unless the key is at its bound."""
        self.misses += 1
        self.traces += 1
        self.last = entry
        if key not in self.by_key and len(self.by_key) >= MAX_SIGNATURES:
            self._evict()
        entries = self.by_key.setdefault(key, [])
        if failed is not None:
            self.failures.setdefault(key, Counter())[failed.site] += 1
        if len(entries) < self.max_traces:
            entries.append(entry)
        elif key not in self.warned:
            self.warned.add(key)
            warnings.warn(self._retrace_message(key), RetraceWarning, stacklevel=4)

    def _evict(self):
        """Drop the signature called least recently, approximately and without bookkeeping on
        the call path (second chance): the oldest signature goes unless its traces were hit
        since it was traced or eviction last looked at it; then it moves to the back."""
        for _ in range(2 * len(self.by_key)):
            key, entries = next(iter(self.by_key.items()))
            hits = sum(e.hits for e in entries)
            if self.seen.get(key, 0) == hits:  # not hit since it was traced or last looked at
                break
            self.seen[key] = hits
            self.by_key[key] = self.by_key.pop(key)
        key, entries = next(iter(self.by_key.items()))
        del self.by_key[key]
        self.evicted_hits += sum(e.hits for e in entries)
        if self.checked in entries:
            self.checked = None
        for name in [name for name, found in self.fast.items() if found is entries]:
            del self.fast[name]
        self.seen.pop(key, None)
        self.failures.pop(key, None)
        self.warned.discard(key)

    def info(self) -> CacheInfo:
        return CacheInfo(self.traces, self.hits, self.misses)

    def _retrace_message(self, key) -> str:
        site, count = self.failures[key].most_common(1)[0]
        what = next((g.what for e in self.by_key[key] for g in e.guards if g.site == site), "")
        if what.startswith("item()"):
            advice = ("float()/int()/.item() bakes the value into the trace, so every new value "
                      "re-traces: keep it an array (use it in array operations), or pass it as "
                      "a static argument (jit(static_argnums=...)) if it takes few values")
        elif what.endswith("decides a shape"):
            advice = ("a boolean mask, np.nonzero or a count computed at run time fixes the "
                      "result's shape, so each new pattern re-traces: keep shapes fixed with "
                      "np.where(mask, x, 0) or a masked sum")
        else:
            advice = ("Python control flow (if/while) on a value that changes from call to "
                      "call re-traces for each path: compute both branches and select with "
                      "np.where / np.maximum / np.clip, or loop a fixed number of times")
        return (f"{self.name} was traced {self.max_traces} times for one input signature; the "
                f"guard at {site} failed {count} times: {source_line(site)!r}. {advice}. "
                "Further traces for this signature are not cached.")

    def explain(self) -> str:
        lines = [f"{self.name}: {self.traces} traces, {self.hits} hits, {self.misses} misses"]
        for key, entries in self.by_key.items():
            lines.append(f"  signature {_describe_key(key)}")
            for number, entry in enumerate(entries):
                lines.append(f"    trace {number}: {len(entry.function.ops)} ops, "
                             f"{entry.hits} hits, {len(entry.guards)} guards")
                for guard, repeats in _runs(entry.guards):
                    times = f" ({repeats} times)" if repeats > 1 else ""
                    source = source_line(guard.site)  # '' for code without a file
                    lines.append(f"      {guard.site}: {guard.what}{times}"
                                 + (f"  # {source}" if source else ""))
                if entry.captures:
                    lines.append("      captured arrays (trace-time constants):")
                    lines.extend(f"        {c.describe()}" for c in entry.captures)
        return Explanation("\n".join(lines))


class Explanation(str):
    """explain()'s text: a str, whose repr is itself, so the REPL shows it as lines rather
    than as one quoted string full of \\n."""

    def __repr__(self) -> str:
        return str(self)


def _runs(guards):
    """Consecutive equal guards (a loop's test, say) as (guard, count)."""
    runs = []
    for guard in guards:
        if runs and runs[-1][0] == guard:
            runs[-1][1] += 1
        else:
            runs.append([guard, 1])
    return runs


def _describe_key(key) -> str:
    parts = []
    for sig in key[1]:
        if isinstance(sig, type):
            parts.append(sig.__name__)
        else:
            shape, dtype = sig[-2], sig[-1]
            parts.append(f"{dtype}{list(shape)}")
    return "(" + ", ".join(parts) + ")"
