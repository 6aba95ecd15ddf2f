"""The remaining torch.nn losses (Gaussian and Poisson NLL, soft margin, multi-label soft
margin, multi-class and multi-label margin, triplet with any distance) against torch: values,
gradients, grad_fn names, reprs and errors."""
import numpy as np
import pytest

import gradjit
from tests.nn.helpers import same_error, torch

rng = np.random.default_rng(0)
X = rng.standard_normal((4, 5))
Y = np.sign(rng.standard_normal((4, 5)))
T = rng.integers(0, 5, 4)
ML = np.array([[0, 3, -1, 1, 2], [4, -1, 0, 0, 0], [1, 2, 3, 0, 4], [2, 2, -1, 0, 1]])
V = rng.random((4, 5)) + 0.1

CASES = {
    "soft": lambda L, F, x: F.soft_margin_loss(x, L.tensor(Y)),
    "soft-none": lambda L, F, x: F.soft_margin_loss(x, L.tensor(Y), reduction="none"),
    "mlsoft": lambda L, F, x: F.multilabel_soft_margin_loss(x, L.tensor((Y > 0) * 1.0)),
    "mlsoft-w": lambda L, F, x: F.multilabel_soft_margin_loss(
        x, L.tensor((Y > 0) * 1.0), weight=L.tensor(V[0]), reduction="sum"),
    "mm": lambda L, F, x: F.multi_margin_loss(x, L.tensor(T)),
    "mm-p2w": lambda L, F, x: F.multi_margin_loss(x, L.tensor(T), p=2, margin=0.5,
                                                  weight=L.tensor(V[0]), reduction="none"),
    "mm-1d": lambda L, F, x: F.multi_margin_loss(x[0], L.tensor([2])),
    "mlm": lambda L, F, x: F.multilabel_margin_loss(x, L.tensor(ML)),
    "mlm-none": lambda L, F, x: F.multilabel_margin_loss(x, L.tensor(ML), reduction="none"),
    "mlm-1d": lambda L, F, x: F.multilabel_margin_loss(x[1], L.tensor(ML[2])),
    "gauss": lambda L, F, x: F.gaussian_nll_loss(x, L.tensor(Y), L.tensor(V)),
    "gauss-homo": lambda L, F, x: F.gaussian_nll_loss(x, L.tensor(Y), L.tensor(V[:, 0]),
                                                      full=True),
    "gauss-float": lambda L, F, x: F.gaussian_nll_loss(x, L.tensor(Y), 0.5, reduction="sum"),
    "gauss-hetero": lambda L, F, x: F.gaussian_nll_loss(x, L.tensor(Y), L.tensor(V[:, :1]),
                                                        eps=0.3),
    "poisson": lambda L, F, x: F.poisson_nll_loss(x, L.tensor(np.abs(Y) * 3)),
    "poisson-full": lambda L, F, x: F.poisson_nll_loss(x.exp(), L.tensor(np.abs(X) * 3),
                                                       log_input=False, full=True),
    "trip-dist": lambda L, F, x: F.triplet_margin_with_distance_loss(x, x * 0.5, x.flip(0)),
    "trip-dist-swap": lambda L, F, x: F.triplet_margin_with_distance_loss(
        x, x * 0.5, x.flip(0), distance_function=lambda a, b: 1 - F.cosine_similarity(a, b),
        swap=True, margin=0.7),
    "modules": lambda L, F, x: (
        L.nn.MultiMarginLoss(p=2)(x, L.tensor(T))
        + L.nn.GaussianNLLLoss()(x, L.tensor(Y), L.tensor(V))
        + L.nn.PoissonNLLLoss()(x, L.tensor(np.abs(Y))) + L.nn.SoftMarginLoss()(x, L.tensor(Y))
        + L.nn.MultiLabelSoftMarginLoss()(x, L.tensor((Y > 0) * 1.0))
        + L.nn.MultiLabelMarginLoss()(x, L.tensor(ML))
        + L.nn.TripletMarginWithDistanceLoss()(x, x * 2, x + 1)),
}


@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name):
    results = []
    for lib in (torch, gradjit):
        x = lib.tensor(X, requires_grad=True)
        out = CASES[name](lib, lib.nn.functional, x)
        weights = lib.arange(1, out.numel() + 1, dtype=out.dtype).reshape(out.shape)
        (out * weights).sum().backward()
        results.append((out.detach().numpy(), x.grad.numpy(), type(out.grad_fn).__name__))
    (want, want_grad, want_node), (got, got_grad, got_node) = results
    assert got_node == want_node
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-10, atol=1e-12)


def test_reprs_match_torch():
    for make in (lambda L: L.nn.TripletMarginWithDistanceLoss(),
                 lambda L: L.nn.MultiMarginLoss(p=2, weight=L.ones(3)),
                 lambda L: L.nn.GaussianNLLLoss(full=True), lambda L: L.nn.PoissonNLLLoss()):
        assert repr(make(gradjit)) == repr(make(torch))


ERRORS = {
    "gauss-negative": lambda L: L.nn.functional.gaussian_nll_loss(L.ones(2), L.ones(2),
                                                                  -L.ones(2)),
    "gauss-negative-float": lambda L: L.nn.functional.gaussian_nll_loss(L.ones(2), L.ones(2),
                                                                        -1.0),
    "gauss-size": lambda L: L.nn.functional.gaussian_nll_loss(L.ones(2, 3), L.ones(2, 3),
                                                              L.ones(3, 2)),
    "gauss-reduction": lambda L: L.nn.functional.gaussian_nll_loss(L.ones(2), L.ones(2),
                                                                   L.ones(2), reduction="x"),
    "poisson-reduction": lambda L: L.nn.functional.poisson_nll_loss(L.ones(2), L.ones(2),
                                                                    reduction="x"),
    "multi-margin-p": lambda L: L.nn.functional.multi_margin_loss(L.ones(2, 3),
                                                                  L.tensor([0, 1]), p=3),
    "multi-margin-module-p": lambda L: L.nn.MultiMarginLoss(p=3),
    "multi-margin-weight": lambda L: L.nn.functional.multi_margin_loss(
        L.ones(2, 3), L.tensor([0, 1]), weight=L.ones(3, 1)),
    "multi-margin-module-weight": lambda L: L.nn.MultiMarginLoss(weight=L.ones(3, 1)),
    "triplet-margin": lambda L: L.nn.TripletMarginWithDistanceLoss(margin=0.0),
    "triplet-margin-functional": lambda L: L.nn.functional.triplet_margin_with_distance_loss(
        L.ones(2, 3), L.ones(2, 3), L.ones(2, 3), margin=-1.0),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def test_multi_margin_target_size_is_checked():
    with pytest.raises(RuntimeError, match="target tensor should be 1-D"):
        gradjit.nn.functional.multi_margin_loss(gradjit.ones(2, 3), gradjit.tensor([0, 1, 2]))
