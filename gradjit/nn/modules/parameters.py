"""ParameterList and ParameterDict: Modules that hold Parameters (tensors given to them become
Parameters, other values stay plain attributes), registered under their positions or keys."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

import gradjit
from gradjit.nn.modules.container import _pairs, _position
from gradjit.nn.modules.module import Module
from gradjit.nn.parameter import Parameter


def _parameter(value):
    return Parameter(value) if gradjit.is_tensor(value) and not isinstance(value, Parameter) \
        else value


def _entries(rows) -> str:
    # PyTorch indents each entry by two spaces inside extra_repr, so the module's own indent
    # doubles it; ParameterList names the dtype, ParameterDict the legacy tensor type.
    return "\n".join(f"  ({key}): {_entry(value, kind)}" for key, value, kind in rows)


def _entry(value, kind) -> str:
    if not gradjit.is_tensor(value):
        return f"Object of type: {type(value).__name__}"
    size = "x".join(str(n) for n in value.shape)
    holder = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"{holder} containing: [{kind(value)} of size {size}]"


class ParameterList(Module):
    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)([self[i] for i in range(len(self))[index]])
        return getattr(self, _position(index, len(self)))

    def __setitem__(self, index, value):
        setattr(self, _position(index, len(self)), _parameter(value))

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, values):
        return self.extend(values)

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        if not isinstance(values, Iterable) or gradjit.is_tensor(values):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return _entries((i, v, lambda p: p.dtype) for i, v in enumerate(self))


class ParameterDict(Module):
    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def _attribute(self, key) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not "
                            f"a string (type is '{type(key).__name__}'). Open an issue on "
                            "github if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._attribute(key))

    def __setitem__(self, key, value):
        self._keys[key] = None
        setattr(self, self._attribute(key), _parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._attribute(key))

    def __contains__(self, key):
        return key in self._keys

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other):
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other):
        self.update(other)
        return self

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def keys(self):
        return self._keys.keys()

    def values(self):
        return (self[k] for k in self._keys)

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def clear(self):
        for key in list(self._keys):
            del self[key]

    def update(self, parameters):
        for key, value in _pairs("ParametersDict", parameters):
            self[key] = value

    def extra_repr(self):
        return _entries((k, v, lambda p: f"torch.{p.dtype.legacy}Tensor") for k, v in self.items())
