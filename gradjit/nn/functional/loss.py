"""Loss functions with PyTorch's reductions, weights, ignored targets and label smoothing."""
from __future__ import annotations

import math

import gradjit
from gradjit.tensor import fused
from gradjit.tensor.refusals import refuse_integers
from gradjit.tensor.scalar_overloads import add_scalar, div_scalar, mul_scalar
from gradjit.tracer.leaves import is_traced
from gradjit.warn import warn_at_caller


def _legacy(size_average, reduce, reduction):
    """The reduction that the deprecated size_average/reduce flags name, with torch's warning;
    `reduction` when neither is given."""
    if size_average is None and reduce is None:
        return reduction
    keep = reduce is None or reduce
    reduction = ("mean" if size_average is None or size_average else "sum") if keep else "none"
    warn_at_caller(f"size_average and reduce args will be deprecated, please use "
                   f"reduction='{reduction}' instead.")
    return reduction


def _check_reduction(reduction):
    """torch checks the reduction in Python, before the kernel's checks of its inputs."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(loss, reduction):
    _check_reduction(reduction)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def _node(name, fn, input, target):
    """PyTorch computes these losses in one kernel, so its graph has one node for them."""
    return gradjit.autograd.composite(name, fn, input, target)


def _warn_broadcast(input, target):
    if input.shape != target.shape:
        warn_at_caller(f"Using a target size ({target.shape}) that is different to the input size "
                       f"({input.shape}). This will likely lead to incorrect results due to "
                       "broadcasting. Please ensure they have the same size.")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_broadcast(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target) ** 2, weight, input, reduction, by_weight=True)
    return _node("MseLossBackward0", lambda i, t: _reduce((i - t) ** 2, reduction), input,
                 target)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_broadcast(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target).abs(), weight, input, reduction, by_weight=True)
    return _reduce((input - target).abs(), reduction)


def _weighted(errors, weight, input, reduction, by_weight):
    """Each sample's error scaled by its weight (one per input element); the mean divides by
    the weights' sum where `by_weight` (mse, l1), by the count otherwise (huber), as torch's."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    scaled = errors * weight
    if reduction == "none":
        return scaled
    if reduction == "sum":
        return scaled.sum()
    if reduction == "mean":
        return scaled.sum() / weight.sum() if by_weight else scaled.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _warn_broadcast(input, target)
    if input.dtype != target.dtype and not input.dtype.is_floating_point:
        raise RuntimeError(f"result type {target.dtype.legacy} can't be cast to the desired "
                           f"output type {input.dtype.legacy}")
    refuse_integers("huber_cpu", input)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")

    def huber(input, target, reduction=reduction):
        diff = (input - target).abs()
        return _reduce(gradjit.where(diff < delta, 0.5 * diff ** 2,
                                     delta * (diff - 0.5 * delta)), reduction)
    if weight is not None:
        errors = _node("HuberLossBackward0", lambda i, t: huber(i, t, "none"), input, target)
        return _weighted(errors, weight, input, reduction, by_weight=False)
    return _node("HuberLossBackward0", huber, input, target)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _warn_broadcast(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    refuse_integers("smooth_l1_cpu", input, target)
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)

    def smooth_l1(input, target):
        diff = (input - target).abs()
        return _reduce(gradjit.where(diff < beta, 0.5 * diff ** 2 / beta, diff - 0.5 * beta),
                       reduction)
    return _node("SmoothL1LossBackward0", smooth_l1, input, target)


def _check_probabilities(input, target):
    """PyTorch's kernel checks each element's input, then its target, in [0, 1] (on concrete
    values only: under tracing it would be a guard on data)."""
    if is_traced(input) or is_traced(target) or not input.numel():
        return
    outside = [~((t >= 0) & (t <= 1)).detach().reshape(-1) for t in (input, target)]
    first = gradjit.nonzero(outside[0] | outside[1])
    if first.numel():
        which = "input" if bool(outside[0][first[0, 0]]) else "target"
        raise RuntimeError(f"all elements of {which} should be between 0 and 1")


