"""Module.to's arguments read as PyTorch's parser reads them: a device and dtype, a dtype, or a
tensor to match, each with non_blocking, and the same refusals."""
from __future__ import annotations

import gradjit
from gradjit.tensor.signatures import _refuse

_OVERLOADS = (
    "torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None",
    "torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None",
    "Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None",
)
_KINDS = {
    "device": lambda v: isinstance(v, (str, int, gradjit.device)) and not isinstance(v, bool),
    "dtype": lambda v: isinstance(v, gradjit.dtype),
    "tensor": gradjit.is_tensor,
    "non_blocking": lambda v: isinstance(v, bool),
    "copy": lambda v: isinstance(v, bool),
    "memory_format": lambda v: isinstance(v, gradjit.memory_format),
}
_NAMES = (("device", "dtype", "non_blocking", "copy"), ("dtype", "non_blocking", "copy"),
          ("tensor", "non_blocking", "copy"))


def _bind(names, args, kwargs):
    """The arguments by name if they fit the overload (None only where it is the default)."""
    bound = dict(zip(names, args))
    if len(args) > len(names) or set(bound) & set(kwargs) or \
            set(kwargs) - {*names, "memory_format"}:
        return None
    bound.update(kwargs)
    optional = {"device", "memory_format"} | ({"dtype"} if names[0] == "device" else set())
    if all(v is None and k in optional or _KINDS[k](v) for k, v in bound.items()):
        return bound
    return None


def parse_to(args, kwargs):
    """(device, dtype, non_blocking, memory_format) from Module.to's arguments."""
    if len(args) > 4:
        raise TypeError(f"to() takes from 0 to 4 positional arguments but {len(args)} were "
                        "given")
    bound = next((b for names in _NAMES if (b := _bind(names, args, kwargs)) is not None), None)
    if bound is None:
        _refuse("to", _OVERLOADS, args, kwargs)
    if "copy" in bound:
        raise RuntimeError(".to() does not accept copy argument")
    tensor = bound.get("tensor")
    device = tensor.device if tensor is not None else bound.get("device")
    dtype = tensor.dtype if tensor is not None else bound.get("dtype")
    return device, dtype, bound.get("non_blocking", False), bound.get("memory_format")
