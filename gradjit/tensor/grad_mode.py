"""Whether operations are recorded for autograd: no_grad, enable_grad, set_grad_enabled."""
from __future__ import annotations

import functools
import threading


class _State(threading.local):
    enabled = True


_state = _State()


def is_grad_enabled() -> bool:
    return _state.enabled


class _Mode:
    """A context manager that is also a decorator, setting grad mode for its extent."""

    mode = True

    def __enter__(self):
        self._previous = _state.enabled
        _state.enabled = self.mode

    def __exit__(self, *exc):
        _state.enabled = self._previous

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with type(self)():
                return fn(*args, **kwargs)
        return wrapped


class no_grad(_Mode):
    mode = False


class _Inference(threading.local):
    enabled = False


_inference = _Inference()


def is_inference_mode_enabled() -> bool:
    return _inference.enabled


class inference_mode(_Mode):
    """no_grad for inference (mode=True, the default); inference_mode(False) changes nothing."""

    def __init__(self, mode: bool = True):
        self.on = bool(mode)

    def __enter__(self):
        self._previous = _state.enabled, _inference.enabled
        if self.on:
            _state.enabled, _inference.enabled = False, True

    def __exit__(self, *exc):
        _state.enabled, _inference.enabled = self._previous

    def __call__(self, fn):
        on = self.on

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with inference_mode(on):
                return fn(*args, **kwargs)
        return wrapped


class enable_grad(_Mode):
    mode = True


class set_grad_enabled(_Mode):
    """Sets the mode at once (as a function call) and restores it when used as a context."""

    def __init__(self, mode: bool):
        self._previous = _state.enabled
        self.mode = bool(mode)
        _state.enabled = self.mode

    def __enter__(self):
        pass

    def __call__(self, fn):
        _state.enabled = self._previous
        mode = self.mode

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapped

    def __repr__(self) -> str:
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"
