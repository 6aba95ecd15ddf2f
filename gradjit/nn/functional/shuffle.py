"""Rearranging channels: pixel_shuffle/pixel_unshuffle (channels to and from spatial blocks)
and channel_shuffle (interleaving channel groups), as reshapes and one permute."""
from __future__ import annotations

from gradjit.tensor.arith import kernel


def _at_least_3d(name, input):
    if input.dim() < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input "
                           f"with {input.dim()} dimension(s)")


@kernel("PixelShuffleBackward0")
def pixel_shuffle(input, upscale_factor):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    r = upscale_factor
    _at_least_3d("pixel_shuffle", input)
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *batch, channels, h, w = input.shape
    if channels % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)="
                           f"{channels} is not divisible by {r * r}")
    lead = len(batch)
    out = input.reshape(*batch, channels // (r * r), r, r, h, w)
    out = out.permute(*range(lead), lead, lead + 3, lead + 1, lead + 4, lead + 2)
    return out.reshape(*batch, channels // (r * r), h * r, w * r)


@kernel("PixelUnshuffleBackward0")
def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    r = downscale_factor
    _at_least_3d("pixel_unshuffle", input)
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, channels, h, w = input.shape
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by "
                           f"downscale_factor, but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor,"
                           f" but input.size(-1)={w} is not divisible by {r}")
    lead = len(batch)
    out = input.reshape(*batch, channels, h // r, r, w // r, r)
    out = out.permute(*range(lead), lead, lead + 2, lead + 4, lead + 1, lead + 3)
    return out.reshape(*batch, channels * r * r, h // r, w // r)


@kernel("ChannelShuffleBackward0")
def channel_shuffle(input, groups):
    """(N, g*k, *) -> the channels of group i at positions i, i+g, i+2g, ..."""
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    if input.dim() <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    n, channels, *rest = input.shape
    if channels % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} "
                           f"channels and {groups} groups.")
    grouped = input.reshape(n, groups, channels // groups, *rest)
    return grouped.transpose(1, 2).reshape(input.shape)


native_channel_shuffle = channel_shuffle  # PyTorch's kernel-level name for the same shuffle
