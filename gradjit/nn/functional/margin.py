"""Losses on margins between scores or distances (ranking, hinge embedding, cosine embedding,
triplet), with PyTorch's formulas and reductions."""
from __future__ import annotations

import gradjit
from gradjit.nn.functional.loss import _reduce


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1."""
    zeros = gradjit.zeros_like(input)
    beyond = gradjit.where(target != 1, (margin - input).clamp_min(0), zeros)
    return _reduce(beyond + gradjit.where(target != -1, input, zeros), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1; the
    squared norms get 1e-12 so a zero vector divides by no zero."""
    dim = 1 if input1.dim() == 2 else 0
    dot = (input1 * input2).sum(dim)
    norms = ((input1 * input1).sum(dim) + 1e-12) * ((input2 * input2).sum(dim) + 1e-12)
    cos = dot / norms.sqrt()
    zeros = gradjit.zeros_like(cos)
    loss = gradjit.where(target == 1, 1 - cos, zeros) + \
        gradjit.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce(loss, reduction)


def _distance(a, b, p, eps):
    return (a - b + eps).norm(p, dim=-1)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance of
    the difference plus eps; `swap` takes the nearer of the two negative distances."""
    near = _distance(anchor, positive, p, eps)
    far = _distance(anchor, negative, p, eps)
    if swap:
        far = gradjit.minimum(far, _distance(positive, negative, p, eps))
    return _reduce((margin + near - far).clamp_min(0), reduction)
