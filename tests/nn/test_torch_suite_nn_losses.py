"""Losses and small layers as PyTorch's own nn tests exercise them (test_nn.py: shape checks,
weights and broadcasting, BCE with logits, Gaussian NLL, KL divergence, CTC lengths, pixel
shuffles, in-place activations): values and weighted-sum gradients compared with torch."""

import warnings

import numpy as np
import pytest

from tests.nn.helpers import same_outcome


def rand(t, *shape, seed=0, shift=0.0):
    """Uniform draws from numpy (the same in both libraries), float32."""
    return t.tensor(np.random.default_rng(seed).random(shape).astype(np.float32) + shift)


def with_grads(t, loss, *inputs, weight=None):
    """loss(*inputs) with its inputs requiring grad: the value and their gradients."""
    leaves = [x.detach().requires_grad_() for x in inputs]
    out = loss(*leaves)
    (out if weight is None else out * weight).sum().backward()
    return out, [x.grad for x in leaves]


def F(t):
    return t.nn.functional


EQUAL_SHAPES = ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss")


def weighted(name, **options):
    def scenario(t):
        x = t.tensor([1.0, 2.0, 3.0, 4.0])
        y = t.tensor([1.5, 2.5, 3.5, 4.5])
        w = t.tensor([1.0, 2.0, 3.0, 4.0])
        return with_grads(t, lambda a: getattr(F(t), name)(a, y, weight=w, **options), x)

    return scenario


def gaussian_parts(t):
    x = t.tensor([[0.5, 1.5, 2.5], [2.0, 4.0, 6.0]])
    full = t.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    part = t.tensor([[1.0, 2.0, 3.0]])
    var_full = t.tensor([[0.5, 0.5, 0.5], [1.5, 1.5, 1.5]])
    var1, var2 = t.tensor([[0.5], [1.5]]), t.tensor([0.5, 1.5])
    g = F(t).gaussian_nll_loss
    return [
        g(x, target, var, reduction="none")
        for target, var in (
            (part, var_full),
            (full, var1),
            (full, var2),
            (part, var1),
            (part, var2),
            (full, 0.5),
        )
    ]


def kl_batchmean(t, log_target):
    p = F(t).log_softmax(rand(t, 2, 5), 1)
    q = (
        F(t).log_softmax(rand(t, 2, 5, seed=1), 1)
        if log_target
        else F(t).softmax(rand(t, 2, 5, seed=1), 1)
    )
    return [
        with_grads(t, lambda a: t.nn.KLDivLoss(reduction=r, log_target=log_target)(a, q), p)
        for r in ("batchmean", "sum", "mean", "none")
    ]


def ctc(t, input_lengths, target_lengths, targets_shape=(3, 29), dtype="long"):
    t.manual_seed(0)
    log_probs = t.randn(50, 3, 15).log_softmax(2)
    targets = t.randint(1, 15, targets_shape, dtype=getattr(t, dtype))
    return F(t).ctc_loss(log_probs, targets, input_lengths(t), target_lengths(t))


def ctc_zero_lengths(t, target_length):
    t.manual_seed(0)
    x = t.randn(1, 3, 20).log_softmax(2).detach()
    targets = t.randint(1, 20, (3, 2), dtype=t.int)
    zeros = t.zeros(3, dtype=t.int)
    return with_grads(
        t,
        lambda a: F(t).ctc_loss(
            a, targets, zeros, t.full((3,), target_length, dtype=t.int), reduction="none"
        ),
        x,
    )


def bce_pair(t, reduction="mean", weight=None, shape=(16, 4), fill=None):
    """BCEWithLogits next to BCE of the sigmoid: values and gradients of both."""
    x = rand(t, *shape, shift=-0.5) if fill is None else t.full(shape, fill)
    target = rand(t, *shape, seed=1) if fill is None else t.zeros(shape)
    w = None if weight is None else rand(t, *weight, seed=2)
    return (
        with_grads(t, lambda a: t.nn.BCEWithLogitsLoss(w, reduction=reduction)(a, target), x),
        with_grads(t, lambda a: t.nn.BCELoss(w, reduction=reduction)(a.sigmoid(), target), x),
    )


def pos_weight(t, shape):
    x, target = rand(t, 64, 4, shift=-0.5), rand(t, 64, 4, seed=1)
    pw = rand(t, 4, seed=3).expand(*shape) if shape else None
    return with_grads(t, lambda a: t.nn.BCEWithLogitsLoss(pos_weight=pw)(a, target), x)


def pixel_round_trip(t, shape, factor):
    x = rand(t, *shape)
    return with_grads(
        t, lambda a: F(t).pixel_unshuffle(F(t).pixel_shuffle(a, factor), factor), x
    ), with_grads(t, lambda a: F(t).pixel_shuffle(a, factor), x)


def inplace_module(t, name):
    t.manual_seed(0)
    x = t.randn(5, 5, requires_grad=True)
    grad = t.randn(5, 5)
    module = getattr(t.nn, name)(inplace=True)
    out = module(x + 0) if name != "RReLU" else module.eval()(x + 0)
    out.backward(grad)
    return out, x.grad, grad


