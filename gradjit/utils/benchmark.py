"""torch.utils.benchmark's Timer: runs a statement string a number of times and reports the
time per run as a Measurement, printed as PyTorch prints it."""
from __future__ import annotations

import statistics
import timeit as _timeit

__all__ = ["Measurement", "Timer"]

_UNITS = ((1e-9, "ns"), (1e-6, "us"), (1e-3, "ms"), (1.0, "s"))


def _time_text(seconds: float) -> str:
    scale, unit = next(((s, u) for s, u in reversed(_UNITS) if seconds >= s), _UNITS[0])
    value = seconds / scale
    digits = 2 if value < 10 else 1 if value < 100 else 0
    return f"{value:.{digits}f} {unit}"


class Measurement:
    """The runs of one Timer: raw_times are seconds per block of number_per_run runs."""

    def __init__(self, number_per_run, raw_times, stmt, setup="pass", label=None,
                 sub_label=None, description=None, num_threads=1):
        self.number_per_run, self.raw_times = number_per_run, list(raw_times)
        self.stmt, self.setup, self.label, self.sub_label = stmt, setup, label, sub_label
        self.description, self.num_threads = description, num_threads

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def mean(self):
        return statistics.mean(self.times)

    @property
    def median(self):
        return statistics.median(self.times)

    @property
    def title(self):
        return self.stmt if self.label is None else \
            f"{self.label}: {self.sub_label}" if self.sub_label else self.label

    def __repr__(self):
        head = f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"
        lines = [head, self.title]
        if self.label is not None and self.description:
            lines.append(self.description)
        if self.setup != "pass":
            lines.append(f"setup: {self.setup}")
        runs, count = self.number_per_run, len(self.raw_times)
        threads = f"{self.num_threads} thread" + ("s" if self.num_threads > 1 else "")
        if count == 1:
            lines += [f"  {_time_text(self.median)}", f"  1 measurement, {runs} runs , {threads}"]
        else:
            lines += [f"  Median: {_time_text(self.median)}",
                      f"  {count} measurements, {runs} runs per measurement, {threads}"]
        return "\n".join(lines)


class Timer:
    """Times `stmt` (Python source) after running `setup` once, in a copy of `globals`."""

    def __init__(self, stmt="pass", setup="pass", globals=None, label=None, sub_label=None,
                 description=None, num_threads=1):
        self._tags = dict(stmt=stmt, setup=setup, label=label, sub_label=sub_label,
                          description=description, num_threads=num_threads)
        self._timer = _timeit.Timer(stmt, setup, globals=dict(globals or {}))

    def timeit(self, number=1000000):
        self._timer.timeit(1)  # warm-up: the first call compiles and caches
        return Measurement(number, [self._timer.timeit(number)], **self._tags)

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        number, block = 1, self._timer.timeit(1)
        while block < 0.01 and number < 10 ** 9:
            number *= 10
            block = self._timer.timeit(number)
        times, total = [], 0.0
        while total < min_run_time or not times:
            times.append(self._timer.timeit(number))
            total += times[-1]
            if callback is not None:
                callback(number, times[-1])
        return Measurement(number, times, **self._tags)
