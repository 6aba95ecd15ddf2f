"""PyTorch's legacy tensor types (`torch.FloatTensor`, `torch.cuda.LongTensor`, ...): each builds
tensors of one dtype and device the way `torch.Tensor(...)` does, and `isinstance` asks whether a
tensor has that dtype and device."""
from __future__ import annotations

import numpy as np

from gradjit.tensor import dtypes


def _options(dtype, device) -> str:
    return (f"TensorOptions(dtype={dtypes.CPP_NAMES[dtype.legacy]}, device={device}, "
            "layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def legacy_new(dtype, device, args):
    """`torch.Tensor(*args)` with a fixed dtype: sizes give an uninitialized tensor of that
    shape, a tensor of the same type gives an alias of it, anything else is data to copy."""
    from gradjit.tensor import factories
    from gradjit.tensor.tensor import Tensor
    if len(args) == 1 and isinstance(args[0], dtypes.Size):
        args = tuple(args[0])
    if args and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        if any(a < 0 for a in args):
            negative = next(a for a in args if a < 0)
            raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: "
                               f"{list(args)}")
        return factories.empty(*args, dtype=dtype, device=device)
    if len(args) > 1:
        raise TypeError(f"new() received an invalid combination of arguments - got "
                        f"({', '.join(type(a).__name__ for a in args)})")
    data = args[0] if args else []
    if isinstance(data, Tensor):
        if data.dtype is not dtype:
            raise TypeError(f"expected {_options(dtype, 'cpu')} (got "
                            f"{_options(data.dtype, 'cpu')})")
        return data[...]
    if isinstance(data, (float, complex, bool)):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    return factories.tensor(data, dtype=dtype, device=device)


class tensortype(type):
    """The metaclass of the legacy types: calling one builds a tensor, and isinstance checks
    dtype and device rather than the Python class."""

    def __call__(cls, *args, device=None):
        return legacy_new(cls.dtype, device or cls.device_type, args)

    def __instancecheck__(cls, obj) -> bool:
        from gradjit.tensor.tensor import Tensor
        return (isinstance(obj, Tensor) and obj.dtype is cls.dtype
                and obj.device.type == cls.device_type)

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _legacy_type(dtype, device_type: str):
    module = "torch" if device_type == "cpu" else "torch.cuda"
    return tensortype(f"{dtype.legacy}Tensor", (), {
        "dtype": dtype, "device_type": device_type, "is_cuda": device_type == "cuda",
        "is_sparse": False, "__module__": module})


_ALL = (dtypes.float32, dtypes.float64, dtypes.int64, dtypes.int32, dtypes.bool_, dtypes.uint8,
        dtypes.int8, dtypes.int16, dtypes.float16, dtypes.bfloat16)
CPU_TYPES = {f"{d.legacy}Tensor": _legacy_type(d, "cpu") for d in _ALL}
CUDA_TYPES = {f"{d.legacy}Tensor": _legacy_type(d, "cuda") for d in _ALL}


def by_name(name: str) -> tensortype:
    """The legacy type a string names ('torch.DoubleTensor', 'torch.cuda.IntTensor')."""
    prefix, _, short = name.rpartition(".")
    table = {"torch": CPU_TYPES, "torch.cuda": CUDA_TYPES}.get(prefix, {})
    if short not in table:
        raise ValueError(f"invalid type: '{name}'")
    return table[short]


def set_default_tensor_type(t) -> None:
    """Deprecated in PyTorch: the default floating dtype, given as a legacy type or its name."""
    import warnings
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                  UserWarning, stacklevel=2)
    dtypes.set_default_dtype((by_name(t) if isinstance(t, str) else t).dtype)
