"""Floating arange writes PyTorch's CPU values bit for bit (d2l's activation plots take
relu's gradient at torch.arange(-8.0, 8.0, 0.1)'s element nearest zero)."""
import random

import numpy as np
import pytest
import torch

import gradjit

random.seed(0)
CASES = [(-8.0, 8.0, 0.1), (0, 5, 0.1), (-2, 1, 0.2), (0.5, 17.3, 0.37), (3, -2.2, -0.3),
         (-10, 10, 0.01), (0, 10, 1)] + [
    (random.uniform(-50, 5), random.uniform(10, 60), random.uniform(0.003, 0.9))
    for _ in range(20)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("start,end,step", CASES)
def test_arange_bits_equal_torch(start, end, step, dtype):
    expected = torch.arange(start, end, step, dtype=getattr(torch, dtype)).numpy()
    got = gradjit.arange(start, end, step, dtype=getattr(gradjit, dtype)).numpy()
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_relu_gradient_near_zero_matches_torch():
    grads = []
    for lib in (torch, gradjit):
        x = lib.arange(-8.0, 8.0, 0.1, requires_grad=True)
        lib.relu(x).backward(lib.ones_like(x))
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])
