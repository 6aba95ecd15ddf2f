"""Losses PyTorch computes in one kernel are one node of the graph, as in PyTorch: the same
grad_fn name and next_functions, and the same gradients through the composite."""
import numpy as np
import pytest
import torch

import gradjit

rng = np.random.default_rng(3)
X, T = rng.standard_normal((4, 3)), rng.random((4, 3))
CLASSES = np.array([0, 2, 1, 1])
IMAGES, PIXELS = rng.standard_normal((2, 3, 4, 5)), rng.integers(0, 3, (2, 4, 5))

LOSSES = {
    "mse": lambda F, L, x: F.mse_loss(x, L.tensor(T)),
    "mse-none": lambda F, L, x: F.mse_loss(x, L.tensor(T), reduction="none"),
    "huber": lambda F, L, x: F.huber_loss(x, L.tensor(T), delta=0.5),
    "smooth_l1": lambda F, L, x: F.smooth_l1_loss(x, L.tensor(T), reduction="sum"),
    "l1": lambda F, L, x: F.l1_loss(x, L.tensor(T)),
    "bce": lambda F, L, x: F.binary_cross_entropy(x.sigmoid(), L.tensor(T)),
    "bce-weight": lambda F, L, x: F.binary_cross_entropy(x.sigmoid(), L.tensor(T),
                                                         weight=L.tensor(T)),
    "bce_with_logits": lambda F, L, x: F.binary_cross_entropy_with_logits(
        x, L.tensor(T), pos_weight=L.tensor([1.0, 2.0, 0.5], dtype=L.float64)),
    "nll": lambda F, L, x: F.nll_loss(x.log_softmax(1), L.tensor(CLASSES)),
    "cross_entropy": lambda F, L, x: F.cross_entropy(x, L.tensor(CLASSES)),
    "cross_entropy-2d": lambda F, L, x: F.cross_entropy(
        x.reshape(1, 3, 4).expand(2, 3, 4) * L.tensor(IMAGES[:, :, :, 0]),
        L.tensor(PIXELS[:, :, 0])),
}


def _names(node, depth=2):
    if node is None:
        return None
    if depth == 0:
        return type(node).__name__
    return (type(node).__name__, [_names(n, depth - 1) for n, _ in node.next_functions])


@pytest.mark.parametrize("name", LOSSES)
def test_loss_nodes_and_gradients_match_pytorch(name):
    results = []
    for lib in (torch, gradjit):
        x = lib.tensor(X, requires_grad=True)
        loss = LOSSES[name](lib.nn.functional, lib, x)
        loss.sum().backward()
        # PyTorch views a 2-D cross-entropy's log-probabilities before its node
        results.append((loss, _names(loss.grad_fn, 0 if name.endswith("2d") else 2), x.grad))
    (want, want_names, want_grad), (got, got_names, got_grad) = results
    assert got_names == want_names
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(got_grad.numpy(), want_grad.numpy(), rtol=1e-10)
