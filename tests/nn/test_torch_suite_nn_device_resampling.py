"""interpolate and the Upsample modules, grid_sample and affine_grid, and F.pad's modes as
test_nn.py's device tests run them on the CPU: values, gradients, reprs and errors compared
with torch."""

import warnings

import pytest

from tests.nn.helpers import same_outcome
from tests.nn.test_torch_suite_nn_functional import F, draw, with_grads

SHAPES = {1: (2, 3, 5), 2: (2, 3, 4, 5), 3: (1, 2, 3, 4, 5)}
MODES = {
    "nearest": (1, 2, 3),
    "nearest-exact": (1, 2, 3),
    "linear": (1,),
    "bilinear": (2,),
    "bicubic": (2,),
    "trilinear": (3,),
    "area": (1, 2, 3),
}
ALIGNED = ("linear", "bilinear", "bicubic", "trilinear")


def resized(t, mode, d, shape=None, **options):
    x = draw(t, *(shape or SHAPES[d]))
    return with_grads(t, lambda a: F(t).interpolate(a, mode=mode, **options), x)


def upsample_module(t, cls, d, **options):
    m = getattr(t.nn, cls)(**options)
    return repr(m), with_grads(t, m, draw(t, *SHAPES[d]))


def sampled(t, mode, padding_mode, align_corners, d=2, scale=1.3):
    x = draw(t, *SHAPES[d])
    grid = draw(t, SHAPES[d][0], *([3] * d), d, seed=1) * scale
    return with_grads(
        t,
        lambda a, g: F(t).grid_sample(
            a, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners
        ),
        x,
        grid,
    )


def affine(t, size, align_corners):
    theta = draw(t, size[0], len(size) - 2, len(size) - 1)
    return with_grads(t, lambda a: F(t).affine_grid(a, size, align_corners=align_corners), theta)


def padded(t, mode, amounts, shape, value=None):
    options = {} if value is None else {"value": value}
    return with_grads(t, lambda a: F(t).pad(a, amounts, mode=mode, **options), draw(t, *shape))


