"""Golden IR: the printed forward and gradient IR of a few functions, after optimization, are
checked in under tests/golden/ so that changes to tracing, autodiff or the passes show in
review. Regenerate with `python -m tests.e2e.test_golden` and read the diff."""
import copy
import pathlib

import numpy as np
import pytest

import gradjit
from gradjit import ops as G
from gradjit.ir import parse, verify

GOLDEN = pathlib.Path(__file__).parent.parent / "golden"


def sum_of_squares(x):
    return np.sum(x * x)


def readme_loss(w, x, y):
    return np.mean((np.tanh(x @ w) - y) ** 2)


def logsumexp(x):
    return G.logsumexp(x, 1).sum()


def branch(x):
    if x.sum() > 0:
        return np.sum(np.sqrt(x * x + 1))
    return np.sum(x)


def detach(x):
    return np.sum(gradjit.stop_gradient(x * x) * x)


F32 = np.float32
FUNCTIONS = {
    "sum_of_squares": (sum_of_squares, (np.ones(16, F32),)),
    "readme_loss": (readme_loss, (np.ones((3, 2), F32), np.ones((4, 3), F32),
                                  np.ones((4, 2), F32))),
    "logsumexp": (logsumexp, (np.ones((2, 3), F32),)),
    "branch": (branch, (np.ones(4, F32),)),
    "detach": (detach, (np.ones(3),)),
}


def printed(name, stage):
    fn, args = FUNCTIONS[name]
    transform = gradjit.jit(fn) if stage == "forward" else gradjit.grad(fn)
    ir = copy.copy(transform.ir(*args))
    ir.ops = [copy.copy(op) for op in ir.ops]
    for op in ir.ops:  # source lines depend on this file's layout; keep the goldens stable
        op.site = None
        if op.prim.name == "guard":
            op.params = {**op.params, "site": f"{name}.py"}
    return str(ir) + "\n"


CASES = [(name, stage) for name in FUNCTIONS for stage in ("forward", "grad")]


@pytest.mark.parametrize("name, stage", CASES)
def test_printed_ir_matches_golden(name, stage):
    path = GOLDEN / f"{name}.{stage}.ir"
    text = printed(name, stage)
    assert text == path.read_text(), f"{path} changed; regenerate and review the diff"
    assert str(verify(parse(text))) + "\n" == text


if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for name, stage in CASES:
        (GOLDEN / f"{name}.{stage}.ir").write_text(printed(name, stage))
