"""ParameterList and ParameterDict: Modules that hold Parameters (tensors given to them become
Parameters), registered under their positions or keys."""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Mapping

import gradjit
from gradjit.nn.modules.module import Module
from gradjit.nn.parameter import Parameter


def _parameter(value):
    if isinstance(value, Parameter):
        return value
    if gradjit.is_tensor(value):
        return Parameter(value)
    raise TypeError(f"cannot assign '{type(value).__name__}' object to a parameter container "
                    "(a Tensor or Parameter required)")


def _entries(rows) -> str:
    # PyTorch indents each entry by two spaces inside extra_repr, so the module's own indent
    # doubles it; ParameterList names the dtype, ParameterDict the legacy tensor type.
    return "\n".join(f"  ({key}): Parameter containing: [{kind} of size {_size(p)}]"
                     for key, p, kind in rows)


def _size(p) -> str:
    return "x".join(str(n) for n in p.shape)


class ParameterList(Module):
    def __init__(self, values=None):
        super().__init__()
        if values is not None:
            self.extend(values)

    def _at(self, index):
        index = operator.index(index)
        if not -len(self) <= index < len(self):
            raise IndexError(f"index {index} is out of range")
        return str(index % len(self))

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(list(self)[index])
        return self._parameters[self._at(index)]

    def __setitem__(self, index, value):
        self._parameters[self._at(index)] = _parameter(value)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def __iadd__(self, values):
        return self.extend(values)

    def append(self, value):
        self.register_parameter(str(len(self)), _parameter(value))
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return _entries((i, p, p.dtype) for i, p in enumerate(self))


class ParameterDict(Module):
    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, value):
        self.register_parameter(key, _parameter(value))

    def __delitem__(self, key):
        del self._parameters[key]

    def __contains__(self, key):
        return key in self._parameters

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def keys(self):
        return self._parameters.keys()

    def values(self):
        return self._parameters.values()

    def items(self):
        return self._parameters.items()

    def get(self, key, default=None):
        return self._parameters.get(key, default)

    def pop(self, key):
        return self._parameters.pop(key)

    def clear(self):
        self._parameters.clear()

    def update(self, parameters):
        """From a mapping (a plain dict's keys in sorted order, an OrderedDict's or another
        ParameterDict's as they are) or from (key, value) pairs."""
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = list(parameters.items())
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = [tuple(pair) for pair in parameters]
        for key, value in pairs:
            self[key] = value

    def extra_repr(self):
        return _entries((k, p, f"torch.{p.dtype.legacy}Tensor") for k, p in self.items())