RESIZE = {
    **{
        f"interpolate_{mode}_{d}d_{what}": (
            lambda t, mode=mode, d=d, o=options: resized(t, mode, d, **o)
        )
        for mode, dims in MODES.items()
        for d in dims
        for what, options in (
            ("scale2", {"scale_factor": 2}),
            ("scale0.6", {"scale_factor": 0.6}),
            ("size", {"size": (7, 3, 6)[:d]}),
            ("recompute", {"scale_factor": 1.7, "recompute_scale_factor": True}),
        )
        if not (mode == "area" and what == "recompute")
    },
    **{
        f"interpolate_{mode}_align_corners": (
            lambda t, mode=mode, d=dims[0]: resized(
                t, mode, d, scale_factor=1.5, align_corners=True
            )
        )
        for mode, dims in MODES.items()
        if mode in ALIGNED
    },
    **{
        f"interpolate_{mode}_antialias": (
            lambda t, mode=mode: resized(t, mode, 2, size=(2, 3), antialias=True)
        )
        for mode in ("bilinear", "bicubic")
    },
    "interpolate_bicubic_antialias_up": lambda t: resized(
        t, "bicubic", 2, size=(6, 9), antialias=True
    ),
    "interpolate_nearest_unequal_scales": lambda t: resized(
        t, "nearest", 2, scale_factor=(1.5, 0.5)
    ),
    "interpolate_bilinear_unequal_scales": lambda t: resized(
        t, "bilinear", 2, scale_factor=(2.5, 0.7)
    ),
    "interpolate_trilinear_unequal_sizes": lambda t: resized(t, "trilinear", 3, size=(2, 7, 3)),
    "interpolate_nearest_same_size": lambda t: resized(t, "nearest", 2, size=(4, 5)),
    "interpolate_bilinear_same_size": lambda t: resized(t, "bilinear", 2, size=(4, 5)),
    "interpolate_zero_batch": lambda t: resized(
        t, "bilinear", 2, shape=(0, 3, 4, 5), scale_factor=2
    ),
    "interpolate_integer_nearest": lambda t: F(t).interpolate(
        t.arange(12).reshape(1, 1, 3, 4), scale_factor=2
    ),
    "interpolate_uint8_bilinear": lambda t: F(t).interpolate(
        t.arange(12, dtype=t.uint8).reshape(1, 1, 3, 4), size=(5, 7), mode="bilinear"
    ),
    **{
        f"interpolate_uint8_{mode}_{'_'.join(map(str, size))}_{k}": (
            lambda t, mode=mode, size=size, o=options: F(t).interpolate(
                (draw(t, 2, 3, 5, 6) * 60 + 128).clamp(0, 255).to(t.uint8),
                size=size,
                mode=mode,
                **o,
            )
        )
        for mode, k, options in (
            ("bilinear", "plain", {}),
            ("bilinear", "aligned", {"align_corners": True}),
            ("bilinear", "antialias", {"antialias": True}),
            ("bicubic", "antialias", {"antialias": True}),
            ("nearest", "plain", {}),
            ("nearest-exact", "plain", {}),
        )
        for size in ((9, 4), (3, 11), (2, 2))
    },
    "interpolate_uint8_nearest_1d": lambda t: F(t).interpolate(
        t.arange(12, dtype=t.uint8).reshape(1, 2, 6), size=9
    ),
    "interpolate_uint8_trilinear": lambda t: F(t).interpolate(
        t.ones(1, 1, 2, 2, 2, dtype=t.uint8), size=3, mode="trilinear"
    ),
    "interpolate_int_bilinear": lambda t: F(t).interpolate(
        t.ones(1, 3, 2, 2, dtype=t.int32), size=3, mode="bilinear"
    ),
    "interpolate_int_nearest_3d": lambda t: F(t).interpolate(
        t.ones(1, 3, 2, 2, 2, dtype=t.int64), size=3
    ),
    "interpolate_channels_last": lambda t: with_grads(
        t,
        lambda a: F(t).interpolate(
            a.contiguous(memory_format=t.channels_last), scale_factor=1.5, mode="bilinear"
        ),
        draw(t, *SHAPES[2]),
    ),
    "interpolate_float32": lambda t: F(t).interpolate(
        draw(t, 1, 2, 3, 3).float(), size=(5, 4), mode="bicubic", align_corners=False
    ),
    "interpolate_size_and_scale": lambda t: resized(t, "nearest", 2, size=3, scale_factor=2),
    "interpolate_neither": lambda t: resized(t, "nearest", 2),
    "interpolate_bad_mode": lambda t: resized(t, "cubic", 2, size=3),
    "interpolate_linear_on_4d": lambda t: resized(t, "linear", 2, size=3),
    "interpolate_bilinear_on_3d": lambda t: resized(t, "bilinear", 1, size=3),
    "interpolate_trilinear_on_4d": lambda t: resized(t, "trilinear", 2, size=3),
    "interpolate_align_corners_nearest": lambda t: resized(
        t, "nearest", 2, size=3, align_corners=True
    ),
    "interpolate_size_length": lambda t: resized(t, "nearest", 2, size=(3, 4, 5)),
    "interpolate_scale_length": lambda t: resized(t, "nearest", 2, scale_factor=(2, 3, 4)),
    "interpolate_zero_size": lambda t: resized(t, "nearest", 2, size=(0, 3)),
    "interpolate_negative_scale": lambda t: resized(t, "bilinear", 2, scale_factor=-1.0),
    "interpolate_2d_input": lambda t: F(t).interpolate(t.ones(3, 4), size=5),
    "interpolate_antialias_nearest": lambda t: resized(t, "nearest", 2, size=3, antialias=True),
    "interpolate_empty_spatial": lambda t: F(t).interpolate(t.ones(1, 2, 0, 4), size=(3, 4)),
    "interpolate_recompute_false_with_size": lambda t: resized(
        t, "nearest", 2, size=3, recompute_scale_factor=False
    ),
    "interpolate_recompute_with_size": lambda t: resized(
        t, "nearest", 2, size=3, recompute_scale_factor=True
    ),
    **{
        f"Upsample_{mode}": (
            lambda t, mode=mode, d=dims[0]: upsample_module(
                t, "Upsample", d, scale_factor=2, mode=mode
            )
        )
        for mode, dims in MODES.items()
        if mode != "area"
    },
    "Upsample_size_align": lambda t: upsample_module(
        t, "Upsample", 2, size=(5, 7), mode="bilinear", align_corners=True
    ),
    "Upsample_float_scale": lambda t: upsample_module(t, "Upsample", 2, scale_factor=1.5),
    "Upsample_tuple_scale": lambda t: upsample_module(t, "Upsample", 2, scale_factor=(2.0, 1.0)),
    "UpsamplingNearest2d": lambda t: upsample_module(t, "UpsamplingNearest2d", 2, size=(6, 8)),
    "UpsamplingBilinear2d": lambda t: upsample_module(t, "UpsamplingBilinear2d", 2, scale_factor=2),
}

