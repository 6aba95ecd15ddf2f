"""bernoulli, bernoulli_, multinomial (with and without replacement), exponential_, dropout
masks and rrelu slopes after manual_seed equal PyTorch's CPU numbers exactly; drawing inside a
trace is refused."""
import numpy as np
import pytest
import torch

import gradjit
from tests.tensor.test_random_vs_torch import assert_draws_equal_pytorchs

X = np.random.default_rng(0).standard_normal((7, 40)).astype(np.float32)

DRAWS = [
    lambda L: L.bernoulli(L.rand(300)),
    lambda L: L.bernoulli(L.rand(3, 50, dtype=L.float64)),
    lambda L: L.bernoulli(L.rand(4, 5), 0.3),
    lambda L: L.rand(5, 7).bernoulli(),
    lambda L: L.zeros(6, 9).bernoulli_(0.75),
    lambda L: L.zeros(6, 9, dtype=L.int64).bernoulli_(0.5),
    lambda L: L.zeros(6, 9, dtype=L.float64).bernoulli_(L.rand(9)),
    lambda L: L.multinomial(L.rand(4, 30), 1),
    lambda L: L.multinomial(L.rand(4, 30), 12),
    lambda L: L.multinomial(L.rand(30, dtype=L.float64), 30),
    lambda L: L.multinomial(L.rand(4, 30), 1, True),
    lambda L: L.multinomial(L.rand(4, 30), 100, True),
    lambda L: L.multinomial(L.tensor([0.0, 2.0, 0.0, 1.0]), 50, replacement=True),
    lambda L: L.rand(3, 8).multinomial(4),
    lambda L: L.empty(5, 20).exponential_(),
    lambda L: L.empty(500, dtype=L.float64).exponential_(2.5),
    lambda L: L.nn.functional.dropout(L.tensor(X), 0.3),
    lambda L: L.nn.functional.dropout(L.tensor(X, dtype=L.float64), 0.8),
    lambda L: L.nn.Dropout(0.5, inplace=True)(L.tensor(X) * 1),
    lambda L: L.nn.functional.rrelu(L.tensor(X), training=True),
    lambda L: L.nn.RReLU(0.1, 0.6)(L.tensor(X, dtype=L.float64)),
]


@pytest.mark.parametrize("seed", [0, 7, 2 ** 32 + 3])
def test_a_seeded_sequence_of_draws_equals_pytorch(seed):
    assert_draws_equal_pytorchs(DRAWS, seed)


def test_dropout_and_rrelu_gradients_follow_the_drawn_values():
    for seed in (1, 2):
        outs = []
        for L in (gradjit, torch):
            L.manual_seed(seed)
            x = L.tensor(X, requires_grad=True)
            y = L.nn.functional.dropout(x, 0.4) + L.nn.functional.rrelu(x * 1, training=True)
            y.backward(L.ones_like(y))
            outs.append((y.grad_fn.name(), x.grad.numpy()))
        assert outs[0][0] == outs[1][0]
        np.testing.assert_array_equal(outs[0][1], outs[1][1])


def test_errors_match_torch():
    from tests.nn.helpers import same_error
    same_error(lambda: gradjit.bernoulli(gradjit.tensor([1, 0])),
               lambda: torch.bernoulli(torch.tensor([1, 0])))
    with pytest.raises(RuntimeError, match="Expected p_in >= 0 && p_in <= 1"):
        gradjit.bernoulli(gradjit.tensor([1.5]))


@pytest.mark.parametrize("call", [
    lambda x: gradjit.nn.functional.dropout(x, 0.5),
    lambda x: gradjit.nn.functional.rrelu(x, training=True),
    lambda x: gradjit.bernoulli(x.sigmoid()),
    lambda x: x.exp().multinomial(2),
    lambda x: (x * 1).bernoulli_(0.5),
    lambda x: (x * 1).exponential_(),
])
def test_drawing_inside_a_trace_is_refused(call):
    """A trace would keep one draw and replay it on every call: a clear error instead."""
    x = gradjit.tensor(X[:2, :4])
    with pytest.raises(RuntimeError, match="random values cannot be drawn inside"):
        gradjit.jit(call)(x)
    with pytest.raises(RuntimeError, match="random values cannot be drawn inside"):
        gradjit.grad(lambda t: call(t).sum())(x)
    # eval-mode layers compile, and equal the eager call
    layer = gradjit.nn.Sequential(gradjit.nn.Dropout(0.5), gradjit.nn.RReLU()).eval()
    np.testing.assert_allclose(gradjit.jit(layer)(x).numpy(), layer(x).numpy())
