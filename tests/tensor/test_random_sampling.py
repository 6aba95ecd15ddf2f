"""torch.normal, torch.bernoulli and torch.multinomial: PyTorch's signatures, shapes, dtypes
and errors, and the statistics of their draws (gradjit's generator is its own)."""
import numpy as np
import pytest
import torch

import gradjit


@pytest.mark.parametrize("call", [
    lambda lib: lib.normal(lib.zeros(2, 3), 2.0),
    lambda lib: lib.normal(1.0, lib.ones(4, dtype=lib.float64)),
    lambda lib: lib.normal(lib.zeros(3), lib.ones(2, 1)),
    lambda lib: lib.normal(0.0, 1.0, size=(2, 5)),
    lambda lib: lib.bernoulli(lib.full((3, 2), 0.5)),
    lambda lib: lib.bernoulli(lib.zeros(4, dtype=lib.float64), p=0.25),
    lambda lib: lib.multinomial(lib.tensor([0.2, 0.8]), 5, replacement=True),
    lambda lib: lib.multinomial(lib.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 1.0]]), 2),
])
def test_shapes_and_dtypes_match_pytorch(call):
    ours, theirs = call(gradjit), call(torch)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)


def test_draws_follow_their_distribution():
    gradjit.manual_seed(3)
    x = gradjit.normal(gradjit.full((20000,), 2.0), 3.0).numpy()
    assert abs(x.mean() - 2.0) < 0.1 and abs(x.std() - 3.0) < 0.1
    b = gradjit.bernoulli(gradjit.full((20000,), 0.3)).numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.02
    m = gradjit.multinomial(gradjit.tensor([1.0, 0.0, 3.0]), 20000, replacement=True).numpy()
    assert np.count_nonzero(m == 1) == 0 and abs((m == 2).mean() - 0.75) < 0.02
    rows = gradjit.multinomial(gradjit.tensor([[5.0, 1.0, 1.0, 1.0]] * 50), 4).numpy()
    assert all(sorted(r) == [0, 1, 2, 3] for r in rows)  # without replacement


@pytest.mark.parametrize("call", [
    lambda lib: lib.normal(0.0, 1.0),
    lambda lib: lib.bernoulli(lib.tensor([0.5, 1.5])),
    lambda lib: lib.multinomial(lib.tensor([0.5, -0.1]), 1),
    lambda lib: lib.multinomial(lib.tensor([0.0, 0.0]), 1),
    lambda lib: lib.multinomial(lib.tensor([0.5, 0.5]), 3),
])
def test_errors_match_pytorch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(gradjit)
    assert str(ours.value).split(" - ")[0] in str(theirs.value)
