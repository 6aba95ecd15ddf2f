"""nn.functional as PyTorch's own nn tests exercise it (test_nn.py: batch norm checks,
distances, cosine and margin losses, grid sampling and affine grids): values and
weighted-sum gradients compared with torch, or the same error or warning."""

import warnings

import numpy as np
import pytest

from tests.nn.helpers import same_outcome


def F(t):
    return t.nn.functional


def draw(t, *shape, seed=0, dtype="float64"):
    """Normal draws from numpy (the same in both libraries)."""
    values = np.random.default_rng(seed).standard_normal(shape)
    return t.tensor(values, dtype=getattr(t, dtype))


def with_grads(t, fn, *inputs):
    """fn(*inputs) and the gradients of its weighted sum with respect to the inputs."""
    leaves = [x.detach().requires_grad_() for x in inputs]
    out = fn(*leaves)
    weights = t.linspace(0.5, 1.5, max(out.numel(), 1), dtype=t.float64)[: out.numel()]
    (out * weights.reshape(out.shape).to(out.dtype)).sum().backward()
    return out, [x.grad for x in leaves]


def batch_norm_sizes(t, which, size):
    args = {"running_mean": t.ones(10), "running_var": t.ones(10)}
    args[which] = t.ones(size) if which.startswith("running") else t.nn.Parameter(t.ones(size))
    return F(t).batch_norm(t.ones(2, 10), args.pop("running_mean"), args.pop("running_var"), **args)


def untracked_buffers(t):
    bn = t.nn.BatchNorm1d(4, track_running_stats=True)
    bn.track_running_stats = False
    before = [b.clone() for b in bn.buffers()]
    out = bn(draw(t, 32, 4, dtype="float32"))
    return out, before, list(bn.buffers())


def batches_tracked(t):
    bn = t.nn.BatchNorm2d(3)
    seen = [bn.state_dict()["num_batches_tracked"]]
    bn.num_batches_tracked = t.tensor(10)
    seen.append(bn.state_dict()["num_batches_tracked"])
    bn.load_state_dict({}, strict=False)
    return seen + [bn.state_dict()["num_batches_tracked"]]


def mixed_dtypes(t, fn, make, dtypes):
    values = [fn(*(x.to(getattr(t, d)) for x, d in zip(make(t), combo))).item() for combo in dtypes]
    return t.tensor(values, dtype=t.float64)


COSINE_PAIRS = lambda t: (  # noqa: E731
    t.tensor([[2, 3, 4], [6, 2, 4]], dtype=t.double),
    t.tensor([[2, 3, 5], [3, 2, 1]], dtype=t.double),
    t.tensor([1, -1], dtype=t.int),
)
KL_PAIRS = lambda t: (  # noqa: E731
    t.tensor([[2, 3, 5], [3, 2, 1]], dtype=t.double),
    t.tensor([[1, 2, 3], [4, 5, 6]], dtype=t.double),
)
REAL = ("float32", "float64", "int64", "int32", "int16", "float16", "bfloat16")


def cosine_zero_gradient(t):
    x = draw(t, 10).requires_grad_()
    y = t.zeros_like(x).requires_grad_()
    t.cosine_similarity(x, y, 0).sum().backward()
    return x.grad, y.grad


def margins(t, name, **options):
    x1, x2 = draw(t, 15) * 10, draw(t, 15, seed=1) * 10
    target = draw(t, 15, seed=2).sign()
    return with_grads(t, lambda a, b: getattr(F(t), name)(a, b, target, **options), x1, x2)


def triplet(t, **options):
    return with_grads(
        t,
        lambda a, p, n: F(t).triplet_margin_loss(a, p, n, **options),
        draw(t, 5, 10),
        draw(t, 5, 10, seed=1),
        draw(t, 5, 10, seed=2),
    )


def pointwise_broadcast(t, name, reduction, target_grad):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the broadcast warns in both
        x, y = draw(t, 2, 1), draw(t, 2, 10, seed=1)
        if target_grad:
            return with_grads(t, lambda a, b: getattr(F(t), name)(a, b, reduction=reduction), x, y)
        return with_grads(t, lambda a: getattr(F(t), name)(a, y, reduction=reduction), x)


