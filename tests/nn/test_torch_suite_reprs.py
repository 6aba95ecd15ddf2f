"""The printing of every nn layer as PyTorch's own nn tests check it (test_nn.py's repr tests):
each module built with non-default arguments prints as torch's does."""

import warnings

import pytest

from tests.nn.helpers import same_outcome


def N(t):
    return t.nn


MODULES = {  # name: a module built with non-default arguments
    "Linear_nobias": lambda t: N(t).Linear(3, 4, bias=False),
    "Bilinear": lambda t: N(t).Bilinear(2, 3, 4),
    "Identity": lambda t: N(t).Identity(3, foo=4),
    "Conv1d_full": lambda t: N(t).Conv1d(
        2, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False, padding_mode="reflect"
    ),
    "Conv2d_tuple": lambda t: N(t).Conv2d(2, 4, (3, 1), stride=(2, 1), padding=(1, 0)),
    "Conv2d_same": lambda t: N(t).Conv2d(2, 4, 3, padding="same"),
    "Conv3d_valid": lambda t: N(t).Conv3d(2, 4, 3, padding="valid"),
    "ConvT2d": lambda t: N(t).ConvTranspose2d(
        2, 4, 3, stride=2, output_padding=1, dilation=1, groups=2
    ),
    "ConvT1d_dil": lambda t: N(t).ConvTranspose1d(2, 4, 3, dilation=2),
    "LazyConv2d": lambda t: N(t).LazyConv2d(4, 3),
    "LazyLinear": lambda t: N(t).LazyLinear(4),
    "MaxPool2d": lambda t: N(t).MaxPool2d(
        3, stride=2, padding=1, dilation=2, return_indices=True, ceil_mode=True
    ),
    "MaxPool1d": lambda t: N(t).MaxPool1d(3),
    "MaxPool3d": lambda t: N(t).MaxPool3d((1, 2, 3)),
    "AvgPool2d": lambda t: N(t).AvgPool2d(
        3, stride=1, padding=1, ceil_mode=True, count_include_pad=False, divisor_override=2
    ),
    "AvgPool1d": lambda t: N(t).AvgPool1d(3),
    "AvgPool3d": lambda t: N(t).AvgPool3d(3),
    "AdaptiveAvgPool2d": lambda t: N(t).AdaptiveAvgPool2d((None, 3)),
    "AdaptiveMaxPool1d": lambda t: N(t).AdaptiveMaxPool1d(3, return_indices=True),
    "LPPool2d": lambda t: N(t).LPPool2d(2, 3, stride=2),
    "LPPool1d": lambda t: N(t).LPPool1d(1.5, 3),
    "FractionalMaxPool2d": lambda t: N(t).FractionalMaxPool2d(2, output_ratio=0.5),
    "MaxUnpool2d": lambda t: N(t).MaxUnpool2d(2, stride=1, padding=1),
    "BatchNorm2d": lambda t: N(t).BatchNorm2d(
        3, eps=1e-3, momentum=None, affine=False, track_running_stats=False
    ),
    "InstanceNorm1d": lambda t: N(t).InstanceNorm1d(3, affine=True),
    "LayerNorm": lambda t: N(t).LayerNorm((2, 3), eps=1e-4, elementwise_affine=False, bias=False),
    "GroupNorm": lambda t: N(t).GroupNorm(2, 4, affine=False),
    "LocalResponseNorm": lambda t: N(t).LocalResponseNorm(2),
    "RMSNorm": lambda t: N(t).RMSNorm(3, eps=1e-3),
    "Dropout": lambda t: N(t).Dropout(0.3, inplace=True),
    "Dropout2d": lambda t: N(t).Dropout2d(),
    "AlphaDropout": lambda t: N(t).AlphaDropout(0.2),
    "FeatureAlphaDropout": lambda t: N(t).FeatureAlphaDropout(0.2),
    "Embedding": lambda t: N(t).Embedding(
        5, 3, padding_idx=1, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, sparse=True
    ),
    "EmbeddingBag": lambda t: N(t).EmbeddingBag(
        5, 3, mode="max", padding_idx=0, include_last_offset=True
    ),
    "RNN": lambda t: N(t).RNN(
        3, 4, 2, nonlinearity="relu", bias=False, batch_first=True, dropout=0.5, bidirectional=True
    ),
    "LSTM": lambda t: N(t).LSTM(3, 4, proj_size=2),
    "GRU": lambda t: N(t).GRU(3, 4),
    "RNNCell": lambda t: N(t).RNNCell(3, 4, nonlinearity="relu", bias=False),
    "LSTMCell": lambda t: N(t).LSTMCell(3, 4),
    "GRUCell": lambda t: N(t).GRUCell(3, 4),
    "MHA": lambda t: N(t).MultiheadAttention(4, 2, kdim=3, vdim=5),
    "Transformer": lambda t: N(t).Transformer(8, 2, 1, 1, 16),
    "TransformerEncoderLayer": lambda t: N(t).TransformerEncoderLayer(
        8, 2, 16, activation="gelu", norm_first=True
    ),
    "TransformerDecoderLayer": lambda t: N(t).TransformerDecoderLayer(8, 2, 16),
    "TransformerEncoder": lambda t: N(t).TransformerEncoder(
        N(t).TransformerEncoderLayer(8, 2, 16), 2, enable_nested_tensor=False
    ),
    "Upsample": lambda t: N(t).Upsample(scale_factor=2, mode="bilinear", align_corners=True),
    "Upsample_size": lambda t: N(t).Upsample(size=(3, 4)),
    "UpsamplingNearest2d": lambda t: N(t).UpsamplingNearest2d(scale_factor=2),
    "UpsamplingBilinear2d": lambda t: N(t).UpsamplingBilinear2d(size=3),
    "PixelShuffle": lambda t: N(t).PixelShuffle(2),
    "PixelUnshuffle": lambda t: N(t).PixelUnshuffle(2),
    "ChannelShuffle": lambda t: N(t).ChannelShuffle(2),
    "Flatten": lambda t: N(t).Flatten(0, -2),
    "Unflatten": lambda t: N(t).Unflatten(1, (2, 3)),
    "Fold": lambda t: N(t).Fold((4, 5), 2, dilation=1, padding=0, stride=1),
    "Unfold": lambda t: N(t).Unfold(2, dilation=2, padding=1, stride=2),
    "ZeroPad2d": lambda t: N(t).ZeroPad2d((1, 2, 3, 4)),
    "ConstantPad1d": lambda t: N(t).ConstantPad1d(2, 3.5),
    "ReflectionPad3d": lambda t: N(t).ReflectionPad3d(1),
    "ReplicationPad2d": lambda t: N(t).ReplicationPad2d((1, 1, 2, 2)),
    "CircularPad1d": lambda t: N(t).CircularPad1d(1),
    "CosineSimilarity": lambda t: N(t).CosineSimilarity(dim=0, eps=1e-6),
    "PairwiseDistance": lambda t: N(t).PairwiseDistance(p=1, keepdim=True),
    "Softmax": lambda t: N(t).Softmax(dim=1),
    "Softmax_none": lambda t: N(t).Softmax(),
    "LogSoftmax": lambda t: N(t).LogSoftmax(1),
    "Softmin": lambda t: N(t).Softmin(0),
    "Softmax2d": lambda t: N(t).Softmax2d(),
    "AdaptiveLogSoftmaxWithLoss": lambda t: N(t).AdaptiveLogSoftmaxWithLoss(
        8, 10, [4, 8], div_value=2.0
    ),
    "ELU": lambda t: N(t).ELU(alpha=0.5, inplace=True),
    "CELU": lambda t: N(t).CELU(2.0),
    "SELU": lambda t: N(t).SELU(inplace=True),
    "GLU": lambda t: N(t).GLU(0),
    "GELU": lambda t: N(t).GELU("tanh"),
    "Hardshrink": lambda t: N(t).Hardshrink(0.3),
    "Hardtanh": lambda t: N(t).Hardtanh(-2, 2, inplace=True),
    "ReLU6": lambda t: N(t).ReLU6(True),
    "LeakyReLU": lambda t: N(t).LeakyReLU(0.2, True),
    "LogSigmoid": lambda t: N(t).LogSigmoid(),
    "PReLU": lambda t: N(t).PReLU(3, 0.1),
    "ReLU": lambda t: N(t).ReLU(inplace=True),
    "RReLU": lambda t: N(t).RReLU(0.1, 0.3, inplace=True),
    "Softplus": lambda t: N(t).Softplus(2, 10),
    "Softshrink": lambda t: N(t).Softshrink(0.2),
    "Softsign": lambda t: N(t).Softsign(),
    "Tanhshrink": lambda t: N(t).Tanhshrink(),
    "Threshold": lambda t: N(t).Threshold(0.1, 20, inplace=True),
    "Mish": lambda t: N(t).Mish(inplace=True),
    "SiLU": lambda t: N(t).SiLU(inplace=True),
    "Hardswish": lambda t: N(t).Hardswish(inplace=True),
    "Hardsigmoid": lambda t: N(t).Hardsigmoid(True),
    "Sigmoid": lambda t: N(t).Sigmoid(),
    "Tanh": lambda t: N(t).Tanh(),
    "L1Loss": lambda t: N(t).L1Loss(reduction="sum"),
    "CrossEntropyLoss": lambda t: N(t).CrossEntropyLoss(
        weight=t.ones(3), ignore_index=2, label_smoothing=0.1
    ),
    "NLLLoss": lambda t: N(t).NLLLoss(),
    "KLDivLoss": lambda t: N(t).KLDivLoss(log_target=True),
    "BCEWithLogitsLoss": lambda t: N(t).BCEWithLogitsLoss(pos_weight=t.ones(2)),
    "HuberLoss": lambda t: N(t).HuberLoss(delta=2),
    "SmoothL1Loss": lambda t: N(t).SmoothL1Loss(beta=0.5),
    "MarginRankingLoss": lambda t: N(t).MarginRankingLoss(0.5),
    "TripletMarginLoss": lambda t: N(t).TripletMarginLoss(margin=2, swap=True),
    "TripletMarginWithDistanceLoss": lambda t: N(t).TripletMarginWithDistanceLoss(margin=2),
    "CTCLoss": lambda t: N(t).CTCLoss(blank=1, zero_infinity=True),
    "PoissonNLLLoss": lambda t: N(t).PoissonNLLLoss(log_input=False, full=True),
    "GaussianNLLLoss": lambda t: N(t).GaussianNLLLoss(full=True, eps=1e-3),
    "MultiLabelMarginLoss": lambda t: N(t).MultiLabelMarginLoss(),
    "MultiMarginLoss": lambda t: N(t).MultiMarginLoss(p=2, margin=0.5),
    "CosineEmbeddingLoss": lambda t: N(t).CosineEmbeddingLoss(0.3),
    "HingeEmbeddingLoss": lambda t: N(t).HingeEmbeddingLoss(2.0),
    "SoftMarginLoss": lambda t: N(t).SoftMarginLoss(),
    "MultiLabelSoftMarginLoss": lambda t: N(t).MultiLabelSoftMarginLoss(),
    "Sequential": lambda t: N(t).Sequential(
        N(t).Linear(1, 2), N(t).Sequential(N(t).ReLU(), N(t).Tanh())
    ),
    "ModuleList_dup": lambda t: N(t).ModuleList(
        [N(t).ReLU(), N(t).ReLU(), N(t).ReLU(), N(t).Tanh(), N(t).ReLU(), N(t).ReLU()]
    ),
    "ModuleDict": lambda t: N(t).ModuleDict({"a": N(t).ReLU(), "b": N(t).Linear(1, 1)}),
    "ParameterList": lambda t: N(t).ParameterList(
        [N(t).Parameter(t.ones(2)), N(t).Parameter(t.ones(2, 3, dtype=t.float64))]
    ),
    "ParameterDict": lambda t: N(t).ParameterDict(
        {"a": N(t).Parameter(t.ones(2)), "b": N(t).Parameter(t.ones(1), requires_grad=False)}
    ),
    "ParameterList_empty": lambda t: N(t).ParameterList(),
    "Module": lambda t: N(t).Module(),
    "Container": lambda t: N(t).Container(a=N(t).ReLU()),
    "CrossMapLRN2d": lambda t: N(t).CrossMapLRN2d(3),
    "ZeroPad1d": lambda t: N(t).ZeroPad1d(2),
    "LazyBatchNorm1d": lambda t: N(t).LazyBatchNorm1d(),
    "LazyInstanceNorm2d": lambda t: N(t).LazyInstanceNorm2d(),
    "LazyConvTranspose1d": lambda t: N(t).LazyConvTranspose1d(3, 2),
    "Buffer": lambda t: N(t).Buffer(t.ones(2)),
    "Parameter": lambda t: N(t).Parameter(t.ones(2)),
    "UninitializedParameter": lambda t: N(t).UninitializedParameter(),
}


@pytest.mark.parametrize("name", MODULES)
def test_module_reprs_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # some constructors warn about their arguments
        same_outcome(lambda t: repr(MODULES[name](t)))
