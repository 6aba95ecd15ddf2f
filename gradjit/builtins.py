"""autograd.builtins: tuple, list, dict, isinstance and type. gradjit traces Python's own
containers (a tuple of traced values is a tuple), so these are Python's builtins, but for
isinstance, which counts a traced array as a numpy.ndarray (as autograd counts its boxes)."""
import builtins
from builtins import dict, list, tuple, type  # noqa: F401

import numpy as np

from gradjit.tracer.array_methods import ArrayMethods


def isinstance(obj, classinfo):
    if builtins.isinstance(obj, ArrayMethods) and _names_ndarray(classinfo):
        return True
    return builtins.isinstance(obj, classinfo)


def _names_ndarray(classinfo) -> bool:
    if builtins.isinstance(classinfo, builtins.tuple):
        return any(map(_names_ndarray, classinfo))
    return builtins.isinstance(classinfo, builtins.type) and issubclass(np.ndarray, classinfo)
