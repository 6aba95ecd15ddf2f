"""benchmarks/distributed.py runs (on small data) and its cluster gradient matches."""
import pytest

pytest.importorskip("distributed")
from benchmarks import distributed as bench  # noqa: E402


def test_small_run_prints_the_table(capsys):
    bench.main(["--rows", "40000", "--chunk-rows", "10000", "--rounds", "2"])
    out = capsys.readouterr().out
    assert "| 2-worker cluster |" in out and "| cluster overhead" in out
