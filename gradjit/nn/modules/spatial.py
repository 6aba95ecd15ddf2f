"""Adaptive pooling, channel dropout, Unflatten, pixel and channel shuffles, and distances:
layers over nn.functional."""
from __future__ import annotations

from gradjit.nn import functional as F
from gradjit.nn.modules.activation import Dropout
from gradjit.nn.modules.module import Functional, Module


class _Adaptive(Module):
    pool = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        if self.return_indices:
            return type(self).pool(input, self.output_size, True)
        return type(self).pool(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_Adaptive):
    pool = Functional("adaptive_avg_pool1d")


class AdaptiveAvgPool2d(_Adaptive):
    pool = Functional("adaptive_avg_pool2d")


class AdaptiveAvgPool3d(_Adaptive):
    pool = Functional("adaptive_avg_pool3d")


class AdaptiveMaxPool1d(_Adaptive):
    pool = Functional("adaptive_max_pool1d")


class AdaptiveMaxPool2d(_Adaptive):
    pool = Functional("adaptive_max_pool2d")


class AdaptiveMaxPool3d(_Adaptive):
    pool = Functional("adaptive_max_pool3d")


class Dropout1d(Dropout):
    drop = Functional("dropout1d")


class Dropout2d(Dropout):
    drop = Functional("dropout2d")


class Dropout3d(Dropout):
    drop = Functional("dropout3d")


class AlphaDropout(Dropout):
    drop = Functional("alpha_dropout")


class FeatureAlphaDropout(Dropout):
    drop = Functional("feature_alpha_dropout")


class Unflatten(Module):
    """Dim `dim` split into `unflattened_size`."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for i, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError("unflattened_size must be tuple of ints, but found element of "
                                f"type {type(size).__name__} at pos {i}")
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class _Rearrange(Module):
    """A channel/pixel rearrangement by one integer factor."""

    rearrange, option = None, ""

    def __init__(self, factor):
        super().__init__()
        setattr(self, self.option, factor)

    def forward(self, input):
        return type(self).rearrange(input, getattr(self, self.option))

    def extra_repr(self):
        return f"{self.option}={getattr(self, self.option)}"


class PixelShuffle(_Rearrange):
    rearrange, option = F.pixel_shuffle, "upscale_factor"


class PixelUnshuffle(_Rearrange):
    rearrange, option = F.pixel_unshuffle, "downscale_factor"


class ChannelShuffle(_Rearrange):
    rearrange, option = F.channel_shuffle, "groups"


class CosineSimilarity(Module):
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class Upsample(Module):
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size, self.mode, self.align_corners = size, mode, align_corners
        self.scale_factor = tuple(float(f) for f in scale_factor) if isinstance(
            scale_factor, (tuple, list)) else None if scale_factor is None else \
            float(scale_factor)
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode,
                             self.align_corners, self.recompute_scale_factor)

    def extra_repr(self):
        shown = f"scale_factor={self.scale_factor}" if self.scale_factor is not None else \
            f"size={self.size}"
        return f"{shown}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, "nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, "bilinear", align_corners=True)
