"""manual_seed followed by rand/randn/randint/randperm/normal gives PyTorch's CPU numbers, for
several seeds, shapes and dtypes, in sequence (so the generator state advances alike)."""
import numpy as np
import pytest
import torch

import gradjit

DRAWS = [
    lambda L: L.rand(5),
    lambda L: L.rand(3, 7, dtype=L.float64),
    lambda L: L.randn(3),          # < 16 values: one at a time, the pair's second one cached
    lambda L: L.randn(1),
    lambda L: L.randn(16),
    lambda L: L.randn(5, 7),       # not a multiple of 16: the last block redrawn
    lambda L: L.randn(40, dtype=L.float64),
    lambda L: L.randint(0, 10, (20,)),
    lambda L: L.randint(-5, 5, (3, 3)),
    lambda L: L.randint(3, (4,)),
    lambda L: L.randperm(10),
    lambda L: L.randperm(257),
    lambda L: L.normal(2.0, 3.0, size=(20,)),
    lambda L: L.normal(L.zeros(5), L.ones(5) * 2),
    lambda L: L.rand_like(L.ones(2, 3)),
]


def assert_draws_equal_pytorchs(draws, seed, tolerance=0.0):
    """Each draw(lib) in turn after manual_seed(seed), in both libraries: same dtypes, values
    equal (within `tolerance`, relative and absolute)."""
    gradjit.manual_seed(seed)
    torch.manual_seed(seed)
    for i, draw in enumerate(draws):
        ours, theirs = draw(gradjit), draw(torch)
        assert str(ours.dtype) == str(theirs.dtype), i
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                   rtol=tolerance, atol=tolerance, err_msg=f"draw {i}")


@pytest.mark.parametrize("seed", [0, 1, 42, 2 ** 31 + 5])
def test_a_seeded_sequence_of_draws_equals_pytorch(seed):
    # PyTorch's vectorized log/sin/cos for float32 blocks are within an ulp of exact
    assert_draws_equal_pytorchs(DRAWS, seed, tolerance=1e-6)


def test_generator_objects_and_initial_seed():
    ours, theirs = gradjit.Generator().manual_seed(7), torch.Generator().manual_seed(7)
    np.testing.assert_array_equal(gradjit.rand(4, generator=ours).numpy(),
                                  torch.rand(4, generator=theirs).numpy())
    assert ours.initial_seed() == theirs.initial_seed() == 7
    assert gradjit.Generator().initial_seed() == torch.Generator().initial_seed()
    gradjit.manual_seed(3)
    assert gradjit.initial_seed() == 3