class _BinaryCrossEntropy(gradjit.autograd.Function):
    """-(t log x + (1 - t) log(1 - x)) with the logarithms clamped at -100, so that a 0 or 1
    prediction gives a finite loss, and PyTorch's gradient: (x - t) / max(x (1 - x), 1e-12)
    for x (finite where the logarithms' derivatives are not), log(1 - x) - log x for t."""

    @staticmethod
    def forward(ctx, input, target):
        ctx.save_for_backward(input, target)
        return -(target * input.log().clamp(min=-100) +
                 (1 - target) * (1 - input).log().clamp(min=-100))

    @staticmethod
    def backward(ctx, grad):
        input, target = ctx.saved_tensors
        grad_input = grad * (input - target) / ((1 - input) * input).clamp(min=1e-12)
        grad_target = grad * ((1 - input).log().clamp(min=-100) -
                              input.log().clamp(min=-100))
        return grad_input, grad_target


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         "size.")
    if input.dtype != target.dtype and not input.dtype.is_floating_point:
        raise RuntimeError(f"Found dtype {target.dtype.legacy} but expected "
                           f"{input.dtype.legacy}")
    refuse_integers("binary_cross_entropy", input)
    _check_probabilities(input, target)
    if weight is not None:
        weight = weight.expand(gradjit.broadcast_shapes(target.shape, weight.shape))

    def bce(input, target):
        # viewed: the Function's own node would otherwise name an unweighted, unreduced loss
        loss = _BinaryCrossEntropy.apply(input, target).view(tuple(input.shape))
        return _reduce(loss if weight is None else loss * weight, reduction)
    return _node("BinaryCrossEntropyBackward0", bce, input, target)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    reduction = _legacy(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    refuse_integers("log_sigmoid_cpu", input)

    def bce_with_logits(input, target):
        # log(1 + exp(-x)) as -log_sigmoid(x): no exp overflows, and at x = 0 its gradient is
        # -1/2 (max(-x, 0) + log1p(exp(-|x|)) takes the kinks' one-sided slopes there).
        softplus = -gradjit.nn.functional.logsigmoid(input)
        scale = 1 if pos_weight is None else 1 + (pos_weight - 1) * target
        loss = (1 - target) * input + scale * softplus
        return _reduce(loss if weight is None else loss * weight, reduction)
    return _node("BinaryCrossEntropyWithLogitsBackward0", bce_with_logits, input, target)


def _classes_last(input):
    """(N, C, d1, ...) as (N, d1, ..., C); a 1-D input is one sample."""
    return input if input.dim() == 1 else input.movedim(1, -1)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    if target.dtype is gradjit.uint8:  # PyTorch's kernel reads Byte targets as class indices
        target = target.long()
    _check_class_shapes(input, target, weight)
    if input.dim() == 3 or input.dim() > 4:
        return _nll_loss_as_2d(input, target, weight, ignore_index, reduction)
    picks = fused.class_picks(input, target, ignore_index) if weight is None and \
        reduction in ("mean", "sum", "none") else None
    if picks is not None:  # the common case, fused
        out = fused.nll(input, picks, reduction)
        if out is not None:
            return out
    if input.dim() <= 2 and target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.dtype is not gradjit.int64:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{target.dtype.legacy}")
    refuse_integers("nll_loss_out_frame", input)
    classes = input.shape[0 if input.dim() == 1 else 1]
    kept = target != ignore_index
    index = gradjit.where(kept, target, 0)
    # Checked on concrete targets only: a traced check would be a guard, and under vmap
    # (per-sample gradients) a guard on per-example targets cannot be batched.
    if index.numel() and not is_traced(index) and \
            bool(((index < 0) | (index >= classes)).any()):
        bad = target[kept & ((target < 0) | (target >= classes))][0]
        raise IndexError(f"Target {int(bad)} is out of bounds.")
    if is_traced(index):  # the pick's run-time bounds check takes -C..-1 as counted from the end
        index = gradjit.where(index < 0, index - classes, index)

    def nll(input):
        picked = _classes_last(input).take_along_dim(index.unsqueeze(-1), -1).squeeze(-1)
        w = kept.to(input.dtype) if weight is None else weight[index] * kept
        loss = -picked * w
        if reduction != "mean":
            return _reduce(loss, reduction)
        # all kept targets weighted 0: PyTorch's kernel divides their gradients by 0 (nan)
        at_zero = None if weight is None else \
            -(picked * gradjit.where(kept & (w.sum() == 0), math.nan, 0.0)).sum() + \
            gradjit.where(kept.any(), 0.0, -math.nan)
        return _kept_mean(loss, w, at_zero)
    # the class indices are no operand of PyTorch's node (its next_functions: the input's)
    return gradjit.autograd.composite(
        "NllLoss2DBackward0" if input.dim() > 2 else "NllLossBackward0", nll, input)


def _nll_loss_as_2d(input, target, weight, ignore_index, reduction):
    """PyTorch's nll_loss of (N, C, d1, ...) other than 4-D: the 2-D loss of its positions
    viewed as one row (N, C, 1, d1 * ...), each loss viewed back in target's shape."""
    n, classes, positions = input.shape[0], input.shape[1], math.prod(input.shape[2:])
    loss = nll_loss(input.reshape(n, classes, 1, positions), target.reshape(n, 1, positions),
                    weight, ignore_index=ignore_index, reduction=reduction)
    return loss.view(target.shape) if reduction == "none" else loss


def _check_class_shapes(input, target, weight):
    """PyTorch's checks of the batch, of a class weight and of a K-dimensional target (K != 2)
    against the input, made before any other."""
    target_batch = target.shape[0] if target.dim() > 0 else 0  # PyTorch's count for 0-D
    if input.dim() > 1 and input.shape[0] != target_batch:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target_batch}).")
    if weight is not None and input.dim() > 0:
        classes = input.shape[0 if input.dim() == 1 else 1]
        if weight.numel() != classes:
            raise RuntimeError(f"weight tensor should be defined either for all {classes} "
                               f"classes or no classes but got weight tensor of shape: "
                               f"{list(weight.shape)}")
        if weight.dtype != input.dtype:
            raise RuntimeError(f"expected scalar type {input.dtype.legacy} but found "
                               f"{weight.dtype.legacy}")
    if input.dim() == 4 and target.dim() != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {target.dim()}")
    if (input.dim() == 3 or input.dim() > 4) and target.dim() > 0 and \
            input.shape[0] == target.shape[0] and target.shape[1:] != input.shape[2:]:
        expected = [input.shape[0], *input.shape[2:]]
        raise RuntimeError(f"Expected target size {expected}, got {list(target.shape)}")