SAMPLING = {
    **{
        f"grid_sample_{d}d_{mode}_{pad}_{int(ac)}": (
            lambda t, m=mode, p=pad, ac=ac, d=d: sampled(t, m, p, ac, d)
        )
        for d, modes in ((2, ("bilinear", "nearest", "bicubic")), (3, ("bilinear", "nearest")))
        for mode in modes
        for pad in ("zeros", "border", "reflection")
        for ac in (False, True)
    },
    "grid_sample_inside": lambda t: sampled(t, "bilinear", "zeros", False, scale=0.3),
    "grid_sample_far_outside": lambda t: sampled(t, "bicubic", "reflection", False, scale=20),
    "grid_sample_nan_grid": lambda t: F(t).grid_sample(
        draw(t, 1, 1, 3, 3), t.full((1, 2, 2, 2), float("nan"), dtype=t.double), align_corners=False
    ),
    "grid_sample_inf_grid": lambda t: F(t).grid_sample(
        draw(t, 1, 1, 3, 3),
        t.tensor([[[[float("inf"), 0.0], [0.0, -float("inf")]]]], dtype=t.double),
        padding_mode="border",
        align_corners=True,
    ),
    "grid_sample_dtype_mismatch": lambda t: F(t).grid_sample(
        draw(t, 1, 1, 3, 3), draw(t, 1, 2, 2, 2).float(), align_corners=False
    ),
    "grid_sample_bicubic_3d": lambda t: sampled(t, "bicubic", "zeros", False, 3),
    "grid_sample_default_align_warning": lambda t: F(t).grid_sample(
        draw(t, 1, 1, 3, 3), draw(t, 1, 2, 2, 2) * 0.5
    ),
    **{
        f"affine_grid_{len(size) - 2}d_{int(ac)}": (lambda t, s=size, ac=ac: affine(t, s, ac))
        for size in ((2, 3, 4, 5), (2, 3, 2, 4, 3), (1, 1, 1, 1), (1, 1, 1, 1, 1))
        for ac in (False, True)
    },
    "affine_grid_theta_shape": lambda t: F(t).affine_grid(
        draw(t, 2, 3, 3), (2, 3, 4, 5), align_corners=False
    ),
    "affine_grid_size_batch": lambda t: F(t).affine_grid(
        draw(t, 2, 2, 3), (3, 3, 4, 5), align_corners=False
    ),
    "affine_grid_size_batch_3d": lambda t: F(t).affine_grid(
        draw(t, 2, 3, 4), (3, 3, 4, 5, 2), align_corners=False
    ),
    "grid_sample_float_input_double_grid": lambda t: F(t).grid_sample(
        draw(t, 1, 1, 3, 3).float(), draw(t, 1, 2, 2, 2), align_corners=False
    ),
    "affine_grid_integer_theta": lambda t: F(t).affine_grid(
        t.ones(1, 2, 3, dtype=t.long), (1, 1, 4, 5), align_corners=False
    ),
    "affine_grid_size_3d": lambda t: F(t).affine_grid(draw(t, 1, 2, 3), (1, 4, 5)),
    "affine_grid_zero_size": lambda t: F(t).affine_grid(
        draw(t, 1, 2, 3), (1, 1, 0, 5), align_corners=False
    ),
}

