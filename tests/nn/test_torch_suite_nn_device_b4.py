"""Losses other than cross-entropy and NLL as test_nn.py's TestNN and TestNNDeviceType exercise
them on the CPU (smooth L1's beta, Huber's delta, KL's log_target, BCE weights, margin,
multilabel, Poisson and Gaussian NLL, triplet with a distance function): values, gradients,
reprs, warnings and errors compared with torch's."""

import warnings

import pytest

from tests.nn.helpers import same_outcome, uniform


def loss(t, name, shapes, *args, ranges=None, targets=None, dtype="float32", module=False,
         **kwargs):
    """The loss of uniform inputs (floating ones differentiated) with its gradients; `targets`
    replaces the last inputs by given (lib -> tensor) values."""
    ranges = ranges or [(-1.0, 1.0)] * len(shapes)
    xs = [uniform(t, *s, seed=i, low=lo, high=hi, dtype=dtype).requires_grad_()
          for i, (s, (lo, hi)) in enumerate(zip(shapes, ranges))]
    given = [make(t) for make in (targets or ())]
    fn = getattr(t.nn, name)(*args, **kwargs) if module else \
        (lambda *a: getattr(t.nn.functional, name)(*a, *args, **kwargs))
    out = fn(*xs, *given)
    weights = t.linspace(0.5, 1.5, max(out.numel(), 1))[: out.numel()].to(out.dtype)
    (out * weights.reshape(out.shape)).sum().backward()
    return out, [x.grad for x in xs], type(out.grad_fn).__name__


def smooth_l1_vs_huber(t, beta):
    """test_smoothl1loss_vs_huber: smooth L1 with beta is Huber with delta=beta, over beta."""
    x, y = uniform(t, 20), uniform(t, 20, seed=1)
    return t.nn.functional.smooth_l1_loss(x, y, beta=beta), \
        t.nn.functional.huber_loss(x, y, delta=beta) / beta


def warned(t, scenario):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scenario(t)
    return sorted({str(w.message) for w in caught})


def distance(t, a, b):
    return (a - b).abs().sum(-1)


def triplet(t, distance_function=None, **kwargs):
    xs = [uniform(t, 4, 3, seed=i).requires_grad_() for i in range(3)]
    fn = t.nn.TripletMarginWithDistanceLoss(
        distance_function=distance_function and (lambda a, b: distance_function(t, a, b)),
        **kwargs)
    out = fn(*xs)
    out.sum().backward()
    return out, [x.grad for x in xs], repr(fn)


def multilabel(t, target, shape=(2, 4), name="multilabel_margin_loss", **kwargs):
    x = uniform(t, *shape).requires_grad_()
    out = getattr(t.nn.functional, name)(x, t.tensor(target), **kwargs)
    weights = t.linspace(0.5, 1.5, max(out.numel(), 1))[: out.numel()].reshape(out.shape)
    (out * weights).sum().backward()
    return out, x.grad


POSITIVE = [(-1.0, 1.0), (0.05, 1.0)]
PROBABILITIES = [(0.05, 0.95), (0.0, 1.0)]
LABELS = [(-1.0, 1.0), (-1.0, 1.0)]


def target_grads(t, name):
    """test_pointwise_loss_target_grad_none_reduction: the target's gradient too."""
    x, y = uniform(t, 3, 4).requires_grad_(), uniform(t, 3, 4, seed=1).requires_grad_()
    out = getattr(t.nn.functional, name)(x, y, reduction="none")
    out.sum().backward()
    return out, x.grad, y.grad


def broadcast_equals_expanded(t, name):
    """test_pointwise_loss_broadcast: a broadcast target gives the expanded target's loss."""
    x, y = uniform(t, 3, 4), uniform(t, 1, 4, seed=1)
    fn = getattr(t.nn.functional, name)
    return fn(x, y), fn(x, y.expand(3, 4))


