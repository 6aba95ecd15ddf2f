"""torch.optim.swa_utils: running averages of a model's weights (SWA, EMA), the SWALR schedule
that anneals to a fixed lr, and update_bn, which recomputes BatchNorm statistics for them."""
from __future__ import annotations

import copy
import itertools
import math

import gradjit
from gradjit.nn import Module
from gradjit.nn.modules.normalization import _BatchNorm
from gradjit.optim.lr_scheduler import LRScheduler, _per_group

__all__ = ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn",
           "get_swa_avg_fn", "get_swa_multi_avg_fn", "update_bn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """In place: each average moves 1 - decay of the way to the model's value."""
    _check_decay(decay)

    @gradjit.no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if ema_param_list[0].dtype.is_floating_point:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.lerp_(p_model, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """In place: the running mean of the models seen, the next one weighted 1 / (n + 1)."""
    @gradjit.no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if averaged_param_list[0].dtype.is_floating_point:
            # PyTorch takes the weight as 1 / (n + 1) computed as a tensor when n is one
            weight = 1 / (num_averaged + 1)
            weight = weight.item() if gradjit.is_tensor(weight) else weight
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                p_avg.lerp_(p_model, weight)
        else:
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                diff = p_model - p_avg
                if gradjit.is_tensor(num_averaged):
                    p_avg.addcdiv_(diff, num_averaged + 1)
                else:
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    _check_decay(decay)

    @gradjit.no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    @gradjit.no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of `model` whose parameters (and buffers, with use_buffers) are averaged over
    the calls of update_parameters: equally (SWA) unless avg_fn or multi_avg_fn says."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", gradjit.tensor(0, dtype=gradjit.long, device=device))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged(self, model):
        if self.use_buffers:
            return (itertools.chain(self.module.parameters(), self.module.buffers()),
                    itertools.chain(model.parameters(), model.buffers()))
        return self.parameters(), model.parameters()

    def update_parameters(self, model):
        mine, theirs = self._averaged(model)
        pairs = [(p.detach(), q.detach().to(p.device)) for p, q in zip(mine, theirs)]
        if bool(self.n_averaged == 0):
            for p, q in pairs:
                p.copy_(q)
        elif self.multi_avg_fn is not None:
            for group in _by_device_and_dtype(pairs):
                averaged, current = map(list, zip(*group))
                self.multi_avg_fn(averaged, current, self.n_averaged)
        else:  # on CPU PyTorch averages parameter by parameter
            avg_fn = self.avg_fn or get_swa_avg_fn()
            for p, q in pairs:
                p.copy_(avg_fn(p, q, self.n_averaged))
        if not self.use_buffers:
            for b_mine, b_model in zip(self.module.buffers(), model.buffers()):
                b_mine.detach().copy_(b_model.detach().to(b_mine.device))
        self.n_averaged += 1


def _by_device_and_dtype(pairs):
    """The (averaged, current) pairs grouped as PyTorch hands them to a multi_avg_fn: one call
    per device and dtype, in order of first appearance."""
    groups = {}
    for p, q in pairs:
        groups.setdefault((str(p.device), p.dtype), []).append((p, q))
    return groups.values()


@gradjit.no_grad()
def update_bn(loader, model, device=None):
    """One pass over `loader` in training mode with the BatchNorm statistics reset and
    cumulative (momentum None), so they become the data's mean and variance."""
    momenta = {m: m.momentum for m in model.modules() if isinstance(m, _BatchNorm)}
    if not momenta:
        return
    for module in momenta:
        module.reset_running_stats()
        module.momentum = None
    was_training = model.training
    model.train()
    for batch in loader:
        batch = batch[0] if isinstance(batch, (list, tuple)) else batch
        model(batch if device is None else batch.to(device))
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Each group's lr annealed to its swa_lr over anneal_epochs steps ('cos' or 'linear'),
    then held there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        for lr, group in zip(_per_group(swa_lr, optimizer.param_groups, "swa_lr"),
                             optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def anneal_func(self, t):
        return t if self._anneal_strategy == "linear" else (1 - math.cos(math.pi * t)) / 2

    def get_lr(self):
        """The lr of this step: the group's current lr is taken as the previous step's mix
        of the initial lr and swa_lr, and moved to this step's mix."""
        self._warn_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        span = max(1, self.anneal_epochs)
        before = self.anneal_func(max(0, min(1, (step - 1) / span)))
        now = self.anneal_func(max(0, min(1, step / span)))
        lrs = []
        for group in self.optimizer.param_groups:
            initial = group["swa_lr"] if before == 1 else \
                (group["lr"] - before * group["swa_lr"]) / (1 - before)
            lrs.append(group["swa_lr"] * now + initial * (1 - now))
        return lrs
