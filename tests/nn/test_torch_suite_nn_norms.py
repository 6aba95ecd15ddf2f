"""Normalization layers and affine resampling as PyTorch's own nn tests exercise them
(test_nn.py's TestNNDeviceType on the CPU: instance, layer and group norm, empty inputs,
rotations by affine_grid and grid_sample): values, gradients, buffers and errors compared."""

import math
import warnings

import numpy as np
import pytest

from tests.nn.helpers import same_outcome


def uniform(t, *shape, seed=0, low=0.0, high=10.0, dtype="float32"):
    values = np.random.default_rng(seed).uniform(low, high, shape)
    return t.tensor(values, dtype=getattr(t, dtype))


def with_grads(t, module, x):
    x = x.detach().requires_grad_()
    out = module(x)
    weights = t.linspace(0.5, 1.5, max(out.numel(), 1), dtype=t.float64)[: out.numel()]
    (out * weights.reshape(out.shape).to(out.dtype)).sum().backward()
    return out, x.grad, [p.grad for p in module.parameters()], list(module.buffers())


def instance_norm(t, dims, track, momentum=0.1, eval_after=False):
    shape = (3, 4) + (5, 6, 3)[:dims]
    m = getattr(t.nn, f"InstanceNorm{dims}d")(
        4, eps=0, momentum=momentum, track_running_stats=track
    )
    train = with_grads(t, m, uniform(t, *shape, high=1.0))
    if not eval_after:
        return train
    m.eval()
    delta = m.running_var.sqrt() * t.arange(4.0) if track else 0
    x = uniform(t, *shape, high=1.0) + (delta.view(-1, *[1] * dims) if track else 0)
    return train, with_grads(t, m, x)


def layer_norm(t, shape, normalized, scale=None, dtype="float32"):
    ln = t.nn.LayerNorm(normalized, eps=0 if scale is None else 1e-5).to(getattr(t, dtype))
    if scale is not None:
        with t.no_grad():
            ln.weight.fill_(scale[0])
            ln.bias.fill_(scale[1])
    return with_grads(t, ln, uniform(t, *shape, dtype=dtype))


def group_norm(t, shape, groups, affine=None):
    gn = t.nn.GroupNorm(groups, shape[1], eps=0)
    if affine:
        with t.no_grad():
            gn.weight.copy_(uniform(t, shape[1], seed=1, low=0.2, high=2))
            gn.bias.copy_(uniform(t, shape[1], seed=2, low=0.2, high=2))
    return with_grads(t, gn, uniform(t, *shape))


def group_norm_mixed(t, shape, groups, dtype):
    x = uniform(t, *shape, low=-2, high=2).to(getattr(t, dtype))
    t.manual_seed(0)
    full = t.nn.GroupNorm(groups, shape[1])
    return with_grads(t, full, x), with_grads(t, full, x.float())


def empty_inputs(t, module, *shape):
    t.manual_seed(0)
    m = module(t)
    return with_grads(t, m, t.zeros(shape))


def rotation(t, angle, input_size, output_size, seed=0):
    """affine_grid of a rotation then bilinear grid_sample with border padding (what
    test_nn.py checks against scipy's affine_transform)."""
    c, s = math.cos(angle), math.sin(angle)
    theta = t.tensor([[[c, -s, 0.0], [s, c, 0.0]]], dtype=t.float32)
    x = uniform(t, *input_size, seed=seed, high=1.0)
    grid = t.nn.functional.affine_grid(theta, output_size, align_corners=True)
    out = t.nn.functional.grid_sample(x, grid, padding_mode="border", align_corners=True)
    return grid, out


def rotation_3d(t, angle, axis, input_size, output_size):
    x_, y_, z_ = axis
    c, s, c1 = math.cos(angle), math.sin(angle), 1 - math.cos(angle)
    rot = [
        [x_ * x_ * c1 + c, y_ * x_ * c1 - z_ * s, z_ * x_ * c1 + y_ * s, 0],
        [x_ * y_ * c1 + z_ * s, y_ * y_ * c1 + c, z_ * y_ * c1 - x_ * s, 0],
        [x_ * z_ * c1 - y_ * s, y_ * z_ * c1 + x_ * s, z_ * z_ * c1 + c, 0],
    ]
    theta = t.tensor([rot], dtype=t.float32)
    grid = t.nn.functional.affine_grid(theta, output_size, align_corners=True)
    x = uniform(t, *input_size, high=1.0)
    return grid, t.nn.functional.grid_sample(x, grid, padding_mode="border", align_corners=True)


def conv_empty(t, dims):
    t.manual_seed(0)
    conv = getattr(t.nn, f"Conv{dims}d")(4, 4, 3, 1)
    x = t.zeros((0, 4) + (6,) * dims)
    return conv(x), conv(
        x.contiguous(memory_format=t.channels_last if dims == 2 else t.channels_last_3d)
    )


def instance_norm_channels(t, dims, no_batch, affine):
    m = getattr(t.nn, f"InstanceNorm{dims}d")(4, affine=affine)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = m(t.ones(([3] if not no_batch else []) + [2] * (dims + 1)))
    return out.shape, [str(w.message) for w in caught]


