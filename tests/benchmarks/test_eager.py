"""The eager benchmark's workloads give the same results in gradjit and PyTorch, and its report
has a row for each."""
import pytest

from benchmarks import eager

pytest.importorskip("torch")


def test_every_workload_agrees_with_torch_and_is_reported(monkeypatch):
    monkeypatch.setattr(eager, "STEPS", 3)
    monkeypatch.setattr(eager, "MLP_STEPS", 3)
    monkeypatch.setattr(eager.timing, "SETTLE", 0)
    rows = eager.report(rounds=1)[2:]
    assert [r.split(" | ")[0] for r in rows] == ["| E1", "| E2", "| E3", "| E4", "| E5"]
    assert all(" | same | " in r for r in rows)
