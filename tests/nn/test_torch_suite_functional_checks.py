"""nn.functional's and the layers' argument checks as PyTorch's own nn tests exercise them
(test_nn.py, test_pooling.py, test_convolution.py, test_dropout.py, test_embedding.py): each
call gives the same result or raises the same error in gradjit and torch."""

import re
import warnings

import pytest
import torch

import gradjit
from tests.nn.helpers import same_outcome


def F(t):
    return t.nn.functional


def x4(t):
    return t.ones(1, 2, 4, 4)


def x3(t):
    return t.ones(1, 2, 5)


SCENARIOS = {  # name: a call that PyTorch accepts or refuses
    "dropout_p": lambda t: F(t).dropout(t.ones(3), p=1.5),
    "dropout_p_neg": lambda t: F(t).dropout(t.ones(3), p=-0.1),
    "dropout2d_p": lambda t: F(t).dropout2d(x4(t), p=2),
    "dropout2d_3d_warn": lambda t: F(t).dropout2d(x3(t), p=0.5, training=False),
    "dropout1d_4d": lambda t: F(t).dropout1d(x4(t), p=0.5),
    "dropout3d_3d": lambda t: F(t).dropout3d(x3(t), p=0.5, training=False),
    "alpha_dropout_p": lambda t: F(t).alpha_dropout(t.ones(3), p=2),
    "Dropout_p": lambda t: t.nn.Dropout(p=2),
    "Dropout2d_p": lambda t: t.nn.Dropout2d(p=-1),
    "dropout_p_1": lambda t: F(t).dropout(t.ones(3), p=1.0),
    "dropout_p_0": lambda t: F(t).dropout(t.ones(3), p=0.0),
    "dropout_inplace": lambda t: F(t).dropout(t.ones(3), p=0.0, inplace=True),
    "embedding_bad_idx": lambda t: F(t).embedding(t.tensor([5]), t.ones(3, 2)),
    "embedding_float_idx": lambda t: F(t).embedding(t.tensor([1.0]), t.ones(3, 2)),
    "embedding_padding_idx": lambda t: F(t).embedding(t.tensor([1]), t.ones(3, 2), padding_idx=5),
    "Embedding_padding_idx": lambda t: t.nn.Embedding(3, 2, padding_idx=5),
    "Embedding_padding_idx_neg": lambda t: t.nn.Embedding(3, 2, padding_idx=-4),
    "Embedding__weight_shape": lambda t: t.nn.Embedding(3, 2, _weight=t.ones(2, 2)),
    "Embedding_from_pretrained_1d": lambda t: t.nn.Embedding.from_pretrained(t.ones(3)),
    "Embedding_from_pretrained": lambda t: repr(
        t.nn.Embedding.from_pretrained(t.ones(3, 2), padding_idx=1, max_norm=2.0)
    ),
    "Embedding_max_norm": lambda t: (lambda e: (e(t.tensor([0, 2, 0])), e.weight))(
        (t.manual_seed(0), t.nn.Embedding(3, 4, max_norm=1.0))[1]
    ),
    "embedding_bag_offsets": lambda t: F(t).embedding_bag(
        t.tensor([0, 1]), t.ones(3, 2), t.tensor([1, 0])
    ),
    "embedding_bag_mode": lambda t: F(t).embedding_bag(
        t.tensor([[0, 1]]), t.ones(3, 2), mode="foo"
    ),
    "embedding_bag_psw": lambda t: F(t).embedding_bag(
        t.tensor([[0, 1]]), t.ones(3, 2), mode="max", per_sample_weights=t.ones(1, 2)
    ),
    "max_pool2d_pad": lambda t: F(t).max_pool2d(x4(t), 2, padding=2),
    "max_pool2d_zero": lambda t: F(t).max_pool2d(x4(t), 0),
    "max_pool2d_dilation": lambda t: F(t).max_pool2d(x4(t), 2, dilation=0),
    "max_pool2d_too_small": lambda t: F(t).max_pool2d(t.ones(1, 1, 1, 1), 2),
    "max_pool2d_5d": lambda t: F(t).max_pool2d(t.ones(1, 1, 2, 2, 2), 2),
    "avg_pool2d_pad": lambda t: F(t).avg_pool2d(x4(t), 2, padding=2),
    "avg_pool1d_pad": lambda t: F(t).avg_pool1d(x3(t), 2, padding=2),
    "avg_pool2d_divisor_0": lambda t: F(t).avg_pool2d(x4(t), 2, divisor_override=0),
    "adaptive_avg_pool2d_bad": lambda t: F(t).adaptive_avg_pool2d(x4(t), (1, 2, 3)),
    "adaptive_max_pool2d_5d": lambda t: F(t).adaptive_max_pool2d(t.ones(1, 1, 2, 2, 2), 1),
    "lp_pool2d": lambda t: F(t).lp_pool2d(x4(t), 2, 2),
    "max_unpool2d": lambda t: F(t).max_unpool2d(
        t.ones(1, 1, 2, 2), t.zeros(1, 1, 2, 2, dtype=t.long), 2, output_size=(9, 9)
    ),
    "conv2d_groups": lambda t: F(t).conv2d(x4(t), t.ones(3, 2, 1, 1), groups=2),
    "conv2d_channels": lambda t: F(t).conv2d(x4(t), t.ones(3, 3, 1, 1)),
    "conv2d_weight_dim": lambda t: F(t).conv2d(x4(t), t.ones(3, 2, 1)),
    "conv2d_kernel_big": lambda t: F(t).conv2d(x4(t), t.ones(3, 2, 5, 5)),
    "conv2d_padding_same_stride": lambda t: F(t).conv2d(
        x4(t), t.ones(3, 2, 2, 2), padding="same", stride=2
    ),
    "conv2d_padding_bad_str": lambda t: F(t).conv2d(x4(t), t.ones(3, 2, 2, 2), padding="foo"),
    "conv2d_bias_shape": lambda t: F(t).conv2d(x4(t), t.ones(3, 2, 2, 2), t.ones(2)),
    "conv2d_stride_0": lambda t: F(t).conv2d(x4(t), t.ones(3, 2, 2, 2), stride=0),
    "conv2d_neg_pad": lambda t: F(t).conv2d(x4(t), t.ones(3, 2, 2, 2), padding=-1),
    "Conv2d_groups": lambda t: t.nn.Conv2d(3, 4, 2, groups=2),
    "Conv2d_out_groups": lambda t: t.nn.Conv2d(4, 3, 2, groups=2),
    "Conv2d_groups_0": lambda t: t.nn.Conv2d(4, 4, 2, groups=0),
    "Conv2d_same_stride": lambda t: t.nn.Conv2d(4, 4, 2, padding="same", stride=2),
    "Conv2d_bad_padding_str": lambda t: t.nn.Conv2d(4, 4, 2, padding="foo"),
    "ConvT_padding_mode": lambda t: t.nn.ConvTranspose2d(4, 4, 2, padding_mode="reflect"),
    "conv_transpose2d_out_pad": lambda t: F(t).conv_transpose2d(
        x4(t), t.ones(2, 3, 2, 2), stride=1, output_padding=1
    ),
    "ConvT_output_size": lambda t: (
        t.manual_seed(0),
        t.nn.ConvTranspose2d(2, 3, 2, stride=2)(x4(t), output_size=(9, 9)).shape,
    )[1],
    "linear_shapes": lambda t: F(t).linear(t.ones(2, 3), t.ones(4, 2)),
    "bilinear_shapes": lambda t: F(t).bilinear(t.ones(2, 3), t.ones(2, 4), t.ones(5, 3, 3)),
    "softmax_no_dim": lambda t: F(t).softmax(t.ones(2, 3)),
    "log_softmax_dim_out": lambda t: F(t).log_softmax(t.ones(2, 3), dim=2),
    "cross_entropy_shapes": lambda t: F(t).cross_entropy(t.ones(2, 3), t.tensor([1, 2, 0])),
    "cross_entropy_target_oob": lambda t: F(t).cross_entropy(t.ones(2, 3), t.tensor([1, 3])),
    "cross_entropy_reduction": lambda t: F(t).cross_entropy(
        t.ones(2, 3), t.tensor([1, 2]), reduction="foo"
    ),
    "nll_loss_3d_target": lambda t: F(t).nll_loss(t.ones(2, 3), t.tensor([[1, 2]])),
    "mse_size": lambda t: F(t).mse_loss(t.ones(2, 3), t.ones(3)),
    "bce_range": lambda t: F(t).binary_cross_entropy(t.full((2,), 2.0), t.ones(2)),
    "bce_size": lambda t: F(t).binary_cross_entropy(t.ones(2), t.ones(3)),
    "bce_logits_size": lambda t: F(t).binary_cross_entropy_with_logits(t.ones(2), t.ones(3)),
    "kl_div": lambda t: F(t).kl_div(t.ones(2), t.ones(2)),
    "pad_bad_mode": lambda t: F(t).pad(x4(t), (1, 1), mode="foo"),
    "pad_odd": lambda t: F(t).pad(x4(t), (1,)),
    "pad_reflect_big": lambda t: F(t).pad(x4(t), (5, 5), mode="reflect"),
    "pad_too_many": lambda t: F(t).pad(t.ones(2, 2), (1, 1, 1, 1, 1, 1)),
    "interpolate_both": lambda t: F(t).interpolate(x4(t), size=2, scale_factor=2),
    "interpolate_none": lambda t: F(t).interpolate(x4(t)),
    "interpolate_mode": lambda t: F(t).interpolate(x4(t), size=2, mode="foo"),
    "interpolate_align_nearest": lambda t: F(t).interpolate(
        x4(t), size=2, mode="nearest", align_corners=True
    ),
    "interpolate_linear_4d": lambda t: F(t).interpolate(x4(t), size=2, mode="linear"),
    "normalize": lambda t: F(t).normalize(t.ones(2, 3), p=0),
    "batch_norm_sizes": lambda t: F(t).batch_norm(x4(t), t.ones(3), t.ones(3)),
    "batch_norm_one_value": lambda t: F(t).batch_norm(t.ones(1, 2), None, None, training=True),
    "layer_norm_shape": lambda t: F(t).layer_norm(x4(t), (3,)),
    "group_norm_groups": lambda t: F(t).group_norm(t.ones(1, 4, 2), 3),
    "GroupNorm_bad": lambda t: t.nn.GroupNorm(3, 4),
    "instance_norm_one": lambda t: F(t).instance_norm(t.ones(1, 2, 1)),
    "one_hot_neg": lambda t: F(t).one_hot(t.tensor([-1])),
    "one_hot_small": lambda t: F(t).one_hot(t.tensor([3]), 2),
    "one_hot_float": lambda t: F(t).one_hot(t.tensor([1.0])),
    "pixel_shuffle": lambda t: F(t).pixel_shuffle(t.ones(1, 3, 2, 2), 2),
    "pixel_unshuffle": lambda t: F(t).pixel_unshuffle(t.ones(1, 1, 3, 3), 2),
    "unfold": lambda t: F(t).unfold(t.ones(1, 2, 3), 2),
    "fold": lambda t: F(t).fold(t.ones(1, 4, 3), (3, 3), 2),
    "grid_sample_mode": lambda t: F(t).grid_sample(x4(t), t.zeros(1, 2, 2, 2), mode="foo"),
    "affine_grid": lambda t: F(t).affine_grid(t.ones(1, 3, 3), (1, 1, 2, 2)),
    "glu_odd": lambda t: F(t).glu(t.ones(3)),
    "threshold": lambda t: F(t).threshold(t.ones(3), 0.5, 2.0),
    "hardtanh_bad": lambda t: F(t).hardtanh(t.ones(3), 2.0, 1.0),
    "softplus": lambda t: F(t).softplus(t.ones(3), beta=0),
    "elu_inplace": lambda t: F(t).elu(t.ones(3), inplace=True),
    "rrelu_train": lambda t: F(t).rrelu(t.ones(3), 0.3, 0.1, training=True),
    "gumbel": lambda t: F(t).gumbel_softmax(t.ones(3), tau=1, hard=True, dim=5),
    "triplet_margin": lambda t: F(t).triplet_margin_loss(t.ones(2, 3), t.ones(2, 3), t.ones(3, 3)),
    "margin_ranking": lambda t: F(t).margin_ranking_loss(t.ones(2), t.ones(3), t.ones(2)),
    "cosine_embedding": lambda t: F(t).cosine_embedding_loss(t.ones(2, 3), t.ones(2, 3), t.ones(3)),
    "ctc": lambda t: F(t).ctc_loss(
        t.ones(5, 2, 3).log_softmax(2), t.tensor([[1, 1], [1, 2]]), [5, 5], [2, 3]
    ),
    "poisson": lambda t: F(t).poisson_nll_loss(t.ones(2), t.ones(3)),
    "gaussian_nll_var": lambda t: F(t).gaussian_nll_loss(t.ones(2), t.ones(2), -t.ones(2)),
    "gaussian_nll_shape": lambda t: F(t).gaussian_nll_loss(
        t.ones(2, 3), t.ones(2, 3), t.ones(3, 3)
    ),
    "huber": lambda t: F(t).huber_loss(t.ones(2), t.ones(2), delta=-1),
    "smooth_l1": lambda t: F(t).smooth_l1_loss(t.ones(2), t.ones(2), beta=-1),
    "mha_bad_heads": lambda t: t.nn.MultiheadAttention(5, 2),
    "mha_fwd_bad": lambda t: t.nn.MultiheadAttention(4, 2)(
        t.ones(2, 3), t.ones(2, 4), t.ones(2, 4)
    ),
    "local_response_norm": lambda t: F(t).local_response_norm(t.ones(2), 2),
    "Transformer_d_model": lambda t: t.nn.TransformerEncoderLayer(5, 2),
    "Upsample_both": lambda t: t.nn.Upsample(size=2, scale_factor=2)(x4(t)),
    "PixelShuffle": lambda t: t.nn.PixelShuffle(0)(x4(t)),
    "LSTM_proj": lambda t: t.nn.LSTM(3, 4, proj_size=5),
    "LSTM_proj_neg": lambda t: t.nn.LSTM(3, 4, proj_size=-1),
    "RNN_nonlin": lambda t: t.nn.RNN(3, 4, nonlinearity="foo"),
    "RNN_dropout": lambda t: t.nn.RNN(3, 4, dropout=2),
    "RNN_dropout_warn": lambda t: t.nn.RNN(3, 4, dropout=0.5),
    "GRU_proj": lambda t: t.nn.GRU(3, 4, proj_size=2),
    "RNN_hidden_0": lambda t: t.nn.RNN(3, 0),
    "RNN_layers_0": lambda t: t.nn.RNN(3, 4, num_layers=0),
    "RNN_input_bad": lambda t: t.nn.RNN(3, 4)(t.ones(2, 1, 5)),
    "RNN_h0_bad": lambda t: t.nn.RNN(3, 4)(t.ones(2, 1, 3), t.ones(1, 2, 4)),
    "LSTM_h0_bad": lambda t: t.nn.LSTM(3, 4)(t.ones(2, 1, 3), (t.ones(1, 1, 4), t.ones(1, 1, 5))),
    "RNN_4d": lambda t: t.nn.RNN(3, 4)(t.ones(2, 1, 1, 3)),
    "RNNCell_bad": lambda t: t.nn.RNNCell(3, 4)(t.ones(2, 5)),
    "RNNCell_hx": lambda t: t.nn.RNNCell(3, 4)(t.ones(2, 3), t.ones(3, 4)),
    "LSTMCell_3d": lambda t: t.nn.LSTMCell(3, 4)(t.ones(1, 2, 3)),
}


