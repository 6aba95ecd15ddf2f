"""Learning-rate schedules of torch.optim.lr_scheduler, in PyTorch's chainable form: each step
scales the groups' current lr, so schedules compose and resume from a state_dict."""
from __future__ import annotations

import bisect
import collections
import functools
import math
import types
import warnings
import weakref

from gradjit import is_tensor
from gradjit.optim.optimizer import Optimizer


STEP_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
    "later, you should call them in the opposite order: `optimizer.step()` before "
    "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
    "value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")
STEP_OVERRIDDEN_WARNING = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
    "initialization. Please, make sure to call `optimizer.step()` before "
    "`lr_scheduler.step()`. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")
EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the new "
    "chainable form, where available. Please open an issue if you are unable to replicate "
    "your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


def _track_step_called(optimizer):
    """Wraps optimizer.step (once) so that a scheduler stepped before it can warn. The wrapper
    holds the optimizer weakly and the step's function unbound: no cycle keeps it alive."""
    if getattr(optimizer.step, "_wrapped_by_lr_sched", False):
        return
    owner, step = weakref.ref(optimizer), optimizer.step.__func__

    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        opt = owner()
        opt._opt_called = True
        return step(opt, *args, **kwargs)
    wrapper._wrapped_by_lr_sched = True
    optimizer.step = wrapper


def _copy(lr):
    return lr.clone() if is_tensor(lr) else lr


