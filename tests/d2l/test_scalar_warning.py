"""float() of a tensor that requires grad warns once with PyTorch's full message (d2l's
training loops print it)."""
import subprocess
import sys

import pytest

SCRIPT = """
import warnings
import {lib} as torch
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    float(torch.ones(1, requires_grad=True).sum())
print([str(w.message) for w in caught])
"""


def _run(lib):
    # a fresh process: both libraries warn only once per process
    return subprocess.run([sys.executable, "-c", SCRIPT.format(lib=lib)], capture_output=True,
                          text=True, check=True).stdout


@pytest.mark.parametrize("lib", ["gradjit"])
def test_scalar_of_graph_warning_matches_torch(lib):
    assert _run(lib) == _run("torch")