POOLING = {  # name: (function, input shape, arguments)
    **{
        f"{pool}_{what}_{value}".replace("-", "minus"): (
            pool,
            shape,
            {"kernel_size": 2, what: value},
        )
        for pool, shape in (
            ("max_pool1d", (1, 2, 5)),
            ("max_pool2d", (1, 2, 5, 5)),
            ("max_pool3d", (1, 2, 5, 5, 5)),
            ("avg_pool1d", (1, 2, 5)),
            ("avg_pool2d", (1, 2, 5, 5)),
        )
        for what, value in (("stride", 0), ("stride", -1), ("dilation", 0), ("padding", -1))
        if what != "dilation" or pool.startswith("max")
    },
    **{
        f"{pool}_kernel_{k}": (pool, shape, {"kernel_size": k, "stride": 1})
        for pool, shape in (
            ("max_pool1d", (1, 2, 5)),
            ("max_pool2d", (1, 2, 5, 5)),
            ("max_pool3d", (1, 2, 5, 5, 5)),
            ("avg_pool2d", (1, 2, 5, 5)),
        )
        for k in (0, -1)
    },
    **{
        f"{pool}_dilated_padding": (pool, shape, {"kernel_size": 3, "dilation": 2, "padding": 2})
        for pool, shape in (
            ("max_pool1d", (1, 2, 9)),
            ("max_pool2d", (1, 2, 9, 9)),
            ("max_pool3d", (1, 2, 9, 9, 9)),
        )
    },
    "max_pool1d_padding_over_half": ("max_pool1d", (1, 2, 9), {"kernel_size": 3, "padding": 2}),
    "max_pool1d_with_indices_negative_padding": (
        "max_pool1d",
        (1, 2, 9),
        {"kernel_size": 3, "padding": -1, "return_indices": True},
    ),
    "max_pool3d_uneven_dilated_padding": (
        "max_pool3d",
        (1, 1, 9, 9, 9),
        {"kernel_size": (3, 5, 3), "dilation": 2, "padding": 2},
    ),
    "max_pool1d_window_past_input": ("max_pool1d", (1, 2, 8), {"kernel_size": 9}),
    "max_pool1d_dilated_past_input": ("max_pool1d", (1, 2, 8), {"kernel_size": 3, "dilation": 4}),
}
SCENARIOS.update(
    {
        f"pool_{name}": (
            lambda t, pool=pool, shape=shape, kwargs=kwargs: (
                getattr(F(t), pool)(t.ones(shape), **kwargs).shape
            )
        )
        for name, (pool, shape, kwargs) in POOLING.items()
    }
)
# max_pool1d words its checks its own way whether or not the input requires grad
SCENARIOS.update(
    {
        f"pool_{name}_requiring_grad": (
            lambda t, shape=shape, kwargs=kwargs: (
                F(t).max_pool1d(t.ones(shape, requires_grad=True), **kwargs).shape
            )
        )
        for name, (pool, shape, kwargs) in POOLING.items()
        if pool == "max_pool1d" and "return_indices" not in kwargs
    }
)
SCENARIOS.update(
    {
        "bilinear_ranks": lambda t: F(t).bilinear(t.ones(2, 3), t.ones(1, 2, 4), t.ones(5, 3, 4)),
        "bilinear_batches": lambda t: F(t).bilinear(t.ones(2, 3), t.ones(3, 4), t.ones(5, 3, 4)),
        "bilinear_bias": lambda t: F(t).bilinear(
            t.ones(2, 3), t.ones(2, 4), t.ones(5, 3, 4), t.ones(4)
        ),
        "pixel_unshuffle_zero": lambda t: F(t).pixel_unshuffle(x4(t), 0),
        "RNN_unknown_argument": lambda t: t.nn.RNN(3, 4, projection=2),
        "bce_target_outside": lambda t: F(t).binary_cross_entropy(
            t.full((2,), 0.5), t.full((2,), 2.0)
        ),
        **{
            f"ConvTranspose_output_size_{i}": (
                lambda t, shape=shape, size=size: (lambda m: m(t.ones(shape), output_size=size(t)))(
                    (
                        t.manual_seed(0),
                        getattr(t.nn, f"ConvTranspose{len(shape) - 2 or 1}d")(2, 3, 2, stride=2),
                    )[1]
                )
            )
            for i, (shape, size) in enumerate(
                (
                    ((1, 2, 4, 4), lambda t: [20, 20]),
                    ((1, 2, 4, 4), lambda t: (1, 2, 20, 20)),
                    ((1, 2, 4, 4), lambda t: t.Size([20, 20])),
                    ((2, 4), lambda t: [20]),
                )
            )
        },
        "conv_transpose2d_bias": lambda t: F(t).conv_transpose2d(
            x4(t), t.ones(2, 3, 2, 2), t.ones(2)
        ),
    }
)


