"""The eager hot path: tensor operations whose operands already agree (float32/float64 or
int64 numpy arrays, Python numbers beside them) run as their primitives' numpy evaluation,
skipping promotion and dispatch, which change nothing there. Others take the general path."""
from __future__ import annotations

import threading
import weakref

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir.primitive import ERRORS, IGNORED, ShapeError, quietly
from gradjit.ir.types import TensorType, _asarray, dtype
from gradjit.tensor import dtypes, graph, overlap, saved
from gradjit.tensor.grad_mode import _inference, _state, is_grad_enabled
from gradjit.tensor.graph import Version
from gradjit.tensor.graph import _scopes

_new = object.__new__
_RESULT_CLASS: dict = {}  # tensor class -> the class of its operations' results


def serve(cls, result=None):
    """Let operations on `cls` tensors take the hot path, giving `result` tensors (default:
    cls), the class the general path's dispatch gives them."""
    _RESULT_CLASS[cls] = result or cls


def elementwise(prim, name, a, b, operands):
    """The tensor operation `name` (None: the bare primitive) as the ufunc primitive `prim`
    applied to `a` (and `b` unless it is _NONE), or None where the general path must run.
    It applies where each operand is a CPU tensor over a float32/float64 numpy array of one
    dtype (int64 for `_INTEGER`'s + - * and comparisons, bool for `_LOGICAL`'s; shapes that
    broadcast where an operation is not recorded; a bare primitive takes one shape) or a
    Python number or numpy array beside one, a named operation outside any other. Recorded
    as the general path records it: one Record of `prim` under a grad_fn `name` whose
    operands are `operands` (None: the tensors among a and b; AS_GIVEN: a and b), or, for a
    bare primitive, in the operation in progress."""
    if name is not None and _scopes.active is not None:
        return None  # an operation inside another joins it: the general path names it
    t, other, swapped = a, b, False
    cls = _RESULT_CLASS.get(type(a))
    if cls is None:  # a number or an array first: b decides
        t, other, swapped = b, a, True
        cls = _RESULT_CLASS.get(type(b))
        if cls is None:
            return None
    x = t._value
    if type(x) is not np.ndarray or t._device is not _CPU or \
            (t._saved is not None or t._poison is not None) and _stale(t):
        return None
    dt = x.dtype
    if dt is not _F32 and dt is not _F64 and (dt is not _I64 or prim not in _INTEGER) and \
            (dt is not _BOOL or prim not in _LOGICAL):
        return None
    history = t._edge is not None or t._base is not None
    if b is _NONE:
        args = (x,)
    else:
        if type(other) in _RESULT_CLASS:  # (a tensor's array: the common case, inline)
            y = other._value
            if type(y) is not np.ndarray or y.dtype is not dt or other._device is not _CPU or \
                    (other._saved is not None or other._poison is not None) and _stale(other):
                return None
            history = history or other._edge is not None or other._base is not None
        else:
            y = _agreeing(other, dt)
            if y is None:
                return None
        if y.shape != x.shape and type(y) is np.ndarray and (  # (a number's shape is ())
                name is None or history and _state.enabled):
            return None  # a bare primitive refuses it; the general path records the broadcast
        args = (y, x) if swapped else (x, y)
    expected = _RESULTS.get((prim, dt)) or _result_dtype(prim, dt)
    if expected is None:
        return None
    token = ERRORS.set(IGNORED)  # quietly(), inline
    try:
        out = prim.evaluate(*args)
    except ValueError:  # shapes that do not broadcast: the general path words the error
        return None
    finally:
        ERRORS.reset(token)
    if type(out) is not np.ndarray:  # a 0-d result comes back as a numpy scalar
        out = _asarray(out)
    if out.dtype is not expected:
        out = out.astype(expected)
    result = _new(cls)  # cls._wrap(out), inline
    result._value, result._counter = out, Version()
    if _inference.enabled:
        result._inference = True
    if history and _state.enabled and prim.differentiable and expected.kind == "f":
        _record(prim, name, (a,) if b is _NONE else (a, b), result, operands, x)
    return result


_NONE = object()  # no second operand
AS_GIVEN = object()  # `elementwise`'s operands are a and b (PyTorch wraps a number operand)
_CPU, _F32, _F64, _I64 = dtypes.CPU, np.dtype(np.float32), np.dtype(np.float64), \
    np.dtype(np.int64)
