"""The spread report: every implementation's wall and CPU quantiles, in order, and the ratio's."""
from benchmarks.spread import QUANTILES, spread


def test_spread_reports_ordered_quantiles_for_both_implementations():
    lines = spread("W2", "numpy by hand", rounds=5, scale=1e-3)
    assert lines[0].startswith("W2, 5 rounds")
    rows = [line.split() for line in lines[1:5]]
    assert rows[0][:2] == ["gradjit", "wall"] and rows[2][:2] == ["numpy", "by"]
    for row in rows:
        values = [float(v) for v in row[-len(QUANTILES):]]
        assert values == sorted(values) and values[0] > 0
    assert "gradjit / numpy by hand" in lines[5]
