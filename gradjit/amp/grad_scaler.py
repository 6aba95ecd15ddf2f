"""torch.amp.GradScaler: multiplies the loss by a scale so that small gradients survive a
low-precision backward, unscales them before the step, skips steps whose gradients are not
finite and grows or backs off the scale accordingly."""
from __future__ import annotations

import collections
import enum
import warnings

import numpy as np

import gradjit
from gradjit import cuda


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """PyTorch's GradScaler: scale(loss).backward(); step(optimizer); update()."""

    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale, self._scale = init_scale, None
            self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker, self._growth_tracker = 0, None
            self._per_optimizer_states = collections.defaultdict(_fresh_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  This may indicate "
                                 "your script did not use scaler.scale(loss or outputs) earlier "
                                 "in the iteration.")
        return self._scale, self._growth_tracker

    def scale(self, outputs):
        """outputs (a tensor, or tensors nested in lists and tuples) times the scale."""
        if not self._enabled:
            return outputs
        if hasattr(outputs, "_edge"):
            if self._scale is None:
                self._scale = gradjit.full((), self._init_scale, dtype=gradjit.float32,
                                           device=outputs.device)
                self._growth_tracker = gradjit.full((), self._init_growth_tracker,
                                                    dtype=gradjit.int32, device=outputs.device)
            return outputs * self._scale.to(outputs.device)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if isinstance(outputs, collections.abc.Iterable):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer):
        """Divides the optimizer's gradients by the scale in place, noting whether any is not
        finite; once per optimizer between updates."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # the reciprocal in float64, rounded once to float32, as PyTorch computes it
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = gradjit.zeros((), dtype=gradjit.float32)
        with gradjit.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if param.grad.dtype is gradjit.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    if not bool(param.grad.isfinite().all()):
                        found_inf.fill_(1.0)
                    param.grad.mul_(inv_scale)
        optimizer_state["found_inf_per_device"] = {found_inf.device: found_inf}
        optimizer_state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(*args, **kwargs) on unscaled gradients, skipped (None) when any is
        not finite."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        retval = None
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Backs the scale off after a skipped step; grows it after growth_interval steps in a
        row that were not; or sets it to new_scale."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            self._set_scale(new_scale)
        else:
            found_infs = [found_inf for s in self._per_optimizer_states.values()
                          for found_inf in s["found_inf_per_device"].values()]
            if not found_infs:
                raise AssertionError("No inf checks were recorded prior to update.")
            # the products in float64, rounded to the float32 scale, as PyTorch's kernel does
            if sum(f.item() for f in found_infs):
                scale.fill_(scale.item() * self._backoff_factor)
                tracker.fill_(0)
            elif tracker.item() + 1 == self._growth_interval:
                with np.errstate(over="ignore"):
                    grown = np.float32(scale.item() * self._growth_factor)
                if np.isfinite(grown):
                    scale.fill_(float(grown))
                tracker.fill_(0)
            else:
                tracker.add_(1)
        self._per_optimizer_states = collections.defaultdict(_fresh_optimizer_state)

    def _set_scale(self, new_scale):
        if isinstance(new_scale, float):
            self._scale.fill_(new_scale)
            return
        if new_scale.device.type != self._device or new_scale.numel() != 1 or \
                new_scale.requires_grad:
            raise AssertionError("new_scale should be a float or a 1-element "
                                 "torch.cuda.FloatTensor or torch.FloatTensor with "
                                 "requires_grad=False.")
        self._scale.copy_(new_scale)

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else \
            self._growth_tracker.item()

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if self._per_optimizer_states:
                raise AssertionError("A GradScaler instance may only be pickled at the "
                                     "beginning of an iteration, or at the end after "
                                     "scaler.update().")
            # the tensors are rebuilt from the numbers on first use, as PyTorch pickles it
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = state["_growth_tracker"] = None
        return state