def smooth_l1_integer_target(t, dtype, reduction):
    x = draw(t, 2, 2, dtype="float32")
    target = t.tensor([[1, 5], [0, 8]], dtype=getattr(t, dtype))
    return with_grads(t, lambda a: F(t).smooth_l1_loss(a, target, reduction=reduction, beta=0.5), x)


def grid_sample_error(t, input_shape, grid_shape, **options):
    return F(t).grid_sample(
        t.zeros(input_shape), t.zeros(grid_shape), align_corners=False, **options
    )


def affine_warnings(t, theta_shape, size, align_corners):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F(t).affine_grid(t.zeros(theta_shape, dtype=t.double), size, align_corners=align_corners)
    return [str(w.message) for w in caught]


def sampled(t, mode, padding_mode, align_corners, order, sizes, input_grad=True):
    """grid_sample on a grid laid out in memory in `order` (test_nn.py's contiguity orders)."""
    n, c, ih, iw, h, w = sizes
    shape = [n, h, w, 2]
    grid = draw(t, *(shape[d] for d in order), seed=1).permute(*np.argsort(order)) * 1.2
    x = draw(t, c, n, ih, iw).transpose(0, 1)
    if not input_grad:
        return with_grads(
            t,
            lambda g: F(t).grid_sample(
                x, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners
            ),
            grid,
        )
    return with_grads(
        t,
        lambda a, g: F(t).grid_sample(
            a, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners
        ),
        x,
        grid,
    )


