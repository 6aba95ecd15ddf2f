"""gradjit.utils.benchmark.Timer against torch.utils.benchmark.Timer."""
import re

import torch.utils.benchmark as tb

import gradjit.utils.benchmark as gb


def _shape(measurement):
    """The printed measurement with its address and time blanked (they differ per run)."""
    text = re.sub(r"0x[0-9a-f]+", "ADDR", repr(measurement))
    text = re.sub(r"[\d.]+ (ns|us|ms|s)\n", "TIME\n", text)
    return text.split("\n", 1)[1]


def test_timeit_measurement_matches_torch():
    kwargs = dict(stmt="y = x + 1", setup="x = 2", label="L", sub_label="S", description="D")
    got, want = gb.Timer(**kwargs).timeit(20), tb.Timer(**kwargs).timeit(20)
    assert _shape(got) == _shape(want)
    assert (got.number_per_run, len(got.times), len(got.raw_times)) == \
        (want.number_per_run, len(want.times), len(want.raw_times))
    assert got.times[0] > 0 and abs(got.mean - got.raw_times[0] / 20) < 1e-12


def test_globals_and_plain_title():
    calls = []
    got = gb.Timer(stmt="f()", globals={"f": lambda: calls.append(1)}).timeit(5)
    want = tb.Timer(stmt="f()", globals={"f": lambda: None}).timeit(5)
    assert _shape(got) == _shape(want) and got.title == want.title == "f()"
    assert len(calls) == 6  # one warm-up call, then the five timed


def test_blocked_autorange_runs_at_least_min_time():
    m = gb.Timer(stmt="sum(range(100))").blocked_autorange(min_run_time=0.02)
    assert sum(m.raw_times) >= 0.02 and m.median > 0