def single_spatial_element(t, dims):
    m = getattr(t.nn, f"InstanceNorm{dims}d")(3, track_running_stats=True)
    x = uniform(t, 10, 3, *[1] * dims)
    try:
        m(x)
    except ValueError as error:
        first = str(error)
    m.eval()
    return first, m(x)


SCENARIOS = {
    **{
        f"instance_norm_{d}d_{'tracked' if tr else 'plain'}": (
            lambda t, d=d, tr=tr: instance_norm(
                t, d, tr, momentum=1 if tr else 0.1, eval_after=True
            )
        )
        for d in (1, 2, 3)
        for tr in (False, True)
    },
    **{
        f"layer_norm_{len(s)}d_{len(n)}": (lambda t, s=s, n=n: layer_norm(t, s, n))
        for s, n in (
            ((3, 4), (4,)),
            ((3, 4, 5), (4, 5)),
            ((5, 3, 4, 3), (3,)),
            ((3, 4, 5, 3, 4), (5, 3, 4)),
        )
    },
    "layer_norm_scaled": lambda t: layer_norm(t, (3, 4, 5), (5,), (1.5, 0.7)),
    **{
        f"layer_norm_bad_{i}": (lambda t, ns=ns, shape=shape: t.nn.LayerNorm(ns)(t.ones(shape)))
        for i, (ns, shape) in enumerate(
            (((), ()), ((2, 3), (3,)), ((2,), (1, 2, 3)), ((10,), (2, 3)), (10, (2, 3)))
        )
    },
    **{
        f"group_norm_{'x'.join(map(str, s))}_{g}": (lambda t, s=s, g=g: group_norm(t, s, g))
        for s, g in (
            ((1, 2, 3, 4), 2),
            ((2, 3, 10), 3),
            ((3, 1, 1, 1, 2), 1),
            ((2, 6, 4, 2, 2), 3),
            ((1, 256, 1, 1), 32),
        )
    },
    "group_norm_affine": lambda t: group_norm(t, (2, 6, 4, 2, 2), 3, affine=True),
    **{
        f"group_norm_bad_{g}": (lambda t, s=s, g=g: t.nn.GroupNorm(g, s[1]))
        for s, g in (
            ((1, 2, 3, 4), 3),
            ((2, 3, 10), 2),
            ((3, 1, 1, 1, 2), 10),
            ((2, 6, 4, 2, 2), 4),
        )
    },
    **{
        f"empty_{name}": (lambda t, make=make, shape=shape: empty_inputs(t, make, *shape))
        for name, make, shape in (
            ("conv2d", lambda t: t.nn.Conv2d(4, 4, 3), (0, 4, 5, 5)),
            ("linear", lambda t: t.nn.Linear(3, 2), (0, 3)),
            ("group_norm", lambda t: t.nn.GroupNorm(2, 4), (0, 4, 3)),
            ("layer_norm", lambda t: t.nn.LayerNorm(3), (0, 3)),
            ("batch_norm_eval", lambda t: t.nn.BatchNorm1d(4).eval(), (0, 4)),
            ("conv_transpose", lambda t: t.nn.ConvTranspose2d(4, 2, 3), (0, 4, 3, 3)),
            ("max_pool", lambda t: t.nn.MaxPool2d(2), (0, 2, 4, 4)),
            ("embedding_bag_like_pool", lambda t: t.nn.AvgPool1d(2), (0, 2, 4)),
        )
    },
    **{
        f"rotate_2d_{i}": (lambda t, a=args: rotation(t, *a))
        for i, args in enumerate(
            [(0.0, (1, 1, 3, 3), (1, 1, 5, 5)), (0.125 * math.tau, (1, 1, 3, 3), (1, 1, 3, 3))]
            + [
                (0.25 * math.tau, i, o)
                for i in ((1, 1, 2, 2), (1, 1, 3, 3), (1, 1, 6, 6))
                for o in ((1, 1, 2, 2), (1, 1, 5, 5))
            ]
            + [
                (r * math.tau, i, o)
                for r in (0.5, 0.25, 0.3)
                for i in ((1, 1, 3, 5), (1, 1, 4, 4))
                for o in ((1, 1, 5, 3), (1, 1, 6, 6))
            ]
        )
    },
    **{
        f"rotate_3d_{i}": (lambda t, a=args: rotation_3d(t, *a))
        for i, args in enumerate(
            [
                (r * math.tau, ax, (1, 1, 2, 3, 4), o)
                for r in (0.0, 0.25, 0.3)
                for ax in ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.48, 0.6, 0.64))
                for o in ((1, 1, 3, 3, 3), (1, 1, 4, 3, 2))
            ]
        )
    },
    **{f"conv_empty_{d}d": (lambda t, d=d: conv_empty(t, d)) for d in (2, 3)},
    **{
        f"instance_norm_{d}d_channels_{int(nb)}_{int(af)}": (
            lambda t, a=(d, nb, af): instance_norm_channels(t, *a)
        )
        for d in (1, 2, 3)
        for nb in (True, False)
        for af in (True, False)
    },
    "instance_norm_one_value": lambda t: t.nn.InstanceNorm1d(10)(t.ones(1, 10, 1)),
    **{
        f"instance_norm_single_spatial_{d}d": (lambda t, d=d: single_spatial_element(t, d))
        for d in (1, 2, 3)
    },
}


