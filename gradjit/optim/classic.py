"""Rprop and ASGD in the order of operations of PyTorch's single-tensor updates (the ones it
runs for CPU tensors), their float32 state rounded where PyTorch keeps it in float32."""
from __future__ import annotations

import gradjit
from gradjit.optim.optimizer import Optimizer, check_lr, check_range


class Rprop(Optimizer):
    """Per-element step sizes, grown by etas[1] while the gradient keeps its sign and shrunk
    by etas[0] when it flips (that step then skipped), within step_sizes."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        check_range("eta values", f"{etas[0]}, {etas[1]}", 0.0 < etas[0] < 1.0 < etas[1])
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _state(self, group, p):
        state = self._state_of(p, "prev")
        # a complex parameter's real and imaginary parts each start at lr
        lr = complex(group["lr"], group["lr"]) if p.is_complex() else group["lr"]
        state.setdefault("step_size", gradjit.full_like(p, lr))
        return state

    def _update_group(self, group):
        shrink, grow = group["etas"]
        smallest, largest = group["step_sizes"]
        for p, grad, state in self._stepped(group):
            prev, step_size = state["prev"], state["step_size"]
            sign = grad.mul(prev).sign()
            # etas in the gradient's dtype: a float32 eta would round float64 step sizes
            one = gradjit.ones_like(sign)
            factor = gradjit.where(sign > 0, one * grow, gradjit.where(sign < 0, one * shrink, one))
            step_size.mul_(factor).clamp_(smallest, largest)
            grad = gradjit.where(factor == shrink, gradjit.zeros_like(grad), grad)
            p.addcmul_(grad.sign(), step_size, value=-1)
            prev.copy_(grad)


class ASGD(Optimizer):
    """SGD with a decaying step eta and a running average `ax` of the iterates from step t0
    on."""
    _capturable_tensors = "params, mus, etas, and state_steps"

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_range("weight_decay value", weight_decay, weight_decay >= 0.0)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _state(self, group, p):
        # eta and mu are float32, as PyTorch's
        return self._state_of(p, "ax", scalars={"eta": float(group["lr"]), "mu": 1.0})

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
