"""The cyclic learning-rate schedules of torch.optim.lr_scheduler (OneCycleLR, CyclicLR): the lr
moves between bounds within each cycle while the momentum (or Adam's beta1) moves against it."""
from __future__ import annotations

import functools
import math

from gradjit.optim.lr_scheduler import LRScheduler, _per_group, _saved_callable


class _MomentumCycle(LRScheduler):
    """A schedule that moves the momentum (or Adam's beta1) against the lr."""

    def _cycle_momentum(self, optimizer, cycle_momentum, base_momentum, max_momentum,
                        last_epoch):
        self.cycle_momentum = cycle_momentum
        if not cycle_momentum:
            return
        defaults, groups = optimizer.defaults, optimizer.param_groups
        if "momentum" not in defaults and "betas" not in defaults:
            raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                             "option enabled")
        self.use_beta1 = "betas" in defaults
        for group, low, high in zip(groups, _per_group(base_momentum, groups, "base_momentum"),
                                    _per_group(max_momentum, groups, "max_momentum")):
            if last_epoch == -1:
                self._set_momentum(group, high)
                group["max_momentum"], group["base_momentum"] = high, low

    def _set_momentum(self, group, value):
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value


class OneCycleLR(_MomentumCycle):
    """The 1cycle policy: the lr rises from max_lr / div_factor to max_lr over pct_start of
    the steps, then falls to that over final_div_factor (three_phase: back to the start
    first); the momentum (or Adam's beta1) moves the opposite way."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError("You must define either total_steps OR (epochs AND "
                                 "steps_per_epoch)")
            total_steps = epochs * steps_per_epoch
        if total_steps <= 0:
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        if not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self.total_steps, self._anneal_func_type = total_steps, anneal_strategy
        up = float(pct_start * total_steps) - 1
        last = float(total_steps) - 1
        # (end step, lr from, lr to, momentum from, momentum to), saved as PyTorch saves them
        phases = [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                  (last, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        if three_phase:
            phases = [phases[0], (2 * up, "max_lr", "initial_lr", "base_momentum",
                                  "max_momentum"),
                      (last, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        keys = ("end_step", "start_lr", "end_lr", "start_momentum", "end_momentum")
        self._schedule_phases = [dict(zip(keys, phase)) for phase in phases]
        groups = optimizer.param_groups
        max_lrs = _per_group(max_lr, groups, "max_lr")
        if last_epoch == -1:
            for group, top in zip(groups, max_lrs):
                group["initial_lr"] = top / div_factor
                group["max_lr"], group["min_lr"] = top, group["initial_lr"] / final_div_factor
        self._cycle_momentum(optimizer, cycle_momentum, base_momentum, max_momentum,
                             last_epoch)
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        self._warn_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps "
                             f"is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            begin = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - begin) / (end - begin)
                    lrs.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]],
                                            pct))
                    if self.cycle_momentum:
                        self._set_momentum(group, self._anneal(group[phase["start_momentum"]],
                                                               group[phase["end_momentum"]],
                                                               pct))
                    break
                begin = end
        return lrs


class CyclicLR(_MomentumCycle):
    """The lr cycling between base_lr and max_lr (triangular, triangular2 halving each cycle's
    height, exp_range decaying it by gamma per step, or a scale_fn), step_size_up steps up
    and step_size_down down; the momentum cycles the other way."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        groups = optimizer.param_groups
        base_lrs = _per_group(base_lr, groups, "base_lr")
        if last_epoch == -1:
            for lr, group in zip(base_lrs, groups):
                group["lr"] = lr
        self.max_lrs = _per_group(max_lr, groups, "max_lr")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size, self.step_ratio = up + down, up / (up + down)
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom, self.scale_mode = scale_fn, scale_mode
        self._init_scale_fn()
        self._cycle_momentum(optimizer, cycle_momentum, base_momentum, max_momentum,
                             last_epoch)
        self.base_momentums = _per_group(base_momentum, groups, "base_momentum")
        self.max_momentums = _per_group(max_momentum, groups, "max_momentum")
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        """The mode's scale function (and what it counts), unless the user gave one; run
        again after loading a state_dict, whose mode may differ."""
        if self._scale_fn_custom is not None:
            return
        self._scale_fn_ref = functools.partial(_SCALE_FNS[self.mode], self.gamma)
        self.scale_mode = "iterations" if self.mode == "exp_range" else "cycle"

    def scale_fn(self, x):
        custom = self._scale_fn_custom
        return custom(x) if custom is not None else self._scale_fn_ref(x)

    def get_lr(self):
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        factor = x / self.step_ratio if x <= self.step_ratio else \
            (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base + (top - base) * factor * scale
               for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums,
                                        self.max_momentums):
                self._set_momentum(group, high - (high - low) * factor * scale)
        return lrs

    def state_dict(self):
        """The scale function is code: left out, as PyTorch leaves it out, but a callable
        object's attributes are kept."""
        state = {k: v for k, v in super().state_dict().items() if k != "_scale_fn_ref"}
        state["_scale_fn_custom"] = _saved_callable(self._scale_fn_custom)
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        saved = state_dict.pop("_scale_fn_custom", None)
        super().load_state_dict(state_dict)
        if saved is not None:
            vars(self._scale_fn_custom).update(saved)
        self._init_scale_fn()


# the built-in modes' scale of the cycle's height, from (gamma, cycle or iteration)
_SCALE_FNS = {"triangular": lambda gamma, x: 1.0,
              "triangular2": lambda gamma, x: 1 / (2.0 ** (x - 1)),
              "exp_range": lambda gamma, x: gamma ** x}
