"""torch.autograd's anomaly mode: while on, a backward function that returns NaN raises,
naming the function and which of its outputs (the gradient of which input) is NaN."""
from __future__ import annotations

import warnings

import numpy as np


class _State:
    enabled = False
    check_nan = True


_state = _State()


def is_anomaly_enabled() -> bool:
    return _state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _state.check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    _state.enabled, _state.check_nan = bool(enabled), bool(check_nan)


def check_gradients(record, cotangents):
    """The engine's hook after each backward function (while anomaly mode checks NaN)."""
    if not (_state.enabled and _state.check_nan):
        return
    for i, g in enumerate(cotangents):
        if g is not None and np.isnan(np.asarray(g.detach().numpy())).any():
            raise RuntimeError(f"Function '{record.node.name()}' returned nan values in its "
                               f"{i}th output.")


class _Setting:
    def __init__(self, mode, check_nan):
        self._previous = (_state.enabled, _state.check_nan)
        _state.enabled, _state.check_nan = mode, check_nan

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _state.enabled, _state.check_nan = self._previous


class detect_anomaly(_Setting):
    """Anomaly mode on for a `with` block (or a decorated function)."""

    def __init__(self, check_nan=True):
        self._mode = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self._previous = (_state.enabled, _state.check_nan)
        _state.enabled, _state.check_nan = True, self._mode

    def __call__(self, fn):
        def wrapped(*args, **kwargs):
            with detect_anomaly(self._mode):
                return fn(*args, **kwargs)
        return wrapped


class set_detect_anomaly(_Setting):
    """Sets anomaly mode on calling; as a context manager, restores it on exit."""

    def __init__(self, mode, check_nan=True):
        super().__init__(bool(mode), check_nan)
