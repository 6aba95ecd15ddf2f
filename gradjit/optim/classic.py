"""Rprop and ASGD in the order of operations of PyTorch's single-tensor updates (the ones it
runs for CPU tensors), their float32 state rounded where PyTorch keeps it in float32."""
from __future__ import annotations

import gradjit
from gradjit.optim.optimizer import Optimizer, check_range


class Rprop(Optimizer):
    """Per-element step sizes, grown by etas[1] while the gradient keeps its sign and shrunk
    by etas[0] when it flips (that step then skipped), within step_sizes."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_range("learning rate", lr, lr >= 0.0)
        check_range("eta values", f"{etas[0]}, {etas[1]}", 0.0 < etas[0] < 1.0 < etas[1])
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes,
                                      capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _state(self, group, p):
        state = self._state_of(p, "prev")
        state.setdefault("step_size", gradjit.full_like(p, group["lr"]))
        return state

    def _update_group(self, group):
        shrink, grow = group["etas"]
        smallest, largest = group["step_sizes"]
        for p, grad, state in self._stepped(group):
            prev, step_size = state["prev"], state["step_size"]
            sign = grad.mul(prev).sign()
            factor = gradjit.where(sign > 0, grow, gradjit.where(sign < 0, shrink, 1.0))
            step_size.mul_(factor.to(p.dtype)).clamp_(smallest, largest)
            grad = gradjit.where(factor == shrink, gradjit.zeros_like(grad), grad)
            p.addcmul_(grad.sign(), step_size, value=-1)
            prev.copy_(grad)


class ASGD(Optimizer):
    """SGD with a decaying step eta and a running average `ax` of the iterates from step t0
    on."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_range("learning rate", lr, lr >= 0.0)
        check_range("weight_decay value", weight_decay, weight_decay >= 0.0)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _state(self, group, p):
        state = self._state_of(p, "ax")
        state.setdefault("eta", gradjit.tensor(float(group["lr"])))  # float32, as PyTorch's
        state.setdefault("mu", gradjit.tensor(1.0))
        return state

    def _update_group(self, group):
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        for p, grad, state in self._stepped(group):
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            eta, mu, ax = state["eta"].item(), state["mu"].item(), state["ax"]
            p.mul_(1 - lambd * eta)
            p.add_(grad, alpha=-eta)
            if mu != 1:
                ax.add_(p.sub(ax).mul_(mu))
            else:
                ax.copy_(p)
            step = state["step"].item()
            state["eta"].copy_(gradjit.tensor(lr / ((1 + lambd * lr * step) ** alpha)))
            state["mu"].copy_(gradjit.tensor(1 / max(1, step - t0)))
