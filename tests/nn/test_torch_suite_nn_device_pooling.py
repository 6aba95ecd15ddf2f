"""Pooling as test_nn.py's device tests use it on the CPU: max/avg 1-3d with ceil_mode,
padding, dilation, count_include_pad and divisor_override, adaptive, fractional, lp and
max_unpool; values, gradients and errors compared with torch."""

import numpy as np
import pytest

from tests.nn.helpers import same_outcome
from tests.nn.test_torch_suite_nn_functional import F, draw, with_grads

SHAPES = {1: (2, 3, 9), 2: (2, 3, 7, 8), 3: (1, 2, 5, 6, 7)}


def pooled(t, name, d, *args, shape=None, **options):
    """Pooled values and gradients; lp pooling to a fractional power gets a positive input
    (gradjit's gradient of x ** p with zero cotangent is 0 where x ** (p - 1) is NaN)."""
    x = draw(t, *(shape or SHAPES[d]))
    x = x.abs() if name.startswith("lp") and args[0] % 1 else x
    return with_grads(t, lambda a: getattr(F(t), name)(a, *args, **options), x)


def with_indices(t, name, d, *args, **options):
    """Values, gradients and the indices max pooling returns."""
    x = draw(t, *SHAPES[d])
    found = []

    def pool(a):
        out, idx = getattr(F(t), name)(a, *args, return_indices=True, **options)
        found.append(idx)
        return out

    return with_grads(t, pool, x), found[0]


def special_values(t, name, value, *args, **options):
    x = draw(t, 1, 2, 6, 6)
    x[0, 0, 1:3, 1:3] = value
    x[0, 1] = value
    return with_grads(t, lambda a: getattr(F(t), name)(a, *args, **options), x)


def unpooled(t, d, output_size=None, shape=None, **options):
    x = draw(t, *(shape or SHAPES[d]))
    pool = getattr(F(t), f"max_pool{d}d")
    out, idx = pool(x, 2, return_indices=True, **options)
    unpool = getattr(F(t), f"max_unpool{d}d")
    return with_grads(t, lambda a: unpool(a, idx, 2, output_size=output_size, **options), out)


def fractional(t, d, samples, **options):
    x = draw(t, *SHAPES[d])
    s = t.tensor(np.array(samples, dtype=np.float64).reshape(x.shape[0], x.shape[1], d))
    fn = getattr(F(t), f"fractional_max_pool{d}d")
    return with_grads(
        t, lambda a: fn(a, 2, _random_samples=s, return_indices=True, **options)[0], x
    )


def module_repr(t, cls, *args, **options):
    return repr(getattr(t.nn, cls)(*args, **options))