PADDING = {
    **{
        f"pad_{mode}_{len(shape) - 2}d_{'_'.join(map(str, amounts))}": (
            lambda t, m=mode, a=amounts, s=shape: padded(t, m, a, s)
        )
        for mode in ("constant", "reflect", "replicate", "circular")
        for shape, amounts in (
            ((2, 3, 5), (2, 1)),
            ((2, 3, 5), (0, 4)),
            ((2, 3, 4, 5), (1, 2, 3, 0)),
            ((2, 3, 4, 5), (-1, 2, 1, -2)),
            ((1, 2, 3, 4, 5), (1, 1, 2, 0, 0, 2)),
        )
    },
    "pad_constant_value": lambda t: padded(t, "constant", (1, 2, 0, 1), (2, 3), value=-3.5),
    "pad_constant_many_dims": lambda t: padded(
        t, "constant", (1, 1, 1, 1, 1, 1, 1, 1), (2, 3, 2, 2)
    ),
    "pad_constant_integer": lambda t: F(t).pad(t.arange(6).reshape(2, 3), (1, 1), value=7),
    "pad_constant_negative_all": lambda t: padded(t, "constant", (-2, -3), (2, 5)),
    "pad_reflect_unbatched": lambda t: padded(t, "reflect", (2, 2), (3, 5)),
    "pad_replicate_unbatched_2d": lambda t: padded(t, "replicate", (2, 2, 1, 1), (3, 4, 5)),
    "pad_circular_unbatched": lambda t: padded(t, "circular", (1, 2), (3, 5)),
    "pad_reflect_too_big": lambda t: padded(t, "reflect", (5, 0), (2, 3, 5)),
    "pad_circular_too_big": lambda t: padded(t, "circular", (6, 0), (2, 3, 5)),
    "pad_reflect_bad_length": lambda t: padded(t, "reflect", (1, 1, 1), (2, 3, 5)),
    "pad_replicate_too_many": lambda t: padded(t, "replicate", (1, 1, 1, 1), (2, 3, 5)),
    "pad_reflect_2d_input_4_pads": lambda t: padded(t, "reflect", (1, 1, 1, 1), (3, 5)),
    "pad_value_with_reflect": lambda t: padded(t, "reflect", (1, 1), (2, 3, 5), value=1.0),
    "pad_bad_mode": lambda t: padded(t, "wrap", (1, 1), (2, 3, 5)),
    "pad_odd_length": lambda t: padded(t, "constant", (1,), (2, 3, 5)),
    "pad_reflect_empty": lambda t: padded(t, "reflect", (1, 1), (0, 3, 5)),
    "pad_reflect_zero_value": lambda t: padded(t, "reflect", (1, 1), (2, 3, 5), value=0.0),
    "pad_reflect_zero_channels_2d": lambda t: padded(t, "reflect", (1, 1, 1, 1), (2, 0, 4)),
    "pad_replicate_zero_depth_3d": lambda t: padded(
        t, "replicate", (1, 1, 1, 1, 1, 1), (2, 3, 0, 4, 4)
    ),
    "pad_replicate_zero_batch": lambda t: padded(t, "replicate", (1, 1), (0, 3, 4)),
    "pad_reflect_zero_width": lambda t: padded(t, "reflect", (1, 1), (2, 3, 0)),
    "pad_replicate_zero_width": lambda t: padded(t, "replicate", (1, 1), (2, 3, 0)),
    **{
        f"{cls}_{what}": (
            lambda t, cls=cls, a=args, s=shape: (
                repr(getattr(t.nn, cls)(*a)),
                with_grads(t, getattr(t.nn, cls)(*a), draw(t, *s)),
            )
        )
        for cls, what, args, shape in (
            ("ReflectionPad1d", "int", (2,), (2, 3, 5)),
            ("ReflectionPad2d", "tuple", ((1, 0, 2, 1),), (2, 3, 4, 5)),
            ("ReflectionPad3d", "int", (1,), (1, 2, 3, 4, 5)),
            ("ReplicationPad1d", "tuple", ((0, 3),), (2, 3, 5)),
            ("ReplicationPad3d", "tuple", ((1, 0, 2, 1, 0, 1),), (1, 2, 3, 4, 5)),
            ("CircularPad2d", "int", (1,), (2, 3, 4, 5)),
            ("CircularPad3d", "tuple", ((1, 0, 2, 1, 0, 1),), (1, 2, 3, 4, 5)),
            ("ConstantPad1d", "int", (2, 1.5), (2, 3, 5)),
            ("ConstantPad3d", "tuple", ((1, 0, 2, 1, 0, 1), -1.0), (1, 2, 3, 4, 5)),
            ("ZeroPad1d", "tuple", ((1, 2),), (2, 3, 5)),
            ("ZeroPad2d", "int", (2,), (2, 3, 4, 5)),
            ("ZeroPad3d", "negative", ((-1, 0, 1, 0, 0, 1),), (1, 2, 3, 4, 5)),
            ("ReflectionPad2d", "wrong_dims", (1,), (2, 3, 5)),
            ("ReplicationPad2d", "wrong_dims", (1,), (5, 4)),
            ("CircularPad1d", "wrong_dims", (1,), (5,)),
        )
    },
}

