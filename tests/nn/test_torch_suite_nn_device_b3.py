"""Batch, instance, group and layer norm, and convolutions, as test_nn.py's TestNNDeviceType
exercises them on the CPU: values, gradients, running statistics, reprs and errors compared
with torch's."""

import warnings

import pytest

from tests.nn.helpers import same_outcome, uniform


def backward(t, module, x, steps=1):
    """module(x) `steps` times, each output's weighted sum back-propagated; the last output,
    the gradients of x and the parameters, and the buffers."""
    x = x.detach().requires_grad_()
    for _ in range(steps):
        out = module(x)
        weights = t.linspace(0.5, 1.5, max(out.numel(), 1))[: out.numel()].to(out.dtype)
        (out * weights.reshape(out.shape)).sum().backward()
    return out, x.grad, [p.grad for p in module.parameters()], list(module.buffers())


def norm(t, name, *args, shape, steps=1, train=True, seed=0, dtype="float32", **kwargs):
    t.manual_seed(0)
    m = getattr(t.nn, name)(*args, **kwargs).to(getattr(t, dtype)).train(train)
    return backward(t, m, uniform(t, *shape, seed=seed, dtype=dtype), steps)


def bn_then_eval(t, dims=2, batch=1, **kwargs):
    """Train a few steps (running stats update) then evaluate, batch 1 included."""
    t.manual_seed(0)
    m = getattr(t.nn, f"BatchNorm{dims}d")(3, **kwargs)
    spatial = (4, 3, 2)[: dims - 1] if dims > 1 else (4,)
    for seed in range(3):
        m(uniform(t, 4, 3, *spatial, seed=seed, high=3))
    m.eval()
    return backward(t, m, uniform(t, batch, 3, *spatial, seed=7)), m.num_batches_tracked


def bn_untracked(t):
    """test_batchnorm_buffer_update_when_stats_are_not_tracked: no buffers to update."""
    m = t.nn.BatchNorm1d(3, track_running_stats=False)
    out = m(uniform(t, 4, 3))
    return out, m.running_mean, m.running_var, m.num_batches_tracked, m.eval()(uniform(t, 2, 3))


def bn_functional(t, training, **sizes):
    mean, var = t.zeros(sizes.get("mean", 3)), t.ones(sizes.get("var", 3))
    weight = t.ones(sizes["weight"]) if "weight" in sizes else None
    bias = t.zeros(sizes["bias"]) if "bias" in sizes else None
    return t.nn.functional.batch_norm(uniform(t, 4, 3, 2), mean, var, weight, bias, training)


def instance_general(t, dims, affine, track):
    shape = (3, 4) + (5, 3, 2)[:dims]
    t.manual_seed(0)
    m = getattr(t.nn, f"InstanceNorm{dims}d")(4, affine=affine, track_running_stats=track)
    first = backward(t, m, uniform(t, *shape))
    m.eval()
    return first, backward(t, m, uniform(t, *shape, seed=1))


def conv(t, name, args, shape, seed=0, dtype="float32", **kwargs):
    t.manual_seed(0)
    m = getattr(t.nn, name)(*args, **kwargs).to(getattr(t, dtype))
    return backward(t, m, uniform(t, *shape, seed=seed, dtype=dtype))


def conv_fn(t, dims, x_shape, w_shape, transposed=False, bias=False, **kwargs):
    name = f"conv{'_transpose' if transposed else ''}{dims}d"
    x = uniform(t, *x_shape).requires_grad_()
    w = uniform(t, *w_shape, seed=1).requires_grad_()
    b = uniform(t, w_shape[1 if transposed else 0] * (kwargs.get("groups", 1) if transposed
                                                      else 1), seed=2) if bias else None
    out = getattr(t.nn.functional, name)(x, w, b, **kwargs)
    weights = t.linspace(0.5, 1.5, max(out.numel(), 1))[: out.numel()]
    (out * weights.reshape(out.shape)).sum().backward()
    return out, x.grad, w.grad