BASIC = {
    **{
        f"max_pool{d}d_{'_'.join(map(str, args))}_{int(ceil)}": (
            lambda t, d=d, args=args, ceil=ceil: with_indices(
                t, f"max_pool{d}d", d, *args, ceil_mode=ceil
            )
        )
        for d in (1, 2, 3)
        for args in ((2,), (3, 2), (3, 2, 1), (2, 2, 1, 2), (3, 1, 1, 2))
        for ceil in (False, True)
    },
    **{
        f"avg_pool{d}d_{'_'.join(map(str, args))}_{int(ceil)}_{int(count)}": (
            lambda t, d=d, args=args, ceil=ceil, count=count: pooled(
                t, f"avg_pool{d}d", d, *args, ceil_mode=ceil, count_include_pad=count
            )
        )
        for d in (1, 2, 3)
        for args in ((2,), (3, 2), (3, 2, 1))
        for ceil in (False, True)
        for count in (False, True)
    },
    **{
        f"avg_pool{d}d_divisor_{div}": (
            lambda t, d=d, div=div: pooled(
                t, f"avg_pool{d}d", d, 3, 2, 1, ceil_mode=True, divisor_override=div
            )
        )
        for d in (2, 3)
        for div in (1, 5)
    },
    "avg_pool2d_ceil_window_in_padding": lambda t: pooled(
        t, "avg_pool2d", 2, 3, 2, 1, True, False, shape=(1, 1, 4, 4)
    ),
    "avg_pool1d_ceil_window_in_padding": lambda t: pooled(
        t, "avg_pool1d", 1, 2, 2, 1, True, shape=(1, 1, 4)
    ),
    "max_pool1d_ceil_window_in_padding": lambda t: pooled(
        t, "max_pool1d", 1, 2, 2, 1, ceil_mode=True, shape=(1, 1, 4)
    ),
    "max_pool2d_unbatched": lambda t: pooled(t, "max_pool2d", 2, 2, shape=(3, 6, 6)),
    "avg_pool3d_unbatched": lambda t: pooled(t, "avg_pool3d", 3, 2, shape=(2, 4, 4, 4)),
    "max_pool2d_channels_last": lambda t: with_grads(
        t,
        lambda a: F(t).max_pool2d(a.contiguous(memory_format=t.channels_last), 3, 2, 1),
        draw(t, 2, 4, 7, 7),
    ),
    "avg_pool2d_channels_last": lambda t: with_grads(
        t,
        lambda a: F(t).avg_pool2d(a.contiguous(memory_format=t.channels_last), 3, 2, 1),
        draw(t, 2, 4, 7, 7),
    ),
    "max_pool2d_repeated_maximum": lambda t: with_grads(
        t,
        lambda a: F(t).max_pool2d(a, 2, 1, return_indices=True)[1].double() + a[..., :3, :3],
        t.ones(1, 1, 4, 4, dtype=t.double),
    ),
    **{
        f"{name}_{what}": (lambda t, n=name, v=value: special_values(t, n, v, 2))
        for name in ("max_pool2d", "avg_pool2d", "adaptive_max_pool2d")
        for what, value in (("nan", float("nan")), ("inf", float("inf")), ("-inf", -float("inf")))
    },
    "max_pool2d_all_minus_inf_padded": lambda t: with_grads(
        t, lambda a: F(t).max_pool2d(a, 3, 1, 1), t.full((1, 1, 3, 3), -float("inf"))
    ),
    **{
        f"max_pool{d}d_float{bits}": (
            lambda t, d=d, bits=bits: (
                F(t).max_pool2d(draw(t, 1, 2, 6, 6).to(getattr(t, f"float{bits}")), 3, 2, 1)
                if d == 2
                else F(t).avg_pool2d(draw(t, 1, 2, 6, 6).to(getattr(t, f"float{bits}")), 3, 2, 1)
            )
        )
        for d in (2, 3)
        for bits in (16, 32)
    },
    "avg_pool2d_bfloat16": lambda t: F(t).avg_pool2d(draw(t, 1, 2, 6, 6).bfloat16(), 3, 2, 1),
}

ADAPTIVE = {
    **{
        f"adaptive_{kind}_pool{d}d_{size}": (
            lambda t, kind=kind, d=d, size=size: pooled(t, f"adaptive_{kind}_pool{d}d", d, size)
        )
        for kind in ("avg", "max")
        for d in (1, 2, 3)
        for size in (1, 3, 4)
    },
    "adaptive_avg_pool2d_none": lambda t: pooled(t, "adaptive_avg_pool2d", 2, (None, 3)),
    "adaptive_max_pool3d_none": lambda t: pooled(t, "adaptive_max_pool3d", 3, (2, None, 3)),
    "adaptive_avg_pool2d_larger": lambda t: pooled(t, "adaptive_avg_pool2d", 2, (9, 11)),
    "adaptive_max_pool2d_indices": lambda t: with_indices(t, "adaptive_max_pool2d", 2, (3, 5)),
    "adaptive_max_pool1d_indices": lambda t: with_indices(t, "adaptive_max_pool1d", 1, 4),
    "adaptive_avg_pool2d_zero_batch": lambda t: pooled(
        t, "adaptive_avg_pool2d", 2, 3, shape=(0, 3, 7, 8)
    ),
    "adaptive_max_pool2d_zero_batch": lambda t: pooled(
        t, "adaptive_max_pool2d", 2, 3, shape=(0, 3, 7, 8)
    ),
    "adaptive_avg_pool2d_zero_size": lambda t: F(t).adaptive_avg_pool2d(t.ones(1, 2, 0, 3), 2),
    "adaptive_max_pool2d_zero_size": lambda t: F(t).adaptive_max_pool2d(t.ones(1, 2, 0, 3), 2),
    "adaptive_avg_pool1d_2d_size": lambda t: F(t).adaptive_avg_pool1d(t.ones(1, 2, 5), (2, 2)),
    "adaptive_avg_pool2d_3_sizes": lambda t: F(t).adaptive_avg_pool2d(
        t.ones(1, 2, 5, 5), (2, 2, 2)
    ),
    "adaptive_max_pool2d_5d": lambda t: F(t).adaptive_max_pool2d(t.ones(1, 1, 2, 5, 5), 2),
    "adaptive_avg_pool3d_3d": lambda t: F(t).adaptive_avg_pool3d(t.ones(2, 5, 5), 2),
    "adaptive_avg_pool2d_negative": lambda t: F(t).adaptive_avg_pool2d(t.ones(1, 2, 5, 5), -1),
    "adaptive_avg_pool2d_integer": lambda t: F(t).adaptive_avg_pool2d(
        t.ones(1, 2, 5, 5, dtype=t.int64), 2
    ),
    "adaptive_max_pool2d_integer": lambda t: F(t).adaptive_max_pool2d(
        t.ones(1, 2, 5, 5, dtype=t.int64), 2
    ),
}

