"""The nn.functional operations PyTorch also exposes at the top of its namespace (torch.conv2d,
torch.dropout, torch.batch_norm, ...), with the signatures of those torch.* forms: positional
`train` flags, weight-first embedding, batch_norm's (weight, bias, running stats) order and
reductions as integers (0 none, their default; 1 mean; 2 sum)."""
from __future__ import annotations

import numpy as np

import gradjit
from gradjit.nn import functional as F
from gradjit.nn.functional import (adaptive_avg_pool1d, bilinear,  # noqa: F401
                                   channel_shuffle, pdist, conv1d, conv2d, conv3d, conv_tbc,
                                   conv_transpose1d,
                                   conv_transpose2d, conv_transpose3d, pixel_shuffle,
                                   pixel_unshuffle)

_REDUCTIONS = ("none", "mean", "sum")


def _max_pool(pool):
    """torch.max_poolNd: an empty stride () means the kernel size."""
    def max_pool(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        return pool(input, kernel_size, stride or None, padding, dilation, ceil_mode)
    max_pool.__name__ = max_pool.__qualname__ = pool.__name__
    return max_pool


max_pool1d, max_pool2d, max_pool3d, max_pool1d_with_indices = map(_max_pool, (
    F.max_pool1d, F.max_pool2d, F.max_pool3d, F.max_pool1d_with_indices))


def adaptive_max_pool1d(input, output_size):
    """(values, indices), as torch.adaptive_max_pool1d returns both."""
    return F.adaptive_max_pool1d_with_indices(input, output_size)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    return F.avg_pool1d(input, kernel_size, stride or None, padding, ceil_mode,
                        count_include_pad)


def _probability(p):
    """torch.dropout and its kin refuse p with a RuntimeError (nn.functional: ValueError)."""
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return p


def dropout(input, p, train):
    return F.dropout(input, _probability(p), train)


def alpha_dropout(input, p, train):
    return F.alpha_dropout(input, _probability(p), train)


def feature_alpha_dropout(input, p, train):
    return F.feature_alpha_dropout(input, _probability(p), train)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5,
               cudnn_enable=True):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return F.group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return F.rms_norm(input, normalized_shape, weight, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of `weight`; padding_idx -1 means none here (torch.embedding's own convention)."""
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def kl_div(input, target, reduction=0, *, log_target=False):
    return F.kl_div(input, target, reduction=_REDUCTIONS[reduction], log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction=0):
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_REDUCTIONS[reduction],
                                              pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_REDUCTIONS[reduction])


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_REDUCTIONS[reduction])


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return F.hinge_embedding_loss(input, target, margin, reduction=_REDUCTIONS[reduction])


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        reduction=0):
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_REDUCTIONS[reduction])


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
             zero_infinity=False):
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _REDUCTIONS[reduction], zero_infinity)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """(output, offset2bag, bag_size, max_indices) as PyTorch's CPU kernel leaves them: a sum
    keeps no bookkeeping (offset2bag empty unless padding_idx, the others zeros); otherwise each
    index's bag, each bag's count of non-padding indices, and for max the row that won each
    feature (for mean, the bag sizes again)."""
    modes = ("sum", "mean", "max")
    output = F.embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq, modes[mode],
                             sparse, per_sample_weights, include_last_offset, padding_idx)
    bags, width = output.shape
    rows = indices.numpy()
    starts = offsets.numpy()[:bags]
    bag = np.clip(np.searchsorted(starts, np.arange(rows.size), side="right") - 1, 0, None)
    if mode == 0:
        zeros = gradjit.zeros(bags, dtype=gradjit.int64)
        offset2bag = gradjit.zeros(0, dtype=gradjit.int64) if padding_idx is None else \
            gradjit.tensor(bag)
        return output, offset2bag, zeros, zeros.clone()
    kept = rows != (-1 if padding_idx is None else padding_idx % weight.shape[0])
    sizes = gradjit.tensor(np.bincount(bag[kept], minlength=bags).astype(np.int64))
    if mode == 1:
        return output, gradjit.tensor(bag), sizes, sizes.clone()
    table = weight.detach().numpy()
    winners = np.zeros((bags, width), dtype=np.int64)
    for b in range(bags):
        members = rows[(bag == b) & kept]
        if members.size:
            winners[b] = members[table[members].argmax(0)]
    return output, gradjit.tensor(bag), sizes, gradjit.tensor(winners)


__all__ = ["adaptive_avg_pool1d", "adaptive_max_pool1d", "alpha_dropout", "avg_pool1d",
           "batch_norm", "bilinear", "binary_cross_entropy_with_logits", "channel_shuffle",
           "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d",
           "cosine_embedding_loss", "ctc_loss", "dropout", "embedding", "embedding_bag",
           "feature_alpha_dropout",
           "group_norm", "hinge_embedding_loss", "instance_norm", "kl_div", "layer_norm",
           "margin_ranking_loss", "max_pool1d", "pdist", "max_pool1d_with_indices", "max_pool2d",
           "max_pool3d", "pixel_shuffle",
           "pixel_unshuffle", "rms_norm", "triplet_margin_loss"]