def warned(call):
    """The warnings `call(t)` gives, by category and message."""

    def scenario(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(t)
        return [(w.category.__name__, str(w.message)) for w in caught]

    return scenario


WARNINGS = {
    "weight_norm": lambda t: t.nn.utils.weight_norm(t.nn.Linear(2, 2)),
    "module_to_complex": lambda t: t.nn.Linear(2, 2).to(t.complex64),
    "softmax_implicit_dim": lambda t: F(t).softmax(t.ones(2, 2)),
    **{
        f"{name}_broadcast": (lambda t, name=name: getattr(F(t), name)(t.ones(2, 3), t.ones(3)))
        for name in ("mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss")
    },
    "loss_legacy_reduce": lambda t: F(t).l1_loss(t.ones(2), t.ones(2), reduce=False),
    "dropout2d_3d": lambda t: F(t).dropout2d(t.ones(1, 2, 3)),
    "kaiming_zero_elements": lambda t: t.nn.init.kaiming_uniform_(t.empty(0, 3)),
    "init_deprecated_name": lambda t: t.nn.init.normal(t.empty(2, 3)),
    "upsample": lambda t: F(t).upsample(t.ones(1, 1, 2, 2), scale_factor=2),
    "upsample_bilinear": lambda t: F(t).upsample_bilinear(t.ones(1, 1, 2, 2), scale_factor=2),
    "rnn_dropout_one_layer": lambda t: t.nn.RNN(2, 2, dropout=0.5),
    "clip_grad_norm_deprecated": lambda t: t.nn.utils.clip_grad_norm(
        t.nn.Linear(2, 2).parameters(), 1.0
    ),
    "full_backward_hook_without_input_gradient": lambda t: (
        lambda m: (m.register_full_backward_hook(lambda *a: None), m(t.ones(1, 2)).sum().backward())
    )(t.nn.Linear(2, 2)),
}


@pytest.mark.parametrize("name", WARNINGS)
def test_warnings_match_torch(name):
    same_outcome(warned(WARNINGS[name]))


@pytest.mark.parametrize("name", SCENARIOS)
def test_argument_checks_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # some calls warn as they are refused or accepted
        same_outcome(SCENARIOS[name], rtol=1e-5, atol=1e-6)


def test_an_unknown_padding_mode_is_refused_naming_the_valid_ones():
    """PyTorch prints the valid modes as a set, whose order differs from process to process
    (its literal is a frozenset constant, ordered by the hashes of the process that compiled
    it): the same modes, in any order."""
    messages = []
    for lib in (gradjit, torch):
        with pytest.raises(ValueError) as error:
            lib.nn.Conv2d(4, 4, 2, padding_mode="foo")
        messages.append(str(error.value))
    (mine, want) = (re.match(r"(.*)\{(.*)\}(.*)", m).groups() for m in messages)
    assert (mine[0], mine[2]) == (want[0], want[2])
    assert set(mine[1].split(", ")) == set(want[1].split(", "))


LOSSES = (
    "L1Loss",
    "MSELoss",
    "NLLLoss",
    "CrossEntropyLoss",
    "KLDivLoss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "HingeEmbeddingLoss",
    "MultiLabelMarginLoss",
    "SmoothL1Loss",
    "HuberLoss",
    "SoftMarginLoss",
    "MultiLabelSoftMarginLoss",
    "CosineEmbeddingLoss",
    "MarginRankingLoss",
    "MultiMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "CTCLoss",
    "PoissonNLLLoss",
    "GaussianNLLLoss",
)


@pytest.mark.parametrize("name", LOSSES)
def test_loss_constructors_take_torch_arguments_in_order(name):
    """Positional arguments mean the same, the deprecated size_average and reduce included."""
    import inspect

    def parameters(t):
        return list(inspect.signature(getattr(t.nn, name).__init__).parameters)

    same_outcome(parameters)


def legacy_reduction(t, name, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loss = getattr(t.nn, name)(*args, **kwargs)
    return loss.reduction, [str(w.message) for w in caught]


@pytest.mark.parametrize(
    "flags", [{"reduce": False}, {"size_average": False}, {"size_average": True, "reduce": True}]
)
@pytest.mark.parametrize("name", ["L1Loss", "KLDivLoss", "SoftMarginLoss", "BCELoss"])
def test_loss_legacy_flags_decide_the_reduction(name, flags):
    same_outcome(lambda t: legacy_reduction(t, name, **flags))


def test_loss_legacy_flags_by_position_and_values():
    same_outcome(lambda t: legacy_reduction(t, "CrossEntropyLoss", None, None, -100, False))
    same_outcome(
        lambda t: t.nn.KLDivLoss(None, False)(t.tensor([[0.1, 0.2]]).log(), t.tensor([[0.3, 0.7]])),
        rtol=1e-6,
    )