ERRORS = {
    "max_pool2d_stride_zero": lambda t: F(t).max_pool2d(t.ones(1, 1, 4, 4), 2, 0),
    "avg_pool2d_stride_zero": lambda t: F(t).avg_pool2d(t.ones(1, 1, 4, 4), 2, 0),
    "max_pool1d_stride_zero": lambda t: F(t).max_pool1d(t.ones(1, 1, 4), 2, 0),
    "avg_pool3d_stride_zero": lambda t: F(t).avg_pool3d(t.ones(1, 1, 4, 4, 4), 2, 0),
    "max_pool3d_output_too_small": lambda t: F(t).max_pool3d(t.ones(1, 1, 1, 1, 1), 2),
    "avg_pool2d_output_too_small": lambda t: F(t).avg_pool2d(t.ones(1, 1, 1, 1), 2),
    "avg_pool1d_output_too_small": lambda t: F(t).avg_pool1d(t.ones(1, 1, 1), 2),
    "max_pool2d_padding_too_big": lambda t: F(t).max_pool2d(t.ones(1, 1, 4, 4), 2, 1, 2),
    "avg_pool2d_padding_too_big": lambda t: F(t).avg_pool2d(t.ones(1, 1, 4, 4), 2, 1, 2),
    "max_pool2d_zero_batch": lambda t: pooled(t, "max_pool2d", 2, 2, shape=(0, 3, 4, 4)),
    "avg_pool3d_zero_batch": lambda t: pooled(t, "avg_pool3d", 3, 2, shape=(0, 3, 4, 4, 4)),
    "max_pool2d_zero_channels": lambda t: F(t).max_pool2d(t.ones(1, 0, 4, 4), 2),
    "max_pool2d_empty_spatial": lambda t: F(t).max_pool2d(t.ones(1, 2, 0, 4), 2),
    "avg_pool2d_empty_spatial": lambda t: F(t).avg_pool2d(t.ones(1, 2, 0, 4), 2),
    "max_pool2d_kernel_zero": lambda t: F(t).max_pool2d(t.ones(1, 1, 4, 4), 0),
    "avg_pool2d_kernel_three_values": lambda t: F(t).avg_pool2d(t.ones(1, 1, 4, 4), (2, 2, 2)),
    "max_pool2d_dilation_zero": lambda t: F(t).max_pool2d(t.ones(1, 1, 4, 4), 2, dilation=0),
    "max_pool1d_2d_input": lambda t: F(t).max_pool1d(t.ones(4), 2),
    "avg_pool2d_integer": lambda t: F(t).avg_pool2d(t.ones(1, 1, 4, 4, dtype=t.int64), 2),
    "max_pool2d_integer": lambda t: F(t).max_pool2d(t.arange(16).reshape(1, 1, 4, 4), 2),
    **{
        f"{name}_{what}_{len(shape)}d": (
            lambda t, name=name, shape=shape, a=args: getattr(F(t), name)(t.ones(shape), *a)
        )
        for name, shape in (
            ("max_pool2d", (1, 1, 4, 4)),
            ("avg_pool2d", (1, 1, 4, 4)),
            ("max_pool3d", (1, 1, 4, 4, 4)),
            ("avg_pool3d", (1, 1, 4, 4, 4)),
        )
        for what, args in (
            ("kernel", ((2,) * (7 - len(shape)),)),
            ("stride", (2, (1,) * 4)),
            ("padding", (2, 2, (0,) * 4)),
            ("dilation", (2, 2, 0, (1,) * 4)),
        )
        if not (name.startswith("avg") and what == "dilation")
    },
    **{
        f"{name}_{'x'.join(map(str, shape))}": (
            lambda t, name=name, shape=shape: getattr(F(t), name)(t.ones(shape), 2)
        )
        for name, shape in (
            ("max_pool3d", (1, 0, 4, 4, 4)),
            ("avg_pool3d", (1, 1, 4, 0, 4)),
            ("max_pool3d", (4, 4)),
            ("avg_pool2d", (1, 0, 4, 4)),
            ("avg_pool1d", (1, 0, 4)),
            ("max_pool1d", (1, 0, 4)),
            ("avg_pool1d", (4,)),
            ("adaptive_max_pool2d", (1, 0, 4, 4)),
            ("adaptive_max_pool2d", (0, 4, 4)),
            ("adaptive_avg_pool2d", (1, 0, 4, 4)),
            ("adaptive_avg_pool1d", (1, 1, 0)),
            ("adaptive_avg_pool3d", (1, 0, 2, 4, 4)),
            ("adaptive_max_pool1d", (1, 0, 4)),
            ("adaptive_max_pool3d", (1, 1, 0, 4, 4)),
            ("adaptive_max_pool2d", (0, 1, 4, 4)),
        )
    },
    "max_pool1d_indices_1d": lambda t: F(t).max_pool1d(t.ones(4), 2, return_indices=True),
    "adaptive_avg_pool3d_integer": lambda t: F(t).adaptive_avg_pool3d(
        t.ones(1, 1, 4, 4, 4).long(), 2
    ),
    "adaptive_max_pool1d_integer": lambda t: F(t).adaptive_max_pool1d(t.ones(1, 1, 4).long(), 2),
    "avg_pool2d_divisor_zero": lambda t: F(t).avg_pool2d(t.ones(1, 1, 4, 4), 2, divisor_override=0),
}

