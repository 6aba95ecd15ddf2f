"""Sequential, ModuleList and ModuleDict: Modules that hold Modules."""
from __future__ import annotations

import operator
import warnings
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from gradjit.nn.modules.module import Module, _indent


def _position(index, length) -> str:
    """The key of a position counted from either end, as the positional containers name
    their members."""
    index = operator.index(index)
    if not -length <= index < length:
        raise IndexError(f"index {index} is out of range")
    return str(index % length)


def _renumber(modules):
    """Keys 0..n-1 again after a deletion (PyTorch renumbers, named members included)."""
    values = list(modules.values())
    modules.clear()
    modules.update((str(i), m) for i, m in enumerate(values))


def _key_at(container, index) -> str:
    return list(container._modules)[int(_position(index, len(container._modules)))]


def _delete(container, index):
    keys = list(container._modules)
    for key in keys[index] if isinstance(index, slice) else [_key_at(container, index)]:
        delattr(container, key)
    _renumber(container._modules)


def _pairs(owner, entries):
    """(key, value) pairs from a mapping (a plain dict's in sorted order where `owner` sorts
    them) or from an iterable of pairs, checked as PyTorch's update checks them."""
    if not isinstance(entries, Iterable):
        raise TypeError(f"{owner}.update should be called with an iterable of key/value "
                        f"pairs, but got {type(entries).__name__}")
    if isinstance(entries, (OrderedDict, Module)) or owner == "ModuleDict" and \
            isinstance(entries, Mapping):
        return list(entries.items())
    if isinstance(entries, Mapping):
        return sorted(entries.items())
    owner = owner.replace("Parameters", "Parameter")
    for j, pair in enumerate(entries := list(entries)):
        if not isinstance(pair, Iterable):
            raise TypeError(f"{owner} update sequence element #{j} should be Iterable; "
                            f"is{type(pair).__name__}")
        if len(pair) != 2:
            raise ValueError(f"{owner} update sequence element #{j} has length {len(pair)}; "
                             "2 is required")
    return [(pair[0], pair[1]) for pair in entries]


def _factor(sequential, other):
    if not isinstance(other, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(sequential)} and "
                        f"{type(other)}")
    if other <= 0:
        raise ValueError(f"Non-positive multiplication factor {other} for {type(sequential)}")
    return other


def _sequential(other):
    if not isinstance(other, Sequential):
        raise ValueError("add operator supports only objects of Sequential class, but "
                         f"{type(other)} is given.")
    return other


class Sequential(Module):
    """Calls its modules in order, each on the output of the one before."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, index):
        items = list(self._modules.items())
        if isinstance(index, slice):
            return type(self)(OrderedDict(items[index]))
        return self._modules[_key_at(self, index)]

    def __setitem__(self, index, module):
        setattr(self, _key_at(self, index), module)

    def __delitem__(self, index):
        _delete(self, index)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def __add__(self, other):
        return Sequential(*self, *_sequential(other))

    def __iadd__(self, other):
        return self.extend(_sequential(other))

    def __mul__(self, other):
        return Sequential(*(list(self) * _factor(self, other)))

    __rmul__ = __mul__

    def __imul__(self, other):
        return self.extend(list(self) * (_factor(self, other) - 1))

    def pop(self, index):
        module = self[index]
        del self[index]
        return module

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        modules = list(self._modules.values())
        modules.insert(index + n if index < 0 else index, module)
        self._modules.clear()
        self._modules.update((str(i), m) for i, m in enumerate(modules))
        return self

    def extend(self, sequential):
        for module in sequential:
            self.append(module)
        return self

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of Modules, registered under their positions."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(list(self._modules.values())[index])
        return self._modules[_position(index, len(self))]

    def __setitem__(self, index, module):
        setattr(self, _position(index, len(self)), module)

    def __delitem__(self, index):
        _delete(self, index)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList([*self, *other])

    def pop(self, index):
        module = self[index]
        del self[index]
        return module

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        self._modules.update((str(i), m) for i, m in enumerate(modules))

    def _child_lines(self):
        """Runs of modules that print alike print once, as `(0-2): 3 x Linear(...)`."""
        lines, texts = [], [repr(m) for m in self._modules.values()]
        start = 0
        while start < len(texts):
            end = start + 1
            while end < len(texts) and texts[end] == texts[start]:
                end += 1
            key = str(start) if end - start == 1 else f"{start}-{end - 1}"
            count = "" if end - start == 1 else f"{end - start} x "
            lines.append(f"({key}): {count}{_indent(texts[start])}")
            start = end
        return lines


class ModuleDict(Module):
    """A dict of Modules, registered under their keys, in insertion order."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def clear(self):
        self._modules.clear()

    def update(self, modules):
        for key, module in _pairs("ModuleDict", modules):
            self[key] = module


class Container(Module):
    """PyTorch's deprecated module holding the modules given as keywords."""

    def __init__(self, **kwargs):
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now "
                      "implemented in `nn.Module`. Subclass that instead.", FutureWarning,
                      stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)
