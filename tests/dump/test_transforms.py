"""`gradjit dump --transform` and lower(transform=): each transformation's program, shown at
every stage, computes what the transformation itself computes."""
import subprocess
import sys

import numpy as np
import pytest

import gradjit
from gradjit.dump.lowered import TRANSFORMS, lower
from gradjit.ir.interpret import interpret

X = np.array([0.3, -1.2, 2.0])


def scalar(x):
    return np.sum(np.sin(x) * x ** 2)


def vector(x):
    return np.tanh(x) * x


EXPECTED = {
    "grad": lambda: [scalar(X), gradjit.grad(scalar)(X)],
    "jvp": lambda: [gradjit.jvp(vector, (X,), (np.ones(3),))[1]],
    "vjp": lambda: [gradjit.vjp(vector, X)[1](np.ones(3))[0]],
    "jacrev": lambda: [gradjit.jacrev(vector)(X)],
    "jacfwd": lambda: [gradjit.jacfwd(vector)(X)],
    "hessian": lambda: [gradjit.hessian(scalar)(X)],
    "vmap": lambda: [vector(X)],
}


@pytest.mark.parametrize("transform", list(TRANSFORMS))
def test_each_transform_lowers_to_what_it_computes(transform):
    f = scalar if transform in ("grad", "hessian") else vector
    lowered = lower(f, X, transform=transform)
    got = interpret(lowered.optimized, X)
    want = EXPECTED[transform]()
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, np.asarray(b).reshape(np.shape(a)), rtol=1e-12)
    assert lowered.name.startswith(transform if transform != "grad" else "scalar")


def test_the_cli_shows_a_transform_and_refuses_an_unknown_one(tmp_path):
    source = tmp_path / "model.py"
    source.write_text("import numpy as np\n\ndef f(x):\n    return np.sum(np.exp(x))\n")
    run = [sys.executable, "-m", "gradjit", "dump", f"{source}:f", "--arg", "f64[4]",
           "--stage", "optimized"]
    shown = subprocess.run(run + ["--transform", "hessian"], capture_output=True, text=True)
    assert shown.returncode == 0 and "func @hessian_f" in shown.stdout
    assert "f64[4,4]" in shown.stdout
    refused = subprocess.run(run + ["--transform", "jacobi"], capture_output=True, text=True)
    assert refused.returncode == 1
    assert "unknown transform 'jacobi'; one of grad, jvp" in refused.stderr
