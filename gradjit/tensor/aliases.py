"""PyTorch's numpy-compatible keyword names: `axis` for `dim`, `keepdims` for `keepdim` (and
`x`/`a`/`x1` for `input`, `x2` for `other`), accepted wherever the PyTorch name is."""
from __future__ import annotations

import functools
import inspect

_ALIASES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input",
            "x2": "other"}


def accept_numpy_names(fn):
    """`fn`, taking numpy's names for the PyTorch parameters it has (itself if it has none)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn
    renames = {alias: name for alias, name in _ALIASES.items()
               if name in params and alias not in params}
    if not renames:
        return fn

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs:
            for alias in renames.keys() & kwargs.keys():
                kwargs[renames[alias]] = kwargs.pop(alias)
        return fn(*args, **kwargs)
    return call


def accept_numpy_names_in(cls):
    """Every public method of `cls` (and its bases) with PyTorch names takes numpy's too."""
    for name in dir(cls):
        member = inspect.getattr_static(cls, name)
        if not name.startswith("_") and inspect.isfunction(member):
            wrapped = accept_numpy_names(member)
            if wrapped is not member:
                setattr(cls, name, wrapped)
    return cls
