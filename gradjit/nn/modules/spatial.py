"""Adaptive pooling, channel dropout and Unflatten layers over nn.functional."""
from __future__ import annotations

from gradjit.nn import functional as F
from gradjit.nn.modules.module import Module


class _Adaptive(Module):
    pool = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return type(self).pool(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_Adaptive):
    pool = F.adaptive_avg_pool1d


class AdaptiveAvgPool2d(_Adaptive):
    pool = F.adaptive_avg_pool2d


class AdaptiveMaxPool1d(_Adaptive):
    pool = F.adaptive_max_pool1d


class AdaptiveMaxPool2d(_Adaptive):
    pool = F.adaptive_max_pool2d


class _ChannelDropout(Module):
    drop = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return type(self).drop(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_ChannelDropout):
    drop = F.dropout1d


class Dropout2d(_ChannelDropout):
    drop = F.dropout2d


class Dropout3d(_ChannelDropout):
    drop = F.dropout3d


class Unflatten(Module):
    """Dim `dim` split into `unflattened_size`."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
