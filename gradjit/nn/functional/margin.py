"""Losses on margins between scores or distances (ranking, hinge embedding, cosine embedding,
triplet, soft margin, multi-class and multi-label margins), with PyTorch's formulas,
reductions and grad_fn names where PyTorch computes a loss in one kernel."""
from __future__ import annotations

import gradjit
from gradjit.nn.functional.loss import _check_reduction, _legacy, _node, _reduce
from gradjit.tensor.scalar_overloads import add_scalar, minus, sub_scalar
from gradjit.tracer.leaves import is_traced


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    if not input1.dim() == input2.dim() == target.dim():
        end = " "  # PyTorch's message ends with a space
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape}{end}")
    return _reduce(add_scalar(-target * (input1 - input2), margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1."""
    zeros = gradjit.zeros_like(input)
    beyond = gradjit.where(target != 1, minus(margin, input).clamp_min(0), zeros)
    return _reduce(beyond + gradjit.where(target != -1, input, zeros), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1; the
    squared norms get 1e-12 so a zero vector divides by no zero."""
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if not input1.dim() == input2.dim() == target.dim() + 1:
        sizes = " and ".join(str(list(x.shape)) for x in (input1, input2))
        raise RuntimeError(f"{target.dim()}D target tensor expects {target.dim() + 1}D input "
                           f"tensors, but found inputs with sizes {sizes}.")
    dim = 1 if input1.dim() == 2 else 0
    dot = (input1 * input2).sum(dim)
    norms = add_scalar((input1 * input1).sum(dim), 1e-12) * \
        add_scalar((input2 * input2).sum(dim), 1e-12)
    cos = dot / norms.sqrt()
    zeros = gradjit.zeros_like(cos)
    loss = gradjit.where(target == 1, minus(1, cos), zeros) + \
        gradjit.where(target == -1, sub_scalar(cos, margin).clamp_min(0), zeros)
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance of
    the difference plus eps; `swap` takes the nearer of the two negative distances."""
    reduction = _legacy(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {anchor.dim()}D, positive "
                           f"{positive.dim()}D, and negative {negative.dim()}D inputs")
    near = gradjit.pairwise_distance(anchor, positive, p, eps)
    far = gradjit.pairwise_distance(anchor, negative, p, eps)
    if swap:
        far = gradjit.minimum(far, gradjit.pairwise_distance(positive, negative, p, eps))
    return _reduce((add_scalar(near, margin) - far).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """triplet_margin_loss with any distance (pairwise_distance by default)."""
    distance = gradjit.pairwise_distance if distance_function is None else distance_function
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    near, far = distance(anchor, positive), distance(anchor, negative)
    if swap:
        far = gradjit.minimum(far, distance(positive, negative))
    return _reduce((margin + near - far).clamp_min(0), reduction)


def soft_margin_loss(input, target, reduction="mean"):
    """log(1 + exp(-target * input)), the logistic loss of +-1 labels."""
    if not (input.dtype.is_floating_point or input.dtype.is_complex):  # torch's out= is input's
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{input.dtype.legacy}")
    # PyTorch differentiates this loss in its input alone
    if target.requires_grad and gradjit.is_grad_enabled():
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect "
                           "to argument 'target'. This input cannot have requires_grad True.")
    return gradjit.autograd.composite("SoftMarginLossBackward0", lambda x: _reduce(
        gradjit.nn.functional.softplus(-target * x), reduction), input)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """The mean over classes of each class's binary cross-entropy with logits."""
    logsigmoid = gradjit.nn.functional.logsigmoid
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.sum(dim=input.dim() - 1) / input.shape[-1], reduction)


def _check_scores(input):
    """PyTorch's margin kernels take one sample's class scores, a batch of them, or a 0-d
    score, never an empty row."""
    if not (input.dim() == 0 or (input.dim() <= 2 and input.shape[-1] != 0)):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")


def _check_long(target):
    if target.dtype != gradjit.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.legacy}")


def _outside(target, low, classes):
    """Whether concrete class indices leave [low, classes)."""
    return bool(target.numel() and not is_traced(target) and
                ((target < low) | (target >= classes)).any())


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """For each sample, the mean over the other classes of max(0, margin - x[y] + x[i]) ** p
    (times weight[y]): a multi-class hinge loss."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _check_scores(input)
    samples = input.shape[0] if input.dim() == 2 else 1
    if target.dim() > 1 or target.numel() != samples:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{samples}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    classes = input.shape[-1] if input.dim() else 1
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got "
                           f"{list(weight.shape)}")
    _check_long(target)
    if _outside(target, 0, classes):
        raise RuntimeError("target out of range")

    def loss_of(x, y):
        rows = x if x.dim() == 2 else x.reshape(1, -1)  # a 0-d input is one class
        labels = y.reshape(-1, 1)
        picked = rows.gather(1, labels)
        hinge = (margin - picked + rows).clamp_min(0) ** p
        if weight is not None:
            hinge = hinge * weight[labels]
        others = gradjit.arange(rows.shape[1]).unsqueeze(0) != labels
        per_sample = (hinge * others).sum(1) / rows.shape[1]
        return _reduce(per_sample if x.dim() == 2 else per_sample[0], reduction)
    return _node("MultiMarginLossBackward0", loss_of, input, target)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """For each sample, with targets its class indices up to the first -1: the sum over
    target classes j and other classes i of max(0, 1 - (x[j] - x[i])), over the class count."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_scores(input)
    fits = target.shape == input.shape if input.dim() == 2 else \
        target.dim() <= 1 and target.numel() == (input.numel() if input.dim() else 1)
    if not fits:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    _check_long(target)
    # -1 ends a sample's targets; anything below it is out of range too
    if _outside(target, -1, input.shape[-1] if input.dim() else 1):
        raise RuntimeError("argument #2 'target' is out of range")

    def loss_of(x, y):
        rows = x if x.dim() == 2 else x.reshape(1, -1)  # a 0-d input is one class
        labels = y if y.dim() == 2 else y.reshape(1, -1)
        classes = rows.shape[1]
        # the targets are the entries before a row's first -1
        listed = (labels >= 0).long().cumprod(1).bool()
        index = labels.clamp_min(0)
        chosen = gradjit.zeros(rows.shape, dtype=gradjit.int64).scatter_add(
            1, index, listed.long()) > 0
        scores = rows.gather(1, index)  # x[j] for each listed j
        hinge = (1 - scores.unsqueeze(2) + rows.unsqueeze(1)).clamp_min(0)
        pairs = listed.unsqueeze(2) & ~chosen.unsqueeze(1)
        per_sample = (hinge * pairs).sum((1, 2)) / classes
        return _reduce(per_sample if x.dim() == 2 else per_sample[0], reduction)
    return _node("MultilabelMarginLossBackward0", loss_of, input, target)