_BOOL = np.dtype(bool)
# The primitives whose int64 results on int64 operands (and ints of its range) are the
# general path's: no promotion to float, no division by zero to refuse.
_INTEGER = {E.add, E.sub, E.mul, E.neg, E.abs_, E.eq, E.ne, E.lt, E.le, E.gt, E.ge}
# The primitives whose bool results on bool operands are the general path's (the masks of
# VJP rules' guards).
_LOGICAL = {E.logical_and, E.logical_or, E.logical_not}


def _agreeing(other, dt):
    """other's numpy array, or other as a number of dtype dt, where it agrees with a tensor
    of dtype dt (a numpy array beside it is taken as it is, as the general path takes it);
    None where it does not."""
    kind = type(other)
    if kind is float:
        return dt.type(other) if dt.kind == "f" else None  # an int tensor: promoted
    if kind is int:  # beyond the range: refused (the general path wraps or raises)
        return dt.type(other) if -2 ** 63 <= other < (2 ** 64 if dt.kind == "f" else 2 ** 63) \
            else None
    if kind is np.ndarray:
        return other if other.dtype is dt else None
    if kind not in _RESULT_CLASS:
        return None
    y = other._value  # (elementwise inlines this case)
    if type(y) is not np.ndarray or y.dtype is not dt or other._device is not _CPU or \
            (other._saved is not None or other._poison is not None) and _stale(other):
        return None
    return y


def _stale(t) -> bool:
    """Whether t is a value unpacked for backward that may no longer be used (the general
    path carries the reason into its result), or computed from one."""
    return t._poison is not None or t._saved is not None and t._problem() is not None


def _record(prim, name, args, result, operands, like, params=None):
    """Put `result` on the tape as the general path does, where an operand requires grad:
    one Record of `prim` {params} under a fresh grad_fn `name` that names `operands`, or, for
    a bare primitive (name None), under the operation in progress or the primitive's own
    grad_fn."""
    edges = [(a._edge if a._base is None else a._grad_edge()) if type(a) in _RESULT_CLASS
             else None for a in args]
    if edges.count(None) == len(edges):
        return
    lifted = [graph.Number(a, like) if type(a) is float or type(a) is int else a for a in args]
    if name is None:  # in the operation in progress, or under the primitive's own grad_fn
        rec = result._edge = graph.record(prim, params or {}, lifted, edges, result)
    else:
        node = graph.Node.named(name)
        rec = result._edge = graph.Record(prim, params or {}, lifted, edges, result, node)
    # float operands and result, as backward will read them unless an unpack hook intervenes
    rec.real = not saved.saved_hooks.stack
    if name is None:
        return
    if operands is None:
        operands = [a for a in args if type(a) in _RESULT_CLASS]
    elif operands is AS_GIVEN:
        operands = args
    node._inputs = tuple([None if getattr(o, "_edge", None) is None else weakref.ref(o._edge)
                          for o in operands])


def unrecorded(t, cut, any_dtype=False, history=False):
    """The result of an operation on the tensor t alone that records nothing, as `cut(array)`
    (numpy on t's array, giving what the operation's primitives give): where t is a CPU
    tensor over a float32/float64 numpy array (`any_dtype`: of any dtype but bfloat16),
    outside any other tensor operation, with grad mode off or no history to extend
    (`history`: an integer result, never recorded). A result that shares t's memory is a
    view of t. None where the general path must run."""
    cls = _RESULT_CLASS.get(type(t))
    if cls is None or graph._scopes.active is not None:
        return None
    x = t._value
    if type(x) is not np.ndarray or t._device is not _CPU or t._saved is not None or \
            t._poison is not None or _state.enabled and not history and (
                t._edge is not None or t._base is not None and t._base._edge is not None):
        return None
    dt = x.dtype
    if not (dt is _F32 or dt is _F64 or any_dtype and dt.metadata is None):
        return None
    out = quietly(cut, x)
    if type(out) is not np.ndarray:  # a 0-d result comes back as a numpy scalar
        out = _asarray(out)
    result = cls._wrap(out)
    if out.base is not None and overlap.same_memory(out, x):
        result._share(t, cut)
    return result