SCENARIOS = {
    "smooth_l1_integral_input": lambda t: t.nn.functional.smooth_l1_loss(
        t.ones(3, dtype=t.long), t.ones(3, dtype=t.long)),
    "margin_ranking_dims": lambda t: t.nn.functional.margin_ranking_loss(
        t.ones(3, 2), t.ones(3, 2), t.ones(3)),
    **{
        f"target_grad_{name}": (lambda t, n=name: target_grads(t, n))
        for name in ("l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "kl_div")
    },
    **{
        f"broadcast_{name}": (lambda t, n=name: broadcast_equals_expanded(t, n))
        for name in ("l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss")
    },
    **{
        f"integral_target_{name}": (
            lambda t, n=name: loss(t, n, [(3, 4)], targets=[lambda t: t.ones(3, 4, dtype=t.long)]))
        # (not huber_loss: PyTorch's backward refuses the integral target, its forward not)
        for name in ("l1_loss", "mse_loss", "smooth_l1_loss")
    },
    "cosine_embedding_double": lambda t: loss(t, "cosine_embedding_loss", [(3, 4), (3, 4)],
                                              dtype="float64",
                                              targets=[lambda t: t.tensor([1, -1, 1])]),
    "cosine_embedding_mixed_dtypes": lambda t: t.nn.functional.cosine_embedding_loss(
        uniform(t, 3, 4, dtype="float64"), uniform(t, 3, 4, seed=1), t.tensor([1, -1, 1])),
    "cosine_embedding_3d": lambda t: loss(t, "cosine_embedding_loss", [(2, 3, 4), (2, 3, 4)],
                                          targets=[lambda t: t.ones(2)]),
    "cosine_embedding_batch_mismatch": lambda t: loss(t, "cosine_embedding_loss",
                                                      [(3, 4), (2, 4)],
                                                      targets=[lambda t: t.ones(3)]),
    "cosine_embedding_target_batch": lambda t: loss(t, "cosine_embedding_loss",
                                                    [(3, 4), (3, 4)],
                                                    targets=[lambda t: t.ones(2)]),
    "bce_logits_pos_weight_ones": lambda t: [loss(
        t, "binary_cross_entropy_with_logits", [(3, 4), (3, 4)], ranges=[(-4, 4), (0, 1)],
        **extra)[:2] for extra in ({}, {"pos_weight": t.ones(4)})],
    "multimargin_target_out_of_range": lambda t: loss(t, "multi_margin_loss", [(2, 4)],
                                                      targets=[lambda t: t.tensor([0, 4])]),
    "multimargin_p_bad": lambda t: loss(t, "multi_margin_loss", [(2, 4)], p=0,
                                        targets=[lambda t: t.tensor([0, 1])]),
    "multimargin_3d": lambda t: loss(t, "multi_margin_loss", [(2, 2, 4)],
                                     targets=[lambda t: t.tensor([0, 1])]),
    "multilabel_margin_out_of_range": lambda t: multilabel(t, [[5, 0, -1, 1]], shape=(1, 4)),
    "gaussian_nll_var_shape_bad": lambda t: loss(t, "gaussian_nll_loss", [(3, 4), (3, 4),
                                                                          (3, 2)],
                                                 ranges=POSITIVE + [(0.1, 1)]),
    "gaussian_nll_module_repr": lambda t: repr(t.nn.GaussianNLLLoss(full=True, eps=1e-3)),
    "triplet_bad_reduction": lambda t: triplet(t, reduction="avg"),
    "triplet_margin_with_distance_zero_margin_neg": lambda t: triplet(t, distance, margin=0),
    **{
        f"smooth_l1_beta_{beta}_{reduction}": (
            lambda t, b=beta, r=reduction: loss(t, "smooth_l1_loss", [(3, 5), (3, 5)], beta=b,
                                                reduction=r))
        for beta in (0.0, 0.3, 2.0)
        for reduction in ("none", "mean", "sum")
    },
    "smooth_l1_beta_negative": lambda t: loss(t, "smooth_l1_loss", [(3,), (3,)], beta=-1.0),
    "smooth_l1_vs_huber": lambda t: [smooth_l1_vs_huber(t, b) for b in (0.5, 1.0, 1.5)],
    "smooth_l1_module_repr": lambda t: repr(t.nn.SmoothL1Loss(beta=0.5, reduction="sum")),
    "smooth_l1_broadcast_warn": lambda t: warned(t, lambda t: t.nn.functional.smooth_l1_loss(
        t.ones(3, 1), t.ones(3))),
    **{
        f"huber_delta_{delta}": (
            lambda t, d=delta: loss(t, "huber_loss", [(3, 5), (3, 5)], delta=d,
                                    ranges=[(-3, 3), (-3, 3)]))
        for delta in (0.5, 1.0, 2.5)
    },
    "huber_delta_zero": lambda t: loss(t, "huber_loss", [(3,), (3,)], delta=0.0),
    "huber_delta_negative": lambda t: loss(t, "huber_loss", [(3,), (3,)], delta=-1.0),
    "huber_double_sum": lambda t: loss(t, "huber_loss", [(4, 2), (4, 2)], dtype="float64",
                                       reduction="sum"),
    "huber_module": lambda t: loss(t, "HuberLoss", [(4, 2), (4, 2)], module=True,
                                   reduction="none", delta=0.3),
    "kl_div_log_target": lambda t: loss(t, "kl_div", [(3, 4), (3, 4)], reduction="sum",
                                        log_target=True),
    "kl_div_log_target_none": lambda t: loss(t, "kl_div", [(3, 4), (3, 4)], reduction="none",
                                             log_target=True),
    "kl_div_probability_target": lambda t: loss(t, "kl_div", [(3, 4), (3, 4)],
                                                ranges=[(-3, 0), (0, 1)],
                                                reduction="batchmean"),
    "kl_div_zero_target": lambda t: loss(t, "kl_div", [(3,)], reduction="sum",
                                         targets=[lambda t: t.tensor([0.0, 0.5, 0.5])]),
    "kl_div_log_softmax_both": lambda t: t.nn.functional.kl_div(
        uniform(t, 3, 4).log_softmax(1), uniform(t, 3, 4, seed=1).log_softmax(1),
        reduction="batchmean", log_target=True),
    "kl_div_mean_warns": lambda t: warned(t, lambda t: t.nn.functional.kl_div(
        t.zeros(2, 2), t.ones(2, 2) / 2)),
    "kl_div_module_mean_warns": lambda t: warned(t, lambda t: t.nn.KLDivLoss()(
        t.zeros(2, 2), t.ones(2, 2) / 2)),
    "kl_div_double_target_float_input": lambda t: loss(
        t, "kl_div", [(3,)], reduction="sum",
        targets=[lambda t: t.tensor([0.2, 0.3, 0.5], dtype=t.float64)]),
    "kl_div_module_repr": lambda t: repr(t.nn.KLDivLoss(reduction="batchmean",
                                                         log_target=True)),
    "bce_weight": lambda t: loss(t, "binary_cross_entropy", [(3, 4), (3, 4)],
                                 ranges=PROBABILITIES, weight=t.linspace(0.1, 2, 4)),
    "bce_weight_broadcast_rows": lambda t: loss(t, "binary_cross_entropy", [(3, 4), (3, 4)],
                                                ranges=PROBABILITIES,
                                                weight=t.linspace(0.1, 2, 3).view(3, 1),
                                                reduction="sum"),
    "bce_weight_bad": lambda t: loss(t, "binary_cross_entropy", [(3, 4), (3, 4)],
                                     ranges=PROBABILITIES, weight=t.ones(5)),
    "bce_saturated": lambda t: loss(t, "binary_cross_entropy", [(4,)], reduction="none",
                                    targets=[lambda t: t.tensor([0.0, 1.0, 0.5, 1.0])],
                                    ranges=[(0.0, 1.0)]),
    "bce_exact_zero_and_one": lambda t: t.nn.functional.binary_cross_entropy(
        t.tensor([0.0, 1.0, 0.0, 1.0]), t.tensor([0.0, 1.0, 1.0, 0.0]), reduction="none"),
    "bce_double": lambda t: loss(t, "binary_cross_entropy", [(5,), (5,)],
                                 ranges=PROBABILITIES, dtype="float64"),
    "bce_module_weight": lambda t: loss(t, "BCELoss", [(2, 3), (2, 3)], module=True,
                                        ranges=PROBABILITIES, weight=t.tensor([1.0, 2.0, 3.0])),
    "bce_logits_weight_pos_weight": lambda t: loss(
        t, "binary_cross_entropy_with_logits", [(3, 4), (3, 4)], ranges=[(-4, 4), (0, 1)],
        weight=t.linspace(0.1, 2, 4), pos_weight=t.linspace(3, 0.5, 4)),
    "bce_logits_pos_weight_broadcast": lambda t: loss(
        t, "binary_cross_entropy_with_logits", [(2, 3, 4), (2, 3, 4)],
        ranges=[(-4, 4), (0, 1)], pos_weight=t.ones(3, 1) * 2, reduction="none"),
    "bce_logits_module_repr": lambda t: repr(t.nn.BCEWithLogitsLoss(pos_weight=t.ones(2))),
    "margin_ranking_margin": lambda t: loss(t, "margin_ranking_loss", [(5,), (5,)],
                                            margin=0.3, targets=[
                                                lambda t: t.tensor([1.0, -1, 1, -1, 1])]),
    "margin_ranking_none": lambda t: loss(t, "margin_ranking_loss", [(5,), (5,)],
                                          reduction="none", targets=[
                                              lambda t: t.tensor([1.0, -1, 1, -1, 1])]),
    "margin_ranking_shape": lambda t: loss(t, "margin_ranking_loss", [(5,), (4,)],
                                           targets=[lambda t: t.ones(5)]),
    "hinge_embedding_margin": lambda t: loss(
        t, "hinge_embedding_loss", [(2, 5)], margin=0.5,
        targets=[lambda t: t.tensor([[1.0, -1, 1, -1, 1]] * 2)]),
    "hinge_embedding_none": lambda t: loss(t, "hinge_embedding_loss", [(5,)], reduction="none",
                                           targets=[lambda t: t.tensor([1.0, -1, 1, -1, 1])]),
    "soft_margin_target_requires_grad": lambda t: loss(t, "soft_margin_loss", [(3, 4), (3, 4)],
                                                       reduction="sum", ranges=LABELS),
    "soft_margin": lambda t: loss(t, "soft_margin_loss", [(3, 4)], reduction="sum",
                                  targets=[lambda t: uniform(t, 3, 4, seed=1)]),
    "soft_margin_none": lambda t: loss(t, "soft_margin_loss", [(3, 4)], reduction="none",
                                       targets=[lambda t: t.ones(3, 4) * -1]),
    "cosine_embedding_margin": lambda t: loss(t, "cosine_embedding_loss", [(3, 4), (3, 4)],
                                              margin=0.2, targets=[
                                                  lambda t: t.tensor([1.0, -1, -1])]),
    "cosine_embedding_unbatched": lambda t: loss(t, "cosine_embedding_loss", [(4,), (4,)],
                                                 targets=[lambda t: t.tensor(-1.0)]),
    "cosine_embedding_bad_target": lambda t: loss(t, "cosine_embedding_loss", [(3, 4), (3, 4)],
                                                  targets=[lambda t: t.ones(3, 1)]),
    "cosine_embedding_size_mismatch": lambda t: loss(t, "cosine_embedding_loss",
                                                     [(3, 4), (3, 5)],
                                                     targets=[lambda t: t.ones(3)]),
    "multimargin_p2_margin_weight": lambda t: loss(
        t, "multi_margin_loss", [(3, 4)], p=2, margin=0.7, weight=t.tensor([1.0, 2, 3, 4]),
        targets=[lambda t: t.tensor([0, 3, 1])]),
    "multimargin_unbatched": lambda t: loss(t, "multi_margin_loss", [(4,)],
                                            targets=[lambda t: t.tensor(2)]),
    "multimargin_p3": lambda t: loss(t, "multi_margin_loss", [(3, 4)], p=3,
                                     targets=[lambda t: t.tensor([0, 3, 1])]),
    "multimargin_weight_size": lambda t: loss(t, "multi_margin_loss", [(3, 4)],
                                              weight=t.ones(3),
                                              targets=[lambda t: t.tensor([0, 3, 1])]),
    "multimargin_target_size": lambda t: loss(t, "multi_margin_loss", [(3, 4)],
                                              targets=[lambda t: t.tensor([0, 3])]),
    "multimargin_module_repr": lambda t: repr(t.nn.MultiMarginLoss(p=2, margin=0.5)),
    "multilabel_margin": lambda t: multilabel(t, [[3, 0, -1, 1], [0, 1, 2, 3]]),
    "multilabel_margin_none": lambda t: multilabel(t, [[3, 0, -1, 1], [1, -1, 2, 3]],
                                                   reduction="none"),
    "multilabel_margin_unbatched": lambda t: multilabel(t, [2, 1, -1, 0], shape=(4,)),
    "multilabel_margin_shape": lambda t: multilabel(t, [[3, 0, -1]]),
    "multilabel_margin_3d": lambda t: multilabel(t, [[[3, 0, -1, 1]]], shape=(1, 1, 4)),
    "multilabel_soft_margin_weight": lambda t: multilabel(
        t, [[1.0, 0, 1, 0], [0, 0, 1, 1]], name="multilabel_soft_margin_loss",
        weight=t.tensor([1.0, 2, 0.5, 1])),
    "multilabel_soft_margin_none": lambda t: multilabel(
        t, [[1.0, 0, 1, 0], [0, 0, 1, 1]], name="multilabel_soft_margin_loss",
        reduction="none"),
    "poisson_log_input": lambda t: loss(t, "poisson_nll_loss", [(3, 4), (3, 4)],
                                        ranges=[(-2, 2), (0, 4)]),
    "poisson_full": lambda t: loss(t, "poisson_nll_loss", [(3, 4), (3, 4)], full=True,
                                   ranges=[(-2, 2), (0, 4)], reduction="none"),
    "poisson_not_log": lambda t: loss(t, "poisson_nll_loss", [(3, 4), (3, 4)], log_input=False,
                                      ranges=[(0.0, 2), (0, 4)], eps=1e-3, reduction="sum"),
    "poisson_full_zero_and_one_targets": lambda t: loss(
        t, "poisson_nll_loss", [(4,)], full=True, reduction="none",
        targets=[lambda t: t.tensor([0.0, 1.0, 2.0, 5.0])]),
    "poisson_bad_reduction": lambda t: loss(t, "poisson_nll_loss", [(3,), (3,)],
                                            reduction="avg"),
    "poisson_module_repr": lambda t: repr(t.nn.PoissonNLLLoss(log_input=False, full=True)),
    "gaussian_nll_full_eps": lambda t: loss(t, "gaussian_nll_loss", [(3, 4), (3, 4), (3, 4)],
                                            full=True, eps=0.1, ranges=POSITIVE + [(0.0, 1)]),
    "gaussian_nll_var_one_column": lambda t: loss(
        t, "gaussian_nll_loss", [(3, 4), (3, 4), (3, 1)], ranges=POSITIVE + [(0.1, 1)],
        reduction="none"),
    "gaussian_nll_var_no_last_dim": lambda t: loss(
        t, "gaussian_nll_loss", [(3, 4), (3, 4), (3,)], ranges=POSITIVE + [(0.1, 1)],
        reduction="sum"),
    "gaussian_nll_scalar_var": lambda t: t.nn.functional.gaussian_nll_loss(
        uniform(t, 3), uniform(t, 3, seed=1), 0.5),
    "gaussian_nll_bad_reduction": lambda t: loss(
        t, "gaussian_nll_loss", [(3,), (3,), (3,)], ranges=POSITIVE + [(0.1, 1)],
        reduction="avg"),
    "gaussian_nll_double": lambda t: loss(t, "gaussian_nll_loss", [(5,), (5,), (5,)],
                                          ranges=POSITIVE + [(0.1, 1)], dtype="float64"),
    "triplet_default": lambda t: triplet(t),
    "triplet_distance_swap": lambda t: triplet(t, distance, margin=0.3, swap=True),
    "triplet_cosine_none": lambda t: triplet(
        t, lambda t, a, b: 1 - t.nn.functional.cosine_similarity(a, b), reduction="none"),
    "triplet_margin_negative": lambda t: triplet(t, margin=-1.0),
    "triplet_margin_zero": lambda t: triplet(t, margin=0.0),
    "triplet_functional_pairwise": lambda t: t.nn.functional.triplet_margin_with_distance_loss(
        uniform(t, 4, 3), uniform(t, 4, 3, seed=1), uniform(t, 4, 3, seed=2),
        distance_function=t.nn.PairwiseDistance(), swap=True, reduction="sum"),
    "triplet_margin_loss_p1_swap": lambda t: loss(
        t, "triplet_margin_loss", [(4, 3)] * 3, p=1, swap=True, margin=0.5, eps=1e-3),
    "triplet_margin_loss_unbatched": lambda t: loss(t, "triplet_margin_loss", [(3,)] * 3,
                                                    reduction="none"),
    "triplet_margin_loss_rank_mismatch": lambda t: loss(t, "triplet_margin_loss",
                                                        [(4, 3), (3,), (4, 3)]),
    "l1_double_none": lambda t: loss(t, "l1_loss", [(3, 2), (3, 2)], dtype="float64",
                                     reduction="none"),
    "mse_broadcast_warn": lambda t: warned(t, lambda t: t.nn.functional.mse_loss(
        t.ones(3, 1), t.ones(3))),
    "l1_bad_reduction": lambda t: loss(t, "l1_loss", [(3,), (3,)], reduction="avg"),
    "mse_reduce_legacy": lambda t: warned(t, lambda t: t.nn.MSELoss(reduce=False)),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_loss_scenarios_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_outcome(SCENARIOS[name], rtol=2e-5, atol=2e-6)
