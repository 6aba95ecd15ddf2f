"""A Tensor's values as Python and numpy see them (item, bool, float, index, tolist, numpy,
len, iter, repr); a traced value answers through the tracer, which records the guard."""
from __future__ import annotations

import warnings

import numpy as np

from gradjit.tensor import dtypes
from gradjit.tensor.grad_mode import is_grad_enabled, no_grad

_SCALAR_WARNED: list = []


class ConversionMixin:
    """Concrete data: eager values answer from their array, traced ones through the tracer."""

    def _concrete(self) -> np.ndarray:
        """The numpy value; a value being traced has none until the function runs, so
        asking for it raises the tracer's error naming the user's line."""
        known = self.__gradjit_constant__()
        if known is None:
            self._value.__array__()
        return known

    def __gradjit_constant__(self):
        """The numpy value, or None while it is being traced (a traced constant has one)."""
        value = self._value
        return value if isinstance(value, np.ndarray) else value.__gradjit_constant__()

    def __gradjit_guarded__(self, what):
        """The numpy value, for an argument deciding a result's shape (ops.indexing's
        value_deciding_shape): a traced one's guarded by the tracer."""
        value = self._value
        return value if isinstance(value, np.ndarray) else value.__gradjit_guarded__(what)

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to "
                               "Scalar")
        return self._value.item()

    def __bool__(self):
        if self.numel() != 1:
            amount = "no values" if self.numel() == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return bool(self._value)

    def __float__(self):
        self._warn_scalar_of_graph()
        return float(self._real_scalar("double"))

    def __int__(self):
        self._warn_scalar_of_graph()
        return int(self._real_scalar("int64_t"))

    def __complex__(self):
        self._warn_scalar_of_graph()
        return complex(self._python_scalar())

    def _real_scalar(self, target):
        """The one element as a real number: a complex one only when its imaginary part is 0."""
        value = self._python_scalar()
        if isinstance(value, complex):
            if value.imag:
                raise RuntimeError(f"value cannot be converted to type {target} without "
                                   "overflow")
            return value.real
        return value

    def _python_scalar(self):
        """PyTorch's Python conversions word a many-element tensor unlike item()."""
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def _warn_scalar_of_graph(self):
        if self.requires_grad and is_grad_enabled() and not _SCALAR_WARNED:
            _SCALAR_WARNED.append(True)  # PyTorch warns once per process, in grad mode only
            # the suffix PyTorch's C++ warnings carry, with its release wheels' source path
            warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                          "unexpected behavior.\nConsider using tensor.detach() first. "
                          "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
                          "generated/python_variable_methods.cpp:822.)", stacklevel=3)

    def __index__(self):
        if self.dtype.is_floating_point or self.dtype.is_complex or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def tolist(self):
        array = self.__gradjit_constant__()
        if array is None:  # traced: 0-d traced Tensors, as a traced array's tolist
            return self if not self.dim() else [row.tolist() for row in self]
        return array.tolist()

    def numpy(self, *, force=False):
        # under no_grad torch lets it through: a custom Function's forward hands its inputs
        # to numpy that way
        if self.requires_grad and is_grad_enabled() and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self._device.type != "cpu" and not force:
            raise TypeError(f"can't convert {self._device} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        if self.dtype in (dtypes.bfloat16, dtypes.complex32) and not force:  # not numpy's
            raise TypeError(f"Got unsupported ScalarType {self.dtype.legacy}")
        return self._concrete()

    def __array__(self, dtype=None, copy=None):
        array = self.detach().numpy(force=True)  # shares the tensor's memory
        if dtype is not None:
            return array.astype(dtype, copy=bool(copy))
        return array.copy(order="K") if copy else array  # np.array(t) asks for a copy

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter([self[i] for i in range(self.shape[0])])

    __hash__ = object.__hash__

    def __repr__(self):
        from gradjit.tensor.printing import tensor_repr
        with no_grad():
            return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec):
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)
