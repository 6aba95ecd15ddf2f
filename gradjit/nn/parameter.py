"""nn.Parameter: a leaf Tensor that a Module registers as one of its parameters."""
from __future__ import annotations

import functools

import gradjit
from gradjit import Tensor
from gradjit.tensor.hot_path import serve


class Parameter(Tensor):
    """A Tensor over the storage of `data` that requires grad; assigning it to a Module's
    attribute registers it. Operations on it give plain Tensors, as in PyTorch."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = gradjit.empty(0)
        if getattr(data, "_sparse_layout", False):
            return _over_layout(data._layout_class)._wrap(data._value).requires_grad_(
                requires_grad)
        with gradjit.no_grad():
            param = data.detach().as_subclass(cls)
        return param.requires_grad_(requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass

    @classmethod
    def __gradjit_bind__(cls, prim, args, params):
        return Tensor.__gradjit_bind__(prim, args, params)

    def detach(self):
        return super().detach().as_subclass(Tensor)

    @property
    def data(self):
        return Tensor.data.fget(self).as_subclass(Tensor)

    @data.setter
    def data(self, other):
        Tensor.data.fset(self, other)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


@functools.cache
def _over_layout(layout_class):
    """Parameter over a sparse tensor: the layout's operations, Parameter's identity and
    printing; it pickles as Parameter(data)."""
    def __repr__(self):
        return "Parameter containing:\n" + layout_class.__repr__(self)

    def __reduce__(self):
        return Parameter, (self.detach(), self.requires_grad)
    return type("Parameter", (layout_class, Parameter), {
        "__repr__": __repr__, "__str__": __repr__, "__reduce__": __reduce__,
        "__module__": Parameter.__module__, "__qualname__": "Parameter"})


class _BufferMeta(type):
    """isinstance(t, Buffer) holds for any tensor Buffer(...) marked, as in PyTorch, where
    Buffer(...) returns a plain Tensor carrying the mark."""

    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that assigning to a Module's attribute registers as a buffer (persistent:
    whether it goes into the state dict)."""

    def __new__(cls, data=None, *, persistent=True):
        data = gradjit.empty(0) if data is None else data
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent, t._is_buffer = persistent, True
        return t


serve(Parameter, Tensor)  # its operations give plain Tensors
