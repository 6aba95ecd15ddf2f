"""Loss modules and functionals against torch: every reduction, weights, ignored targets,
label smoothing, probability targets, gradients and errors."""
import numpy as np
import pytest

import gradjit
from gradjit import nn
from gradjit.nn import functional as F
from tests.nn.helpers import check, randn, same_error, torch

REDUCTIONS = ["mean", "sum", "none"]
rng = np.random.default_rng(3)
LOGITS = randn(6, 4)
LABELS = np.array([0, 3, 1, 1, 2, 3])
IGNORED = np.array([0, -100, 1, 1, 2, 3])
WEIGHT = np.array([0.5, 2.0, 1.0, 0.25], np.float32)
PROBS = rng.dirichlet(np.ones(4), 6).astype(np.float32)


def pair(name, **kwargs):
    """The gradjit and torch loss modules of one name with the same options."""
    t_kwargs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v
                for k, v in kwargs.items()}
    g_kwargs = {k: gradjit.tensor(v) if isinstance(v, np.ndarray) else v
                for k, v in kwargs.items()}
    return getattr(nn, name)(**g_kwargs), getattr(torch.nn, name)(**t_kwargs)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name, kwargs", [
    ("MSELoss", {}), ("L1Loss", {}), ("HuberLoss", {}), ("HuberLoss", {"delta": 0.3}),
    ("SmoothL1Loss", {"beta": 0.5}), ("SmoothL1Loss", {"beta": 0.0}),
])
def test_regression_losses(name, kwargs, reduction):
    g, t = pair(name, reduction=reduction, **kwargs)
    check(g, t, randn(5, 3), randn(5, 3, seed=1))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kwargs", [{}, {"weight": WEIGHT}, {"ignore_index": -100},
                                    {"ignore_index": 1, "weight": WEIGHT},
                                    {"label_smoothing": 0.2},
                                    {"label_smoothing": 0.1, "weight": WEIGHT},
                                    {"label_smoothing": 0.3, "weight": WEIGHT,
                                     "ignore_index": 3}])
def test_cross_entropy_with_class_indices(kwargs, reduction):
    g, t = pair("CrossEntropyLoss", reduction=reduction, **kwargs)
    labels = IGNORED if kwargs.get("ignore_index") == -100 else LABELS
    check(g, t, LOGITS, labels)
    # (N, C, d) inputs and a single unbatched sample
    check(g, t, randn(2, 4, 3), np.array([[0, 1, 3], [2, 2, 0]]))
    check(g, t, randn(4), np.array(2))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kwargs", [{}, {"weight": WEIGHT}, {"label_smoothing": 0.25},
                                    {"weight": WEIGHT, "label_smoothing": 0.1}])
def test_cross_entropy_with_probabilities(kwargs, reduction):
    g, t = pair("CrossEntropyLoss", reduction=reduction, **kwargs)
    check(g, t, LOGITS, PROBS)
    check(g, t, randn(2, 4, 3), rng.dirichlet(np.ones(4), (2, 3)).astype(np.float32)
          .transpose(0, 2, 1).copy())


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kwargs", [{}, {"weight": WEIGHT}, {"ignore_index": 3}])
def test_nll_loss(kwargs, reduction):
    g, t = pair("NLLLoss", reduction=reduction, **kwargs)
    check(g, t, LOGITS, LABELS)
    check(g, t, randn(2, 4, 3), np.array([[0, 1, 3], [2, 2, 0]]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(reduction):
    probs = rng.uniform(0.05, 0.95, (5, 3)).astype(np.float32)
    targets = rng.uniform(0, 1, (5, 3)).astype(np.float32)
    weight = rng.uniform(0, 2, 3).astype(np.float32)
    for kwargs in ({}, {"weight": weight}):
        check(*pair("BCELoss", reduction=reduction, **kwargs), probs, targets)
    # A certain, wrong prediction costs 100 (the clamped log), not infinity.
    check(*pair("BCELoss", reduction=reduction), np.array([0.0, 1.0], np.float32),
          np.array([1.0, 0.0], np.float32), grads=False)
    logits = randn(5, 3) * 30
    for kwargs in ({}, {"weight": weight}, {"pos_weight": weight},
                   {"weight": weight[::-1].copy(), "pos_weight": weight}):
        check(*pair("BCEWithLogitsLoss", reduction=reduction, **kwargs), logits, targets,
              rtol=1e-5, atol=1e-5)


def test_loss_errors_match_torch():
    x, y = gradjit.tensor(LOGITS), gradjit.tensor(LABELS)
    tx, ty = torch.tensor(LOGITS), torch.tensor(LABELS)
    same_error(lambda: F.cross_entropy(x, y, reduction="avg"),
               lambda: torch.nn.functional.cross_entropy(tx, ty, reduction="avg"))
    same_error(lambda: F.mse_loss(x, x, reduction="avg"),
               lambda: torch.nn.functional.mse_loss(tx, tx, reduction="avg"))
    same_error(lambda: F.cross_entropy(x, y[:3]),
               lambda: torch.nn.functional.cross_entropy(tx, ty[:3]))
    same_error(lambda: F.cross_entropy(x, y + 1),
               lambda: torch.nn.functional.cross_entropy(tx, ty + 1))
    same_error(lambda: F.cross_entropy(x, y, label_smoothing=1.5),
               lambda: torch.nn.functional.cross_entropy(tx, ty, label_smoothing=1.5))
    same_error(lambda: F.binary_cross_entropy(x.sigmoid(), x[:, 0]),
               lambda: torch.nn.functional.binary_cross_entropy(tx.sigmoid(), tx[:, 0]))
    same_error(lambda: F.binary_cross_entropy_with_logits(x, x[:, 0]),
               lambda: torch.nn.functional.binary_cross_entropy_with_logits(tx, tx[:, 0]))
    for target in (tx[:, :2], tx[:, 0], tx[:, 0].double()):
        same_error(lambda: F.cross_entropy(x, gradjit.tensor(target.numpy())),
                   lambda: torch.nn.functional.cross_entropy(tx, target))