SCENARIOS = {
    "batch_norm_one_value_per_channel": lambda t: t.nn.BatchNorm1d(10)(t.ones(1, 10, 1)),
    **{
        f"batch_norm_{which}_{size}": (
            lambda t, which=which, size=size: batch_norm_sizes(t, which, size)
        )
        for which in ("running_mean", "running_var", "weight", "bias")
        for size in (9, 11)
    },
    "batch_norm_untracked_buffers": untracked_buffers,
    "batch_norm_batches_tracked": batches_tracked,
    "pairwise_distance": lambda t: with_grads(
        t, F(t).pairwise_distance, draw(t, 4, 4), draw(t, 4, 4, seed=1)
    ),
    **{
        f"pdist_{p}_{'t' if trans else 'n'}": (
            lambda t, p=p, trans=trans: with_grads(
                t, lambda x: F(t).pdist(x, p), draw(t, 5, 4).t() if trans else draw(t, 4, 5)
            )
        )
        for p in (0, 1, 2, 0.5, 1.5, 2.5, float("inf"))
        for trans in (False, True)
    },
    **{
        f"pdist_equal_rows_{p}": (
            lambda t, p=p: with_grads(t, lambda x: F(t).pdist(x, p), draw(t, 1, 3).repeat(2, 1))
        )
        for p in (1, 2, 0.5, 1.5, 2.5, float("inf"))
    },
    "pdist_one_row": lambda t: with_grads(t, F(t).pdist, draw(t, 1, 3)),
    "pdist_no_columns": lambda t: with_grads(t, F(t).pdist, draw(t, 4, 0)),
    "pdist_long": lambda t: with_grads(t, lambda x: t.pdist(x, p=2), draw(t, 200, 1)),
    "cosine_embedding_mixed_dtypes": lambda t: mixed_dtypes(
        t,
        F(t).cosine_embedding_loss,
        COSINE_PAIRS,
        [(a, b, c) for a in REAL[:4] for b in REAL[:4] for c in ("int64", "int8", "float32")],
    ),
    "cosine_embedding_empty_shapes": lambda t: F(t).cosine_embedding_loss(
        t.zeros(0, 0, dtype=t.double), t.zeros(0, dtype=t.double), t.zeros(0, dtype=t.int)
    ),
    "cosine_embedding_unexpandable": lambda t: F(t).cosine_embedding_loss(
        t.zeros(1, 5, dtype=t.double), t.zeros(1, 6, dtype=t.double), t.ones(1, dtype=t.int)
    ),
    "cosine_embedding_2d_target": lambda t: F(t).cosine_embedding_loss(
        draw(t, 15, 10), draw(t, 15, 10), draw(t, 15, 1).sign()
    ),
    "cosine_embedding_1d_inputs": lambda t: F(t).cosine_embedding_loss(
        draw(t, 10), draw(t, 10), draw(t, 10)
    ),
    "cosine_embedding_0d_target": lambda t: F(t).cosine_embedding_loss(
        draw(t, 2, 5), draw(t, 2, 5), draw(t)
    ),
    "cosine_embedding_none": lambda t: (
        margins(t, "cosine_embedding_loss", reduction="none")
        if False
        else with_grads(
            t,
            lambda a, b: F(t).cosine_embedding_loss(
                a, b, draw(t, 15, seed=2).sign(), reduction="none"
            ),
            draw(t, 15, 10),
            draw(t, 15, 10, seed=1),
        )
    ),
    "cosine_embedding_margin": lambda t: with_grads(
        t,
        lambda a, b: F(t).cosine_embedding_loss(
            a, b, draw(t, 15, seed=2).sign(), margin=0.5, reduction="none"
        ),
        draw(t, 15, 10),
        draw(t, 15, 10, seed=1),
    ),
    "kl_div_mixed_dtypes": lambda t: mixed_dtypes(
        t,
        F(t).kl_div,
        KL_PAIRS,
        [(a, b) for a in ("float32", "float64", "float16") for b in ("float32", "float64")],
    ),
    "kl_div_mixed_dtypes_log_target": lambda t: mixed_dtypes(
        t,
        lambda a, b: F(t).kl_div(a, b.log(), log_target=True),
        KL_PAIRS,
        [(a, b) for a in ("float32", "float64", "float16") for b in ("float32", "float64")],
    ),
    "kl_div_log_softmax_target": lambda t: F(t).kl_div(
        F(t).log_softmax(t.tensor([[1.0, 2, 3], [5.0, 5, 5]]), 1),
        F(t).log_softmax(t.tensor([[1.0, 2, 3], [5.0, 5, 5]]), 1),
        reduction="none",
        log_target=True,
    ),
    "margin_ranking_none": lambda t: margins(t, "margin_ranking_loss", reduction="none"),
    "margin_ranking_margin": lambda t: margins(
        t, "margin_ranking_loss", margin=0.5, reduction="none"
    ),
    "triplet_margin": lambda t: triplet(t),
    "triplet_margin_swap": lambda t: triplet(t, swap=True),
    "triplet_margin_none": lambda t: triplet(t, reduction="none"),
    "triplet_margin_swap_none": lambda t: triplet(t, swap=True, reduction="none"),
    "pointwise_target_requires_grad": lambda t: [
        getattr(F(t), n)(
            draw(t, 5, 10), draw(t, 5, 10, seed=1).requires_grad_(), reduction="none"
        ).shape
        for n in ("mse_loss", "l1_loss")
    ],
    **{
        f"{name}_broadcast_{r}_{g}": (
            lambda t, name=name, r=r, g=g: pointwise_broadcast(t, name, r, g)
        )
        for name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss")
        for r in ("none", "mean", "sum")
        for g in (True, False)
    },
    "l1_loss_large": lambda t: (lambda x: (t.nn.L1Loss()(x, t.zeros_like(x)), x.abs().mean()))(
        draw(t, 3, 3, 64, 64, dtype="float32")
    ),
    "l1_loss_complex": lambda t: t.nn.L1Loss()(
        t.complex(draw(t, 3, 4), draw(t, 3, 4, seed=1)), t.zeros(3, 4, dtype=t.complex128)
    ),
    **{
        f"smooth_l1_{dtype}_target_{r}": (
            lambda t, dtype=dtype, r=r: smooth_l1_integer_target(t, dtype, r)
        )
        for dtype in ("uint8", "int8", "int16", "int32", "int64")
        for r in ("none", "sum", "mean")
    },
    "smooth_l1_negative_beta": lambda t: F(t).smooth_l1_loss(t.ones(2, 2), t.ones(2, 2), beta=-1.0),
    **{
        f"HuberLoss_delta_{d}": (lambda t, d=d: t.nn.HuberLoss(delta=d)(t.ones(2, 2), t.ones(2, 2)))
        for d in (-0.5, 0.0)
    },
    "cosine_similarity_shape": lambda t: (
        F(t).cosine_similarity(draw(t, 1, 3, 2, 1), draw(t, 1, 3, 2, 1, seed=1), dim=1).shape
    ),
    "cosine_similarity_precision": lambda t: F(t).cosine_similarity(
        t.arange(84.0).unsqueeze(0), t.arange(84.0).unsqueeze(0)
    ),
    "cosine_similarity_zero_gradient": cosine_zero_gradient,
    "cosine_similarity_int8": lambda t: F(t).cosine_similarity(
        t.tensor(12.0).to(t.int8), t.tensor(12.0), dim=-1
    ),
    "cosine_similarity_broadcast": lambda t: [
        F(t).cosine_similarity(t.ones(2, 3), t.ones(*s)) for s in ((1, 1), (1,))
    ],
    "grid_sample_ok": lambda t: grid_sample_error(t, (1, 1, 2, 2), (1, 1, 1, 2)).shape,
    "grid_sample_mode": lambda t: grid_sample_error(t, (1, 1, 2, 2), (1, 1, 1, 2), mode="garbage"),
    "grid_sample_padding_mode": lambda t: grid_sample_error(
        t, (1, 1, 2, 2), (1, 1, 1, 2), padding_mode="garbage"
    ),
    "grid_sample_3d_input": lambda t: grid_sample_error(t, (1, 2, 2), (1, 1, 1, 2)),
    "grid_sample_5d_grid": lambda t: grid_sample_error(t, (1, 1, 2, 2), (1, 1, 1, 1, 3)),
    "grid_sample_batch": lambda t: grid_sample_error(t, (1, 1, 2, 2), (2, 1, 1, 2)),
    "grid_sample_grid_last": lambda t: grid_sample_error(t, (1, 1, 2, 2), (1, 1, 1, 3)),
    "grid_sample_empty_input": lambda t: grid_sample_error(t, (1, 1, 0, 2), (1, 1, 1, 2)),
    "grid_sample_bicubic_5d": lambda t: F(t).grid_sample(
        t.zeros(1, 1, 2, 2, 2), t.zeros(1, 1, 1, 1, 3), mode="bicubic"
    ),
    **{
        f"affine_grid_{d}d_{what}": (
            lambda t, d=d, shape=shape: (
                F(t)
                .affine_grid(
                    t.zeros(shape, dtype=t.double if what != "int" else t.int),
                    (1, 1, 2, 2) if d == 2 else (1, 1, 2, 2, 2),
                    align_corners=False,
                )
                .shape
            )
        )
        for d, cases in (
            (
                2,
                {
                    "ok": (1, 2, 3),
                    "int": (1, 2, 3),
                    "2d_theta": (2, 3),
                    "4d_theta": (1, 1, 2, 3),
                    "rows": (1, 4, 3),
                    "cols": (1, 2, 6),
                },
            ),
            (
                3,
                {
                    "ok": (1, 3, 4),
                    "2d_theta": (3, 4),
                    "4d_theta": (1, 1, 3, 4),
                    "rows": (1, 6, 4),
                    "cols": (1, 3, 8),
                },
            ),
        )
        for what, shape in cases.items()
    },
    **{
        f"affine_grid_size_{len(s)}d": (
            lambda t, s=s: F(t).affine_grid(
                t.zeros(1, 3, 4, dtype=t.double), s, align_corners=False
            )
        )
        for s in ((1, 2, 2), (1, 1, 2, 2, 2, 2))
    },
    **{
        f"affine_grid_warns_{d}d_{ac}": (
            lambda t, d=d, ac=ac: affine_warnings(
                t, (1, d, d + 1), (1, 1, 2, 1) if d == 2 else (1, 1, 3, 2, 1), ac
            )
        )
        for d in (2, 3)
        for ac in (False, True)
    },
    **{
        f"affine_grid_backward_{nd}d": (
            lambda t, nd=nd: with_grads(
                t,
                lambda th: F(t).affine_grid(
                    th, [6, 3, 4, 5] if nd == 2 else [6, 3, 4, 5, 5], align_corners=False
                ),
                draw(t, 6, nd, nd + 1),
            )
        )
        for nd in (2, 3)
    },
}
SAMPLING = {
    f"{mode}_{pad}_{int(ac)}_{''.join(map(str, order))}_{kind}": (
        lambda t, args=(mode, pad, ac, order, sizes, grad): sampled(t, *args)
    )
    for mode in ("bilinear", "nearest", "bicubic")
    for pad in ("zeros", "border", "reflection")
    for ac in (False, True)
    for order in ((0, 1, 2, 3), (0, 3, 1, 2), (3, 0, 1, 2), (0, 2, 1, 3))
    for kind, sizes, grad in (
        ("same", (2, 3, 4, 5, 4, 5), True),
        ("larger", (2, 2, 3, 3, 5, 6), False),
        ("one_pixel", (2, 2, 1, 1, 3, 2), True),
    )
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_functional_matches_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (warnings are compared where they are the point)
        same_outcome(SCENARIOS[name], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", SAMPLING)
def test_grid_sample_matches_torch(name):
    same_outcome(SAMPLING[name], rtol=1e-9, atol=1e-10)


def known_grid(t, mode, pad, ac):
    """test_nn.py's fixed input and grid (points outside, on and between pixels)."""
    x = t.arange(1.0, 11).view(1, 1, 2, 5)
    grid = t.tensor(
        [
            [[-0.9, -4.1], [0, 0.2], [1, -1], [-0.333, 1e-6], [0.5, 1.0]],
            [[-1.0, -0.5], [0, 0.3333], [1, -1], [-0.2, 1e-6], [1.5, 0.5]],
        ]
    ).view(1, 2, 5, 2)
    return F(t).grid_sample(x, grid, mode=mode, padding_mode=pad, align_corners=ac)


def edge_gradients(t, mode, pad, ac, input_grad):
    x = t.arange(0.0, 5).expand((1, 1, 5, 5)).requires_grad_(input_grad)
    grid = (
        t.tensor(
            [
                [[1.0, 1.0], [1.0, -1.0], [0.8, 0.8], [0.8, -0.8]],
                [[-1.0, -1.0], [-1.0, 1.0], [-0.8, -0.8], [-0.8, 0.8]],
            ]
        )
        .view(1, 2, 4, 2)
        .requires_grad_()
    )
    F(t).grid_sample(x, grid, mode=mode, padding_mode=pad, align_corners=ac).sum().backward()
    return grid.grad, x.grad


def sampled_3d(t, mode, pad, ac, sizes):
    n, c, d, h, w, od, oh, ow = sizes
    x = draw(t, c, n, d, h, w).transpose(0, 1)
    grid = draw(t, od, n, oh, ow, 3, seed=1).transpose(0, 1)
    return with_grads(
        t,
        lambda a, g: F(t).grid_sample(a, g, mode=mode, padding_mode=pad, align_corners=ac),
        x,
        grid,
    )


def nearest_rounding(t, pad, ac):
    """The nearest pixel of points at x.0 and x.5 along each axis of 2-d and 3-d inputs."""
    steps = t.arange(0, 9.1, 0.1, dtype=t.float32)
    coords = 2 * steps / 9 - 1 if ac else (steps * 2 + 1) / 10 - 1
    fixed = t.full(coords.shape, 0.5)
    data = t.tensor(np.random.default_rng(0).random(10).astype(np.float32))
    x2 = data.reshape(1, 10).repeat(1, 1, 9, 1)
    g2 = t.stack([coords, fixed], 1).reshape(1, 1, -1, 2)
    x3 = data.reshape(1, 10).repeat(1, 1, 9, 9, 1)
    g3 = t.stack([coords, fixed, fixed], 1).reshape(1, 1, 1, -1, 3)
    options = {"mode": "nearest", "padding_mode": pad, "align_corners": ac}
    return (
        F(t).grid_sample(x2, g2, **options),
        F(t).grid_sample(x2.transpose(3, 2), g2[..., [1, 0]], **options),
        F(t).grid_sample(x3, g3, **options),
        F(t).grid_sample(x3.transpose(4, 2), g3[..., [1, 2, 0]], **options),
    )


def upsample_linear(t, ac, recompute, scale):
    up = t.nn.Upsample(
        scale_factor=scale, mode="linear", align_corners=ac, recompute_scale_factor=recompute
    )
    x = draw(t, 1, 1, 2)
    return up(t.ones(1, 1, 2)), with_grads(t, up, x)


def invariance(t, mode, dims):
    x = t.zeros((1, 1) + (9,) * dims)
    x[(..., *(slice(0, 4),) * dims)] = draw(t, *(4,) * dims, dtype="float32")
    up = t.nn.Upsample(scale_factor=3, mode=mode, align_corners=False)
    return up(x), up(x[(..., *(slice(0, 5),) * dims)])


def upsample_low_precision(t, size, scale, mode, layout=None):
    x = draw(t, *size, dtype="float32")
    if layout:
        x = x.contiguous(memory_format=getattr(t, layout))
    return with_grads(t, t.nn.Upsample(scale_factor=scale, mode=mode), x.to(t.bfloat16))


MORE = {
    **{
        f"grid_known_{mode}_{pad}_{int(ac)}": (lambda t, a=(mode, pad, ac): known_grid(t, *a))
        for mode in ("bilinear", "nearest", "bicubic")
        for pad in ("zeros", "border", "reflection")
        for ac in (True, False)
    },
    **{
        f"grid_edge_{mode}_{pad}_{int(ac)}_{int(g)}": (
            lambda t, a=(mode, pad, ac, g): edge_gradients(t, *a)
        )
        for mode in ("bilinear", "nearest", "bicubic")
        for pad in ("zeros", "border", "reflection")
        for ac in (True, False)
        for g in (False, True)
    },
    **{
        f"grid_3d_{mode}_{pad}_{int(ac)}_{kind}": (
            lambda t, a=(mode, pad, ac, sizes): sampled_3d(t, *a)
        )
        for mode in ("bilinear", "nearest")
        for pad in ("zeros", "border", "reflection")
        for ac in (True, False)
        for kind, sizes in (
            ("same", (2, 2, 3, 3, 4, 3, 3, 4)),
            ("larger", (2, 2, 2, 2, 3, 3, 4, 4)),
            ("one_voxel", (2, 2, 1, 1, 1, 2, 3, 2)),
            ("empty_grid", (2, 2, 3, 3, 3, 3, 0, 3)),
            ("empty_channels", (2, 0, 3, 3, 3, 3, 3, 3)),
            ("empty_batch", (0, 2, 3, 3, 3, 3, 3, 3)),
        )
    },
    **{
        f"grid_2d_empty_{what}": (
            lambda t, sizes=sizes: sampled(t, "bilinear", "zeros", False, (0, 1, 2, 3), sizes)
        )
        for what, sizes in (
            ("grid", (2, 3, 4, 5, 0, 4)),
            ("channels", (2, 0, 4, 5, 3, 4)),
            ("batch", (0, 3, 4, 5, 3, 4)),
        )
    },
    **{
        f"grid_nearest_rounding_{pad}_{int(ac)}": (
            lambda t, pad=pad, ac=ac: nearest_rounding(t, pad, ac)
        )
        for pad in ("zeros", "border", "reflection")
        for ac in (True, False)
    },
    **{
        f"affine_grid_known_{d}d_{int(ac)}": (
            lambda t, d=d, ac=ac: with_grads(
                t,
                lambda th: F(t).affine_grid(
                    th, (1, 1, 2, 2) if d == 2 else (1, 1, 2, 2, 2), align_corners=ac
                ),
                t.arange(1.0, 7 if d == 2 else 13, dtype=t.float64).view(1, d, d + 1),
            )
        )
        for d in (2, 3)
        for ac in (True, False)
    },
    **{
        f"affine_grid_random_{d}d_{int(ac)}": (
            lambda t, d=d, ac=ac: with_grads(
                t,
                lambda th: F(t).affine_grid(
                    th, (3, 2, 4, 5) if d == 2 else (3, 2, 3, 4, 5), align_corners=ac
                ),
                draw(t, 3, d, d + 1),
            )
        )
        for d in (2, 3)
        for ac in (True, False)
    },
    "channel_shuffle_empty": lambda t: t.nn.ChannelShuffle(3)(t.zeros(0, 9, 4, 4)).shape,
    "native_channel_shuffle_empty": lambda t: (
        t.native_channel_shuffle(t.zeros(0, 9, 4, 4), 3).shape
    ),
    "channel_shuffle_zero_groups": lambda t: t.native_channel_shuffle(t.zeros(1, 3, 2, 2), 0),
    "channel_shuffle_indivisible": lambda t: t.native_channel_shuffle(t.zeros(1, 3, 2, 2), 2),
    "channel_shuffle_2d": lambda t: t.native_channel_shuffle(t.zeros(1, 2), 2),
    **{
        f"upsample_linear_{int(ac)}_{int(rc)}_{s}": (
            lambda t, a=(ac, rc, s): upsample_linear(t, *a)
        )
        for ac in (True, False)
        for rc in (True, False)
        for s in (0.5, 1.5, 2)
    },
    **{
        f"upsample_invariance_{mode}": (lambda t, mode=mode, dims=dims: invariance(t, mode, dims))
        for mode, dims in (("linear", 1), ("bilinear", 2), ("trilinear", 3))
    },
    "bicubic_not_recomputed": lambda t: with_grads(
        t,
        lambda x: F(t).interpolate(
            x, scale_factor=2.3, mode="bicubic", align_corners=False, recompute_scale_factor=False
        ),
        t.arange(8.0, dtype=t.float64).view(1, 2, 2, 2),
    ),
    **{
        f"bicubic_scale_{s}_{int(ac)}": (
            lambda t, s=s, ac=ac: (
                F(t).interpolate(
                    t.ones(2, 2, 2, 2), scale_factor=s, mode="bicubic", align_corners=ac
                ),
                with_grads(
                    t,
                    lambda x: F(t).interpolate(x, int(2 * s), mode="bicubic", align_corners=ac),
                    draw(t, 2, 2, 2, 2),
                ),
            )
        )
        for s in (0.6, 1.6, 2.3)
        for ac in (True, False)
    },
    "upsample_small_scale": lambda t: t.nn.Upsample(scale_factor=0.5, mode="bilinear")(
        t.arange(1.0, 5).reshape(1, 1, 2, 2)
    ),
    **{
        f"interpolate_scale_{s}": (
            lambda t, s=s: F(t).interpolate(t.ones(1, 1, 16, 16), scale_factor=s, mode="bilinear")
        )
        for s in (-1e20, 1e20)
    },
}


# bfloat16 resizing: torch rounds once from float32 sums, gradjit after each step; compared to
# bfloat16's precision (as test_nn.py compares it with float32)
LOW_PRECISION = {
    **{
        f"upsample_bfloat16_{mode}_{len(size)}d_{layout}": (
            lambda t, a=(size, scale, mode, layout): upsample_low_precision(t, *a)
        )
        for size, scale, mode, layout in (
            ((3, 4, 5, 3), 2, "nearest", None),
            ((3, 4, 5, 3), 2, "nearest", "channels_last"),
            ((3, 4, 5, 3, 2), 2, "nearest", None),
            ((3, 4, 6), 2, "linear", None),
            ((3, 4, 5, 3), 2, "bilinear", None),
            ((3, 4, 5, 3), 2, "bilinear", "channels_last"),
            ((1, 3, 5, 3), 2, "bicubic", None),
            ((3, 2, 5, 3, 2), 2, "trilinear", None),
            ((3, 5, 5), 10, "linear", None),
            ((1, 2, 5, 3), 7, "nearest", None),
        )
    },
}


@pytest.mark.parametrize("name", LOW_PRECISION)
def test_bfloat16_resizing_matches_torch_to_its_precision(name):
    same_outcome(LOW_PRECISION[name], rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("name", MORE)
def test_sampling_and_resizing_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_outcome(MORE[name], rtol=1e-5, atol=2e-5)  # (float32 noise near zero)
