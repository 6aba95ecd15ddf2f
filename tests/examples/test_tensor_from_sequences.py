"""reinforcement_learning/reinforce.py builds its returns in a deque and calls
torch.tensor(returns): any Python sequence makes a tensor, as in torch."""
import collections

import numpy as np
import pytest
import torch

import gradjit


@pytest.mark.parametrize("data", [collections.deque([1.0, 2.5, -0.5]),
                                  collections.deque([[1, 2], [3, 4]]),
                                  [collections.deque([True, False])],
                                  collections.UserList([0.25, 4])])
def test_tensor_of_a_sequence_as_torch(data):
    got, want = gradjit.tensor(data), torch.tensor(data)
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_returns_normalised_as_in_reinforce():
    returns = collections.deque()
    for r in [1.0] * 5:
        returns.appendleft(r + 0.99 * (returns[0] if returns else 0))
    got, want = [(t.tensor(returns) - t.tensor(returns).mean()) / t.tensor(returns).std()
                 for t in (gradjit, torch)]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
