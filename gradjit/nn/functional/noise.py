"""Alpha dropout: dropout for self-normalizing networks (SELU), which sets dropped units to
SELU's negative saturation and rescales so the mean and variance stay, drawn as PyTorch draws
the mask (per element, or per channel for the feature form)."""
from __future__ import annotations

import math

import gradjit
from gradjit.warn import warn_past_wrappers

_SELU_SATURATION = 1.7580993408473766  # -SELU's limit, scale * alpha


def _alpha_dropout(input, p, training, inplace, per_channel):
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2) if per_channel else \
        tuple(input.shape)
    keep = gradjit.bernoulli(gradjit.empty(shape, dtype=input.dtype), 1 - p)
    a = 1 / math.sqrt((_SELU_SATURATION ** 2 * p + 1) * (1 - p))
    shift = (keep - 1) * (_SELU_SATURATION * a) + _SELU_SATURATION * a * p
    scale = keep * a
    return input.mul_(scale).add_(shift) if inplace else input * scale + shift


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, per_channel=False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels: one draw per (sample, channel)."""
    return _alpha_dropout(input, p, training, inplace, per_channel=True)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau) for Gumbel(0, 1) noise g = -log(Exponential(1)), drawn as
    PyTorch draws it; `hard`: the one-hot of its argmax, with the soft sample's gradient."""
    if eps != 1e-10:
        warn_past_wrappers("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    noise = -gradjit.empty_like(logits).exponential_().log()
    soft = ((logits + noise) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True)[1]
    one_hot = gradjit.zeros_like(logits).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft
