"""AdaptiveLogSoftmaxWithLoss: a head over the frequent classes and one cluster token per tail
of rarer classes, each tail a low-rank projection (Grave et al., 2016)."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

import gradjit
from gradjit.nn.modules.container import ModuleList, Sequential
from gradjit.nn.modules.linear import Linear
from gradjit.nn.modules.module import Module

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


def _check_cutoffs(cutoffs, n_classes):
    if len(cutoffs) == 0:
        raise ValueError("cutoffs should be a sequence of length larger than 0")
    if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
        raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in "
                         "an increasing order, where each value is between 1 and n_classes-1")


def _check_shapes(input, target):
    if target.dim() == 1:
        if input.shape[0] != target.shape[0]:
            raise RuntimeError("Input and target should have the same size in the batch "
                               "dimension.")
        if input.dim() != 2:
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs "
                               f"with size {input.shape}")
    elif target.dim() == 0:
        if input.dim() != 1:
            raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs "
                               f"with size {input.shape}")
    else:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")


class AdaptiveLogSoftmaxWithLoss(Module):
    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        _check_cutoffs(cutoffs, n_classes)
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kind = dict(device=device, dtype=dtype)
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kind)
        # tail i maps to a hidden size div_value ** (i + 1) times smaller, then to its classes
        self.tail = ModuleList(
            Sequential(Linear(in_features, int(in_features // div_value ** (i + 1)), bias=False,
                              **kind),
                       Linear(int(in_features // div_value ** (i + 1)), high - low, bias=False,
                              **kind))
            for i, (low, high) in enumerate(zip(self.cutoffs, self.cutoffs[1:])))

    def reset_parameters(self):
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection:
                layer.reset_parameters()

    def forward(self, input_, target_):
        """The log-probability of each target and the mean negative log-likelihood."""
        _check_shapes(input_, target_)
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        labels = target.numpy()
        if labels.size and (labels.min() < 0 or labels.max() >= self.n_classes):
            found = f"[{labels.min()}, {labels.max()}] were found. "  # PyTorch's ends in a space
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range {found}")
        # 0 for the head's classes, i + 1 for those of tail i
        cluster = np.searchsorted(self.cutoffs, labels, side="right")
        head_index = np.where(cluster == 0, labels, self.shortlist_size + cluster - 1)
        # the tails' log-probabilities first, the head's added last (PyTorch's AddBackward0)
        output = input.new_zeros(len(labels))
        for i, projection in enumerate(self.tail):
            rows = np.flatnonzero(cluster == i + 1)
            if not rows.size:
                continue
            rows = gradjit.tensor(rows)
            local = gradjit.tensor(labels[rows.numpy()] - self.cutoffs[i]).unsqueeze(1)
            logprob = projection(input.index_select(0, rows)).log_softmax(1)
            output = output.index_copy(0, rows, logprob.gather(1, local).squeeze(1))
        head_logprob = self.head(input).log_softmax(1)
        output = output + head_logprob.gather(1, gradjit.tensor(head_index).unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        head_logprob = head_output.log_softmax(1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i, projection in enumerate(self.tail):
            token = self.shortlist_size + i
            parts.append(projection(input).log_softmax(1) + head_logprob[:, token:token + 1])
        return gradjit.cat(parts, 1)

    def log_prob(self, input):
        """Log-probabilities of all n_classes classes, (N, n_classes)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most probable class of each row: the head's answer unless it is a cluster token,
        then the best class over the full distribution."""
        head_output = self.head(input)
        output = head_output.argmax(1)
        outside = output >= self.shortlist_size
        if bool(outside.any()):
            full = self._full_log_prob(input[outside], head_output[outside])
            output[outside] = full.argmax(1)
        return output