UNPOOL = {
    **{f"max_unpool{d}d": (lambda t, d=d: unpooled(t, d)) for d in (1, 2)},
    "max_unpool3d": lambda t: unpooled(t, 3, shape=(1, 2, 4, 6, 6)),
    "max_unpool2d_output_size": lambda t: unpooled(t, 2, output_size=(7, 9)),
    "max_unpool2d_output_size_full": lambda t: unpooled(t, 2, output_size=(2, 3, 7, 9)),
    "max_unpool1d_output_size": lambda t: unpooled(t, 1, output_size=(9,)),
    "max_unpool3d_output_size": lambda t: unpooled(t, 3, output_size=(5, 7, 7)),
    "max_unpool2d_output_size_too_big": lambda t: unpooled(t, 2, output_size=(9, 9)),
    "max_unpool2d_output_size_length": lambda t: unpooled(t, 2, output_size=(1, 7, 9)),
    "max_unpool2d_bad_index": lambda t: F(t).max_unpool2d(
        t.ones(1, 1, 2, 2), t.tensor([[[[0, 1], [2, 99]]]]), 2
    ),
    "max_unpool1d_negative_index": lambda t: F(t).max_unpool1d(
        t.ones(1, 1, 2), t.tensor([[[0, -1]]]), 2
    ),
    "max_unpool3d_bad_index": lambda t: F(t).max_unpool3d(
        t.ones(1, 1, 1, 1, 2), t.tensor([[[[[0, 80]]]]]), 2
    ),
    "max_unpool2d_shape_mismatch": lambda t: F(t).max_unpool2d(
        t.ones(1, 1, 2, 2), t.zeros(1, 1, 2, 3, dtype=t.int64), 2
    ),
    "max_unpool3d_float_indices": lambda t: F(t).max_unpool3d(
        t.ones(1, 1, 2, 2, 2), t.zeros(1, 1, 2, 2, 2), 2
    ),
    "max_unpool2d_int32_indices": lambda t: F(t).max_unpool2d(
        t.ones(1, 1, 2, 2), t.zeros(1, 1, 2, 2, dtype=t.int32), 2
    ),
    "max_unpool2d_float_indices": lambda t: F(t).max_unpool2d(
        t.ones(1, 1, 2, 2), t.zeros(1, 1, 2, 2), 2
    ),
    "MaxUnpool2d_repr": lambda t: module_repr(t, "MaxUnpool2d", 2, stride=1, padding=1),
    "MaxPool2d_repr": lambda t: module_repr(t, "MaxPool2d", 3, 2, 1, 2, True, True),
    "AvgPool3d_repr": lambda t: module_repr(t, "AvgPool3d", 3, divisor_override=2),
    "AvgPool1d_repr": lambda t: module_repr(t, "AvgPool1d", 3, ceil_mode=True),
    "AdaptiveMaxPool2d_repr": lambda t: module_repr(t, "AdaptiveMaxPool2d", (None, 3), True),
    "LPPool2d_repr": lambda t: module_repr(t, "LPPool2d", 2, 3, ceil_mode=True),
    "FractionalMaxPool3d_repr": lambda t: module_repr(
        t, "FractionalMaxPool3d", 2, output_ratio=0.5
    ),
}

