"""numpy's array constructors on traced values: `np.array([x, x**2])`, `np.asarray(x)`,
`np.r_[x, 0.0]`, `np.c_[x, y]`.

numpy does not dispatch its constructors to array-likes (NEP 18 leaves them out), so a traced
value inside a list would be converted with `__array__`, which has no value to give. gradjit
therefore puts thin wrappers in their place: while a function is being traced, a (nested)
sequence holding traced values is stacked into a traced array; every other call, and every
call outside a trace, goes to numpy's own constructor unchanged.
"""
from __future__ import annotations

import ast
import dis
import functools
import linecache
import os
import sys
import math

import numpy as np

from gradjit import ops
from gradjit.ops.numpy_api import NotSupported
from gradjit.ops.shaping import concatenate as join  # numpy's concatenate, with its errors
from gradjit.tracer.leaves import is_traced, unwrap
from gradjit.tracer.trace import WHILE_TRACING, Traced, as_array, current_trace

_CONSTRUCTORS = ("array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray")


def holds_traced(obj) -> bool:
    if isinstance(obj, (list, tuple)):
        return any(map(holds_traced, obj))
    return is_traced(obj)


def assemble(obj, dtype=None, ndmin=0):
    """The traced array numpy would build from `obj`: nested sequences are stacked, other
    leaves are constants with numpy's own dtypes (a Python float is float64 here, as in
    `np.array([x, 1.0])`)."""
    out = _stacked(obj)
    if dtype is not None:
        out = ops.astype(out, np.dtype(dtype))
    rank = len(ops.shape_of(out))
    return ops.reshape(out, (1,) * (ndmin - rank) + ops.shape_of(out)) if ndmin > rank else out


def _stacked(obj):
    if isinstance(obj, (list, tuple)):
        if not obj:
            return np.array(obj)
        parts = [_stacked(o) for o in obj]
        shapes = {ops.shape_of(p) for p in parts}
        if len(shapes) > 1:
            raise ValueError("setting an array element with a sequence. The requested array "
                             f"has an inhomogeneous shape: its elements have shapes "
                             f"{sorted(shapes)}")
        return ops.stack(parts)
    return as_array(unwrap(obj)) if is_traced(obj) else np.asarray(obj)


def _constructor(original):
    @functools.wraps(original)
    def construct(obj, dtype=None, *args, ndmin=0, **kwargs):
        if current_trace() is None or not holds_traced(obj):
            if ndmin:
                kwargs["ndmin"] = ndmin
            return original(obj, dtype, *args, **kwargs)
        out = assemble(obj, dtype, ndmin)
        # np.array copies by default: a later write into either must leave the other be
        copies = original.__name__ == "array" and kwargs.get("copy", True) in (
            True, np._CopyMode.ALWAYS)
        return out.copy() if copies and out is unwrap(obj) else out
    return construct


def _asarray_chkfinite(original, a, dtype=None, order=None):
    """The traced value, cast; its finiteness is read from the value (guarded)."""
    a = ops.astype(unwrap(a), np.dtype(dtype)) if dtype is not None else unwrap(a)
    if ops.result_type(a).is_float and not bool(ops.all_(ops.isfinite(a))):
        raise ValueError("array must not contain infs or NaNs")
    return a


def _require(original, a, dtype=None, requirements=None, *, like=None):
    """A traced value has no memory layout to fix, so every requirement holds once the dtype
    is numpy's: numpy itself checks the requirements and picks the dtype on a stand-in."""
    a = unwrap(a)
    stand_in = np.empty((0,) * len(ops.shape_of(a)), ops.result_type(a).numpy)
    return ops.astype(a, original(stand_in, dtype, requirements).dtype)


def _asmatrix(original, data, dtype=None):
    raise NotSupported("np.asmatrix builds an np.matrix, which gradjit does not trace; use 2-d "
                    "arrays and the @ operator")


# numpy functions that convert their argument with numpy's own asarray, out of reach of the
# wrappers of _CONSTRUCTORS: name -> its function on a traced first argument
_CONVERTERS = {"asarray_chkfinite": _asarray_chkfinite, "require": _require,
               "isfortran": lambda original, a: False,  # a traced value has no layout
               "asmatrix": _asmatrix}
NAMES = [f"np.{name}" for name in (*_CONSTRUCTORS, *_CONVERTERS) if name != "asmatrix"] + \
    ["np.r_", "np.c_", "np.full", "np.lib.stride_tricks.as_strided"]