EDGES = {
    "grid_sample_unit_input_aligned": lambda t: with_grads(
        t,
        lambda a, g: F(t).grid_sample(a, g, align_corners=True),
        draw(t, 1, 1, 1, 1),
        draw(t, 1, 2, 2, 2),
    ),
    "grid_sample_bicubic_unit_height": lambda t: with_grads(
        t,
        lambda a, g: F(t).grid_sample(
            a, g, mode="bicubic", padding_mode="reflection", align_corners=True
        ),
        draw(t, 1, 1, 1, 3),
        draw(t, 1, 2, 2, 2),
    ),
    "interpolate_bicubic_aligned_to_one_row": lambda t: resized(
        t, "bicubic", 2, size=(1, 3), align_corners=True
    ),
    "interpolate_bilinear_aligned_from_one_pixel": lambda t: resized(
        t, "bilinear", 2, shape=(1, 2, 1, 1), size=(3, 3), align_corners=True
    ),
    "pad_circular_negative": lambda t: padded(t, "circular", (-1, 2, 1, -1), (1, 2, 4, 5)),
    "pad_replicate_negative": lambda t: padded(t, "replicate", (-1, 2), (1, 2, 5)),
    "pad_reflect_negative": lambda t: padded(t, "reflect", (-2, 3), (1, 2, 5)),
}

ALL = {**RESIZE, **SAMPLING, **PADDING, **EDGES}


@pytest.mark.parametrize("name", ALL)
def test_resampling_and_padding_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tolerance = 2e-5 if "float32" in name or "channels_last" in name else 1e-9
        same_outcome(ALL[name], rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("align_corners", [False, True])
def test_uint8_bicubic_resizes_are_torchs_to_the_last_bit(align_corners):
    """PyTorch's uint8 kernel weighs each input once: the cubic taps clamped onto a border
    input are summed before the weights go to fixed point, which also sets their precision
    (a pixel or two was off by one in about 40% of resizes). Outputs are two pixels wide or
    more: torch's kernel for more than four channels leaves a one-pixel-wide output's rows
    after the first at zero."""
    import numpy as np
    import torch

    import gradjit
    rng = np.random.default_rng(8)
    for _ in range(40):
        channels, height, width = (int(n) for n in rng.integers((1, 2, 2), (7, 24, 24)))
        size = tuple(int(n) for n in rng.integers(2, 40, 2))
        image = rng.integers(0, 256, (2, channels, height, width)).astype(np.uint8)
        want = torch.nn.functional.interpolate(torch.tensor(image), size=size, mode="bicubic",
                                               align_corners=align_corners)
        got = gradjit.nn.functional.interpolate(gradjit.tensor(image), size=size,
                                                mode="bicubic", align_corners=align_corners)
        np.testing.assert_array_equal(np.asarray(got), want.numpy())