FRACTIONAL = {
    "fractional_max_pool2d_samples": lambda t: fractional(
        t, 2, [0.1, 0.9, 0.5, 0.5, 0.0, 0.99, 0.3, 0.7, 0.2, 0.2, 0.8, 0.4], output_size=(3, 4)
    ),
    "fractional_max_pool3d_samples": lambda t: fractional(
        t, 3, [0.1, 0.9, 0.5, 0.5, 0.0, 0.99], output_size=(2, 3, 3)
    ),
    "fractional_max_pool2d_ratio": lambda t: fractional(t, 2, [0.25] * 12, output_ratio=(0.5, 0.5)),
    "fractional_max_pool3d_ratio": lambda t: fractional(t, 3, [0.75] * 6, output_ratio=0.5),
    "fractional_max_pool2d_zero_batch": lambda t: F(t).fractional_max_pool2d(
        t.ones(0, 2, 6, 6), 2, output_size=3
    ),
    "fractional_max_pool3d_zero_batch": lambda t: F(t).fractional_max_pool3d(
        t.ones(0, 2, 6, 6, 6), 2, output_size=3
    ),
    "fractional_max_pool2d_zero_output": lambda t: F(t).fractional_max_pool2d(
        t.ones(1, 2, 6, 6), 2, output_size=(0, 1)
    ),
    "fractional_max_pool3d_zero_output": lambda t: F(t).fractional_max_pool3d(
        t.ones(1, 2, 6, 6, 6), 2, output_size=(0, 1, 1)
    ),
    "fractional_max_pool2d_zero_samples": lambda t: F(t).fractional_max_pool2d(
        t.ones(1, 2, 6, 6), 2, output_size=3, _random_samples=t.ones(0, 2, 2)
    ),
    "fractional_max_pool3d_samples_shape": lambda t: F(t).fractional_max_pool3d(
        t.ones(1, 2, 6, 6, 6), 2, output_size=3, _random_samples=t.ones(1, 2, 2)
    ),
    **{
        f"fractional_max_pool{len(shape) - 2}d_{what}": (
            lambda t, shape=shape, s=samples: getattr(
                F(t), f"fractional_max_pool{len(shape) - 2}d"
            )(t.ones(shape), 2, output_size=2, _random_samples=s(t))
        )
        for shape, what, samples in (
            ((1, 2, 6, 6, 6), "samples_dtype", lambda t: t.ones(1, 2, 3).double()),
            ((1, 2, 6, 6), "samples_2d", lambda t: t.ones(2, 2)),
            ((1, 2, 6, 6), "samples_channels", lambda t: t.ones(1, 3, 2)),
            ((1, 0, 6, 6), "empty_channels", lambda t: t.ones(1, 0, 2)),
            ((1, 1, 6, 0, 6), "empty_height", lambda t: t.ones(1, 1, 3)),
            ((2, 2, 6, 6), "extra_samples", lambda t: t.rand(3, 2, 2)),
        )
    },
    "fractional_max_pool3d_too_large": lambda t: F(t).fractional_max_pool3d(
        t.ones(1, 2, 6, 6, 6), 2, output_size=(6, 3, 3)
    ),
    "fractional_max_pool2d_nan": lambda t: special_values(
        t,
        "fractional_max_pool2d",
        float("nan"),
        2,
        output_size=3,
        _random_samples=t.full((1, 2, 2), 0.5, dtype=t.double),
    ),
    "fractional_max_pool2d_inf": lambda t: special_values(
        t,
        "fractional_max_pool2d",
        -float("inf"),
        2,
        output_size=3,
        _random_samples=t.full((1, 2, 2), 0.5, dtype=t.double),
    ),
    **{
        f"lp_pool{d}d_{p}_{int(ceil)}": (
            lambda t, d=d, p=p, ceil=ceil: pooled(t, f"lp_pool{d}d", d, p, 3, 2, ceil_mode=ceil)
        )
        for d in (1, 2, 3)
        for p in (1, 2, 3.5)
        for ceil in (False, True)
    },
    "lp_pool2d_zero_input": lambda t: with_grads(
        t, lambda a: F(t).lp_pool2d(a, 2, 2), t.zeros(1, 1, 4, 4, dtype=t.double)
    ),
}


