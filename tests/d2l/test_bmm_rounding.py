"""Small bmm products round as PyTorch's CPU kernel does (one term at a time), so d2l's
attention outputs print 12.0000 where the exact sum is 12; gradients are unchanged."""
import numpy as np
import pytest
import torch

import gradjit

SHAPES = [(2, 1, 10, 4), (1, 3, 7, 5), (2, 4, 19, 5), (3, 2, 1, 2), (1, 20, 20, 1),
          (2, 8, 8, 8)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch,rows,inner,cols", SHAPES)
def test_bmm_bits_and_gradients_match_torch(batch, rows, inner, cols, dtype):
    torch.manual_seed(inner)
    data = [torch.randn(batch, rows, inner, dtype=getattr(torch, dtype)),
            torch.randn(batch, inner, cols, dtype=getattr(torch, dtype))]
    results = []
    for lib in (torch, gradjit):
        a, b = (lib.tensor(d.numpy(), requires_grad=True) for d in data)
        out = lib.bmm(a, b)
        (out * out).sum().backward()
        results.append((type(out.grad_fn).__name__, out.detach().numpy(), a.grad.numpy(),
                        b.grad.numpy()))
    assert results[0][0] == results[1][0]
    if inner * rows * cols < 400:
        np.testing.assert_array_equal(results[1][1], results[0][1])
    for expected, got in zip(results[0][1:], results[1][1:]):
        assert got == pytest.approx(expected, rel=1e-4, abs=1e-4)


def test_masked_attention_average_prints_as_torch():
    texts = []
    for lib in (torch, gradjit):
        weights = lib.tensor([[1 / 6] * 6 + [0.0] * 4]).unsqueeze(0)
        values = lib.arange(40, dtype=lib.float32).reshape(1, 10, 4)
        texts.append(repr(lib.bmm(weights, values)))
    assert texts[0] == texts[1]
