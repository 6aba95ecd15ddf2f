"""What the command line names: a function as `FILE.py:FUNCTION`, example arguments as a type
(`f32[2,2]`, filled with fixed values) or as a Python expression (`np.arange(4.0)`)."""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np

from gradjit.ir.types import TensorType, dtype as resolve_dtype
from gradjit.ir.verify import check_type

# A dtype name and brackets: meant as a type even when the extents are wrong (f32[-1]).
_TYPE_LIKE = re.compile(r"\s*(bool|[fiu]\d+)\[.*\]\s*\Z")
_SPEC = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\[\s*(\d+(?:\s*,\s*\d+)*)?\s*,?\s*\]\s*\Z")


def example_argument(text: str, position: int = 0):
    """An argument from its command-line text: a type such as `f32[2,2]` or `f64[]` gives an
    array of that type (floats drawn uniformly from [0.5, 1.5) with a seed fixed by the
    position, so dumps repeat exactly and log/sqrt stay defined; integers 0; bools True);
    anything else is evaluated as Python with `np` (numpy) and `gradjit` in scope."""
    found = _SPEC.match(text)
    if not found and _TYPE_LIKE.match(text):
        raise ValueError(f"--arg {text!r}: a type's extents are non-negative integers, as in "
                         "f32[2,3] or f64[] for a scalar")
    if found:
        try:
            dtype = resolve_dtype(found.group(1))
        except TypeError as error:
            raise ValueError(f"--arg {text!r}: {error}") from None
        shape = tuple(int(d) for d in found.group(2).split(",")) if found.group(2) else ()
        problem = check_type(TensorType(shape, dtype))
        if problem:
            raise ValueError(f"--arg {text!r}: {problem}")
        return filled(TensorType(shape, dtype), position)
    import gradjit
    try:
        return eval(text, {"np": np, "numpy": np, "gradjit": gradjit})  # the user's own input
    except Exception as error:
        raise ValueError(f"--arg {text!r} is neither a type such as f32[2,2] nor a Python "
                         f"expression that runs ({type(error).__name__}: {error})") from None


def filled(type: TensorType, seed: int) -> np.ndarray:
    if type.dtype.is_float:
        values = np.random.default_rng(seed).uniform(0.5, 1.5, type.shape)
        return values.astype(type.dtype.numpy)
    if type.dtype.is_bool:
        return np.ones(type.shape, bool)
    return np.zeros(type.shape, type.dtype.numpy)


def load_function(target: str):
    """The function `FUNCTION` (a dotted path is followed) defined by the file in
    `FILE.py:FUNCTION`; the file runs as a module, not as __main__."""
    path_text, sep, name = target.rpartition(":")
    if not sep or not path_text or not name:
        raise ValueError(f"{target!r} should be FILE.py:FUNCTION")
    path = Path(path_text)
    if not path.is_file():
        raise FileNotFoundError(f"{path_text}: no such file")
    module_name = "_gradjit_dump_" + re.sub(r"\W", "_", path.stem)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent.resolve()))  # so the file imports its neighbours
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    found = module
    for part in name.split("."):
        if not hasattr(found, part):
            defined = sorted(n for n, v in vars(module).items()
                             if callable(v) and not n.startswith("_")
                             and getattr(v, "__module__", None) == module_name)
            raise ValueError(f"{path_text} defines no {name!r}; its functions: "
                             f"{', '.join(defined) or 'none'}")
        found = getattr(found, part)
    if not callable(found):
        raise TypeError(f"{target} is a {type(found).__name__}, not a function")
    return found
