"""Tensor.to and its short forms (float(), long(), cpu(), cuda(), type()), and new tensors
like one (new_tensor, new_zeros, ...): a tensor's dtype and device changed or inherited."""
from __future__ import annotations

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.tensor import dtypes
from gradjit.tensor import memory_format as MF
from gradjit.tensor.arith import apply
from gradjit.tensor.hot_path import unrecorded
from gradjit.tensor.shape import _shape_args
from gradjit.warn import warn_at_caller


class DtypeDeviceMixin:
    """Casts and device moves of Tensor, and tensors made in its dtype and device."""

    def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False,
           memory_format=MF.preserve_format):
        if memory_format is not MF.preserve_format:
            order = MF.order_of(memory_format, self.dim())
            if not self.is_contiguous(memory_format):  # a copy (fresh: laid out in place)
                out = self.to(*[a for a in args if not isinstance(a, bool)],  # (not copy=False)
                              dtype=dtype, device=device, copy=True)
                if isinstance(out._value, np.ndarray):
                    out._value = MF.laid_out(out._value, order)
                return out
        flags = [arg for arg in args if isinstance(arg, bool)]  # positional non_blocking, copy
        if len(flags) > 1:
            copy = flags[1]
        for arg in args:
            if isinstance(arg, bool):
                continue
            if isinstance(arg, dtypes.dtype):
                dtype = arg
            elif hasattr(arg, "_edge"):
                dtype, device = arg.dtype, arg.device
            else:
                device = arg
        target = self.dtype if dtype is None else dtypes.to_dtype(dtype)
        place = self.device if device is None else _device(device)
        if target is self.dtype and place == self.device and not copy:
            return self
        if self.dtype.is_complex and not target.is_complex and target is not dtypes.bool_:
            _warn_discarded_imaginary()
        if place == self.device and place.type == "cpu" and \
                target not in (dtypes.bfloat16, dtypes.complex32) and \
                getattr(self._value, "dtype", None) != np.float16:
            # (narrow floats are widened, bfloat16 and complex32 rounded by the general
            # evaluation)
            out = unrecorded(self, lambda x: E.cast.evaluate(x, dtype=target.ir.name),
                             any_dtype=True)
            if out is not None:
                return out
        out = apply("ToCopyBackward0", lambda x: E.cast(x, dtype=target.ir.name), self)
        out._device = place
        return out

    def type(self, dtype=None, non_blocking=False):
        """The legacy type's name, or a copy cast to a dtype, a legacy type or a type's name."""
        from gradjit.tensor.legacy_types import by_name, tensortype
        if dtype is None:
            prefix = "torch.cuda" if self.device.type == "cuda" else "torch"
            return f"{prefix}.{self.dtype.legacy}Tensor"
        if isinstance(dtype, str):
            dtype = by_name(dtype)
        if isinstance(dtype, tensortype):
            return self.to(dtype.dtype, device=dtype.device_type)
        return self.to(dtype)

    def type_as(self, other):
        return self.to(other.dtype)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else _device(device if not isinstance(
            device, int) else f"cuda:{device}"))

    # ---- new tensors like this one ----

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        from gradjit.tensor.factories import tensor
        return tensor(data, dtype=dtype or self.dtype, device=device or self.device,
                      requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
        from gradjit.tensor.factories import full
        return full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                    requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        return self.new_full(_shape_args(size), 0, dtype=dtype, device=device,
                             requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        return self.new_full(_shape_args(size), 1, dtype=dtype, device=device,
                             requires_grad=requires_grad)

    new_empty = new_zeros


def _cast_method(name, target):
    def method(self, memory_format=MF.preserve_format):
        return self.to(getattr(dtypes, target), memory_format=memory_format)
    method.__name__ = name
    return method


# t.float(), t.long(), ...: PyTorch's short names for .to(dtype)
for _name, _target in {"float": "float32", "double": "float64", "half": "float16",
                       "bfloat16": "bfloat16", "long": "int64", "int": "int32", "short": "int16",
                       "char": "int8", "byte": "uint8", "bool": "bool_", "cfloat": "complex64",
                       "cdouble": "complex128", "chalf": "complex32"}.items():
    setattr(DtypeDeviceMixin, _name, _cast_method(_name, _target))


_IMAGINARY_WARNED: list = []


def _warn_discarded_imaginary():
    if not _IMAGINARY_WARNED:
        _IMAGINARY_WARNED.append(True)  # PyTorch warns once per process
        warn_at_caller("Casting complex values to real discards the imaginary part (Triggered "
                       "internally at /__w/pytorch/pytorch/aten/src/ATen/native/Copy.cpp:307.)")


def _device(spec):
    place = dtypes.device(spec)
    if place.type == "cuda":
        from gradjit import cuda
        if not cuda.is_available():
            raise RuntimeError("CUDA is not available: no NVIDIA driver or GPU was found, so "
                               "tensors cannot be moved to a CUDA device")
        place = dtypes.device("cuda", place.index or 0)
    return place
