"""The layers of torch.nn, by kind."""
import sys as _sys
import types as _types

from gradjit.nn.modules.activation import (  # noqa: F401
    CELU, ELU, GELU, GLU, SELU, Dropout, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
    LogSigmoid, LogSoftmax, Mish, PReLU, ReLU, ReLU6, RReLU, Sigmoid, SiLU, Softmax, Softmin,
    Softmax2d, Softplus, Softshrink, Softsign, Tanh, Tanhshrink, Threshold)
from gradjit.nn.modules.attention import (MultiheadAttention,  # noqa: F401
                                          NonDynamicallyQuantizableLinear)
from gradjit.nn.modules.rnn import (GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase,  # noqa: F401
                                    RNNCell, RNNCellBase)
from gradjit.nn.modules.transformer import (Transformer, TransformerDecoder,  # noqa: F401
                                            TransformerDecoderLayer, TransformerEncoder,
                                            TransformerEncoderLayer)
from gradjit.nn.modules.container import (Container, ModuleDict, ModuleList,  # noqa: F401
                                          Sequential)
from gradjit.nn.modules.conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d,  # noqa: F401
                                     ConvTranspose2d, ConvTranspose3d)
from gradjit.nn.modules.pooling import (AvgPool1d, AvgPool2d, AvgPool3d,  # noqa: F401
                                        FractionalMaxPool2d, FractionalMaxPool3d,
                                        LPPool1d, LPPool2d, LPPool3d,
                                        MaxPool1d, MaxPool2d, MaxPool3d, MaxUnpool1d,
                                        MaxUnpool2d, MaxUnpool3d)
from gradjit.nn.modules.linear import (Bilinear, Embedding, EmbeddingBag,  # noqa: F401
                                       Flatten, Identity, Linear)
from gradjit.nn.modules.linear_cross_entropy import (  # noqa: F401
    LinearCrossEntropyLoss, LinearCrossEntropyOptions)
from gradjit.nn.modules.loss import (BCELoss, BCEWithLogitsLoss,  # noqa: F401
                                     CosineEmbeddingLoss, CrossEntropyLoss, HingeEmbeddingLoss,
                                     HuberLoss, KLDivLoss, L1Loss, MarginRankingLoss, MSELoss,
                                     NLLLoss, SmoothL1Loss, TripletMarginLoss,
                                     TripletMarginWithDistanceLoss, GaussianNLLLoss,
                                     PoissonNLLLoss, SoftMarginLoss, MultiLabelSoftMarginLoss,
                                     MultiMarginLoss, MultiLabelMarginLoss, CTCLoss,
                                     NLLLoss2d)
from gradjit.nn.modules.module import Module  # noqa: F401
from gradjit.nn.modules.normalization import (BatchNorm1d, BatchNorm2d,  # noqa: F401
                                              BatchNorm3d, GroupNorm, InstanceNorm1d,
                                              InstanceNorm2d, InstanceNorm3d, LayerNorm,
                                              LocalResponseNorm, RMSNorm, CrossMapLRN2d,
                                              SyncBatchNorm)
from gradjit.nn.modules.spatial import (AdaptiveAvgPool1d, AdaptiveAvgPool2d,  # noqa: F401
                                        AlphaDropout, FeatureAlphaDropout,
                                        AdaptiveAvgPool3d, AdaptiveMaxPool1d,
                                        AdaptiveMaxPool2d, AdaptiveMaxPool3d, ChannelShuffle,
                                        CosineSimilarity, Dropout1d, Dropout2d, Dropout3d,
                                        PairwiseDistance, PixelShuffle, PixelUnshuffle,
                                        Unflatten, Upsample, UpsamplingBilinear2d,
                                        UpsamplingNearest2d)
from gradjit.nn.modules.parameters import ParameterDict, ParameterList  # noqa: F401
from gradjit.nn.modules.padding import (CircularPad1d, CircularPad2d,  # noqa: F401
                                        CircularPad3d, ConstantPad1d, ConstantPad2d,
                                        ConstantPad3d, ReflectionPad1d, ReflectionPad2d,
                                        ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                                        ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from gradjit.nn.modules.fold import Fold, Unfold  # noqa: F401
from gradjit.nn.modules.lazy import *  # noqa: F401,F403
from gradjit.nn.modules.adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401

# torch.nn.modules files and the layers each holds where gradjit keeps them elsewhere: programs
# name them (torch.serialization.safe_globals([torch.nn.modules.pixelshuffle.PixelShuffle])).
# A file gradjit lacks becomes an importable namespace; one it has gets the missing names.
_TORCH_FILES = {
    "activation": ["MultiheadAttention"],
    "container": ["ParameterList", "ParameterDict"],
    "conv": ["LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
             "LazyConvTranspose2d", "LazyConvTranspose3d"],
    "linear": ["LazyLinear", "NonDynamicallyQuantizableLinear"],
    "pooling": ["AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
                "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d"],
    "batchnorm": ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d",
                  "LazyBatchNorm2d", "LazyBatchNorm3d", "SyncBatchNorm"],
    "channelshuffle": ["ChannelShuffle"],
    "distance": ["PairwiseDistance", "CosineSimilarity"],
    "dropout": ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                "FeatureAlphaDropout"],
    "flatten": ["Flatten", "Unflatten"],
    "instancenorm": ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
                     "LazyInstanceNorm2d", "LazyInstanceNorm3d"],
    "pixelshuffle": ["PixelShuffle", "PixelUnshuffle"],
    "sparse": ["Embedding", "EmbeddingBag"],
    "upsampling": ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"],
}


def _torch_file(name, exports):
    full = f"{__name__}.{name}"
    module = _sys.modules.get(full)
    if module is None:
        module = _types.ModuleType(full, f"torch.nn.modules.{name}: {', '.join(exports)}.")
        module.__all__ = exports
        _sys.modules[full] = module
    module.__dict__.update({n: globals()[n] for n in exports})
    return module


for _name, _exports in _TORCH_FILES.items():
    globals()[_name] = _torch_file(_name, _exports)
