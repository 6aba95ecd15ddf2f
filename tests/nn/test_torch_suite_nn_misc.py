"""More layers as PyTorch's own nn tests exercise them (test_nn.py: interpolation sizes,
linear and bilinear broadcasting, fold/unfold checks, adaptive log-softmax, flatten and
unflatten, pooling checks, unpooling nets): values, gradients and errors compared with torch."""

import warnings

import numpy as np
import pytest

from tests.nn.helpers import same_outcome


def F(t):
    return t.nn.functional


def draw(t, *shape, seed=0, dtype="float64"):
    values = np.random.default_rng(seed).standard_normal(shape)
    return t.tensor(values, dtype=getattr(t, dtype))


def with_grads(t, fn, *inputs, module=None):
    """fn(*inputs), the gradients of its weighted sum for the inputs and module's parameters."""
    leaves = [x.detach().requires_grad_() for x in inputs]
    out = fn(*leaves)
    weights = t.linspace(0.5, 1.5, max(out.numel(), 1), dtype=t.float64)[: out.numel()]
    (out * weights.reshape(out.shape).to(out.dtype)).sum().backward()
    params = [] if module is None else [p.grad for p in module.parameters()]
    return out, [x.grad for x in leaves], params


def seeded(t, make):
    t.manual_seed(0)
    return make()


def interpolated(t, dims, scale, mode, **options):
    x = draw(t, *(1, 1) + (3,) * dims)
    size = int(np.floor(3 * scale))
    by_size = with_grads(t, lambda a: F(t).interpolate(a, (size,) * dims, mode=mode, **options), x)
    by_scale = with_grads(
        t, lambda a: F(t).interpolate(a, scale_factor=scale, mode=mode, **options), x
    )
    return (
        by_size,
        by_scale,
        F(t).interpolate(t.ones((1, 1) + (2,) * dims), scale_factor=scale, mode=mode, **options),
    )


def adaptive(t, *args, **kwargs):
    return seeded(t, lambda: t.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs))


def adaptive_outputs(t):
    asfm = adaptive(t, 16, 20, [5, 10, 15], div_value=2.0)
    x = draw(t, 2, 16, dtype="float32")
    out = asfm(x, t.tensor([0, 17]))
    shapes = [tuple(asfm.head.weight.shape)] + [
        tuple(asfm.tail[i][1].weight.shape) for i in range(3)
    ]
    single = asfm(x[:1], t.tensor([17])).output.squeeze(0), asfm(x[0], t.tensor(17)).output
    return out, shapes, single


def adaptive_log_prob(t):
    asfm = adaptive(t, 8, 4, [2], div_value=2.0)
    x = draw(t, 4, 8, dtype="float32")
    outs = [asfm(x, t.full((4,), v, dtype=t.long)) for v in range(4)]
    return with_grads(t, asfm.log_prob, x, module=asfm), outs


def adaptive_predict(t, part):
    asfm = adaptive(t, 8, 10, [4, 8], div_value=2.0, head_bias=True)
    x = draw(t, 64, 8, dtype="float32").abs()
    with t.no_grad():
        asfm.head.weight.abs_()
        asfm.head.bias.abs_()
        short = asfm.shortlist_size
        if part == "shortlist":
            asfm.head.weight[short:, :].zero_()
        elif part == "clusters":
            asfm.head.weight[:short, :].zero_()
        else:
            x[:32, :short] = 0
            x[32:, short:] = 0
            asfm.head.weight[:short, short:].zero_()
            asfm.head.weight[short:, :short].zero_()
    return asfm.predict(x), asfm.log_prob(x).argmax(dim=1)


def unpooling(t, dims, shape):
    pool = getattr(t.nn, f"MaxPool{dims}d")(2, return_indices=True)
    unpool = getattr(t.nn, f"MaxUnpool{dims}d")(2)
    return with_grads(t, lambda x: unpool(*pool(x)), draw(t, *shape))