def conv_transpose_output_size(t, output_size, dims=2, **kwargs):
    t.manual_seed(0)
    m = getattr(t.nn, f"ConvTranspose{dims}d")(2, 3, 3, stride=2, **kwargs)
    x = uniform(t, 1, 2, *[4] * dims).requires_grad_()
    out = m(x, output_size=output_size)
    out.sum().backward()
    return out, x.grad


def down_up(t):
    """test_ConvTranspose2d_output_size_downsample_upsample: back to the input's size."""
    t.manual_seed(0)
    out = []
    for stride, pad, kernel in ((2, 1, 3), (3, 0, 2), (2, 2, 4)):
        down = t.nn.Conv2d(1, 1, kernel, stride, pad)
        up = t.nn.ConvTranspose2d(1, 1, kernel, stride, pad)
        x = uniform(t, 1, 1, 9, 10)
        out.append(up(down(x), output_size=x.shape).shape)
    return out


def same_padding_module(t, dims, dilation, kernel):
    t.manual_seed(0)
    m = getattr(t.nn, f"Conv{dims}d")(2, 3, kernel, padding="same", dilation=dilation,
                                      padding_mode="zeros")
    out = backward(t, m, uniform(t, 2, 2, *[7] * dims))
    return out, m.padding, m._reversed_padding_repeated_twice


def bn_old_state_dict(t):
    """test_batchnorm_load_state_dict: a state saved before num_batches_tracked loads."""
    bn = t.nn.BatchNorm2d(3)
    state = bn.state_dict()
    del state["num_batches_tracked"]
    state._metadata[""]["version"] = 1
    bn.load_state_dict(state)
    return bn.num_batches_tracked, list(bn.state_dict())


def bn_channels_last(t):
    t.manual_seed(0)
    m = t.nn.BatchNorm2d(3)
    x = uniform(t, 2, 3, 4, 5).contiguous(memory_format=t.channels_last)
    return backward(t, m, x)


def bn_mixed(t, dtype):
    """A low-precision input with float parameters and statistics (CPU mixed batch norm)."""
    t.manual_seed(0)
    m = t.nn.BatchNorm1d(3)
    out = m(uniform(t, 4, 3, 5, dtype=dtype))
    return out.dtype, m.running_mean.dtype, out.float(), m.running_var


def grad_fn_names(t):
    t.manual_seed(0)
    x = t.ones(2, 3, 4, 4)
    modules = (t.nn.BatchNorm2d(3), t.nn.InstanceNorm2d(3, affine=True), t.nn.GroupNorm(1, 3),
               t.nn.LayerNorm(4), t.nn.Conv2d(3, 2, 3, padding="same"),
               t.nn.Conv2d(3, 2, 3, padding=1, padding_mode="reflect"),
               t.nn.ConvTranspose2d(3, 2, 3), t.nn.InstanceNorm1d(3, affine=True))
    return [type(m(x if m.__class__.__name__[-2] != "1" else x[:, :, 0]).grad_fn).__name__
            for m in modules]


