"""torch-level settings and queries: the default dtype, thread counts, determinism, type
promotion questions (result_type, promote_types, can_cast), typename and the broadcasting
helpers, as PyTorch exposes them at the top of its namespace."""
from __future__ import annotations

import builtins
import os
import warnings

import numpy as np

from gradjit.autograd.anomaly_mode import (is_anomaly_check_nan_enabled,  # noqa: F401
                                           is_anomaly_enabled, set_anomaly_enabled)
from gradjit.ir.primitive import BroadcastError, is_python_scalar
from gradjit.tensor import dtypes
from gradjit.tensor.dtypes import get_default_dtype, set_default_dtype  # noqa: F401
from gradjit.tensor.factories import empty, tensor
from gradjit.tensor.signatures import check_function

__all__ = ["imag", "real", "get_default_device", "get_float32_matmul_precision",
           "is_anomaly_check_nan_enabled",
           "is_anomaly_enabled", "randint_like", "rsub", "scalar_tensor", "set_anomaly_enabled",
           "set_default_device", "set_float32_matmul_precision", "set_flush_denormal",
           "are_deterministic_algorithms_enabled", "broadcast_shapes", "broadcast_tensors",
           "broadcast_to", "can_cast", "detach", "get_num_interop_threads", "get_num_threads",
           "is_complex", "is_deterministic_algorithms_warn_only_enabled", "is_floating_point",
           "is_nonzero", "is_same_size", "promote_types", "ravel", "result_type",
           "set_default_dtype", "set_num_interop_threads", "set_num_threads", "typename",
           "unflatten", "use_deterministic_algorithms", "get_deterministic_debug_mode",
           "set_deterministic_debug_mode", "is_warn_always_enabled", "set_warn_always",
           "is_storage"]
_settings = {"matmul_precision": "highest",
             "threads": os.cpu_count() or 1, "interop_threads": os.cpu_count() or 1,
             "deterministic": False, "warn_only": False, "warn_always": False}
_DEBUG_MODES = ("default", "warn", "error")


def _is_tensor(obj) -> bool:
    return hasattr(obj, "_edge") and hasattr(obj, "_value")


def set_num_threads(n: int) -> None:
    """Recorded for get_num_threads; gradjit's eager numpy and compiled loops choose their own
    threads, so it changes no result and no speed."""
    if int(n) <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _settings["threads"] = int(n)


def get_num_threads() -> int:
    return _settings["threads"]


def set_num_interop_threads(n: int) -> None:
    if int(n) <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _settings["interop_threads"] = int(n)


def get_num_interop_threads() -> int:
    return _settings["interop_threads"]


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Recorded: every gradjit operation is deterministic already (no atomics, fixed
    reduction orders), so there is nothing to switch."""
    _settings["deterministic"], _settings["warn_only"] = builtins.bool(mode), warn_only


def are_deterministic_algorithms_enabled() -> bool:
    return _settings["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _settings["warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    """PyTorch's three-way form of use_deterministic_algorithms: 0 / "default" off, 1 / "warn"
    on with warnings only, 2 / "error" on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    return 0 if not _settings["deterministic"] else 1 if _settings["warn_only"] else 2


def set_warn_always(b: bool) -> None:
    """Recorded for is_warn_always_enabled: gradjit's warnings go through Python's warnings
    filters, which decide how often each one shows."""
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _settings["warn_always"] = b


def is_warn_always_enabled() -> bool:
    return _settings["warn_always"]


def is_storage(obj) -> bool:
    from gradjit.tensor.storage import TypedStorage, UntypedStorage
    return isinstance(obj, (TypedStorage, UntypedStorage))


def is_floating_point(input) -> bool:
    return input.is_floating_point()


def is_complex(input) -> bool:
    return input.is_complex()


def is_nonzero(input) -> bool:
    return input.is_nonzero()


def is_same_size(input, other) -> bool:
    return input.is_same_size(other)


def _operand_for_promotion(x):
    """A tensor (dimensioned or 0-dim, which PyTorch ranks apart) or a Python number stays
    what it is, so one addition asks the Tensor's promotion for the answer."""
    if _is_tensor(x):
        return empty((0,) if x.dim() else (), dtype=x.dtype)
    if isinstance(x, np.ndarray):  # numpy arrays rank as tensors of their dtype
        return tensor(np.empty((0,) if x.ndim else (), x.dtype))
    return x


def result_type(tensor1, tensor2) -> dtypes.dtype:
    """The dtype of an arithmetic operation on these two operands (tensors or numbers)."""
    a, b = _operand_for_promotion(tensor1), _operand_for_promotion(tensor2)
    if not _is_tensor(a):
        # a number and a tensor: the tensor's method; two numbers: the first as a 0-dim
        # tensor, which PyTorch ranks above a number of the same kind
        a, b = (b, a) if _is_tensor(b) else (tensor(a), b)
    return _sum_dtype(a, b)


def promote_types(type1, type2) -> dtypes.dtype:
    return _sum_dtype(empty(0, dtype=type1), empty(0, dtype=type2))