def marked(t, name, shape, value, *args, **options):
    """A pooling over an input with a 2x2 patch of `value` in the first plane."""
    x = draw(t, *shape)
    x[(0,) * (len(shape) - 3) + (0, slice(1, 3), slice(0, 2))] = value
    return with_grads(t, lambda a: getattr(F(t), name)(a, *args, **options), x)


SPECIAL = {
    "max_pool3d_nan": lambda t: marked(t, "max_pool3d", (1, 2, 3, 4, 4), float("nan"), 2, 1, 1),
    "max_pool3d_minus_inf": lambda t: marked(
        t, "max_pool3d", (1, 1, 3, 3, 3), -float("inf"), 3, 1, 1
    ),
    "max_pool1d_nan": lambda t: marked(t, "max_pool1d", (1, 2, 6), float("nan"), 3, 1, 1),
    "adaptive_max_pool3d_nan": lambda t: marked(
        t, "adaptive_max_pool3d", (1, 2, 3, 4, 4), float("nan"), 2
    ),
    "fractional_max_pool3d_nan": lambda t: marked(
        t,
        "fractional_max_pool3d",
        (1, 2, 4, 4, 4),
        float("nan"),
        2,
        output_size=2,
        _random_samples=t.full((1, 2, 3), 0.5, dtype=t.double),
    ),
    "avg_pool2d_inf": lambda t: marked(t, "avg_pool2d", (1, 2, 4, 4), float("inf"), 2, 1),
    "max_unpool1d_repeated_index": lambda t: with_grads(
        t,
        lambda a: F(t).max_unpool1d(a, t.tensor([[[0, 0, 3]]]), 2, output_size=(6,)),
        draw(t, 1, 1, 3),
    ),
}

ALL = {**BASIC, **ADAPTIVE, **ERRORS, **UNPOOL, **FRACTIONAL, **SPECIAL}


@pytest.mark.parametrize("name", ALL)
def test_pooling_matches_torch(name):
    tolerance = 1e-2 if "16" in name else 1e-6
    same_outcome(ALL[name], rtol=tolerance, atol=tolerance)
