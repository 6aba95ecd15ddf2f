"""linear_cross_entropy: cross entropy of logits that a linear map of the input gives, for
class indices or probabilities, over K extra output dims."""
from __future__ import annotations

import warnings

import gradjit
from gradjit.nn.functional.activation import linear
from gradjit.nn.functional.loss import cross_entropy
from gradjit.tensor.arith import apply


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """cross_entropy(linear(input, W), target) with W of shape (C, d1..dK, in_features).
    `options` asks PyTorch for its batch-chunked kernel, which saves memory and gives the
    same loss; gradjit evaluates the unchunked form, recorded as that kernel's one node."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions "
                           f"(in_features), got {in_features} and {linear_weight.shape[-1]}, "
                           f"respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, "
                           f"(N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*batch, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    chunked = not (out_features or label_smoothing != 0.0 or
                   reduction not in ("mean", "sum", "none") or target.dtype is not gradjit.int64)
    if options is not None and not chunked:
        _warn_unchunked(reduction, label_smoothing, target, out_features, linear_bias)
    elif options is not None:
        return _chunked(input, linear_weight, target, linear_bias, weight, reduction,
                        ignore_index)
    if out_features:  # the extra output dims flattened into the classes (PyTorch keeps a
        # matrix weight as it is)
        linear_weight = linear_weight.reshape(-1, in_features)
        linear_bias = None if linear_bias is None else linear_bias.reshape(-1)
    logits = linear(input, linear_weight, linear_bias)
    logits = logits.reshape(logits_shape)
    return cross_entropy(logits, target, weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


def _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index):
    """The loss as PyTorch's batch-chunked kernel records it: one node of the custom operator
    torch_nn::_linear_cross_entropy_batch_chunked (_no_reduction for reduction 'none') over
    the batched input, linear weight, target and the optional bias and class weights that are
    given; an unbatched input is unsqueezed into it and its loss squeezed out. gradjit
    evaluates the unchunked form inside that node."""
    unbatched = input.dim() == 1
    if unbatched:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    operands = [t for t in (input, linear_weight, target, linear_bias, weight) if t is not None]
    kernel = "_no_reduction" if reduction == "none" else ""
    out = apply(f"GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked{kernel}"
                "_defaultBackward", lambda *_: cross_entropy(
                    linear(input, linear_weight, linear_bias), target, weight,
                    reduction=reduction, ignore_index=ignore_index), *operands,
                operands=operands)
    return out.squeeze(0) if unbatched else out


def _warn_unchunked(reduction, label_smoothing, target, out_features, linear_bias):
    bias = None if linear_bias is None else tuple(linear_bias.shape)
    warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                  "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
                  f"out_features == (). Got reduction={reduction!r}, "
                  f"label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
                  f"out_features={out_features}, tracing=False, "
                  f"linear_bias.shape={bias}.", stacklevel=3)

