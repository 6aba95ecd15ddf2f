"""time_sequence_prediction's LBFGS step: its losses are read as floats the way torch's are,
so the scalar-conversion warning stays for the user's own float() in grad mode."""
import subprocess
import sys

import pytest

_PROGRAM = """
import warnings
import {lib} as t
w = t.ones(3, requires_grad=True)
opt = t.optim.LBFGS([w], lr=0.8)
def closure():
    opt.zero_grad()
    loss = ((w - 2) ** 2).sum()
    loss.backward()
    return loss
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    opt.step(closure)
    loss = closure()
    with t.no_grad():
        float(loss)
    after_step = len(caught)
    float(loss)
print(after_step, len(caught))
"""


def _warnings_counted(lib):
    # the warning is once per process, so each library gets a fresh one
    return subprocess.run([sys.executable, "-c", _PROGRAM.format(lib=lib)], check=True,
                          capture_output=True, text=True).stdout.split()


@pytest.mark.parametrize("lib", ["gradjit"])
def test_lbfgs_step_and_no_grad_float_do_not_warn(lib):
    assert _warnings_counted(lib) == _warnings_counted("torch") == ["0", "1"]