def on_view(t, name):
    v = t.tensor([1.0, -1.0, 1.0, -1.0], dtype=t.float64, requires_grad=True)
    x = v.clone()
    view = x.narrow(0, 1, 2)
    result = getattr(F(t), name)(view, inplace=True)
    (x * t.tensor([1.0, 2.0, 3.0, 4.0], dtype=t.float64)).sum().backward()
    return result is view, x, v.grad


SCENARIOS = {
    **{
        f"{name}_transposed_shapes": (
            lambda t, name=name: getattr(F(t), name)(rand(t, 3, 5), rand(t, 5, 3, seed=1))
        )
        for name in EQUAL_SHAPES
    },
    **{f"weighted_{name}": weighted(name) for name in ("mse_loss", "l1_loss")},
    "weighted_huber_loss": weighted("huber_loss", delta=1.0),
    "gaussian_nll_broadcasting": gaussian_parts,
    "gaussian_nll_var_size": lambda t: F(t).gaussian_nll_loss(
        rand(t, 3, 5), rand(t, 3, 5), t.ones(3, 3)
    ),
    "gaussian_nll_negative_var": lambda t: F(t).gaussian_nll_loss(
        rand(t, 3, 5), rand(t, 3, 5), -t.ones(3, 5)
    ),
    "gaussian_nll_negative_scalar_var": lambda t: F(t).gaussian_nll_loss(
        rand(t, 3, 5), rand(t, 3, 5), -1.0
    ),
    "kl_div_batchmean": lambda t: kl_batchmean(t, False),
    "kl_div_batchmean_log_target": lambda t: kl_batchmean(t, True),
    "ctc_float_input_lengths": lambda t: ctc(
        t, lambda t: t.tensor([50.0, 50, 50]), lambda t: t.tensor([30, 25, 20]), (75,), "int"
    ),
    "ctc_float_target_lengths": lambda t: ctc(
        t, lambda t: t.tensor([50, 50, 50]), lambda t: t.tensor([30.0, 25, 20]), (75,), "int"
    ),
    **{
        f"ctc_lengths_{i}_{j}": (lambda t, i=i, j=j: ctc(t, lambda t: i, lambda t: j))
        for i in ([50, 50, 50], [-1, -1, -1])
        for j in ([30, 25, 20], [-1, -1, -1])
    },
    "ctc_zero_lengths": lambda t: ctc_zero_lengths(t, 0),
    "ctc_zero_input_lengths": lambda t: ctc_zero_lengths(t, 1),
    "bce_nonnegative": lambda t: [t.nn.BCELoss()(v, v) for v in (t.ones(5), t.zeros(5))],
    "bce_logits_sizes": lambda t: t.nn.BCEWithLogitsLoss()(rand(t, 5, 1), rand(t, 5)),
    "bce_logits_sizes_swapped": lambda t: t.nn.BCEWithLogitsLoss()(rand(t, 5), rand(t, 5, 1)),
    "bce_input_below_zero": lambda t: t.nn.BCELoss()(rand(t, 5, 5) - 1.0, rand(t, 5, 5)),
    "bce_input_above_one": lambda t: t.nn.BCELoss()(rand(t, 5, 5) + 1.0, rand(t, 5, 5)),
    "bce_sizes": lambda t: t.nn.BCELoss()(rand(t, 25), rand(t, 25, 1)),
    **{
        f"bce_logits_vs_sigmoid_{r}": (lambda t, r=r: bce_pair(t, r))
        for r in ("mean", "sum", "none")
    },
    "bce_logits_vs_sigmoid_weight": lambda t: bce_pair(t, weight=(4,)),
    "bce_logits_vs_sigmoid_column_weight": lambda t: bce_pair(t, weight=(16, 1)),
    "bce_logits_vs_sigmoid_saturated": lambda t: bce_pair(t, "none", shape=(4, 1), fill=-100.0),
    "bce_logits_grad_at_zero": lambda t: with_grads(
        t, lambda a: t.nn.BCEWithLogitsLoss(reduction="sum")(a, t.zeros(3, 1)), t.zeros(3, 1)
    ),
    "bce_logits_pos_weight_grad_at_zero": lambda t: with_grads(
        t,
        lambda a: t.nn.BCEWithLogitsLoss(pos_weight=t.ones(3, 1), reduction="sum")(
            a, t.zeros(3, 1)
        ),
        t.zeros(3, 1),
    ),
    **{
        f"bce_logits_pos_weight_{len(s)}d": (lambda t, s=s: pos_weight(t, s))
        for s in ((), (4,), (1, 4), (64, 4))
    },
    "bce_logits_stability": lambda t: [
        t.nn.BCEWithLogitsLoss(**kw)(t.tensor([0.0, -120.0]), t.tensor([0.0, 1.0]))
        for kw in ({}, {"pos_weight": t.tensor([1.0, 1.0])})
    ],
    **{
        f"pixel_round_trip_{len(s)}d": (lambda t, s=s: pixel_round_trip(t, s, 3))
        for s in ((18, 4, 5), (2, 18, 4, 5), (2, 1, 9, 3, 2))
    },
    **{
        f"pixel_shuffle_refused_{what}": (lambda t, s=s, f=f: F(t).pixel_shuffle(rand(t, *s), f))
        for what, s, f in (
            ("1d", (8,), 2),
            ("2d", (4, 4), 2),
            ("channels", (5, 4, 4), 2),
            ("zero", (8, 4, 4), 0),
            ("negative", (8, 4, 4), -2),
        )
    },
    **{
        f"pixel_unshuffle_refused_{what}": (
            lambda t, s=s, f=f: F(t).pixel_unshuffle(rand(t, *s), f)
        )
        for what, s, f in (
            ("1d", (8,), 2),
            ("2d", (4, 4), 2),
            ("height", (2, 5, 4), 2),
            ("width", (2, 4, 5), 2),
            ("zero", (2, 4, 4), 0),
            ("negative", (2, 4, 4), -2),
        )
    },
    # (values only: torch's result keeps the channels-last layout, gradjit's is contiguous)
    "pixel_shuffle_channels_last": lambda t: with_grads(
        t,
        lambda a: F(t).pixel_unshuffle(F(t).pixel_shuffle(a, 3), 3),
        rand(t, 3, 18, 4, 4).contiguous(memory_format=t.channels_last),
        weight=rand(t, 3, 18, 4, 4, seed=1),
    ),
    **{
        f"inplace_{name}": (lambda t, name=name: inplace_module(t, name))
        for name in ("ReLU", "ELU", "SELU", "CELU", "RReLU")
    },
    **{
        f"{name}_inplace_on_view": (lambda t, name=name: on_view(t, name))
        for name in ("elu", "relu", "hardtanh")
    },
    "prelu_input_without_grad": lambda t: (
        lambda m, x: (m(x).mean().backward(), x.grad, m.weight.grad)[1:]
    )(t.nn.PReLU(), rand(t, 2, 3, 4, 5)),
    "hardtanh_backward": lambda t: with_grads(
        t, F(t).hardtanh, rand(t, 64, 10, shift=-0.5) * 3, weight=rand(t, 64, 10, seed=1)
    ),
    **{
        f"{mode}_empty_batch": (
            lambda t, mode=mode: (lambda out: (out[0].shape, out[0].sum().backward()))(
                getattr(t.nn, mode)(3, 4)(t.zeros(5, 0, 3))
            )
        )
        for mode in ("RNN", "LSTM", "GRU")
    },
    "threshold_int": lambda t: F(t).threshold(t.tensor([-3, -2, -1, 0, 1, 2, 3]), 0, 99),
    **{
        f"threshold_{dtype}_{v}": (
            lambda t, dtype=dtype, v=v: (
                F(t).threshold((rand(t, 100) - 0.5).to(getattr(t, dtype)), v, 0).float()
            )
        )
        for dtype in ("bfloat16", "half")
        for v in (0, -0.5, 0.5, float("inf"), float("-inf"), float("nan"))
    },
    "pad_scalar": lambda t: F(t).pad(t.tensor(0.0, requires_grad=True), (1, 1)),
    "pad_scalar_odd": lambda t: F(t).pad(t.tensor(0.0, requires_grad=True), (1,)),
    "normalize_scalar": lambda t: with_grads(
        t, lambda a: F(t).normalize(a, p=1, dim=-1), t.tensor(0.7)
    ),
    "normalize_dims": lambda t: [
        with_grads(
            t,
            lambda a: F(t).normalize(a, p=p, dim=d),
            rand(t, 1, 3, 4, 4).double(),
            weight=rand(t, 1, 3, 4, 4, seed=1).double(),
        )
        for p, d in ((1, -1), (2, -2))
    ],
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_losses_and_layers_match_torch(name):
    same_outcome(SCENARIOS[name], rtol=1e-5, atol=1e-6)


WEIGHTED = {
    f"{name}_{reduction}_{legacy}": (
        lambda t, name=name, reduction=reduction, legacy=legacy: with_grads(
            t,
            lambda a, w: getattr(F(t), name)(
                a,
                rand(t, 2, 3, seed=1),
                reduction=reduction,
                weight=w,
                **({"size_average": False} if legacy and name != "huber_loss" else {}),
            ),
            rand(t, 2, 3),
            rand(t, 2, 3, seed=2),
        )
    )
    for name in ("mse_loss", "l1_loss", "huber_loss")
    for reduction in ("none", "sum", "mean", "batchmean")
    for legacy in (False, True)
}
WEIGHTED.update(
    {
        f"{name}_weight_shape": (
            lambda t, name=name: getattr(F(t), name)(rand(t, 2, 3), rand(t, 3), weight=t.ones(3))
        )
        for name in ("mse_loss", "l1_loss", "huber_loss")
    }
)


@pytest.mark.parametrize("name", WEIGHTED)
def test_weighted_pointwise_losses_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the legacy flag and broadcasting warn in both
        same_outcome(WEIGHTED[name], rtol=1e-6, atol=1e-7)