def _sum_dtype(a, b) -> dtypes.dtype:
    if a.dtype is dtypes.bool_ and (b is True or b is False or getattr(b, "dtype", None)
                                    is dtypes.bool_):
        return dtypes.bool_  # bool + bool is logical or in numpy; PyTorch keeps bool too
    return (a + b).dtype


def can_cast(from_, to) -> bool:
    """Whether casting is allowed by PyTorch's rule for results written into a tensor: never
    floating to integral, never a number to bool."""
    return dtypes.can_cast(dtypes.to_dtype(from_), dtypes.to_dtype(to))


def typename(obj) -> str:
    """PyTorch's name of an object's type: 'torch.FloatTensor' for a tensor, else its module
    and qualified name (without 'builtins.')."""
    if _is_tensor(obj):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        name = obj.__qualname__
    elif hasattr(obj, "__name__"):
        name = obj.__name__
    else:
        module, name = type(obj).__module__ or "", type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def broadcast_shapes(*shapes) -> dtypes.Size:
    """The shape all these shapes broadcast to (ints count as 1-d shapes), folded left to
    right into a shape of 1s as long as the longest."""
    shapes = [(s,) if isinstance(s, int) else s for s in shapes if s is not None]
    for shape in shapes:
        if not isinstance(shape, (list, tuple)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a "
                               f"list of ints, got {shape}")
    out = [1] * max((len(s) for s in shapes), default=0)
    for i, shape in enumerate(shapes):
        for axis in range(1, len(shape) + 1):
            size = shape[-axis]
            if size == out[-axis]:
                continue
            if out[-axis] == 1:
                if size < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                out[-axis] = size
            elif size != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at "
                                   f"-{axis}! Mismatching argument at index {i} had "
                                   f"{shape!r}; but expected shape should be broadcastable "
                                   f"to {out}")
    for i, size in enumerate(out):  # torch.Size's own check
        if not isinstance(size, (int, np.integer)):
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                            f"'{type(size).__name__}')")
    return dtypes.Size(out)


def broadcast_tensors(*tensors) -> tuple:
    shapes = [tuple(t.shape) for t in tensors]
    try:
        shape = broadcast_shapes(*shapes)
    except RuntimeError as e:  # PyTorch words it as its elementwise ops do
        error = BroadcastError(str(e), shapes)
        raise error.in_torch_words() from None
    # as PyTorch's, a tensor of the common shape is returned itself
    return tuple(t if tuple(t.shape) == tuple(shape) else t.expand(shape) for t in tensors)


def broadcast_to(input, size):
    return input.broadcast_to(size)


def detach(input):
    return input.detach()


def ravel(input):
    return input.ravel()


def unflatten(input, dim, sizes):
    return input.unflatten(dim, sizes)



def set_float32_matmul_precision(precision: str) -> None:
    """Recorded only: gradjit's float32 products are always computed in float32."""
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the "
                      "current setFloat32MatmulPrecision call has no effect.", UserWarning,
                      stacklevel=2)
        return
    _settings["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _settings["matmul_precision"]


def set_flush_denormal(mode: bool) -> bool:
    """False: gradjit does not flush denormals (subnormal results stay as they are)."""
    return False


def get_default_device() -> dtypes.device:
    return dtypes.default_device[0]


def set_default_device(device) -> None:
    """Tensors live on the CPU (GPU code runs through compiled functions): "cpu", or "meta"
    for templates whose values are never read."""
    place = dtypes.CPU if device is None else dtypes.device(device)
    if place.type not in ("cpu", "meta"):
        raise RuntimeError(f"set_default_device({device!r}): gradjit's tensors live on the "
                           "CPU; compile with backend='cuda' to run on a GPU")
    # the CPU as its one object: factories compare with it by identity (its tensors carry no
    # device of their own, which keeps them on the hot path)
    dtypes.default_device[0] = dtypes.CPU if place.type == "cpu" else place


def rsub(input, other, *, alpha=1):
    """other - alpha * input, one grad_fn (RsubBackward0, or RsubBackward1 for a number)."""
    check_function("rsub", (input, other), {})
    if alpha == 1:
        return input.__rsub__(other)
    from gradjit.tensor.arith import apply, operand
    from gradjit import ops
    name = "RsubBackward1" if is_python_scalar(other) else "RsubBackward0"
    return apply(name, lambda a, b: ops.sub(b, ops.mul(a, alpha)), input, operand(other),
                 operands=(input,) if is_python_scalar(other) else (input, other))


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    from gradjit.tensor.factories import tensor
    return tensor(s, dtype=dtype or dtypes.get_default_dtype(), device=device,
                  requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, generator=None, device=None,
                 requires_grad=False):
    """randint with input's shape (and dtype, unless given); randint_like(input, high) too."""
    from gradjit.tensor.random import randint
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input.shape), generator=generator,
                   dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)


def real(input):
    return input.real


def imag(input):
    return input.imag