_UFUNC: dict = {}  # primitive -> whether it is an elementwise ufunc `elementwise` can run


def bound(prim, args, params):
    """`prim(*args)` bound to tensors (inside a tensor operation, in backward's VJP rules)
    through `elementwise`; None where it does not apply."""
    if prim is E.where and len(args) == 3 and not params:
        return selected(*args)
    ufunc = _UFUNC.get(prim)
    if ufunc is None:
        ufunc = _UFUNC[prim] = prim.kind == "elementwise" and prim.arity in (1, 2) and \
            isinstance(prim.evaluate, np.ufunc)
    if not ufunc or params:
        return None
    return elementwise(prim, None, args[0], args[1] if len(args) == 2 else _NONE, None)


def selected(cond, a, b):
    """The where primitive bound to tensors (`bound`) as np.where, recorded as the general path
    records it: where cond is a bool array (a CPU tensor's or numpy's) and a and b agree as
    `elementwise` takes operands (a tensor over a float32/float64 array, numbers and arrays
    of its dtype beside it), all of one shape; None otherwise."""
    c = cond
    if type(cond) in _RESULT_CLASS:
        c = cond._value
        if cond._device is not _CPU or cond._saved is not None or cond._poison is not None:
            return None
    t = a if type(a) in _RESULT_CLASS else b if type(b) in _RESULT_CLASS else None
    if type(c) is not np.ndarray or c.dtype is not _BOOL or t is None:
        return None
    x = t._value
    dt = getattr(x, "dtype", None)
    if type(x) is not np.ndarray or not plain_float(dt) or x.shape != c.shape:
        return None
    y, z = _agreeing(a, dt), _agreeing(b, dt)
    if y is None or z is None or type(y) is np.ndarray and y.shape != c.shape or \
            type(z) is np.ndarray and z.shape != c.shape:
        return None
    result = _RESULT_CLASS[type(cond if cond is not c else t)]._wrap(np.where(c, y, z))
    if _state.enabled:
        _record(E.where, None, (cond, a, b), result, None, x)
    return result


_RESULTS: dict = {}  # (prim, operand dtype) -> the result's numpy dtype


def _result_dtype(prim, dt):
    """prim's result dtype on operands of numpy dtype dt, by its shape rule, remembered; None
    where the rule refuses that dtype (the general path words the error with the shapes)."""
    plain = TensorType((), dtype(dt))
    try:
        _RESULTS[prim, dt] = prim.infer(*[plain] * prim.arity).dtype.numpy
    except ShapeError:
        return None
    return _RESULTS[prim, dt]


def direct(prim, name, args, operands):
    """The operation `name` as `prim(*args)`: one primitive, or a composition of them, where
    the operands agree: tensors over numpy arrays of one float32/float64 dtype and one shape,
    Python numbers beside them, outside any other tensor operation. None otherwise (the
    general path runs)."""
    if graph._scopes.active is not None:
        return None
    dt = shape = None
    for a in args:
        if hasattr(a, "_edge"):
            value = a._value
            if type(value) is not np.ndarray:
                return None
            if dt is None:
                dt, shape = value.dtype, value.shape
            elif value.dtype is not dt or value.shape != shape:
                return None
        elif type(a) is not float and (type(a) is not int or not -2 ** 63 <= a < 2 ** 64):
            return None  # an int beyond 64 bits: the general path refuses it
    if not plain_float(dt):
        return None
    return _scoped(prim, name, args, operands if operands is not None else
                   [a for a in args if hasattr(a, "_edge")])


def direct_floats(fn, name, tensors):
    """The operation `name` on `tensors` as the primitives `fn(*tensors)` where they hold
    numpy arrays of one float32/float64 dtype, outside any other tensor operation: matrix
    products (the matmul primitive itself; the array surface's promotion and batch axes would
    change nothing there), fn stating any broadcast itself. None otherwise. The caller
    checked the shapes."""
    if graph._scopes.active is not None:
        return None
    dt = tensors[0]._value.dtype if type(tensors[0]._value) is np.ndarray else None
    if not plain_float(dt) or any(type(t._value) is not np.ndarray or t._value.dtype is not dt
                                  for t in tensors):
        return None
    return _scoped(fn, name, tensors, tensors)