def _full(original):
    """np.full with a traced fill value (numpy copies it in with its own asarray): the value
    broadcast to the shape, in the dtype asked for or its own."""
    @functools.wraps(original)
    def full(shape, fill_value, dtype=None, *args, **kwargs):
        if current_trace() is None or not is_traced(fill_value):
            return original(shape, fill_value, dtype, *args, **kwargs)
        value = unwrap(fill_value)
        if dtype is not None:
            value = ops.astype(value, np.dtype(dtype))
        return ops.broadcast_to(value, tuple(shape) if np.iterable(shape) else (shape,))
    return full


def _as_strided(original, x, shape=None, strides=None, subok=False, writeable=True,
                **options):
    """numpy's strided view of a traced array, whose elements lie in C order: numpy's own
    view of their positions (an int64 array of that shape, strides scaled to its items)
    names the elements to gather; numpy's other options (a bounds check) act on that."""
    x = unwrap(x)
    itemsize = ops.result_type(x).numpy.itemsize
    if strides is not None and any(s % itemsize for s in strides):
        raise NotSupported("np.lib.stride_tricks.as_strided: strides that are not multiples "
                           f"of the itemsize ({itemsize}) read parts of elements")
    scaled = None if strides is None else tuple(s // itemsize * 8 for s in strides)
    positions = np.arange(math.prod(ops.shape_of(x)), dtype=np.int64)
    positions = original(positions.reshape(ops.shape_of(x)), shape, scaled, **options)
    return ops.take(ops.ravel(x), np.array(positions))


# numpy functions whose array arguments are often written as Python sequences of traced
# numbers (np.sum([a, b]), np.max([0.0, x]), np.linalg.norm([x, y]), np.interp(t, xs, [a, b])):
# numpy's dispatch looks at the sequence, not into it, and would convert the numbers.
_SEQUENCE_TAKING = {np: ("sum", "mean", "prod", "max", "min", "amax", "amin", "std", "var",
                         "median", "average", "ptp", "cumsum", "cumprod", "diff", "clip",
                         "cross", "outer", "inner", "kron", "polyval", "interp", "sort",
                         "argmax", "argmin", "all", "any", "round", "nansum", "nanmean",
                         "nanmax", "nanmin", "percentile", "quantile", "trapezoid", "convolve",
                         "vdot", "tensordot", "einsum", "allclose", "isclose", "dot", "reshape",
                         "transpose", "flip", "roll", "tile", "repeat", "squeeze",
                         "expand_dims", "ravel"),
                    np.linalg: ("norm", "det", "inv", "solve")}


class _SequencesAssembled:
    """A numpy function while functions are traced: each argument that is a (nested) sequence
    holding traced values is stacked into a traced array first. It is in numpy's namespace
    only while a trace runs, so numpy is its own everywhere else (pickling, identity), and it
    equals and hashes as the function, so tables keyed by numpy's functions find it."""

    __slots__ = ("original",)

    def __init__(self, original):
        self.original = original

    def __call__(self, *args, **kwargs):
        if current_trace() is None:
            return self.original(*args, **kwargs)
        return self.original(*map(lift_sequence, args),
                             **{k: lift_sequence(v) for k, v in kwargs.items()})

    def __getattr__(self, name):
        return getattr(self.original, name)

    # the class's own would answer first: numpy.ma, imported lazily mid-trace, reads np.clip's
    __doc__ = property(lambda self: self.original.__doc__)

    def __eq__(self, other):
        return other is self.original or isinstance(other, _SequencesAssembled) and \
            other.original is self.original

    def __hash__(self):
        return hash(self.original)


def lift_sequence(value):
    """A list or tuple holding traced values as one traced array; anything else, and a ragged
    sequence (of arrays, which numpy dispatches on itself), as it is."""
    if not (isinstance(value, (list, tuple)) and holds_traced(value)):
        return value
    try:
        return assemble(value)
    except ValueError:
        return value


def numpy_own(value):
    """The numpy function itself, where `value` is the stand-in a trace put in its place."""
    return value.original if isinstance(value, _SequencesAssembled) else value


class _FilledByTheFunction(_SequencesAssembled):
    # numpy's allocating constructor while functions are traced: called by the traced function
    # itself (not by a library it calls), its array is a traced constant, which values computed
    # at run time can be written into (out = np.zeros(n); out[i] = x[i] ** 2), as a numpy array
    # cannot hold them; it reads as its numpy value until one is.

    __slots__ = ()
    __doc__ = _SequencesAssembled.__doc__  # numpy's, as the stand-in's

    def __call__(self, *args, **kwargs):
        out = super().__call__(*args, **kwargs)
        trace = current_trace()
        if trace is None or type(out) is not np.ndarray or out.dtype.kind not in "biuf" or \
                not _by_the_traced_function(sys._getframe(1)):
            return out
        return Traced(trace, trace.lift(out), out, "numpy", False, const=True)


_ALLOCATING = ("zeros", "ones", "empty", "full", "eye", "identity", "zeros_like",
               "ones_like", "empty_like", "full_like")
_NUMPY = os.path.dirname(np.__file__) + os.sep
_GRADJIT = os.path.dirname(sys.modules["gradjit"].__file__) + os.sep
# where the transformations call the function they trace, itself numpy's in jit(polymulx)
_TRACING_CALL = (os.path.join(os.path.dirname(__file__), "api.py"), "_trace")


def _by_the_traced_function(frame) -> bool:
    """Whether the code of `frame` calls the constructor itself and is the user's, or numpy's
    own Python called by the user's code: numpy's Python functions (np.polynomial's legmulx,
    polyder) fill the arrays they allocate with the values they compute, as the user's code
    does, also where a transformation traces numpy's function itself (jit(polymulx)). numpy
    called by gradjit (np.unique, np.pad while it traces) or by another installed library
    wants numpy's arrays, and so does compiled code (numpy's random Generator), which makes
    no frame of its own."""
    if not _calls_a_constructor(frame.f_code, frame.f_lasti):
        return False
    caller = frame
    while caller is not None and caller.f_code.co_filename.startswith(_NUMPY):
        caller = caller.f_back
    name = "" if caller is None else caller.f_code.co_filename
    if name.startswith(_GRADJIT):  # gradjit's own numpy calls (np.pad while x.at[i] traces)
        return caller is not frame and (name, caller.f_code.co_name) == _TRACING_CALL
    return "-packages" + os.sep not in name


@functools.lru_cache(maxsize=1024)
def _calls_a_constructor(code, offset) -> bool:
    """Whether the call expression being run at `offset` of `code` names one of numpy's
    allocating constructors (np.zeros(n), zeros_like(x)), read from its source text."""
    positions = list(code.co_positions())[offset // 2]
    lines = [] if None in positions else \
        [line.encode() for line in linecache.getlines(code.co_filename)[positions[0] - 1:
                                                                         positions[1]]]
    if not lines:  # no source (python -c, a string run by exec): the bytecode names the callee
        return _called_name(code, offset) in _ALLOCATING
    first, last, start, end = positions
    lines[-1] = lines[-1][:end]  # the offsets count UTF-8 bytes
    lines[0] = lines[0][start:]
    try:
        call = ast.parse(b"".join(lines).decode().strip(), mode="eval").body
    except SyntaxError:
        return True
    if not isinstance(call, ast.Call):
        return True
    named = getattr(call.func, "attr", getattr(call.func, "id", None))
    return named in _ALLOCATING


def _called_name(code, offset):
    """The name the call instruction at `offset` loads its callee by (np.zeros(n): 'zeros'),
    or None: the instruction whose pushes reach below the call's arguments, found by undoing
    the stack effects of the instructions before the call."""
    before = [i for i in dis.get_instructions(code) if i.offset < offset]
    call = next((i for i in dis.get_instructions(code) if i.offset == offset), None)
    if call is None or not call.opname.startswith("CALL") or not isinstance(call.arg, int):
        return None
    depth, needed, own = 0, call.arg + 1, True  # the arguments, then the callee (under a
    for k in range(len(before) - 1, -1, -1):  # NULL or self)
        i = before[k]
        own = own and i.opname in ("PRECALL", "KW_NAMES")
        if own:
            continue  # the call's own preparation (Python 3.11), right before it
        if i.opcode in dis.hasjabs or i.opcode in dis.hasjrel:
            return None  # a branch among the arguments: the stack is not a straight line
        depth += dis.stack_effect(i.opcode, i.arg if i.opcode >= dis.HAVE_ARGUMENT else None)
        if depth >= needed:  # the callee's object; attributes read from it name the callee
            while k + 1 < len(before) and before[k + 1].opname in ("LOAD_ATTR", "LOAD_METHOD"):
                k += 1
            name = before[k].argval
            return name if isinstance(name, str) else None
    return None


_STAND_INS: dict = {}  # (namespace, name) -> (numpy's function, its stand-in while tracing)


def _while_tracing(active: bool):
    for (namespace, name), pair in _STAND_INS.items():
        setattr(namespace, name, pair[active])


def _converting(original, traced):
    @functools.wraps(original)
    def convert(a, *args, **kwargs):
        if current_trace() is None or not is_traced(a):
            return original(a, *args, **kwargs)
        return traced(original, a, *args, **kwargs)
    return convert


class _Concatenator:
    """np.r_ and np.c_ on traced operands, in numpy's steps: a first string sets the axis,
    the least number of dimensions and where a short operand's axes go ("0,2,0"); slices
    become ranges; all are cast to the operands' common dtype (Python numbers weakly) and
    joined. numpy's own object serves the other calls."""

    def __init__(self, original, columns: bool):
        self.original, self.columns = original, columns

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        if current_trace() is None or not holds_traced(list(items)):
            return self.original[key]
        axis, ndmin, trans1d = self.original.axis, self.original.ndmin, self.original.trans1d
        if items and isinstance(items[0], str):
            axis, ndmin, trans1d = _directive(items[0], axis, ndmin, trans1d)
            items = items[1:]
        parts, dtypes = [], []
        for item in items:
            if isinstance(item, str):
                raise ValueError("special directives must be the first entry.")
            if type(item) in np.ScalarType:  # weak in the common dtype, as numpy's
                parts.append(np.asarray(item))
                dtypes.append(item)
                continue
            part = _range(item) if isinstance(item, slice) else assemble(item)
            rank = len(ops.shape_of(part))
            part = _at_least(part, ndmin)
            if trans1d != -1 and rank < ndmin:
                part = ops.transpose(part, _moved_axes(rank, ndmin, trans1d))
            parts.append(part)
            dtypes.append(ops.result_type(part).numpy)
        dtype = np.result_type(*dtypes)
        return join([ops.astype(_at_least(p, ndmin), dtype) for p in parts], axis)

    def __len__(self):
        return len(self.original)


def _directive(text, axis, ndmin, trans1d):
    """numpy's first-entry string: "axis", "axis,ndmin" or "axis,ndmin,trans1d"."""
    if text in ("r", "c"):
        raise NotSupported(f"np.r_[{text!r}, ...] builds an np.matrix, which gradjit does not "
                           "trace; use 2-d arrays")
    try:
        numbers = [int(x) for x in text.split(",")]
    except ValueError as error:
        raise ValueError(f"unknown special directive {text!r}" if "," in text else
                         "unknown special directive") from error
    if len(numbers) == 1:
        return numbers[0], ndmin, trans1d
    return numbers[0], numbers[1], numbers[2] if len(numbers) == 3 else trans1d


def _range(item):
    """A slice as numpy's r_ reads it: start:stop:step, or a number of points for a complex
    step (numpy's linspace, stop included)."""
    start = 0 if item.start is None else item.start
    step = 1 if item.step is None else item.step
    if isinstance(step, (complex, np.complexfloating)):
        return np.linspace(start, item.stop, num=int(abs(step)))
    return np.arange(start, item.stop, step)


def _at_least(x, ndmin):
    shape = ops.shape_of(x)
    return ops.reshape(x, (1,) * (ndmin - len(shape)) + shape) if ndmin > len(shape) else x


def _moved_axes(rank, ndmin, trans1d):
    """numpy's placement of a rank-`rank` operand's axes among `ndmin` (trans1d: where its
    first axis goes, the added unit axes around them)."""
    added = ndmin - rank
    at = trans1d + added + 1 if trans1d < 0 else trans1d
    axes = list(range(ndmin))
    return axes[:at] + axes[added:] + axes[at:added]


def install():
    """Put the wrappers in numpy's namespace (once)."""
    if isinstance(np.r_, _Concatenator):
        return
    for name in _CONSTRUCTORS:
        setattr(np, name, _constructor(getattr(np, name)))
    for name, traced in _CONVERTERS.items():
        setattr(np, name, _converting(getattr(np, name), traced))
    np.full = _full(np.full)
    for namespace, names in _SEQUENCE_TAKING.items():
        for name in names:
            f = getattr(namespace, name)
            _STAND_INS[namespace, name] = (f, _SequencesAssembled(f))
    for name in _ALLOCATING:
        f = getattr(np, name)
        _STAND_INS[np, name] = (f, _FilledByTheFunction(f))
    WHILE_TRACING.append(_while_tracing)
    np.lib.stride_tricks.as_strided = _converting(np.lib.stride_tricks.as_strided, _as_strided)
    np.r_, np.c_ = _Concatenator(np.r_, False), _Concatenator(np.c_, True)
