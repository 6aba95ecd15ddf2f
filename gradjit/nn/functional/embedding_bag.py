"""F.embedding_bag: the sum, mean or max of each bag of embedding rows, bags given by offsets
into a flat index list (or the rows of a 2-D one), padding_idx entries left out."""
from __future__ import annotations

import numpy as np

import gradjit
from gradjit.sparse.embedding import rows as sparse_rows
from gradjit.tracer.leaves import is_traced

_MODES = ("sum", "mean", "max")


def _bags(input, offsets, per_sample_weights):
    """Flat indices, weights and offsets, a 2-D input's rows being its bags."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        offsets = gradjit.arange(0, input.numel(), input.shape[1], dtype=input.dtype)
        weights = None if per_sample_weights is None else per_sample_weights.reshape(-1)
        return input.reshape(-1), weights, offsets
    if input.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    return input, per_sample_weights, offsets


def _spans(indices, offsets, weight, padding_idx, include_last_offset):
    """Each bag's (start, end), after the checks PyTorch's kernel makes on its arguments."""
    rows = weight.shape[0]
    if padding_idx is not None and not -rows <= padding_idx < rows:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{rows} "
                           f"through {rows - 1}, but got {padding_idx}")
    if indices.dtype not in (gradjit.int64, gradjit.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {indices.type()} "
                           "instead (while checking arguments for embedding_bag)")
    bounds, count = [int(o) for o in offsets.tolist()], indices.numel()
    if bounds and bounds[0] != 0:  # the tensor's printing is PyTorch's C++ one
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {bounds[0]}\n"
                           f"[ torch.{offsets.dtype.legacy}Tensor{{}} ]")
    if bounds and bounds[-1] > count:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {count} but "
                           f"got offsets[-1] of {bounds[-1]}")
    outside = np.flatnonzero((indices.numpy() < 0) | (indices.numpy() >= rows))
    if outside.size:
        raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found "
                           f"idx to be {int(indices[int(outside[0])])}")
    if not include_last_offset:
        bounds.append(count)
    return list(zip(bounds, bounds[1:]))


def _frequency_shares(indices, rows):
    """The factor scale_grad_by_freq gives each looked-up row's gradient. PyTorch's CPU kernel
    divides the k-th distinct row (in sorted order) by the count of the k-th sorted index,
    not of the row itself; the two agree when every index is used once or equally often."""
    ordered = np.sort(indices)
    counts = np.bincount(ordered, minlength=rows)
    shares = np.ones(rows)
    distinct = np.unique(ordered)
    shares[distinct] = 1.0 / counts[ordered[:distinct.size]]
    return shares[indices]


def _renorm_(weight, indices, max_norm, norm_type):
    """Rows of weight that indices use, scaled in place to a norm of at most max_norm."""
    with gradjit.no_grad():
        rows = gradjit.tensor(np.unique(indices.numpy()))
        norms = gradjit.linalg.vector_norm(weight[rows], norm_type, -1, keepdim=True)
        scale = gradjit.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = weight[rows] * scale


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    indices, weights, offsets = _bags(input, offsets, per_sample_weights)
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if max_norm is not None:
        _renorm_(weight, indices, max_norm, norm_type)
    if weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    bags = _spans(indices, offsets, weight, padding_idx, include_last_offset)
    if padding_idx is not None:
        padding_idx %= weight.shape[0]
    shares = _frequency_shares(indices.numpy(), weight.shape[0]) if scale_grad_by_freq else None
    kept = indices.numpy() != (-1 if padding_idx is None else padding_idx)

    if sparse and mode == "max":
        raise ValueError("max mode does not support sparse weights")

    def reduce(table, scales):
        rows = table[indices] if not sparse or is_traced(table) else \
            sparse_rows(table, indices, padding_idx)
        if scales is not None:
            rows = rows * scales.unsqueeze(-1)
        if shares is not None:  # the same values, each row's gradient scaled
            share = gradjit.tensor(shares, dtype=rows.dtype).unsqueeze(-1)
            rows = rows * share + (rows * (1 - share)).detach()
        out = []
        for lo, hi in bags:
            chosen = rows[gradjit.tensor(np.flatnonzero(kept[lo:hi]) + lo)]
            if not chosen.numel():  # an empty bag is zeros, still on the graph
                out.append(chosen.sum(0))
                continue
            out.append(chosen.sum(0) if mode == "sum" else chosen.mean(0) if mode == "mean"
                       else chosen.max(0)[0])
        return gradjit.stack(out) if out else rows[:0]
    return gradjit.autograd.composite("EmbeddingBagBackward0", reduce, weight, weights)