def _kept_mean(loss, w, at_zero=None):
    """loss.sum() / w.sum(); where w sums to 0, at_zero or else PyTorch's nan (-0.0 / 0,
    negative) with a zero gradient, where 0/0 would differentiate to nan everywhere."""
    total = w.sum()
    none = total == 0
    return gradjit.where(none, -math.nan if at_zero is None else at_zero,
                         loss.sum() / gradjit.where(none, 1, total))


def _smoothed_indices(logp, target, weight, ignore_index, reduction, label_smoothing):
    """The label-smoothing term for class-index targets: the mean over classes of the
    (weighted) negative log-probabilities, normalized as nll_loss normalizes."""
    classes = logp.shape[0 if logp.dim() == 1 else 1]
    per_class = _classes_last(logp)
    if weight is not None:
        per_class = per_class * weight
    kept = target != ignore_index
    smooth = -per_class.sum(-1) * kept
    if reduction == "mean":
        w = kept.to(logp.dtype) if weight is None else weight[gradjit.where(kept, target, 0)] * kept
        smooth = _kept_mean(smooth, w)
    else:
        smooth = _reduce(smooth, reduction)
    return smooth * (label_smoothing / classes)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    reduction = _legacy(size_average, reduce, reduction)
    if label_smoothing > 1:  # PyTorch's check lets a negative smoothing through
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing}")
    logp = input.log_softmax(0 if input.dim() == 1 else 1)
    # A target shaped like the input holds class probabilities; otherwise class indices.
    if tuple(target.shape) == tuple(input.shape):
        if not target.is_floating_point():
            raise RuntimeError(f"Expected floating point type for target with class "
                               f"probabilities, got {target.dtype.legacy}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(logp, target, weight, reduction, label_smoothing)
    loss = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0:  # PyTorch smooths for a positive value only
        return loss
    return (1 - label_smoothing) * loss + _smoothed_indices(logp, target, weight, ignore_index,
                                                            reduction, label_smoothing)


def _cross_entropy_probabilities(logp, target, weight, reduction, label_smoothing):
    """-sum(logp * target [* weight]) as PyTorch's composite writes it: summed over the
    classes (none) or over all (sum; mean divides by the count of samples and positions)."""
    class_dim = 0 if logp.dim() == 1 else 1
    classes = logp.shape[class_dim]
    if label_smoothing > 0:
        target = add_scalar(mul_scalar(target, 1 - label_smoothing), label_smoothing / classes)
    terms = logp * target
    if weight is not None:
        terms = terms * (weight.view([1, -1] + [1] * (logp.dim() - 2)) if logp.dim() > 1
                         else weight)
    _check_reduction(reduction)
    if reduction == "none":
        return -terms.sum(class_dim)
    if reduction == "sum":
        return -terms.sum()
    if not logp.numel():
        return -terms.sum().fill_(math.nan)
    return div_scalar(-terms.sum(), logp.numel() // classes)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target * (log target - input) pointwise, input being log-probabilities (and target too
    with log_target); 'batchmean' divides the sum by the batch size, the KL divergence."""
    reduction = _legacy(size_average, reduce, reduction)
    if reduction == "mean":
        warn_at_caller("reduction: 'mean' divides the total loss by both the batch size and "
                       "the support size.'batchmean' divides only by the batch size, and aligns "
                       "with the KL div math definition.'mean' will be changed to behave the "
                       "same as 'batchmean' in the next major release.")
    if not all(t.dtype.is_floating_point or t.dtype.is_complex for t in (input, target)):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = gradjit.xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() else loss.sum()
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """The Gaussian negative log likelihood 0.5 (log var + (input - target)^2 / var); var is
    clamped below at eps in a copy, outside autograd (its gradient passes unclamped)."""
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * gradjit.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.dim() != var.dim() or sum(v for i, v in zip(input.shape, var.shape)
                                             if i != v) != 1:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with gradjit.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """exp(input) - target * input (log_input), or input - target log(input + eps); `full`
    adds Stirling's approximation of log(target!) where target > 1."""
    _check_reduction(reduction)
    loss = input.exp() - target * input if log_input else \
        input - target * add_scalar(input, eps).log()
    if full:
        stirling = target * target.log() - target + \
            mul_scalar(mul_scalar(target, 2 * math.pi).log(), 0.5)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)
