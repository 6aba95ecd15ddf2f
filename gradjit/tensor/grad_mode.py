"""Whether operations are recorded for autograd: no_grad, enable_grad, set_grad_enabled."""
from __future__ import annotations

import functools
import inspect
import threading


class _State(threading.local):
    enabled = True
    # Set while torch.func's reverse-mode transformations trace their function: what it
    # computes under no_grad is a constant to them, as torch.func's grad and vjp keep it.
    stops_traced = False


_state = _State()


def is_grad_enabled() -> bool:
    return _state.enabled


def decorate(fn, context):
    """fn run under context() each time: a generator function's body runs under it each time
    it resumes, and its caller's code between the resumptions outside it."""
    if not inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with context():
                return fn(*args, **kwargs)
        return wrapped

    @functools.wraps(fn)
    def generator(*args, **kwargs):
        with context():
            inner = fn(*args, **kwargs)
        step = functools.partial(inner.send, None)
        while True:
            try:
                with context():
                    value = step()
            except StopIteration as done:
                return done.value
            try:
                sent = yield value
                step = functools.partial(inner.send, sent)
            except GeneratorExit:
                with context():
                    inner.close()
                raise
            except BaseException as error:  # noqa: BLE001 - thrown into the generator
                step = functools.partial(inner.throw, error)
    return generator


class _Mode:
    """A context manager that is also a decorator, setting grad mode for its extent; as a
    decorator it may be written without parentheses (`@torch.no_grad`)."""

    mode = True

    def __new__(cls, fn=None):
        self = super().__new__(cls)
        return self if fn is None else decorate(fn, cls)

    def __enter__(self):
        self._previous = _state.enabled
        _state.enabled = self.mode

    def __exit__(self, *exc):
        _state.enabled = self._previous

    def __call__(self, fn):
        return decorate(fn, type(self))


class no_grad(_Mode):
    mode = False


class _Inference(threading.local):
    enabled = False


_inference = _Inference()


def is_inference_mode_enabled() -> bool:
    return _inference.enabled


class inference_mode(_Mode):
    """no_grad for inference (mode=True, the default); inference_mode(False) leaves inference
    mode and turns grad mode on, as PyTorch's guard does."""

    def __new__(cls, mode=True):
        return super().__new__(cls) if isinstance(mode, bool) else decorate(mode, cls)

    def __init__(self, mode: bool = True):
        self.on = bool(mode)

    def __enter__(self):
        self._previous = _state.enabled, _inference.enabled
        _state.enabled, _inference.enabled = not self.on, self.on

    def __exit__(self, *exc):
        _state.enabled, _inference.enabled = self._previous

    def __call__(self, fn):
        return decorate(fn, functools.partial(inference_mode, self.on))


class enable_grad(_Mode):
    mode = True


class set_grad_enabled(_Mode):
    """Sets the mode at once (as a function call) and restores it when used as a context."""

    def __new__(cls, mode: bool):
        return object.__new__(cls)

    def __init__(self, mode: bool):
        self._previous = _state.enabled
        self.mode = bool(mode)
        _state.enabled = self.mode

    def __enter__(self):
        pass

    def __call__(self, fn):
        _state.enabled = self._previous
        return decorate(fn, functools.partial(set_grad_enabled, self.mode))

    def __repr__(self) -> str:
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"
