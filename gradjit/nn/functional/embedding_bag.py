"""F.embedding_bag: the sum, mean or max of each bag of embedding rows, bags given by offsets
into a flat index list (or the rows of a 2-D one), padding_idx entries left out."""
from __future__ import annotations

import numpy as np

import gradjit
from gradjit.sparse.embedding import rows as sparse_rows
from gradjit.tracer.leaves import is_traced

_MODES = ("sum", "mean", "max")


def _bags(input, offsets, per_sample_weights, include_last_offset):
    """Flat indices, weights and each bag's (start, end)."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        starts = list(range(0, input.numel(), input.shape[1])) if input.shape[1] else \
            [0] * input.shape[0]
        ends = starts[1:] + [input.numel()]
        weights = None if per_sample_weights is None else per_sample_weights.reshape(-1)
        return input.reshape(-1), weights, list(zip(starts, ends))
    if input.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    bounds = [int(o) for o in offsets.tolist()]
    if bounds and bounds[0] != 0:  # the tensor's printing is PyTorch's C++ one
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {bounds[0]}\n"
                           f"[ torch.{offsets.dtype.legacy}Tensor{{}} ]")
    if not include_last_offset:
        bounds.append(input.numel())
    return input, per_sample_weights, [(lo, min(hi, input.numel()))
                                       for lo, hi in zip(bounds, bounds[1:])]


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
    indices, weights, bags = _bags(input, offsets, per_sample_weights, include_last_offset)
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
    if padding_idx is not None:
        padding_idx %= weight.shape[0]
    kept = indices.numpy() != (-1 if padding_idx is None else padding_idx)

    if sparse and mode == "max":
        raise ValueError("max mode does not support sparse weights")

    def reduce(table, scales):
        rows = table[indices] if not sparse or is_traced(table) else \
            sparse_rows(table, indices, padding_idx)
        if scales is not None:
            rows = rows * scales.unsqueeze(-1)
        out = []
        for lo, hi in bags:
            use = gradjit.tensor(np.flatnonzero(kept[lo:hi]) + lo)
            if not use.numel():
                out.append(gradjit.zeros(table.shape[1], dtype=table.dtype))
                continue
            chosen = rows[use]
            out.append(chosen.sum(0) if mode == "sum" else chosen.mean(0) if mode == "mean"
                       else chosen.max(0)[0])
        return gradjit.stack(out) if out else gradjit.zeros(0, table.shape[1],
                                                            dtype=table.dtype)
    return gradjit.autograd.composite("EmbeddingBagBackward0", reduce, weight, weights)
