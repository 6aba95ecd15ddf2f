"""Adamax, NAdam, RAdam and Adadelta, each in the order of operations of PyTorch's
single-tensor implementation (the one it runs for CPU tensors), so float32 results round as
PyTorch's do."""
from __future__ import annotations

import gradjit
from gradjit.optim.optimizer import Optimizer, check_adam_options, check_lr, check_range


def _decayed(group, p, grad):
    """The gradient with L2 weight decay added, or the parameter shrunk (decoupled)."""
    decay = group["weight_decay"]
    if decay == 0:
        return grad
    if group.get("decoupled_weight_decay"):
        p.mul_(1 - group["lr"] * decay)
        return grad
    return grad.add(p, alpha=decay)


class Adamax(Optimizer):
    """Adam with the infinity norm: the second moment is a running maximum of |grad|."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        check_adam_options(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _state(self, group, p):
        return self._state_of(p, "exp_avg", "exp_inf")

    def _update_group(self, group):
        beta1, beta2 = group["betas"]
        for p, grad, state in self._stepped(group):
            grad = _decayed(group, p, grad)
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_inf.copy_(gradjit.maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"])))
            clr = group["lr"] / (1 - beta1 ** state["step"].item())
            p.addcdiv_(exp_avg, exp_inf, value=-clr)


class NAdam(Optimizer):
    """Adam with Nesterov momentum, its momentum coefficient warming up by momentum_decay."""
    _capturable_tensors = "params, mu_products and state_steps"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_adam_options(lr, betas, eps, weight_decay)
        check_range("momentum_decay value", momentum_decay, momentum_decay >= 0.0)
        super().__init__(params, dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
            momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
            maximize=maximize, foreach=foreach, capturable=capturable,
            differentiable=differentiable))

    def _state(self, group, p):
        # mu_product is float32, as PyTorch keeps it
        return self._state_of(p, "exp_avg", "exp_avg_sq", scalars={"mu_product": 1.0})

    def _update_group(self, group):
        beta1, beta2 = group["betas"]
        lr, eps, decay = group["lr"], group["eps"], group["momentum_decay"]
        for p, grad, state in self._stepped(group):
            step = state["step"].item()
            correction2 = 1 - beta2 ** step
            grad = _decayed(group, p, grad)
            mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * decay))
            mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * decay))
            state["mu_product"].mul_(mu)
            mu_product = state["mu_product"].item()
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = exp_avg_sq.div(correction2).sqrt().add_(eps)
            p.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
            p.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product * mu_next))


class RAdam(Optimizer):
    """Adam whose adaptive step is rectified by the variance of its estimate: plain momentum
    SGD until that variance is tractable (rho_t > 5)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        check_adam_options(lr, betas, eps, weight_decay)
        super().__init__(params, dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
            foreach=foreach, capturable=capturable,
            decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable))

    def _state(self, group, p):
        return self._state_of(p, "exp_avg", "exp_avg_sq")

    def _update_group(self, group):
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        rho_inf = 2 / (1 - beta2) - 1
        for p, grad, state in self._stepped(group):
            step = state["step"].item()
            grad = _decayed(group, p, grad)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            correction1, correction2 = 1 - beta1 ** step, 1 - beta2 ** step
            corrected = exp_avg / correction1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf /
                        ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive = (correction2 ** 0.5) / exp_avg_sq.sqrt().add_(group["eps"])
                p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
            else:
                p.add_(corrected * lr, alpha=-1.0)


class Adadelta(Optimizer):
    """Steps scaled by the ratio of running RMS of past updates to that of gradients."""
    _capturable_devices = ("cuda", "xpu", "hpu", "privateuseone")

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_lr(lr)
        check_range("rho value", rho, 0.0 <= rho <= 1.0)
        check_range("epsilon value", eps, eps >= 0.0)
        check_range("weight_decay value", weight_decay, weight_decay >= 0.0)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, capturable=capturable,
                                      foreach=foreach, differentiable=differentiable))

    def _state(self, group, p):
        return self._state_of(p, "square_avg", "acc_delta")

    def _update_group(self, group):
        rho, eps = group["rho"], group["eps"]
        for p, grad, state in self._stepped(group):
            grad = _decayed(group, p, grad)
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
            acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
            p.add_(delta, alpha=-group["lr"])
