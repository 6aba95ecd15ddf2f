"""Adagrad with PyTorch's learning-rate decay and initial accumulator."""
from __future__ import annotations

import gradjit
from gradjit.optim.optimizer import Optimizer, check_lr, check_range


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        check_lr(lr)
        check_range("lr_decay value", lr_decay, lr_decay >= 0.0)
        check_range("weight_decay value", weight_decay, weight_decay >= 0.0)
        check_range("initial_accumulator_value value", initial_accumulator_value,
                    initial_accumulator_value >= 0.0)
        check_range("epsilon value", eps, eps >= 0.0)
        super().__init__(params, dict(
            lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value, foreach=foreach,
            maximize=maximize, differentiable=differentiable, fused=fused))
        # Unlike the others, Adagrad's state exists from construction, as in PyTorch.
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["step"] = gradjit.tensor(0.0)
                value = group["initial_accumulator_value"]
                # a complex parameter's real and imaginary parts each start at the value
                value = complex(value, value) if p.is_complex() else value
                self.state[p]["sum"] = gradjit.full_like(p, value)

    _sparse_refusal = None

    def _update_group(self, group):
        for p, grad, state in self._stepped(group):
            clr = group["lr"] / (1 + (state["step"].item() - 1) * group["lr_decay"])
            if grad.is_sparse:
                _sparse_update(group, p, grad.coalesce(), state["sum"], clr)
                continue
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            state["sum"].addcmul_(grad, grad, value=1)
            std = state["sum"].sqrt().add_(group["eps"])
            p.addcdiv_(grad, std, value=-clr)


def _sparse_update(group, p, grad, total, clr):
    """Adagrad's step on the rows a coalesced sparse gradient holds: their squares added to
    the running sum, the step scaled by that sum's root there."""
    if group["weight_decay"] != 0:
        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
    rows, values = tuple(grad._indices()), grad._values()
    total.index_put_(rows, values * values, accumulate=True)
    std = total[rows].sqrt() + group["eps"]
    p.index_put_(rows, -clr * (values / std), accumulate=True)
