"""numpy's API on gradjit values: the ufuncs and functions numpy dispatches to traced values
and Tensors (`__array_ufunc__`, `__array_function__`), each mapped onto gradjit.ops.

Each module of this package holds the names of one area in two tables, UFUNCS (ufunc ->
function of the inputs) and FUNCTIONS (numpy function -> function with numpy's signature);
this module joins them and answers numpy's dispatch.
"""
from __future__ import annotations

import difflib
import inspect
import sys
from functools import partial

import numpy as np

from gradjit.ops.promote import SEMANTICS
from gradjit.ops.numpy_api import (basics, contract, dtypes, emath, fft, indices, integers,
                                   linalg,
                                 polynomials, reductions, sets, shaping, sorting, statistics,
                                 ufunc_call, ufunc_methods, ufuncs, writes)

# title -> the module of that area's names
AREAS = {"Arithmetic, common reductions and shapes": basics,
         "Products, einsum and norms": contract,
         "Shapes and assembly": shaping,
         "Integer arithmetic and bits": integers,
         "Reductions and scans": reductions,
         "Sorting, order statistics and searching": sorting,
         "Set operations": sets,
         "Writing into an array": writes,
         "Elementwise math": ufuncs,
         "Complex-domain math (np.emath)": emath,
         "Linear algebra": linalg,
         "Fourier transforms": fft,
         "Covariance and correlation": statistics,
         "Polynomials, convolution and interpolation": polynomials,
         "Dtypes, predicates and positions": dtypes,
         "Flat indices and index tuples": indices}
UFUNCS = {u: f for area in AREAS.values() for u, f in getattr(area, "UFUNCS", {}).items()}
FUNCTIONS = {u: f for area in AREAS.values() for u, f in getattr(area, "FUNCTIONS", {}).items()}


def numpy_name(func) -> str:
    """The name a user writes for a numpy callable: `np.linalg.eig`, `np.add.reduce`."""
    module = getattr(func, "__module__", None) or "numpy"
    prefix = "np" + module[len("numpy"):] if module.startswith("numpy") else module
    return f"{prefix}.{getattr(func, '__name__', repr(func))}"


class NotSupported(TypeError):
    """A numpy name gradjit does not compute on traced values or Tensors."""


def _suggestions(name: str, known: set[str]) -> str:
    namespace = name.rsplit(".", 1)[0]
    near = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    siblings = sorted(k for k in known if k.rsplit(".", 1)[0] == namespace)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    where = (f"supported in {namespace}: {', '.join(siblings)}" if siblings and namespace != "np"
             else "README.md lists every supported numpy name")
    return f"{hint} ({where})"


# ufunc.reduce and ufunc.accumulate as the numpy functions they equal
_REDUCE = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min,
           np.logical_and: np.all, np.logical_or: np.any}
_ACCUMULATE = {np.add: np.cumsum, np.multiply: np.cumprod}


# the ufunc methods gradjit computes (on Tensors too, so that they keep autograd)
METHODS = ("__call__", "outer", "reduce", "accumulate", "reduceat", "at")


def _reduce_along(ufunc, part, axis, dtype):
    options = {"axis": axis} | ({} if dtype is None else {"dtype": dtype})
    return apply_ufunc(ufunc, "reduce", (part,), options)


def apply_ufunc(ufunc, method, inputs, kwargs):
    fn = UFUNCS.get(ufunc) or ufuncs.scipy_ufuncs().get(ufunc)
    scipy_special = getattr(sys.modules.get("scipy.special"), ufunc.__name__, None) is ufunc
    name = ("scipy.special." if scipy_special else "np.") + ufunc.__name__ + \
        ("" if method == "__call__" else f".{method}")
    if fn is None or method not in METHODS:
        known = {f"scipy.special.{n}" for n in ufuncs.SCIPY} if scipy_special else \
            {f"np.{u.__name__}{m}" for u in UFUNCS
             for m in ("", ".outer", ".reduce", ".accumulate", ".reduceat", ".at")}
        raise NotSupported(f"{name} is not supported on traced values"
                           f"{_suggestions(name, known)}")
    if method == "at":
        return ufunc_methods.at(ufunc, fn, *inputs, **kwargs)
    if method == "reduceat":
        out = kwargs.pop("out", None)
        result = ufunc_methods.reduceat(ufunc, partial(_reduce_along, ufunc), *inputs, **kwargs)
        return result if out is None else writes.into_out(name, out, result)
    if method == "accumulate":
        ufunc_methods.check_accumulate(*inputs, **kwargs)
    if method in ("reduce", "accumulate"):
        equal = (_REDUCE if method == "reduce" else _ACCUMULATE).get(ufunc)
        if kwargs.get("initial", 0) is None:  # no start, not even the identity: the fold's
            equal = None
        if equal is None:  # out= written here, as for numpy's functions
            out = kwargs.pop("out", None)
            result = getattr(ufunc_methods, method)(ufunc, fn, *inputs, **kwargs)
            return result if out is None else writes.into_out(name, out, result)
        return apply_function(equal, inputs, {"axis": 0, **kwargs})
    return ufunc_call.call(ufunc, fn, inputs, kwargs, outer=method == "outer")


