"""examples/distributed_training.py trains to a good accuracy on small data (Dask's local
scheduler here; tests/distributed/test_cluster.py covers the cluster path)."""
import importlib.util
import re
from pathlib import Path

import pytest

pytest.importorskip("dask.array")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "distributed_training.py"


def run(capsys, *argv):
    spec = importlib.util.spec_from_file_location("distributed_training", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--rows", "8000", "--chunk-rows", "3000", "--workers", "0", *argv])
    out = capsys.readouterr().out
    losses = [float(x) for x in re.findall(r"loss (\S+)", out)]
    return losses, float(re.search(r"accuracy (\S+)", out).group(1))


def test_logistic_regression_by_gradient_descent(capsys):
    losses, accuracy = run(capsys, "--iterations", "10")
    assert losses[0] == pytest.approx(0.693147, abs=1e-6)  # log 2 at zero weights
    assert all(b < a for a, b in zip(losses, losses[1:])) and accuracy > 0.9


def test_mlp_by_lbfgs(capsys):
    pytest.importorskip("scipy")
    losses, accuracy = run(capsys, "--model", "mlp", "--optimizer", "lbfgs",
                           "--iterations", "10")
    assert losses[-1] < 0.6 * losses[0] and accuracy > 0.9