class LRScheduler:
    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:  # a tensor lr is copied, as it changes in place
                group.setdefault("initial_lr", _copy(group["lr"]))
            elif "initial_lr" not in group:
                raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when "
                               "resuming scheduler with last_epoch >= 0.\nThis typically "
                               "happens when:\n1. You're trying to resume training from a "
                               "checkpoint but haven't properly loaded the optimizer state\n2. "
                               "You're using last_epoch >= 0 for a fresh training run (not "
                               "recommended)")
        self.base_lrs = [_copy(group["initial_lr"]) for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self._is_initial = True
        self._get_lr_called_within_step = False
        _track_step_called(optimizer)
        self.step()
        self._is_initial = False

    def get_lr(self) -> list:
        raise NotImplementedError

    def get_last_lr(self) -> list:
        return self._last_lr

    def _warn_outside_step(self):
        """get_lr computes the next lr from the current one: called on its own it misleads."""
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)

    def step(self, epoch=None):
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(STEP_OVERRIDDEN_WARNING, UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(STEP_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        closed_form = epoch is not None and hasattr(self, "_get_closed_form_lr")
        self._set_lrs(self._get_closed_form_lr if closed_form else self.get_lr)

    def _set_lrs(self, compute):
        """Each group's lr from `compute()`, run as within a step; a tensor lr is filled in
        place and get_last_lr holds copies, so neither aliases the other."""
        self._get_lr_called_within_step = True
        try:
            values = compute()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            if is_tensor(group["lr"]):
                group["lr"].fill_(lr.item() if is_tensor(lr) else lr)
            else:
                group["lr"] = lr
        self._last_lr = [_copy(lr) for lr in self._current()]

    def _current(self) -> list:
        return [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict):
        self.__dict__.update(state_dict)


def _saved_callable(fn):
    """What a state_dict keeps of a user's function: a callable object's attributes; None for
    a plain function or lambda, whose code is not state."""
    if fn is None or isinstance(fn, types.FunctionType) or not hasattr(fn, "__dict__"):
        return None
    return dict(vars(fn))


def _lambdas(optimizer, lr_lambda) -> list:
    """One function per parameter group: the one given for all, or a list of them."""
    groups = len(optimizer.param_groups)
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * groups
    if len(lr_lambda) != groups:
        raise ValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
    return list(lr_lambda)


class LambdaLR(LRScheduler):
    """lr = initial lr times lr_lambda(epoch), one lambda for all groups or one per group."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return [base * fn(self.last_epoch) for base, fn in zip(self.base_lrs, self.lr_lambdas)]

    def state_dict(self):
        """Functions and lambdas are not saved (PyTorch saves only callable objects' state)."""
        state = super().state_dict()
        state["lr_lambdas"] = [_saved_callable(fn) for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        saved = state_dict.pop("lr_lambdas")
        super().load_state_dict(state_dict)
        for fn, fn_state in zip(self.lr_lambdas, saved):
            if fn_state is not None:
                vars(fn).update(fn_state)


class StepLR(LRScheduler):
    """Multiplies the lr by gamma every step_size epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial or self.last_epoch % self.step_size != 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiplies the lr by gamma at each milestone (twice at a milestone listed twice)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = collections.Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return self._current()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._current()]

    def _get_closed_form_lr(self):
        passed = sum(n for m, n in self.milestones.items() if m <= self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiplies the lr by gamma every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Half a cosine from the initial lr down to eta_min over T_max epochs, then back up."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        t, t_max, low = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current()
        if self._step_count == 1 and t > 0:
            return self._get_closed_form_lr()
        if (t - 1 - t_max) % (2 * t_max) == 0:
            return [lr + (base - low) * (1 - math.cos(math.pi / t_max)) / 2
                    for base, lr in zip(self.base_lrs, self._current())]
        ratio = (1 + math.cos(math.pi * t / t_max)) / (1 + math.cos(math.pi * (t - 1) / t_max))
        return [ratio * (lr - low) + low for lr in self._current()]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min) *
                (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the initial lr to eta_min over T_i epochs, restarting at the
    initial lr each time; the period starts at T_0 and grows T_mult times at each restart."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur /
                                                                      self.T_i)) / 2
                for base in self.base_lrs]

    def _restart_position(self, epoch):
        """(epochs since the last restart, current period) at a given, maybe fractional,
        epoch: the periods T_0 T_mult^k sum to T_0 (T_mult^n - 1) / (T_mult - 1)."""
        if epoch < self.T_0:
            return epoch, self.T_0
        if self.T_mult == 1:
            return epoch % self.T_0, self.T_0
        n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
        return (epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1),
                self.T_0 * self.T_mult ** n)

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur, self.T_i = self.T_cur % self.T_i, self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            self.T_cur, self.T_i = self._restart_position(epoch)
        self.last_epoch = math.floor(epoch)
        self._set_lrs(self.get_lr)


class MultiplicativeLR(LambdaLR):
    """Each step multiplies the current lr by lr_lambda(epoch)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        lr_lambdas = _lambdas(optimizer, lr_lambda)
        for fn in lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, lr_lambdas, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial:  # every later step multiplies, step(0) included
            return self._current()
        return [lr * fn(self.last_epoch) for lr, fn in zip(self._current(), self.lr_lambdas)]


class LinearLR(LRScheduler):
    """The lr scaled by a factor moving linearly from start_factor to end_factor over
    total_iters steps."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if not 0 < start_factor <= 1:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if not 0 <= end_factor <= 1:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, \
            total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        t, start, end = self.last_epoch, self.start_factor, self.end_factor
        if t == 0:
            return [lr * start for lr in self._current()]
        if t > self.total_iters:
            return self._current()
        ratio = 1 + (end - start) / (self.total_iters * start + (t - 1) * (end - start))
        return [lr * ratio for lr in self._current()]

    def _get_closed_form_lr(self):
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (self.start_factor + (self.end_factor - self.start_factor) * done)
                for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """The lr scaled by `factor` until total_iters steps have passed."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if not 0 <= factor <= 1:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current()]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [lr / self.factor for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """The lr decayed to 0 over total_iters steps as (1 - t / total_iters) ** power."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        t, n = self.last_epoch, self.total_iters
        if t == 0 or t > n:
            return self._current()
        factor = ((1 - t / n) / (1 - (t - 1) / n)) ** self.power
        return [lr * factor for lr in self._current()]

    def _get_closed_form_lr(self):
        left = 1 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * left ** self.power for base in self.base_lrs]


def _per_group(value, groups, name):
    if isinstance(value, (list, tuple)):
        if len(value) != len(groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has {len(groups)}.")
        return list(value)
    return [value] * len(groups)


class ReduceLROnPlateau(LRScheduler):
    """The lr times `factor` once the metric passed to step() has not improved (by more than
    `threshold`) for `patience` steps, then `cooldown` steps without counting."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.optimizer, self.factor, self.patience = optimizer, factor, patience
        groups = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)) and len(min_lr) != groups:
            raise ValueError(f"expected {groups} min_lrs, got {len(min_lr)}")
        # a single min_lr also serves groups added later
        self.default_min_lr = None if isinstance(min_lr, (list, tuple)) else min_lr
        self.min_lrs = list(min_lr) if isinstance(min_lr, (list, tuple)) else [min_lr] * groups
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.cooldown, self.eps = cooldown, eps
        self.cooldown_counter, self.num_bad_epochs, self.last_epoch = 0, 0, 0
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.best = self.mode_worse
        self._last_lr = self._current()

    def _better(self, value):
        if self.mode == "min":
            return value < (self.best * (1 - self.threshold) if self.threshold_mode == "rel"
                            else self.best - self.threshold)
        return value > (self.best * (1 + self.threshold) if self.threshold_mode == "rel"
                        else self.best + self.threshold)

    def step(self, metrics, epoch=None):
        value = float(metrics)
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self._better(value):
            self.best, self.num_bad_epochs = value, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._match_min_lrs()
            for group, floor in zip(self.optimizer.param_groups, self.min_lrs):
                old = float(group["lr"])
                new = max(old * self.factor, floor)
                if old - new > self.eps:
                    group["lr"] = new
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = self._current()

    def _match_min_lrs(self):
        groups = len(self.optimizer.param_groups)
        if groups == len(self.min_lrs):
            return
        if self.default_min_lr is None:
            raise RuntimeError(f"The number of param groups in the `optimizer` ({groups}) "
                               "differs from when `ReduceLROnPlateau` was initialized "
                               f"({len(self.min_lrs)}), usually due to a new param group "
                               "being added to the optimizer. Please modify the `min_lrs` "
                               "field to match the length of the `optimizer` param groups.")
        self.min_lrs = [self.default_min_lr] * groups

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0


def _check_composed(owner, schedulers, optimizer, empty):
    if len(schedulers) < 1:
        raise ValueError(f"{owner} expects at least one scheduler{empty}, but got no scheduler.")
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{owner} does not support `ReduceLROnPlateau` scheduler as it "
                             "requires additional kwargs to be specified when calling `step`, "
                             f"but got one at index {i} in the given schedulers sequence.")
        if optimizer is not scheduler.optimizer:
            raise ValueError(f"{owner} expects all schedulers to belong to the same optimizer, "
                             f"but got scheduler {type(scheduler).__name__} at index {i} has "
                             f"{scheduler.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


class _Composed(LRScheduler):
    """A scheduler made of others: its state holds theirs."""

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        for scheduler, saved in zip(self._schedulers, state_dict.pop("_schedulers")):
            scheduler.load_state_dict(saved)
        self.__dict__.update(state_dict)


class SequentialLR(_Composed):
    """Each scheduler in turn, the next one from each milestone on (started afresh there)."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_composed(type(self).__name__, schedulers, optimizer, "")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be "
                             "one more than the number of milestone points, but got number of "
                             f"schedulers {len(schedulers)} and the number of milestones to be "
                             f"equal to {len(milestones)}")
        self._schedulers, self._milestones = list(schedulers), list(milestones)
        self.last_epoch, self.optimizer = last_epoch + 1, optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for scheduler in self._schedulers:  # undo the step each took when it was made
            scheduler.last_epoch -= 1
        first = self._schedulers[bisect.bisect_right(self._milestones, 0)]
        first._step_count, first._is_initial = 0, True
        first.step()
        first._is_initial = False
        self._last_lr = first.get_last_lr()

    def step(self):
        self.last_epoch += 1
        index = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composed):
    """Every scheduler steps at each step, their factors multiplying."""

    def __init__(self, schedulers, optimizer=None):
        optimizer = optimizer or (schedulers[0].optimizer if schedulers else None)
        _check_composed(type(self).__name__, schedulers, optimizer, " to be chained")
        self._schedulers, self.optimizer = list(schedulers), optimizer
        self._last_lr = self._current()

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._current()


# The cyclic schedules, in their own module, are this module's names too.
from gradjit.optim.cyclic_lr import CyclicLR, OneCycleLR  # noqa: E402,F401
