"""Sequential, ModuleList and ModuleDict: Modules that hold Modules."""
from __future__ import annotations

import operator
import warnings
from collections import OrderedDict

from gradjit.nn.modules.module import Module, _indent


def _index(index, length):
    index = operator.index(index)
    if not -length <= index < length:
        raise IndexError(f"index {index} is out of range")
    return index % length


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
        return items[_index(index, len(items))][1]

    def __setitem__(self, index, module):
        key = list(self._modules)[_index(index, len(self._modules))]
        setattr(self, key, module)

    def __delitem__(self, index):
        keys = list(self._modules)
        for key in keys[index] if isinstance(index, slice) else [keys[_index(index, len(keys))]]:
            del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
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
        modules = list(self._modules.values())
        if isinstance(index, slice):
            return type(self)(modules[index])
        return modules[_index(index, len(modules))]

    def __setitem__(self, index, module):
        setattr(self, str(_index(index, len(self))), module)

    def __delitem__(self, index):
        modules = list(self._modules.values())
        del modules[index]
        self._modules.clear()
        self.extend(modules)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return type(self)([*self, *other])

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        self.extend(modules)

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
        return self._modules.pop(key)

    def clear(self):
        self._modules.clear()

    def update(self, modules):
        pairs = modules.items() if hasattr(modules, "items") else modules
        for key, module in pairs:
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