def _out_position(func) -> int | None:
    """Where `out` can be given by position (sys.maxsize: by name only); None: no out."""
    try:
        parameters = inspect.signature(func).parameters
    except (TypeError, ValueError):  # a builtin without a signature: no out= here
        return None
    if "out" not in parameters:
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return list(parameters).index("out") if parameters["out"].kind in positional else \
        sys.maxsize


# numpy function -> the position of its `out` parameter, for the functions that have one
# (but einsum and clip, which write out= themselves under their casting= rule, and the
# nan-means and spreads, which refuse an integer out)
_OUT_POSITION = {f: i for f in FUNCTIONS
                 if f not in (np.einsum, np.clip, np.nanmean, np.nanvar, np.nanstd)
                 and (i := _out_position(f)) is not None}


# the functions whose out= takes the result under numpy's rule same_kind (ufunc loops, and
# the functions with a casting= argument, which then decides); the others' out= casts unsafely
# (numpy's ifft2, irfft2 and hfft do not refuse such an out either)
_SAME_KIND_OUT = frozenset({np.concatenate, np.stack, np.fix, np.round, np.around,
                            np.fft.fft, np.fft.ifft, np.fft.fft2, np.fft.fftn, np.fft.ifftn,
                            np.fft.rfft, np.fft.irfft, np.fft.rfft2, np.fft.rfftn,
                            np.fft.irfftn, np.fft.ihfft})


# the functions whose answer may be their argument itself or a view of it; every other
# function gives a new array (np.broadcast_to too: a new read-only view, which the views of
# gradjit.tracer refuse to write)
_GIVES_INPUT = frozenset({
    np.asarray, np.asanyarray, np.ascontiguousarray, np.asfortranarray, np.asarray_chkfinite,
    np.require, np.reshape, np.ravel, np.transpose, np.swapaxes, np.moveaxis, np.rollaxis,
    np.squeeze, np.expand_dims, np.matrix_transpose, np.permute_dims, np.diagonal,
    np.broadcast_arrays, np.atleast_1d, np.atleast_2d, np.atleast_3d, np.split,
    np.array_split, np.hsplit, np.vsplit, np.dsplit, np.unstack, np.flip, np.fliplr, np.flipud,
    np.rot90, np.real, np.imag, np.real_if_close, np.trim_zeros, np.diff})


def apply_function(func, args, kwargs):
    fn = FUNCTIONS.get(func)
    if fn is None:
        name = numpy_name(func)
        known = {numpy_name(f) for f in FUNCTIONS} | {f"np.{u.__name__}" for u in UFUNCS}
        raise NotSupported(f"{name} is not supported on traced values"
                           f"{_suggestions(name, known)}")
    out, args, kwargs = _without_out(func, args, kwargs)
    # a numpy function promotes Tensors as numpy's arrays (int64 with float32 is float64)
    before, SEMANTICS.numpy = SEMANTICS.numpy, True
    try:
        result = fn(*args, **kwargs)
    finally:
        SEMANTICS.numpy = before
    if out is not None:
        casting = kwargs.get("casting", "same_kind") if func in _SAME_KIND_OUT else "unsafe"
        return writes.into_out(func.__name__, out, result, casting)
    gives_input = func in _GIVES_INPUT or kwargs.get("copy") is False or \
        kwargs.get("out") is not None  # (einsum's and clip's out=, written by them)
    return result if gives_input else writes.fresh(result, args)


def _without_out(func, args, kwargs):
    """The `out` array a numpy function was given (by name or position), and its other
    arguments; gradjit computes the result, then writes it into `out` as numpy would."""
    if func not in _OUT_POSITION or kwargs.get("out") is None and \
            len(args) <= _OUT_POSITION[func]:
        return None, args, kwargs
    bound = inspect.signature(func).bind(*args, **kwargs)
    out = bound.arguments.pop("out", None)
    return out, bound.args, bound.kwargs


def surface_table(more: dict[str, list[str]]) -> str:
    """The supported numpy names as a Markdown table, a row per area (the README's); `more`
    adds areas served outside these tables (title -> names)."""
    rows, every = ["| Area | numpy names |", "|---|---|"], set()
    areas = {title: _names(area) for title, area in AREAS.items()} | more
    for title, names in areas.items():
        every |= set(names)
        rows.append(f"| {title} | {', '.join(f'`{n}`' for n in sorted(names))} |")
    return "\n".join(rows) + f"\n\n{len(every)} names in all."


def _names(area) -> set[str]:
    return ({f"np.{u.__name__}" for u in getattr(area, "UFUNCS", {})}
            | {numpy_name(f) for f in getattr(area, "FUNCTIONS", {})})
