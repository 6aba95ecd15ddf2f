"""Embedding lookups record PyTorch's EmbeddingBackward0 (d2l prints embedded tensors)."""
import pytest
import torch

import gradjit


@pytest.mark.parametrize("padding_idx", [None, 0, -1])
def test_embedding_node_name_and_gradient(padding_idx):
    results = []
    for lib in (torch, gradjit):
        lib.manual_seed(0)
        emb = lib.nn.Embedding(6, 3, padding_idx=padding_idx)
        out = emb(lib.tensor([[0, 2, 5], [2, 2, 1]]))
        (out * lib.arange(18.0).reshape(2, 3, 3)).sum().backward()
        results.append((repr(out), emb.weight.grad.numpy()))
    assert results[0][0] == results[1][0]
    assert results[1][1] == pytest.approx(results[0][1])