SCENARIOS = {
    **{
        f"interpolate_{mode}_{dims}d_{scale}": (
            lambda t, a=(dims, scale, mode): interpolated(t, *a)
        )
        for mode in ("nearest", "area")
        for dims in (1, 2, 3)
        for scale in (0.5, 1.5, 2)
    },
    **{
        f"interpolate_{mode}_{int(ac)}_{scale}": (
            lambda t, a=(dims, scale, mode): interpolated(t, *a, align_corners=ac)
        )
        for mode, dims in (("linear", 1), ("bilinear", 2), ("bicubic", 2), ("trilinear", 3))
        for ac in (True, False)
        for scale in (0.5, 1.5, 2)
    },
    **{
        f"interpolate_float_size_{what}": (
            lambda t, size=size: F(t).interpolate(t.ones(1, 1, 2, 2), size=size(t), mode="nearest")
        )
        for what, size in (
            ("float", lambda t: (3.0, 3.0)),
            ("tensor", lambda t: (t.tensor(3.0), t.tensor(3.0))),
        )
    },
    "linear_broadcasting": lambda t: (lambda m, x: (m(x), m(x.view(6, 5)).view(2, 3, 8)))(
        seeded(t, lambda: t.nn.Linear(5, 8)), draw(t, 2, 3, 5, dtype="float32")
    ),
    "linear_scalar_input": lambda t: seeded(t, lambda: t.nn.Linear(1, 1))(t.ones(1).squeeze()),
    "bilinear": lambda t: (
        lambda m: with_grads(
            t, m, draw(t, 4, 10, dtype="float32"), draw(t, 4, 10, seed=1, dtype="float32"), module=m
        )
    )(seeded(t, lambda: t.nn.Bilinear(10, 10, 8))),
    "bilinear_non_contiguous": lambda t: (
        lambda m: with_grads(
            t,
            lambda a, b: m(a.transpose(1, 2), b.transpose(1, 2)),
            draw(t, 4, 7, 10, dtype="float32"),
            draw(t, 4, 7, 10, seed=1, dtype="float32"),
            module=m,
        )
    )(seeded(t, lambda: t.nn.Bilinear(7, 7, 5))),
    "bilinear_no_bias": lambda t: (
        lambda m: with_grads(t, m, draw(t, 4, 10), draw(t, 4, 10, seed=1), module=m)
    )(seeded(t, lambda: t.nn.Bilinear(10, 10, 8, False, dtype=t.double))),
    "bilinear_broadcasting": lambda t: (
        lambda m, a, b: (m(a, b), m(a.view(6, 5), b.view(6, 6)).view(2, 3, 8))
    )(
        seeded(t, lambda: t.nn.Bilinear(5, 6, 8)),
        draw(t, 2, 3, 5, dtype="float32"),
        draw(t, 2, 3, 6, seed=1, dtype="float32"),
    ),
    "bilinear_zero_features": lambda t: t.nn.Bilinear(0, 0, 0),
    **{
        f"fold_{what}": (lambda t, a=args: t.nn.Fold(output_size=(4, 5), **a[0])(t.zeros(a[1])))
        for what, args in (
            ("channels_5", ({"kernel_size": (2, 3)}, (1, 5, 9))),
            ("channels_19", ({"kernel_size": (2, 3)}, (1, 19, 9))),
            ("blocks", ({"kernel_size": (2, 3)}, (1, 6, 10))),
            ("blocks_stride", ({"kernel_size": (2, 3), "stride": (2, 2)}, (1, 6, 5))),
            (
                "blocks_dilated",
                (
                    {
                        "kernel_size": (2, 3),
                        "stride": (2, 2),
                        "dilation": (1, 2),
                        "padding": (2, 0),
                    },
                    (1, 6, 5),
                ),
            ),
            (
                "no_blocks",
                ({"kernel_size": (2, 2), "stride": 1, "dilation": 8, "padding": 0}, (1, 12, 12)),
            ),
        )
    },
    **{
        f"unfold_{what}": (lambda t, a=args: t.nn.Unfold(**a[0])(t.zeros(a[1])))
        for what, args in (
            ("small", ({"kernel_size": (2, 3)}, (1, 2, 2, 2))),
            ("padded", ({"kernel_size": (5, 3), "padding": (1, 1)}, (1, 2, 2, 3))),
            (
                "dilated",
                ({"kernel_size": (1, 3), "padding": (1, 1), "dilation": (1, 2)}, (1, 2, 2, 2)),
            ),
        )
    },
    "softmin": lambda t: [
        with_grads(t, lambda a: F(t).softmin(a, d), draw(t, 2, 16)) for d in (0, 1)
    ],
    **{
        f"adaptive_cutoffs_{i}": (lambda t, c=c: adaptive(t, 16, 20, c, div_value=2.0).cutoffs)
        for i, c in enumerate(([5, 15, 15], [5, 15, 10], [5, 10, 25], [5, 10, 20], [5, 10, 19]))
    },
    "adaptive_sizes": lambda t: adaptive(t, 16, 20, [5, 10, 15], div_value=2.0)(
        t.zeros(2, 16), t.tensor([0, 5, 10])
    ),
    "adaptive_target_range": lambda t: adaptive(t, 16, 20, [5, 10, 15], div_value=2.0)(
        t.zeros(2, 16), t.tensor([0, 20])
    ),
    "adaptive_outputs": adaptive_outputs,
    "adaptive_log_prob": adaptive_log_prob,
    **{
        f"adaptive_predict_{part}": (lambda t, part=part: adaptive_predict(t, part))
        for part in ("shortlist", "clusters", "half")
    },
    "cross_entropy_no_classes": lambda t: t.nn.CrossEntropyLoss()(t.zeros(5, 0), t.zeros(5, 0)),
    "flatten": lambda t: t.nn.Flatten(start_dim=1, end_dim=-1)(t.zeros(2, 1, 2, 3)).shape,
    **{
        f"unflatten_{type(us).__name__}": (
            lambda t, us=us: t.nn.Unflatten(1, us)(t.zeros(2, 50)).shape
        )
        for us in ((2, 5, 5), [2, 5, 5])
    },
    "unflatten_int": lambda t: t.nn.Unflatten(dim=1, unflattened_size=5),
    "unflatten_float": lambda t: t.nn.Unflatten(dim=1, unflattened_size=(2, 5, 5.0)),
    "unflatten_named_list_of_lists": lambda t: t.nn.Unflatten(
        dim="features", unflattened_size=[["C", 2], ["W", 5], ["H", 5]]
    ),
    "unflatten_named_list_of_tuples": lambda t: t.nn.Unflatten(
        dim="features", unflattened_size=[("C", 2), ("W", 5), ("H", 5)]
    ),
    "unflatten_named_tuple_of_lists": lambda t: t.nn.Unflatten(
        dim="features", unflattened_size=(["C", 2], ["W", 5], ["H", 5])
    ),
    "unflatten_named_tuple_of_dicts": lambda t: t.nn.Unflatten(
        dim="features", unflattened_size=({"C": 2}, {"W": 5}, {"H": 5})
    ),
    "layer_norm_eps": lambda t: t.nn.LayerNorm(2, eps=1e-6, elementwise_affine=False)(
        t.tensor([[[2.0, 2.0], [14.0, 14.0]], [[2.0, 2.0], [14.0, 14.0]]])
    ),
    "layer_norm_create_graph": lambda t: (
        lambda ln, x: [t.autograd.grad(ln(x).sum(), x, create_graph=g)[0] for g in (False, True)]
    )(
        seeded(t, lambda: t.nn.LayerNorm((16,), 1e-5, True)),
        draw(t, 4, 4, 16, dtype="float32").requires_grad_(),
    ),
    **{
        f"conv_transpose_padding_{type(p).__name__}": (
            lambda t, p=p: (
                seeded(t, lambda: t.nn.ConvTranspose2d(8, 16, kernel_size=3, padding=p))(
                    draw(t, 1, 8, 6, 6, dtype="float32")
                ).shape
            )
        )
        for p in ([3, 3], (3, 3))
    },
    "fractional_output_ratio": lambda t: t.nn.FractionalMaxPool2d(
        kernel_size=[2, 1], output_ratio=[0.5, 0.5, 0.6]
    )(t.zeros(2, 3, 10, 8)),
    "max_pool1d_output_size": lambda t: t.nn.MaxPool1d(3, stride=255)(t.tensor([[0.3204]])),
    "constant_pad_nd": lambda t: t.constant_pad_nd(t.tensor([[1, 2], [3, 4]]), [1, 2, 1, 0], 9),
    **{
        f"unpooling_net_{d}d{'_unbatched' if len(s) == d + 1 else ''}": (
            lambda t, d=d, s=s: unpooling(t, d, s)
        )
        for d, s in (
            (1, (1, 1, 4)),
            (2, (1, 1, 2, 4)),
            (3, (1, 1, 2, 4, 6)),
            (1, (1, 4)),
            (2, (1, 2, 4)),
            (3, (1, 2, 4, 6)),
        )
    },
    "adaptive_log_softmax_module_test": lambda t: (
        lambda m: with_grads(
            t, lambda x: m(x, t.tensor([0, 1, 4, 8])).output, draw(t, 4, 16), module=m
        )
    )(seeded(t, lambda: t.nn.AdaptiveLogSoftmaxWithLoss(16, 10, [2, 6]).double())),
}


# bfloat16: torch accumulates in float32 and rounds once; compared to bfloat16's precision
LOW_PRECISION = {
    "cross_entropy_bfloat16": lambda t: (
        lambda x, y: (
            with_grads(t, lambda a: t.nn.CrossEntropyLoss()(a, y), x.to(t.bfloat16)),
            with_grads(t, lambda a: t.nn.CrossEntropyLoss()(a, y), x),
        )
    )(draw(t, 15, 10, dtype="float32"), t.tensor(np.random.default_rng(1).integers(0, 10, 15))),
}


@pytest.mark.parametrize("name", LOW_PRECISION)
def test_bfloat16_cross_entropy_matches_torch_to_its_precision(name):
    same_outcome(LOW_PRECISION[name], rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("name", SCENARIOS)
def test_layers_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_outcome(SCENARIOS[name], rtol=1e-5, atol=1e-6)
