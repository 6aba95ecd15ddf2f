"""gcn/main.py aggregates with torch.spmm(adj_mat, support); gradjit has no sparse layout, so
the port keeps the adjacency dense, where torch.spmm is the matrix product."""
import numpy as np
import torch

import gradjit
from tests.torch_reference import same_error, weighted_gradients


def test_spmm_of_dense_matrices_as_torch():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((5, 5)), rng.standard_normal((5, 3))]
    got, g_grads = weighted_gradients(gradjit, lambda t, a, b: t.spmm(a, b), arrays, np.float32)
    want, t_grads = weighted_gradients(torch, lambda t, a, b: t.spmm(a, b), arrays, np.float32)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    for g, t in zip(g_grads, t_grads):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__


def test_spmm_of_a_vector_raises_as_torch():
    same_error(lambda: gradjit.spmm(gradjit.eye(3), gradjit.ones(3)),
               lambda: torch.spmm(torch.eye(3), torch.ones(3)))