SCENARIOS = {
    **{
        f"mixed_dtypes_{name}": (lambda t, m=make: m(t))
        for name, make in {
            "batch_norm_half_params": lambda t: t.nn.BatchNorm1d(3).half()(t.ones(2, 3)),
            "batch_norm_double_input": lambda t: t.nn.BatchNorm1d(3)(
                t.ones(2, 3, dtype=t.float64)),
            "batch_norm_bfloat16_params_half_input": lambda t: t.nn.BatchNorm1d(3).bfloat16()(
                t.ones(2, 3).half()),
            "layer_norm_half_params": lambda t: t.nn.LayerNorm(3).half()(t.ones(2, 3)),
            "layer_norm_integral": lambda t: t.nn.LayerNorm(3)(t.ones(2, 3, dtype=t.long)),
            "group_norm_double_input": lambda t: t.nn.GroupNorm(1, 3)(
                t.ones(2, 3, dtype=t.float64)),
            "instance_norm_double_input": lambda t: t.nn.InstanceNorm1d(3, affine=True)(
                t.ones(2, 3, 4, dtype=t.float64)),
            "layer_norm_bias_other_dtype": lambda t: t.nn.functional.layer_norm(
                t.ones(2, 3), (3,), t.ones(3), t.ones(3, dtype=t.float64)),
        }.items()
    },
    "layer_norm_bfloat16_mixed": lambda t: (lambda out: (out.dtype, out.float()))(
        t.nn.LayerNorm(3)(uniform(t, 2, 3, dtype="bfloat16"))),
    "group_norm_bfloat16_mixed": lambda t: (lambda out: (out.dtype, out.float()))(
        t.nn.GroupNorm(1, 4)(uniform(t, 2, 4, 3, dtype="bfloat16"))),
    "instance_norm_bfloat16_mixed": lambda t: (lambda out: (out.dtype, out.float()))(
        t.nn.InstanceNorm1d(3, affine=True)(uniform(t, 2, 3, 4, dtype="bfloat16"))),
    "conv_transpose_output_padding_negative": lambda t: conv_fn(
        t, 2, (1, 2, 5, 5), (2, 3, 3, 3), transposed=True, output_padding=-1),
    "conv_transpose_groups_bad": lambda t: conv_fn(t, 2, (1, 4, 5, 5), (4, 3, 3, 3),
                                                   transposed=True, groups=3),
    "grad_fn_names": grad_fn_names,
    "bn_old_state_dict": bn_old_state_dict,
    "bn_channels_last": bn_channels_last,
    "bn_mixed_bfloat16": lambda t: bn_mixed(t, "bfloat16"),
    "bn_momentum_none": lambda t: norm(t, "BatchNorm1d", 3, momentum=None, shape=(4, 3), steps=3),
    "bn_momentum_none_2d": lambda t: norm(t, "BatchNorm2d", 3, momentum=None,
                                          shape=(4, 3, 2, 2), steps=2),
    "bn_affine_false": lambda t: norm(t, "BatchNorm2d", 3, affine=False, shape=(2, 3, 4, 4)),
    "bn_no_stats_train": lambda t: norm(t, "BatchNorm3d", 3, track_running_stats=False,
                                        shape=(2, 3, 2, 3, 2)),
    "bn_no_stats_eval": lambda t: norm(t, "BatchNorm1d", 3, track_running_stats=False,
                                       train=False, shape=(4, 3, 5)),
    "bn_eval_batch_one_1d": lambda t: bn_then_eval(t, 1),
    "bn_eval_batch_one_2d": lambda t: bn_then_eval(t, 2, momentum=0.3),
    "bn_eval_batch_one_3d": lambda t: bn_then_eval(t, 3, affine=False),
    "bn_eval_momentum_none": lambda t: bn_then_eval(t, 2, batch=3, momentum=None),
    "bn_double": lambda t: norm(t, "BatchNorm2d", 3, shape=(2, 3, 2, 2), dtype="float64"),
    "bn_one_value_per_channel": lambda t: norm(t, "BatchNorm1d", 3, shape=(1, 3)),
    "bn_one_value_eval": lambda t: norm(t, "BatchNorm1d", 3, shape=(1, 3), train=False),
    "bn_2d_wrong_dim": lambda t: norm(t, "BatchNorm2d", 3, shape=(2, 3, 4)),
    "bn_1d_wrong_dim": lambda t: norm(t, "BatchNorm1d", 3, shape=(2, 3, 4, 4)),
    "bn_3d_wrong_dim": lambda t: norm(t, "BatchNorm3d", 3, shape=(2, 3, 4, 4)),
    "bn_channels_mismatch": lambda t: norm(t, "BatchNorm2d", 4, shape=(2, 3, 2, 2)),
    "bn_untracked_buffers": bn_untracked,
    "bn_running_mean_size": lambda t: bn_functional(t, False, mean=4),
    "bn_running_var_size": lambda t: bn_functional(t, False, var=2),
    "bn_weight_size": lambda t: bn_functional(t, True, weight=4),
    "bn_bias_size": lambda t: bn_functional(t, True, bias=2),
    "bn_training_without_stats": lambda t: t.nn.functional.batch_norm(
        uniform(t, 4, 3), None, None, training=True),
    "bn_eval_without_stats": lambda t: t.nn.functional.batch_norm(
        uniform(t, 4, 3), None, None, training=False),
    "bn_repr": lambda t: repr(t.nn.BatchNorm2d(3, eps=1e-3, momentum=None, affine=False,
                                               track_running_stats=False)),
    "bn_state_dict": lambda t: list(t.nn.BatchNorm1d(3).state_dict()),
    "bn_num_features_zero_batch": lambda t: norm(t, "BatchNorm2d", 3, shape=(0, 3, 2, 2)),
    "instance_1d_affine_tracked": lambda t: instance_general(t, 1, True, True),
    "instance_2d_tracked": lambda t: instance_general(t, 2, False, True),
    "instance_3d_affine": lambda t: instance_general(t, 3, True, False),
    "instance_unbatched": lambda t: norm(t, "InstanceNorm1d", 4, affine=True, shape=(4, 5)),
    "instance_channels_mismatch_warn": lambda t: norm(t, "InstanceNorm1d", 3, shape=(2, 4, 5)),
    "instance_channels_mismatch_affine": lambda t: norm(t, "InstanceNorm1d", 3, affine=True,
                                                        shape=(2, 4, 5)),
    "instance_one_value": lambda t: norm(t, "InstanceNorm2d", 4, shape=(2, 4, 1, 1)),
    "instance_wrong_dim": lambda t: norm(t, "InstanceNorm2d", 4, shape=(2, 4, 5, 1, 1)),
    "instance_repr": lambda t: repr(t.nn.InstanceNorm3d(4, affine=True)),
    "group_norm_affine_false": lambda t: norm(t, "GroupNorm", 2, 4, affine=False,
                                              shape=(3, 4, 5)),
    "group_norm_one_group_double": lambda t: norm(t, "GroupNorm", 1, 6, shape=(2, 6, 3, 2),
                                                  dtype="float64"),
    "group_norm_2d_input": lambda t: norm(t, "GroupNorm", 2, 6, shape=(4, 6)),
    "group_norm_bias_mismatch": lambda t: t.nn.functional.group_norm(
        t.ones(2, 4, 3), 2, t.ones(4), t.ones(3)),
    "group_norm_bias_mismatch_no_weight": lambda t: t.nn.functional.group_norm(
        t.ones(2, 4, 3), 2, None, t.ones(3)),
    "group_norm_channels_mismatch": lambda t: norm(t, "GroupNorm", 2, 4, shape=(2, 6, 3)),
    "group_norm_not_divisible": lambda t: t.nn.GroupNorm(3, 4),
    "group_norm_two_values_per_group": lambda t: norm(t, "GroupNorm", 2, 4, shape=(1, 4),
                                                      dtype="float64"),
    "group_norm_repr": lambda t: repr(t.nn.GroupNorm(2, 4, eps=1e-3, affine=False)),
    "layer_norm_no_affine": lambda t: norm(t, "LayerNorm", (3, 4), elementwise_affine=False,
                                           shape=(2, 3, 4)),
    "layer_norm_no_bias": lambda t: norm(t, "LayerNorm", 4, bias=False, shape=(2, 3, 4)),
    "layer_norm_wrong_shape": lambda t: norm(t, "LayerNorm", (3, 5), shape=(2, 3, 4)),
    "layer_norm_double": lambda t: norm(t, "LayerNorm", [4], shape=(5, 4), dtype="float64",
                                        eps=1e-2),
    "layer_norm_repr": lambda t: repr(t.nn.LayerNorm((3, 4), eps=1e-3, bias=False)),
    "local_response_norm_3d": lambda t: norm(t, "LocalResponseNorm", 3, shape=(2, 5, 4)),
    "conv1d_same_dilated": lambda t: conv_fn(t, 1, (2, 2, 9), (3, 2, 4), padding="same",
                                             dilation=2),
    "conv2d_same_even_kernel": lambda t: conv_fn(t, 2, (1, 2, 6, 7), (3, 2, 4, 3),
                                                 padding="same", bias=True),
    "conv3d_same_dilated": lambda t: conv_fn(t, 3, (1, 2, 5, 6, 4), (2, 2, 2, 3, 2),
                                             padding="same", dilation=(1, 2, 3)),
    "conv2d_valid": lambda t: conv_fn(t, 2, (1, 2, 6, 7), (3, 2, 4, 3), padding="valid"),
    "conv1d_same_stride": lambda t: conv_fn(t, 1, (1, 2, 9), (3, 2, 4), padding="same",
                                            stride=2),
    "conv2d_bad_string": lambda t: conv_fn(t, 2, (1, 2, 6, 7), (3, 2, 4, 3), padding="full"),
    "conv_same_module_even": lambda t: same_padding_module(t, 2, 1, 4),
    "conv_same_module_dilated_3d": lambda t: same_padding_module(t, 3, 2, 3),
    "conv_same_module_stride": lambda t: t.nn.Conv2d(2, 3, 3, stride=2, padding="same"),
    "conv_bad_padding_string": lambda t: t.nn.Conv1d(2, 3, 3, padding="full"),
    "conv_transpose_padding_mode": lambda t: t.nn.ConvTranspose2d(2, 3, 3,
                                                                  padding_mode="reflect"),
    **{
        f"conv2d_padding_mode_{mode}": (
            lambda t, mode=mode: conv(t, "Conv2d", (2, 3, 3), (2, 2, 5, 6), padding=(1, 2),
                                      padding_mode=mode))
        for mode in ("reflect", "replicate", "circular", "zeros")
    },
    "conv1d_circular_same": lambda t: conv(t, "Conv1d", (2, 3, 4), (2, 2, 7), padding="same",
                                           padding_mode="circular"),
    "conv3d_reflect": lambda t: conv(t, "Conv3d", (2, 2, 3), (1, 2, 4, 4, 4), padding=1,
                                     padding_mode="reflect"),
    "conv2d_groups_no_bias": lambda t: conv(t, "Conv2d", (4, 4, 3), (2, 4, 6, 6), groups=2,
                                            bias=False),
    "conv2d_depthwise_multiplier": lambda t: conv(t, "Conv2d", (2, 6, 3), (2, 2, 5, 5),
                                                  groups=2, dilation=2, padding=2),
    "conv3d_groups": lambda t: conv(t, "Conv3d", (4, 2, 2), (1, 4, 3, 4, 3), groups=2),
    "conv1d_stride_dilation": lambda t: conv(t, "Conv1d", (2, 3, 3), (2, 2, 11), stride=3,
                                             dilation=2),
    "conv2d_double": lambda t: conv(t, "Conv2d", (2, 3, 2), (1, 2, 4, 5), dtype="float64"),
    "conv2d_empty_batch": lambda t: conv(t, "Conv2d", (2, 3, 2), (0, 2, 4, 5)),
    "conv1d_empty_batch_groups": lambda t: conv(t, "Conv1d", (4, 4, 2), (0, 4, 5), groups=2),
    "conv_transpose2d_empty_batch": lambda t: conv(t, "ConvTranspose2d", (2, 3, 2),
                                                   (0, 2, 4, 5)),
    "conv_groups_bad": lambda t: t.nn.Conv2d(4, 4, 3, groups=3),
    "conv_out_groups_bad": lambda t: t.nn.Conv2d(4, 3, 3, groups=2),
    "conv_groups_zero": lambda t: t.nn.Conv2d(4, 4, 3, groups=0),
    "conv2d_input_4_channels": lambda t: conv(t, "Conv2d", (3, 3, 2), (1, 4, 4, 5)),
    "conv2d_input_5d": lambda t: conv(t, "Conv2d", (2, 3, 2), (1, 1, 2, 4, 5)),
    "conv1d_input_4d": lambda t: conv(t, "Conv1d", (2, 3, 2), (1, 2, 4, 5)),
    "conv3d_kernel_too_big": lambda t: conv(t, "Conv3d", (2, 3, 3), (1, 2, 2, 4, 4)),
    "conv2d_unbatched": lambda t: conv(t, "Conv2d", (2, 3, 2), (2, 4, 5)),
    "conv_fn_weight_dim": lambda t: conv_fn(t, 2, (1, 2, 4, 4), (3, 2, 3)),
    "conv_fn_stride_negative": lambda t: conv_fn(t, 1, (1, 2, 6), (3, 2, 3), stride=-1),
    "conv_fn_dilation_zero": lambda t: conv_fn(t, 1, (1, 2, 6), (3, 2, 3), dilation=0),
    "conv3d_fn_dilation_zero": lambda t: conv_fn(t, 3, (1, 2, 4, 4, 4), (3, 2, 2, 2, 2),
                                                 dilation=(1, 0, 1)),
    "conv_transpose1d_dilation_zero": lambda t: conv_fn(t, 1, (1, 2, 6), (2, 3, 3),
                                                        transposed=True, dilation=0),
    "conv_transpose3d_dilation_zero": lambda t: conv_fn(
        t, 3, (1, 2, 4, 4, 4), (2, 3, 3, 3, 3), transposed=True, dilation=(1, 0, 1),
        output_padding=1, stride=2),
    "conv_fn_negative_padding": lambda t: conv_fn(t, 1, (1, 2, 6), (3, 2, 3), padding=-1),
    "conv_fn_bias_size": lambda t: t.nn.functional.conv1d(t.ones(1, 2, 6), t.ones(3, 2, 3),
                                                          t.ones(2)),
    "conv_dtype_mismatch": lambda t: t.nn.functional.conv2d(
        t.ones(1, 2, 4, 4), t.ones(3, 2, 3, 3, dtype=t.float64)),
    "conv_transpose_dtype_mismatch": lambda t: t.nn.functional.conv_transpose1d(
        t.ones(1, 2, 4, dtype=t.float64), t.ones(2, 3, 3)),
    "conv_transpose1d_fn_groups": lambda t: conv_fn(t, 1, (1, 4, 5), (4, 3, 3),
                                                    transposed=True, groups=2, stride=2,
                                                    output_padding=1, bias=True),
    "conv_transpose3d_dilated": lambda t: conv_fn(t, 3, (1, 2, 3, 2, 3), (2, 2, 2, 2, 2),
                                                  transposed=True, dilation=2, padding=1),
    "conv_transpose_output_padding_big": lambda t: conv_fn(
        t, 2, (1, 2, 4, 4), (2, 3, 3, 3), transposed=True, stride=2, output_padding=2),
    "conv_transpose_output_size": lambda t: conv_transpose_output_size(t, (9, 10)),
    "conv_transpose_output_size_full": lambda t: conv_transpose_output_size(t, (1, 3, 10, 9)),
    "conv_transpose_output_size_too_big": lambda t: conv_transpose_output_size(t, (11, 9)),
    "conv_transpose_output_size_too_small": lambda t: conv_transpose_output_size(t, (8, 9)),
    "conv_transpose_output_size_len": lambda t: conv_transpose_output_size(t, (9, 9, 9)),
    "conv_transpose_unbatched_output_size": lambda t: t.nn.ConvTranspose2d(2, 3, 3, stride=2)(
        t.ones(2, 4, 4), output_size=(3, 10, 9)).shape,
    "conv_transpose3d_output_size": lambda t: conv_transpose_output_size(t, (9, 10, 9),
                                                                         dims=3, padding=1),
    "conv_transpose1d_output_size_dilated": lambda t: conv_transpose_output_size(
        t, [10], dims=1, dilation=2),
    "conv_transpose_down_up": down_up,
    "conv_transpose_module_output_padding": lambda t: t.nn.ConvTranspose2d(
        2, 3, 3, stride=1, output_padding=1)(t.ones(1, 2, 4, 4)),
    "conv_transpose_unbatched": lambda t: conv(t, "ConvTranspose1d", (2, 3, 3), (2, 5),
                                               stride=2),
    "conv_reprs": lambda t: [repr(m) for m in (
        t.nn.Conv2d(2, 4, (3, 2), stride=2, padding="same" and 1, dilation=2, groups=2,
                    bias=False, padding_mode="circular"),
        t.nn.Conv1d(2, 3, 3, padding="valid"),
        t.nn.ConvTranspose3d(2, 4, 3, stride=2, output_padding=1, groups=2))],
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_norm_and_conv_scenarios_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loose = "16" in name  # to the precision of bfloat16 or half
        same_outcome(SCENARIOS[name], rtol=2e-2 if loose else 2e-5,
                     atol=2e-2 if loose else 2e-5)
