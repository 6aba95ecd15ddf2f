"""F.ctc_loss: the connectionist temporal classification loss by the log-space forward algorithm
over the blank-interleaved targets, so that autograd gives its gradient."""
from __future__ import annotations

import numpy as np

import gradjit
from gradjit import ops
from gradjit.nn.functional.loss import _check_reduction
from gradjit.tensor.arith import apply

_CHECKED = " (while checking arguments for ctc_loss_allocate_outputs)"


def _lengths(lengths, name):
    if gradjit.is_tensor(lengths):
        if lengths.is_floating_point() or lengths.is_complex():
            raise RuntimeError(f"{name} must be integral")
        return np.asarray(lengths.tolist(), dtype=np.int64).reshape(-1)
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def _at_least(values, low, name):
    for v in values:
        if v < low:
            raise RuntimeError(f"Expected {name} to have value at least {low}, but got value "
                               f"{v}{_CHECKED}")


def _padded_targets(targets, target_lengths, batch):
    """(N, S) targets, S the longest target, from padded or concatenated ones."""
    _at_least(target_lengths, 0, "target_lengths")
    if targets.dim() > 2:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional "
                           f"tensor for argument #2 'targets'{_CHECKED}")
    longest = int(target_lengths.max(initial=0))
    if targets.dim() == 1:
        total = int(target_lengths.sum())
        if targets.shape[0] != total:
            raise RuntimeError(f"Expected tensor to have size {total} at dimension 0, but got "
                               f"size {targets.shape[0]} for argument #2 'targets'{_CHECKED}")
        flat = targets.long().tolist()
        starts = np.concatenate([[0], np.cumsum(target_lengths)])
        rows = [flat[s:s + n] + [0] * (longest - n) for s, n in zip(starts, target_lengths)]
        return gradjit.tensor(rows, dtype=gradjit.int64).reshape(batch, longest)
    if targets.shape[1] < longest:
        raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but "
                           f"got size {targets.shape[1]} for argument #2 'targets'{_CHECKED}")
    return targets[:, :longest].long()


def _extended(targets, target_lengths, blank):
    """The targets with a blank before, between and after their labels, and where a path may
    skip the blank before a label (when it differs from the label two places back)."""
    batch, longest = targets.shape
    ext = gradjit.full((batch, 2 * longest + 1), blank, dtype=gradjit.int64)
    ext[:, 1::2] = targets
    skip = gradjit.zeros(ext.shape, dtype=gradjit.bool)
    skip[:, 3::2] = targets[:, 1:] != targets[:, :-1]
    return ext, skip


def _log_add(options):
    """logsumexp over the last dim whose rows of -inf (states no path reaches yet) are -inf
    with a zero gradient, unlike Tensor.logsumexp's nan, as PyTorch's CTC kernel gives."""
    return apply("LogsumexpBackward0", ops.logsumexp, options, -1)


def _neg_log_likelihood(log_probs, ext, skip, input_lengths, target_lengths):
    """-log of the summed probability of every alignment of each target, by the forward
    variables alpha[s], the log-probability of having emitted the extended target up to s."""
    steps, batch, _ = log_probs.shape
    width = ext.shape[1]
    emit = log_probs.gather(2, ext.unsqueeze(0).expand(steps, batch, width))
    never = float("-inf")
    first = gradjit.arange(width) < 2
    empty = gradjit.where(gradjit.arange(width) == 0, 0.0, never).to(log_probs.dtype)
    started = gradjit.tensor(input_lengths > 0).unsqueeze(1)
    alpha = gradjit.where(started, gradjit.where(first, emit[0], never), empty)
    pad = gradjit.full((batch, 2), never, dtype=log_probs.dtype)
    for t in range(1, steps):
        shifted = gradjit.cat([pad, alpha], 1)
        options = gradjit.stack([alpha, shifted[:, 1:-1],
                                 gradjit.where(skip, shifted[:, :-2], never)], -1)
        moved = _log_add(options) + emit[t]
        alpha = gradjit.where(gradjit.tensor(t < input_lengths).unsqueeze(1), moved, alpha)
    last = gradjit.tensor(2 * target_lengths)
    ends = gradjit.stack([alpha.gather(1, last.unsqueeze(1)).squeeze(1),
                          gradjit.where(last > 0, alpha.gather(1, (last - 1).clamp(min=0)
                                                               .unsqueeze(1)).squeeze(1), never)],
                         -1)
    return -_log_add(ends)


def _softmax_term(log_probs, input_lengths, live):
    """Zero, with the gradient exp(log_probs) for the steps each sample uses: PyTorch's CTC
    gradient assumes log_probs came from log_softmax and folds that softmax term in."""
    frozen = log_probs.detach()
    used = gradjit.tensor(np.arange(log_probs.shape[0])[:, None] < input_lengths[None, :])
    weight = frozen.exp() * (used & live).unsqueeze(-1)
    return (weight * (log_probs - frozen)).sum((0, 2))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    _check_reduction(reduction)
    if log_probs.dtype not in (gradjit.float32, gradjit.float64):
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for '
                                  f"'{log_probs.dtype.legacy}'")
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)  # its targets: one concatenated sequence
    steps, batch, classes = log_probs.shape
    input_lengths = _lengths(input_lengths, "input_lengths")
    target_lengths = _lengths(target_lengths, "target_lengths")
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    for lengths, name in ((input_lengths, "input_lengths"), (target_lengths, "target_lengths")):
        if len(lengths) != batch:
            raise RuntimeError(f"{name} must be of size batch_size")
    targets = _padded_targets(targets, target_lengths, batch)
    _at_least(input_lengths, 0, "input_lengths")
    for v in input_lengths:
        if v > steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got "
                               f"value {v}{_CHECKED}")
    ext, skip = _extended(targets, target_lengths, blank)

    def ctc(log_probs):
        nll = _neg_log_likelihood(log_probs, ext, skip, input_lengths, target_lengths)
        live = ~nll.detach().isinf() if zero_infinity else gradjit.ones(batch,
                                                                         dtype=gradjit.bool)
        return nll + _softmax_term(log_probs, input_lengths, live)
    loss = gradjit.autograd.composite("CtcLossBackward0", ctc, log_probs)
    if zero_infinity:
        loss = gradjit.where(loss.isinf(), 0.0, loss)
    if reduction == "mean":
        lengths = gradjit.tensor(target_lengths).clamp(min=1).to(loss.dtype)
        return (loss / lengths).mean()
    if reduction == "sum":
        return loss.sum()
    return loss.squeeze(0) if unbatched else loss