def _scoped(prim, name, args, operands):
    scope = graph.Scope(name)
    with scope:
        out = prim(*args)
    graph.declare_inputs(scope, operands)
    return out


_PLAIN = (_F32, _F64)


def plain_float(dt) -> bool:
    """float32 or float64 itself (bfloat16's storage is float32 with metadata: not this)."""
    return dt is _PLAIN[0] or dt is _PLAIN[1]


# The in-place operations numpy can write into their target itself (a ufunc's out=).
_IN_PLACE = {"add": E.add, "sub": E.sub, "mul": E.mul, "div": E.div}


def write_into(name, target, args, kwargs) -> bool:
    """`target.<name>_(*args)` computed by numpy straight into target's storage, without the
    out-of-place result and its copy, where nothing is recorded (grad mode off, or no
    history on either side) and the operands agree (a tensor of target's float32/float64
    dtype and shape, or a Python number; add_/sub_ with a number alpha: a tensor). False
    where the general path must run."""
    prim = _IN_PLACE.get(name)
    alpha = kwargs.get("alpha") if name in _SCALED and len(kwargs) == 1 else None
    if prim is None or kwargs and (type(alpha) is not float and type(alpha) is not int or
                                   not hasattr(args[0], "_edge")) or len(args) != 1 or \
            graph._scopes.active is not None or not _plain_storage(target) or \
            not target._value.flags.writeable or 0 in target._value.strides or \
            target._inference:  # (which the general path checks)
        return False
    x, other = target._value, args[0]
    if hasattr(other, "_edge"):
        if not _plain_storage(other) or other._value.dtype is not x.dtype or \
                other._value.shape != x.shape:
            return False
        y, history = other._value, other._edge is not None or other._base is not None
    elif type(other) is float or type(other) is int:
        y, history = x.dtype.type(other), False
    else:
        return False
    if is_grad_enabled() and (history or target._edge is not None or target._base is not None):
        return False
    if kwargs:
        quietly(_scaled_into, x, y, -alpha if name == "sub" else alpha)
    else:
        quietly(prim.evaluate, x, y, out=x)
    target._counter.value += 1
    target._view_version = target._counter.value
    return True


_SCALED = ("add", "sub")  # the in-place operations with an alpha


def _scaled_into(x, y, alpha):
    """x += alpha * y rounded as arith._fma rounds add(alpha=): a float32 alpha is taken as
    float32; the product and sum are exact in float64 and rounded to float32 once."""
    if x.dtype is _F32 and type(alpha) is float:
        alpha = float(np.float32(alpha))
    if alpha == 1:
        np.add(y, x, out=x)
    elif alpha == -1:
        np.subtract(x, y, out=x)
    elif x.dtype is _F32:
        _widened_into(x.reshape(1) if x.ndim == 0 else x, y.reshape(1) if y.ndim == 0 else y,
                      alpha)
    else:
        np.add(np.multiply(y, alpha), x, out=x)


class _Scratch(threading.local):
    wide = None  # a float64 block reused by _widened_into


_scratch = _Scratch()
_BLOCK = 32768


def _widened_into(x, y, alpha):
    """x += alpha * y on float32 arrays of one shape (any strides) through float64, a block of
    leading-axis rows at a time in one reused buffer: fresh float64 temporaries the size of a
    large parameter cost more in page faults than the arithmetic (1.3 ms against 0.12 ms on
    100k elements)."""
    row = x[0].size
    rows = max(1, _BLOCK // max(row, 1))
    wide = _scratch.wide
    if wide is None or wide.size < rows * row:
        wide = _scratch.wide = np.empty(max(_BLOCK, rows * row), _F64)
    for start in range(0, len(x), rows):
        xs, ys = x[start:start + rows], y[start:start + rows]
        block = wide[:xs.size].reshape(xs.shape)
        np.multiply(ys, alpha, out=block, dtype=_F64)
        np.add(block, xs, out=block)
        np.copyto(xs, block, casting="same_kind")


def _plain_storage(t) -> bool:
    """A CPU tensor over a float32/float64 numpy array, not a value unpacked for backward."""
    value = t._value
    return type(value) is np.ndarray and plain_float(value.dtype) and \
        t._device is dtypes.CPU and t._saved is None and t._poison is None
