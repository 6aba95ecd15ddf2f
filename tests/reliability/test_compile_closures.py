"""gradjit.compile of a function whose closure or globals change between calls, checked
against PyTorch's torch.compile and the eager function: a Python number rebound is a new
constant (traced again), a tensor changed in place is read afresh."""
import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")

SCALE = 2.0
MODE = "double"


def _scaled(t, x):
    return x * SCALE if MODE == "double" else x - SCALE


def test_a_rebound_global_number_is_seen_as_by_torch_compile():
    """The second call replayed the first trace's 2.0."""
    global SCALE, MODE
    mine, theirs = gradjit.compile(lambda x: _scaled(gradjit, x)), torch.compile(
        lambda x: _scaled(torch, x), backend="eager")
    try:
        for scale, mode in [(2.0, "double"), (5.0, "double"), (5.0, "shift"), (2.0, "double")]:
            SCALE, MODE = scale, mode
            got, want = mine(gradjit.ones(3)), theirs(torch.ones(3))
            assert np.array_equal(got.numpy(), want.numpy())
    finally:
        SCALE, MODE = 2.0, "double"


def test_a_rebound_closure_number_and_a_tensor_changed_in_place():
    scale, weight = 2.0, gradjit.ones(3)
    compiled = gradjit.compile(lambda x: x * weight * scale)
    x = gradjit.arange(3.0)
    assert np.array_equal(compiled(x).numpy(), [0.0, 2.0, 4.0])
    scale = 3.0  # noqa: F841 (read through the closure)
    assert np.array_equal(compiled(x).numpy(), [0.0, 3.0, 6.0])
    weight.mul_(2)
    assert np.array_equal(compiled(x).numpy(), [0.0, 6.0, 12.0])
