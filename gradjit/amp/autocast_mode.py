"""torch.autocast: a context manager and decorator that sets autocast's state for its extent,
and custom_fwd/custom_bwd, which carry it into custom autograd Functions."""
from __future__ import annotations

import functools
import warnings

from gradjit import cuda
from gradjit.amp import state as S
from gradjit.tensor import dtypes

_SUPPORTED = (dtypes.bfloat16, dtypes.float16)


def is_autocast_available(device_type: str) -> bool:
    return S._checked(device_type) in S.DEVICE_TYPES


class autocast:
    """Ops on the autocast lists run in `dtype` (default: get_autocast_dtype(device_type)) or
    float32 within this region; see gradjit.amp.policy."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        S._checked(device_type)
        self.fast_dtype = S.get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        self._cache_enabled = S.is_autocast_cache_enabled() if cache_enabled is None else \
            cache_enabled
        if enabled and device_type == "cuda" and not cuda.is_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          stacklevel=2)
            enabled = False
        elif enabled and device_type != "cuda" and self.fast_dtype not in _SUPPORTED:
            name = device_type.upper()
            warnings.warn(f"In {name} autocast, but the target dtype is not supported. "
                          f"Disabling autocast.\n{name} Autocast only supports dtypes of "
                          + ", ".join(map(str, _SUPPORTED)) + " currently.", stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = S.is_autocast_cache_enabled()
        self.prev = S.is_autocast_enabled(self.device)
        self.prev_fastdtype = S.get_autocast_dtype(self.device)
        S.set_autocast_enabled(self.device, self._enabled)
        S.set_autocast_dtype(self.device, self.fast_dtype)
        S.autocast_increment_nesting()
        S.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, *exc):
        if S.autocast_decrement_nesting() == 0:  # the cache lives as long as the outermost region
            S.clear_autocast_cache()
        S.set_autocast_enabled(self.device, self.prev)
        S.set_autocast_dtype(self.device, self.prev_fastdtype)
        S.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"autocast()(func) requires a callable, but got "
                            f"{type(func).__name__}. Did you mean to use autocast as a context "
                            "manager? For example:\n    with torch.autocast(device_type=...):\n"
                            "        output = model(input)")

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def _cast(value, device_type, dtype):
    """Floating tensors other than float64 on `device_type` as `dtype`, inside containers too."""
    if hasattr(value, "_edge"):
        eligible = value.is_floating_point() and value.device.type == device_type and \
            value.dtype is not dtypes.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def _checked_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """For a custom Function's forward: remembers the autocast state for backward; with
    `cast_inputs`, runs forward on inputs cast to it with autocast off."""
    _checked_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(ctx, *args, **kwargs):
        ctx._dtype = S.get_autocast_dtype(device_type)
        enabled = S.is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = enabled and cast_inputs is None
        if cast_inputs is None or not enabled:
            return fwd(ctx, *args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(ctx, *_cast(args, device_type, cast_inputs),
                       **_cast(kwargs, device_type, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """For a custom Function's backward: runs under the autocast state its forward saw."""
    _checked_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(ctx, *args, **kwargs):
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(ctx, *args, **kwargs)
    return decorate_bwd
