"""Operators written as PyTorch's C++ composites (special.ndtr, round with decimals, nanmean,
the losses on Scalar overloads, instance/local-response norm, prelu) against PyTorch: values,
gradients and errors, which their torch-shaped graphs must leave unchanged."""
import numpy as np
import pytest

from tests.signal.side_by_side import same, torch

import gradjit

rng = np.random.default_rng(1)
A, B = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
SIGNS = np.where(rng.standard_normal(4) > 0, 1.0, -1.0)


def values_and_gradients(expr, *arrays, names=None):
    """expr's value and the gradients of a weighted sum of it, in each library."""
    results = []
    for lib in (torch, gradjit):
        leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
        scope = {"t": lib, "F": lib.nn.functional, **dict(zip("abc", leaves)), **(names or {})}
        scope.update({k: lib.tensor(v) for k, v in (names or {}).items()
                      if isinstance(v, np.ndarray)})
        out = eval(expr, scope)
        weights = lib.tensor(np.linspace(0.5, 1.5, max(out.numel(), 1))[:out.numel()]
                             .reshape(tuple(out.shape)))
        (out * weights).sum().backward()
        results.append((out.detach().numpy(), [x.grad for x in leaves]))
    (g_out, g_grads), (t_out, t_grads) = results[1], results[0]
    np.testing.assert_allclose(g_out, t_out, rtol=1e-10, atol=1e-12)
    for g, t in zip(g_grads, t_grads):
        assert (g is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16", "int64"])
def test_ndtr_as_torch_composite(dtype):
    x = np.linspace(-40, 40, 401)
    if dtype != "int64":
        x = np.concatenate([x, [np.inf, -np.inf, np.nan]])
    same(f"t.special.ndtr(t.tensor(x).to(t.{dtype}))", tol=1e-6, x=x)
    values_and_gradients("t.special.ndtr(a)", x[:-3])


@pytest.mark.parametrize("expr", [
    "t.round(t.tensor([1, 2]), decimals=0)", "t.tensor([True]).round(decimals=0)",
    "t.round(t.tensor([1, 2]))", "t.round(x, decimals=0)", "t.round(x)", "x.round(decimals=2)",
    "x.to(t.float16).round(decimals=0)", "x.clone().round_(decimals=0)",
])
def test_round_overloads_as_torch(expr):
    same(expr, x=np.array([2.5, 0.5, -1.5, 1.2345]))


@pytest.mark.parametrize("expr", [
    "x.nanmean()", "x.nanmean(1, keepdim=True)", "x.nanmean(dtype=t.float32)",
    "t.nanmean(x, (0, 1))", "x.to(t.complex128).nanmean()", "x.to(t.complex128).nansum()",
    "t.tensor([1, 2]).nanmean(dtype=t.float64)", "t.ones(0, 3).nanmean(0)",
    "x.to(t.float16).nanmean()",
])
def test_nan_reductions_as_torch(expr):
    x = A.copy()
    x[0, 1] = x[2, :] = np.nan
    same(expr, x=x)


def test_nanmean_gradient_as_torch():
    values_and_gradients("a.nanmean(1)", np.where(A > 1, np.nan, A))


LOSSES = [
    "F.margin_ranking_loss(a[0], b[0], t.tensor(np.sign(A[1])), margin=0.3)",
    "F.hinge_embedding_loss(a, t.tensor(np.sign(B)), margin=0.7, reduction='sum')",
    "F.cosine_embedding_loss(a, b, signs, margin=0.2, reduction='none')",
    "F.triplet_margin_loss(a, b, a.flip(0), margin=0.5)",
    "F.triplet_margin_loss(a, b, a.flip(0), margin=2.0, p=1, swap=True, reduction='none')",
    "F.poisson_nll_loss(a, b.abs(), full=True, reduction='none')",
    "F.poisson_nll_loss(a.abs(), b.abs(), log_input=False, full=True)",
    "F.gaussian_nll_loss(a, b, (a * 0.3).abs(), full=True)",
    "F.gaussian_nll_loss(a, b, a[:, 0].abs(), eps=0.1, reduction='sum')",
    "F.rms_norm(a, (5,), eps=0.5)", "F.rms_norm(a, (4, 5), b)",
    "F.cross_entropy(a, b.softmax(1))", "F.cross_entropy(a, b.softmax(1), reduction='sum')",
    "F.cross_entropy(a, b.softmax(1), weight=t.tensor(np.arange(1.0, 6.0)), "
    "label_smoothing=0.2)",
    "F.cross_entropy(a.reshape(2, 5, 2), b.reshape(2, 5, 2).softmax(1), reduction='none')",
    "F.cross_entropy(a.reshape(2, 2, 5), t.tensor([[0, 1, 1, 1, 0], [1, 1, 0, 0, 1]]))",
    "F.nll_loss(a.reshape(1, 4, 5), t.tensor([[0, 3, 2, 1, 0]]), reduction='none')",
    "F.nll_loss(a.reshape(1, 2, 1, 2, 5), t.tensor([[[[0, 1, 1, 0, 1], [1, 0, 0, 1, 1]]]]), "
    "weight=t.tensor([0.3, 2.0], dtype=t.float64), ignore_index=0)",
    "F.instance_norm(a.reshape(2, 2, 5), weight=b[0, :2], bias=b[1, :2])",
    "F.local_response_norm(a.reshape(1, 4, 5), 3, alpha=0.5, k=2.0)",
    "F.local_response_norm(a.reshape(1, 4, 5, 1), 2)",
    "F.local_response_norm(a.reshape(1, 2, 2, 5, 1), 3, beta=0.5)",
    "F.prelu(a[0, 0], b[0, :1])", "F.prelu(a.reshape(2, 2, 5), b[0, :2])",
]


@pytest.mark.parametrize("expr", LOSSES)
def test_composites_values_and_gradients_as_torch(expr):
    values_and_gradients(expr, A, B, names={"np": np, "signs": SIGNS, "A": A, "B": B})


def test_empty_cross_entropy_with_probabilities_is_nan():
    same("t.nn.functional.cross_entropy(t.zeros(0, 3), t.zeros(0, 3))")


def test_instance_norm_moves_running_statistics_as_torch():
    stats = []
    for lib in (torch, gradjit):
        mean, var = lib.zeros(2), lib.ones(2)
        lib.nn.functional.instance_norm(lib.tensor(A.reshape(2, 2, 5)), mean, var,
                                        momentum=0.3)
        stats.append(np.concatenate([mean.numpy(), var.numpy()]))
    np.testing.assert_allclose(stats[1], stats[0], rtol=1e-6)