# half and bfloat16: torch accumulates in float32 and rounds once; compared to their precision
LOW_PRECISION = {
    **{
        f"layer_norm_{dtype}": (
            lambda t, dtype=dtype: layer_norm(t, (2, 3, 11, 3), (11, 3), (1.0, 0.0), dtype)
        )
        for dtype in ("bfloat16", "float16")
    },
    **{
        f"group_norm_mixed_{dtype}_{g}": (
            lambda t, s=s, g=g, dtype=dtype: group_norm_mixed(t, s, g, dtype)
        )
        for dtype in ("bfloat16", "float16")
        for s, g in (((1, 8, 4, 3), 2), ((1, 9, 3, 4, 5), 3))
    },
}


@pytest.mark.parametrize("name", LOW_PRECISION)
def test_low_precision_norms_match_torch_to_their_precision(name):
    same_outcome(LOW_PRECISION[name], rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("name", SCENARIOS)
def test_norms_and_rotations_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_outcome(SCENARIOS[name], rtol=2e-5, atol=2e-5)


def pad_copies(t, mode, pads):
    x = uniform(t, 1, 3, 4, 4, high=1.0, dtype="float64")
    out = t.nn.functional.pad(x, pads, mode=mode)
    out.fill_(4)
    return bool((x.abs() < 2).all()), out.shape


PADDING = {
    "rms_norm_half": lambda t: t.nn.functional.rms_norm(
        uniform(t, 1, 2, 3, high=1.0).half(), (1, 2, 3), uniform(t, 1, 2, 3, seed=1).half(), 0.5
    ),
    "rms_norm_bfloat16": lambda t: t.nn.functional.rms_norm(
        uniform(t, 1, 2, 3, high=1.0).bfloat16(),
        (1, 2, 3),
        uniform(t, 1, 2, 3, seed=1).bfloat16(),
        0.5,
    ),
    **{
        f"glu_bfloat16_{s[-1]}": (
            lambda t, s=s: with_grads(
                t, t.nn.GLU(dim=-1), uniform(t, *s, low=-2, high=2).bfloat16()
            )
        )
        for s in ((1, 3, 1, 6), (1, 3, 1, 128))
    },
    "group_norm_one_value_per_group": lambda t: t.nn.GroupNorm(10, 10)(t.ones(1, 10, 1)),
    "group_norm_empty": lambda t: empty_inputs(t, lambda t: t.nn.GroupNorm(2, 4), 0, 4, 2, 2),
    **{
        f"group_norm_channels_last_{i}": (
            lambda t, s=s, g=g: with_grads(
                t,
                (t.manual_seed(0), t.nn.GroupNorm(g, s[1]))[1],
                uniform(t, *s, low=-1, high=1).contiguous(
                    memory_format=t.channels_last if len(s) == 4 else t.channels_last_3d
                ),
            )
        )
        for i, (s, g) in enumerate(
            (((4, 8, 10, 10), 4), ((2, 30, 9, 9), 3), ((2, 9, 7, 11, 15), 3))
        )
    },
    **{
        f"pad_circular_{a}_{b}": (
            lambda t, a=a, b=b: t.nn.functional.pad(
                t.ones(1, 1, 4, dtype=t.float64), (a, b), mode="circular"
            )
        )
        for a, b in ((5, 4), (3, 6), (-3, -2))
    },
    "pad_reflect_1d_big": lambda t: t.nn.functional.pad(t.ones(1, 1, 2), (2, 1), mode="reflect"),
    **{
        f"pad_copies_{mode}_{sum(map(abs, pads))}": (lambda t, a=(mode, pads): pad_copies(t, *a))
        for mode in ("constant", "reflect", "replicate", "circular")
        for pads in ((0, 0, 0, 0), (0, 0, -1, -1))
    },
    **{
        f"replication_pad_empty_{d}d": (
            lambda t, d=d: empty_inputs(
                t, lambda t: getattr(t.nn, f"ReplicationPad{d}d")(3), 0, 3, *[5] * d
            )
        )
        for d in (1, 2, 3)
    },
    **{
        f"replication_pad_{d}d_values": (
            lambda t, d=d: with_grads(
                t,
                getattr(t.nn, f"ReplicationPad{d}d")((3, 4, 5, 6, 2, 1)[: 2 * d]),
                uniform(t, 2, 3, *[4] * d),
            )
        )
        for d in (1, 2, 3)
    },
}


@pytest.mark.parametrize("name", PADDING)
def test_padding_and_small_dtypes_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_outcome(
            PADDING[name],
            rtol=1e-2 if "16" in name or "half" in name else 2e-5,
            atol=1e-2 if "16" in name or "half" in name else 2e-5,
        )
